/* 1 if x is Inf or NaN (its exponent bits all set), else 0.  Update loops
 * OR this over a state: an integer OR has no latency chain to speak of,
 * where summing x * 0.0 (NaN exactly for Inf and NaN) put a floating-point
 * add's latency on every parameter of every step.  Used by the kernels'
 * update loops (kernel.h, sg_update_impl.h). */
#ifndef BNNMC_NONFINITE_H
#define BNNMC_NONFINITE_H
#include <stdint.h>
#include <string.h>

static inline uint64_t bnn_nonfinite(double x) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  return (b & 0x7ff0000000000000ULL) == 0x7ff0000000000000ULL;
}
#endif

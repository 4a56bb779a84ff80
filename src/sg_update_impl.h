/* The position and momentum updates of the stochastic-gradient kernels
 * (sgld.c, sghmc.c), included by the kernel files with KSUF defined so that
 * they are vectorised for each instruction set.  Floating-point contraction
 * is switched off for them: each update is the same sequence of correctly
 * rounded multiplies and adds as the scalar loop it replaced, so the draws
 * do not depend on the instruction set.  Each returns 1 if any updated
 * value is Inf or NaN (its exponent bits all set), else 0. */
#include <stdint.h>
#include <string.h>

/* GCC: a pragma, not an optimize attribute, so that these functions keep
 * the kernel file's other options (O3, its target) and inline each other */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif

static inline uint64_t KSUF(nonfinite)(double x) {
  uint64_t b;
  memcpy(&b, &x, sizeof b);
  return (b & 0x7ff0000000000000ULL) == 0x7ff0000000000000ULL;
}

/* SGLD: q[j] += a g[j] + b z[j] */
static int KSUF(sgld_update)(double *restrict q,
                                             const double *restrict g,
                                             const double *restrict z,
                                             double a, double b, int n) {
#if defined(__clang__)
#pragma clang fp contract(off)
#endif
  uint64_t bad = 0;
  for (int j = 0; j < n; j++) {
    q[j] += a * g[j] + b * z[j];
    bad |= KSUF(nonfinite)(q[j]);
  }
  return bad != 0;
}

/* SGHMC: w[j] += v[j]; v[j] = c v[j] + a g[j] + b z[j] */
static int KSUF(sghmc_update)(double *restrict w,
                                              double *restrict v,
                                              const double *restrict g,
                                              const double *restrict z,
                                              double c, double a, double b,
                                              int n) {
#if defined(__clang__)
#pragma clang fp contract(off)
#endif
  uint64_t bad = 0;
  for (int j = 0; j < n; j++) {
    w[j] += v[j];
    v[j] = c * v[j] + a * g[j] + b * z[j];
    bad |= KSUF(nonfinite)(w[j]) | KSUF(nonfinite)(v[j]);
  }
  return bad != 0;
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

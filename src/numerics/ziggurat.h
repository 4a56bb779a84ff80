/* Fast standard normal deviates by the ziggurat method (Marsaglia and Tsang
 * 2000) in Doornik's (2005) 128-layer form, from a chain's own bnn_rng.
 * About one 64-bit draw per deviate (53 bits for the abscissa, 7 other
 * bits for the layer), against two uniforms, a log and a sqrt per pair for
 * the polar method of bnn_rng_norm: the stochastic-gradient kernels draw
 * one deviate per parameter per step.  The tables are computed once per
 * kernel (no global state). */
#ifndef BNNMC_ZIGGURAT_H
#define BNNMC_ZIGGURAT_H
#include <math.h>
#include "rng.h"

#define BNN_ZIG_C 128

typedef struct {
  double x[BNN_ZIG_C + 1];   /* layer abscissae, x[1] = R, x[C] = 0 */
  double r[BNN_ZIG_C];       /* x[i + 1] / x[i]: the fast-path bound */
} bnn_zig;

void bnn_zig_init(bnn_zig *z);
double bnn_zig_norm_slow(bnn_rng *rng, const bnn_zig *z, double u, int i);
/* n deviates of bnn_zig_norm, the same ones, faster (ziggurat.c) */
void bnn_zig_fill(bnn_rng *rng, const bnn_zig *z, double *out, int n);

static inline double bnn_zig_norm(bnn_rng *rng, const bnn_zig *z) {
  uint64_t b = bnn_rng_next(rng);
  double u = 2.0 * (((double)(b >> 11) + 0.5) * 0x1.0p-53) - 1.0;
  int i = (int)(b & (BNN_ZIG_C - 1));
  if (fabs(u) < z->r[i]) return u * z->x[i];
  return bnn_zig_norm_slow(rng, z, u, i);
}
#endif

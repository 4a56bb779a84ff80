/* The ziggurat's tables and its slow paths (see ziggurat.h). */
#include <math.h>
#include "ziggurat.h"

#define ZIG_R 3.442619855899           /* start of the tail */
#define ZIG_V 9.91256303526217e-3      /* area of each layer */

void bnn_zig_init(bnn_zig *z) {
  double f = exp(-0.5 * ZIG_R * ZIG_R);
  z->x[0] = ZIG_V / f;   /* the base layer's pseudo-width (with the tail) */
  z->x[1] = ZIG_R;
  z->x[BNN_ZIG_C] = 0.0;
  for (int i = 2; i < BNN_ZIG_C; i++) {
    z->x[i] = sqrt(-2.0 * log(ZIG_V / z->x[i - 1] + f));
    f = exp(-0.5 * z->x[i] * z->x[i]);
  }
  for (int i = 0; i < BNN_ZIG_C; i++) z->r[i] = z->x[i + 1] / z->x[i];
}

/* Rejected by the fast path: the tail (layer 0) or the wedge of layer i;
 * u in (-1, 1) was the first abscissa draw. */
double bnn_zig_norm_slow(bnn_rng *rng, const bnn_zig *z, double u, int i) {
  for (;;) {
    if (i == 0) {   /* Marsaglia's tail beyond R */
      double x, y;
      do {
        x = log(bnn_rng_unif(rng)) / ZIG_R;
        y = log(bnn_rng_unif(rng));
      } while (-2.0 * y < x * x);
      return u < 0 ? x - ZIG_R : ZIG_R - x;
    }
    double x = u * z->x[i];
    double f0 = exp(-0.5 * (z->x[i] * z->x[i] - x * x));
    double f1 = exp(-0.5 * (z->x[i + 1] * z->x[i + 1] - x * x));
    if (f1 + bnn_rng_unif(rng) * (f0 - f1) < 1.0) return x;
    /* a fresh draw */
    uint64_t b = bnn_rng_next(rng);
    u = 2.0 * (((double)(b >> 11) + 0.5) * 0x1.0p-53) - 1.0;
    i = (int)(b & (BNN_ZIG_C - 1));
    if (fabs(u) < z->r[i]) return u * z->x[i];
  }
}

/* bnn_zig_norm n times into out, the same deviates from the same draws in
 * the same order, with the generator's state held in local variables (not
 * address-taken, so they stay in registers) on the fast path: through a
 * pointer, every draw stored and reloaded the state, and that store-to-load
 * chain, not the arithmetic, set the speed of a stochastic-gradient step.
 * The rare slow path (about 3% of the deviates) hands the state back to
 * the generator and runs bnn_zig_norm_slow itself. */
void bnn_zig_fill(bnn_rng *rng, const bnn_zig *z, double *out, int n) {
  uint64_t s0 = rng->s[0], s1 = rng->s[1], s2 = rng->s[2], s3 = rng->s[3];
  const double *zx = z->x, *zr = z->r;
  for (int j = 0; j < n; j++) {
    uint64_t b = bnn_rng_rotl(s0 + s3, 23) + s0, t = s1 << 17;
    s2 ^= s0;
    s3 ^= s1;
    s1 ^= s2;
    s0 ^= s3;
    s2 ^= t;
    s3 = bnn_rng_rotl(s3, 45);
    double u = 2.0 * (((double)(b >> 11) + 0.5) * 0x1.0p-53) - 1.0;
    int i = (int)(b & (BNN_ZIG_C - 1));
    if (fabs(u) < zr[i]) {
      out[j] = u * zx[i];
      continue;
    }
    rng->s[0] = s0;
    rng->s[1] = s1;
    rng->s[2] = s2;
    rng->s[3] = s3;
    out[j] = bnn_zig_norm_slow(rng, z, u, i);
    s0 = rng->s[0];
    s1 = rng->s[1];
    s2 = rng->s[2];
    s3 = rng->s[3];
  }
  rng->s[0] = s0;
  rng->s[1] = s1;
  rng->s[2] = s2;
  rng->s[3] = s3;
}

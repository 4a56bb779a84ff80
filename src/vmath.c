#include <math.h>
#include <stdint.h>
#include <string.h>
#include "vmath.h"

/* exp(x) by range reduction x = k ln2 + r, |r| <= ln2/2, and the Taylor
 * polynomial of degree 13 for exp(r) (truncation error < 2e-17 relative).
 * 2^k is assembled from its bits.  Inputs are clamped to [-708, 709] so the
 * bit trick cannot overflow; exp(-708) ~ 3e-308 stands in for underflow. */
static inline double exp_kernel(double x) {
  const double log2e = 1.4426950408889634074;
  const double ln2_hi = 6.93147180369123816490e-01;
  const double ln2_lo = 1.90821492927058770002e-10;
  const double shifter = 6755399441055744.0; /* 1.5 * 2^52 */
  x = x < -708.0 ? -708.0 : x;
  x = x > 709.0 ? 709.0 : x;
  double t = x * log2e + shifter;
  double k = t - shifter;
  double r = (x - k * ln2_hi) - k * ln2_lo;
  double p = 1.0 / 6227020800.0;
  p = p * r + 1.0 / 479001600.0;
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 0.5;
  p = p * r + 1.0;
  p = p * r + 1.0;
  int64_t ki = (int64_t)k;
  uint64_t bits = (uint64_t)(ki + 1023) << 52;
  double scale;
  memcpy(&scale, &bits, sizeof scale);
  return p * scale;
}

double bnn_exp1(double x) { return exp_kernel(x); }

void bnn_vexp(const double *x, double *out, int n) {
  for (int i = 0; i < n; i++) out[i] = exp_kernel(x[i]);
}

/* tanh(x) = sign(x) (1 - e) / (1 + e) with e = exp(-2|x|) in (0, 1]. */
void bnn_vtanh(const double *x, double *out, int n) {
  for (int i = 0; i < n; i++) {
    double ax = fabs(x[i]);
    double e = exp_kernel(-2.0 * ax);
    double t = (1.0 - e) / (1.0 + e);
    out[i] = copysign(t, x[i]);
  }
}

/* logistic sigmoid, stable for both signs */
void bnn_vsigmoid(const double *x, double *out, int n) {
  for (int i = 0; i < n; i++) {
    double e = exp_kernel(-fabs(x[i]));
    double num = x[i] >= 0 ? 1.0 : e;
    out[i] = num / (1.0 + e);
  }
}

/* Energy-distance MMD and IMQ kernelized Stein discrepancy (see
 * discrepancy.h).  Plain loops over pairs of draws with four partial sums
 * per reduction, so that the compiler can keep them in registers. */
#include <math.h>
#include <stddef.h>
#include "discrepancy.h"

double bnn_dist(const double *x, const double *y, int d) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  int k = 0;
  for (; k + 4 <= d; k += 4) {
    double r0 = x[k] - y[k], r1 = x[k + 1] - y[k + 1];
    double r2 = x[k + 2] - y[k + 2], r3 = x[k + 3] - y[k + 3];
    s0 += r0 * r0;
    s1 += r1 * r1;
    s2 += r2 * r2;
    s3 += r3 * r3;
  }
  for (; k < d; k++) {
    double r = x[k] - y[k];
    s0 += r * r;
  }
  return sqrt((s0 + s1) + (s2 + s3));
}

double bnn_dist_sum_cross(const double *X, const double *Y, int m, int d,
                          int a0, int a1) {
  double tot = 0.0;
  for (int a = a0; a < a1; a++) {
    const double *x = X + (size_t)a * d;
    double row = 0.0;
    for (int b = 0; b < m; b++) row += bnn_dist(x, Y + (size_t)b * d, d);
    tot += row;
  }
  return tot;
}

double bnn_dist_sum_within(const double *X, int n, int d, int a0, int a1) {
  double tot = 0.0;
  for (int a = a0; a < a1; a++) {
    const double *x = X + (size_t)a * d;
    double row = 0.0;
    for (int b = a + 1; b < n; b++) row += bnn_dist(x, X + (size_t)b * d, d);
    tot += row;
  }
  return tot;
}

double bnn_stein_imq(const double *w, const double *s, const double *w2,
                     const double *s2, int d, double ell) {
  double r2 = 0.0, sr = 0.0, ss = 0.0;
  for (int k = 0; k < d; k++) {
    double r = w[k] - w2[k];
    r2 += r * r;
    sr += (s[k] - s2[k]) * r;
    ss += s[k] * s2[k];
  }
  double l2 = ell * ell;
  double u = 1.0 + r2 / l2;
  double u12 = 1.0 / sqrt(u);           /* u^-1/2 */
  double u32 = u12 / u;                 /* u^-3/2 */
  double u52 = u32 / u;                 /* u^-5/2 */
  return (double)d / l2 * u32 - 3.0 * r2 / (l2 * l2) * u52 + u32 * sr / l2 +
         u12 * ss;
}

static void stein_imq_parts(const double *w, const double *s, const double *w2,
                            const double *s2, int d, double ell, double *p) {
  double r2 = 0.0, sr = 0.0, ss = 0.0;
  for (int k = 0; k < d; k++) {
    double r = w[k] - w2[k];
    r2 += r * r;
    sr += (s[k] - s2[k]) * r;
    ss += s[k] * s2[k];
  }
  double l2 = ell * ell;
  double u = 1.0 + r2 / l2;
  double u12 = 1.0 / sqrt(u);
  double u32 = u12 / u;
  double u52 = u32 / u;
  p[0] = (double)d / l2 * u32 - 3.0 * r2 / (l2 * l2) * u52;
  p[1] = u32 * sr / l2;
  p[2] = u12 * ss;
}

void bnn_ksd_sum_rows_parts(const double *W, const double *S, int n, int d,
                            double ell, int a0, int a1, double *part) {
  double p[3];
  for (int a = a0; a < a1; a++) {
    const double *w = W + (size_t)a * d, *s = S + (size_t)a * d;
    double row[3] = {0.0, 0.0, 0.0};
    for (int b = a + 1; b < n; b++) {
      stein_imq_parts(w, s, W + (size_t)b * d, S + (size_t)b * d, d, ell, p);
      for (int j = 0; j < 3; j++) row[j] += p[j];
    }
    stein_imq_parts(w, s, w, s, d, ell, p);
    for (int j = 0; j < 3; j++) part[j] += p[j] + 2.0 * row[j];
  }
}

double bnn_ksd_sum_rows(const double *W, const double *S, int n, int d,
                        double ell, int a0, int a1) {
  double tot = 0.0;
  for (int a = a0; a < a1; a++) {
    const double *w = W + (size_t)a * d, *s = S + (size_t)a * d;
    double row = 0.0;
    for (int b = a + 1; b < n; b++)
      row += bnn_stein_imq(w, s, W + (size_t)b * d, S + (size_t)b * d, d, ell);
    tot += bnn_stein_imq(w, s, w, s, d, ell) + 2.0 * row;
  }
  return tot;
}

/* Numerical helpers of the convergence diagnostics that follow R's
 * arithmetic, the scan of a variable for NaN/Inf and the column
 * statistics of a matrix [n, m]; see diag_stats.h.  (Used by
 * diagnostics.c, ranks.c, rhat.c and ess.c; uses none of them.) */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "diag_stats.h"

/* ---------- small numerical helpers following R ---------- */

/* R's mean(): long double sum, then a correction pass. */
double diag_r_mean(const double *x, int n) {
  long double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i];
  if (isfinite((double) s)) {
    s /= n;
  } else {
    long double t = 0.0;
    for (int i = 0; i < n; i++) t += x[i] / n;
    s = t;
  }
  if (isfinite((double) s)) {
    long double t = 0.0;
    for (int i = 0; i < n; i++) t += (x[i] - s);
    s += t / n;
  }
  return (double) s;
}

/* R's var() of a vector (cov.c): long double mean with a correction pass,
 * rounded to double, then long double sum of squared deviations / (n - 1). */
double diag_r_var(const double *x, int n) {
  if (n < 2) return NAN;
  long double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i];
  long double m = s / n;
  if (isfinite((double) m)) {
    s = 0.0;
    for (int i = 0; i < n; i++) s += (x[i] - m);
    m = m + s / n;
  }
  long double xm = (double) m;
  long double ss = 0.0;
  for (int i = 0; i < n; i++) ss += (x[i] - xm) * (x[i] - xm);
  return (double) (ss / (n - 1));
}

/* Type-7 quantile of a sorted vector, computed as stats::quantile(). */
double diag_quantile7(const double *s, int n, double prob) {
  if (n < 1) return NAN;
  if (prob < 0) prob = 0;
  if (prob > 1) prob = 1;
  double index = 1 + (n - 1) * prob;
  double lo = floor(index), hi = ceil(index);
  double qs = s[(int) lo - 1];
  double xh = s[(int) hi - 1];
  if (index > lo && xh != qs) {
    double hh = index - lo;
    qs = (1 - hh) * qs + hh * xh;
  }
  return qs;
}

void diag_scan(bnn_diag_ws *ws) {
  if (ws->st & ST_SCAN) return;
  int has_nan = 0, has_inf = 0, split_nan = 0, N = ws->n_iter, h = ws->h;
  int r0 = ws->r0;
  for (int c = 0; c < ws->n_chain; c++) {
    int cn = 0;
    const double *xc = ws->x + (size_t) N * c;
    for (int i = 0; i < N; i++) {
      double v = xc[i];
      if (isnan(v)) {
        has_nan = 1;
        if (i >= r0) cn = 1;
        if (i < h || i >= N - h) split_nan = 1;
      } else if (isinf(v)) {
        has_inf = 1;
      }
    }
    ws->chain_nan[c] = cn;
  }
  ws->has_nan = has_nan;
  ws->split_nan = split_nan;
  ws->has_inf = has_inf;
  ws->st |= ST_SCAN;
}

/* ---------- column statistics of a matrix [n, m] ---------- */

/* Columns are processed four at a time (the last group repeats a column):
 * each column's sums keep R's sequential order, so the results are those of
 * R, while the independent sums of different columns overlap in the
 * pipeline. */
#define COL_GROUP(cols, m, j, c)                                              \
  const double *c[4];                                                         \
  for (int q_ = 0; q_ < 4; q_++) c[q_] = (cols)[(j) + q_ < (m) ? (j) + q_ : (j)];

/* dmean: matrixStats::colMeans2 (double sum / n); rmean (may be NULL): R's
 * mean() of each column (long double sum, then a correction pass). */
void diag_col_means(const double *const *cols, int n, int m, double *dmean,
                      double *rmean) {
  for (int j = 0; j < m; j += 4) {
    COL_GROUP(cols, m, j, c);
    long double l0 = 0, l1 = 0, l2 = 0, l3 = 0;
    double d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    for (int i = 0; i < n; i++) {
      double v0 = c[0][i], v1 = c[1][i], v2 = c[2][i], v3 = c[3][i];
      d0 += v0;
      d1 += v1;
      d2 += v2;
      d3 += v3;
      if (rmean) {
        l0 += v0;
        l1 += v1;
        l2 += v2;
        l3 += v3;
      }
    }
    double D[4] = {d0, d1, d2, d3};
    int g = m - j < 4 ? m - j : 4;
    for (int q = 0; q < g; q++) dmean[j + q] = D[q] / n;
    if (!rmean) continue;
    long double s0 = l0 / n, s1 = l1 / n, s2 = l2 / n, s3 = l3 / n;
    long double t0 = 0, t1 = 0, t2 = 0, t3 = 0;
    for (int i = 0; i < n; i++) {
      t0 += (c[0][i] - s0);
      t1 += (c[1][i] - s1);
      t2 += (c[2][i] - s2);
      t3 += (c[3][i] - s3);
    }
    long double S[4] = {s0, s1, s2, s3}, T[4] = {t0, t1, t2, t3};
    for (int q = 0; q < g; q++)
      rmean[j + q] = isfinite((double) S[q]) ? (double) (S[q] + T[q] / n) : (double) S[q];
  }
}

/* cv: matrixStats::colVars(y, center = cm) = base::colMeans((y - cm)^2) *
 * (n / (n - 1)).  R sums the squares in long double; a double sum in four
 * lanes differs by rounding only (relative ~1e-16), also for columns that
 * are constant up to the last bit of cm. */
void diag_col_vars(const double *const *cols, int n, int m, const double *cm,
                     double *cv) {
  for (int j = 0; j < m; j++) {
    const double *yj = cols[j];
    double mu = cm[j], s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int i = 0;
    for (; i + 4 <= n; i += 4) {
      double e0 = yj[i] - mu, e1 = yj[i + 1] - mu, e2 = yj[i + 2] - mu, e3 = yj[i + 3] - mu;
      s0 += e0 * e0;
      s1 += e1 * e1;
      s2 += e2 * e2;
      s3 += e3 * e3;
    }
    for (; i < n; i++) s0 += (yj[i] - mu) * (yj[i] - mu);
    cv[j] = n > 1 ? (((s0 + s1) + (s2 + s3)) / n) * ((double) n / (n - 1)) : NAN;
  }
}

/* Column means and variances (denominator n - 1) of m columns of n values.
 * A constant column gets matrixStats' values, colMeans2 as a sequential
 * double sum and colVars(center = ) from it, so that chains constant within
 * a half give posterior's (nearly infinite) R-hat; otherwise the moments
 * differ from R's by rounding only. */
void diag_acc_moments(const double *K, const double *s1, const double *s2, int n, int m,
                        double *cm, double *cv) {
  for (int j = 0; j < m; j++) {
    if (s2[j] == 0) {
      double sum = 0.0;
      for (int i = 0; i < n; i++) sum += K[j];
      double mu = sum / n, d = K[j] - mu;
      cm[j] = mu;
      cv[j] = (d * d) * ((double) n / (n - 1));
    } else {
      cm[j] = K[j] + s1[j] / n;
      cv[j] = (s2[j] - s1[j] * (s1[j] / n)) / (n - 1);
    }
  }
}

/* 1 if the m columns of n values have non-finite values or
 * abs(max - min) < eps (posterior's should_return_NA) */
int diag_should_na_cols(const double *const *cols, int n, int m, double *range) {
  if (n == 0 || m == 0) return 1;
  double lo = cols[0][0], hi = lo;
  for (int j = 0; j < m; j++) {
    const double *y = cols[j];
    for (int i = 0; i < n; i++) {
      double v = y[i];
      if (!isfinite(v)) return 1;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  if (range) { /* spread relative to the magnitude */
    double mag = fabs(lo) > fabs(hi) ? fabs(lo) : fabs(hi);
    *range = (hi - lo) / mag;
  }
  return fabs(hi - lo) < DBL_EPSILON;
}

/* .Call entry points for the sample discrepancies (discrepancy.c): mean
 * pairwise distances between sets of draws (the energy-distance MMD is
 * formed from them in R) and the IMQ kernelized Stein discrepancy.  The
 * O(n^2 d) loops run in blocks of rows with an interrupt check between
 * blocks. */
#include <math.h>
#include <stdio.h>
#include "api_util.h"
#include "discrepancy.h"

#define DISC_BLOCK 16

static void check_draws(SEXP x, const char *what, int d_expect, int *d, int *n) {
  if (TYPEOF(x) != REALSXP || !Rf_isMatrix(x))
    Rf_error("'%s' must be a double matrix (dimensions x draws)", what);
  *d = Rf_nrows(x);
  *n = Rf_ncols(x);
  if (*n < 1 || *d < 1) Rf_error("'%s' must have at least one draw and one dimension", what);
  if (d_expect > 0 && *d != d_expect)
    Rf_error("'%s' has %d dimensions, expected %d", what, *d, d_expect);
  const double *v = REAL(x);
  R_xlen_t len = (R_xlen_t)(*d) * (*n);
  for (R_xlen_t k = 0; k < len; k++)
    if (!R_FINITE(v[k])) Rf_error("'%s' must be finite (no NA, NaN or Inf)", what);
}

/* sets: a list of K double matrices d x n_k (one draw per column).
 * Returns the K x K matrix D with D[i, j] = mean over all n_i * n_j pairs of
 * ||x_a - y_b|| (the diagonal includes the zero pairs a = b, as the
 * V-statistic does). */
SEXP C_mean_dist(SEXP sets) {
  if (TYPEOF(sets) != VECSXP || XLENGTH(sets) < 1)
    Rf_error("'sets' must be a non-empty list of matrices");
  int K = (int)XLENGTH(sets), d = 0;
  int *n = (int *)R_alloc((size_t)K, sizeof(int));
  for (int i = 0; i < K; i++) {
    int di;
    char what[32];
    snprintf(what, sizeof what, "sets[[%d]]", i + 1);
    check_draws(VECTOR_ELT(sets, i), what, i ? d : 0, &di, n + i);
    d = di;
  }
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, K, K));
  double *D = REAL(out);
  for (int i = 0; i < K; i++) {
    const double *X = REAL(VECTOR_ELT(sets, i));
    for (int j = i; j < K; j++) {
      const double *Y = REAL(VECTOR_ELT(sets, j));
      double tot = 0.0;
      for (int a0 = 0; a0 < n[i]; a0 += DISC_BLOCK) {
        int a1 = a0 + DISC_BLOCK < n[i] ? a0 + DISC_BLOCK : n[i];
        tot += (i == j) ? 2.0 * bnn_dist_sum_within(X, n[i], d, a0, a1)
                        : bnn_dist_sum_cross(X, Y, n[j], d, a0, a1);
        R_CheckUserInterrupt();
      }
      double v = tot / ((double)n[i] * (double)n[j]);
      D[i + (size_t)j * K] = v;
      D[j + (size_t)i * K] = v;
    }
  }
  UNPROTECT(1);
  return out;
}

/* W, S: double matrices d x n (draws and their scores, one per column);
 * ell: the IMQ lengthscale.  Returns sum_{a, b} k_p(W_a, W_b). */
SEXP C_ksd(SEXP W, SEXP S, SEXP ell, SEXP parts) {
  int d, n, d2, n2;
  check_draws(W, "draws", 0, &d, &n);
  check_draws(S, "score", d, &d2, &n2);
  if (n2 != n) Rf_error("'score' must have one column per draw (%d)", n);
  double l = Rf_asReal(ell);
  if (!(l > 0.0) || !R_FINITE(l)) Rf_error("'lengthscale' must be positive and finite");
  if (Rf_asLogical(parts) == 1) {
    /* the three parts (discrepancy.h), for rescaled draws and scores */
    SEXP out = PROTECT(Rf_allocVector(REALSXP, 3));
    double *P = REAL(out);
    P[0] = P[1] = P[2] = 0.0;
    for (int a0 = 0; a0 < n; a0 += DISC_BLOCK) {
      int a1 = a0 + DISC_BLOCK < n ? a0 + DISC_BLOCK : n;
      bnn_ksd_sum_rows_parts(REAL(W), REAL(S), n, d, l, a0, a1, P);
      R_CheckUserInterrupt();
    }
    UNPROTECT(1);
    return out;
  }
  double tot = 0.0;
  for (int a0 = 0; a0 < n; a0 += DISC_BLOCK) {
    int a1 = a0 + DISC_BLOCK < n ? a0 + DISC_BLOCK : n;
    tot += bnn_ksd_sum_rows(REAL(W), REAL(S), n, d, l, a0, a1);
    R_CheckUserInterrupt();
  }
  return Rf_ScalarReal(tot);
}

/* .Call entry points for the predictive metrics (metrics.c).  Argument
 * checking that needs R (types, dimensions) happens here; values (finite mu,
 * positive sd, sorted probabilities) are checked by the R wrappers, and
 * re-checked here where a bad value would make the C core misbehave. */
#include <math.h>
#include "api_util.h"
#include "metrics.h"

/* mu and sd: double matrices S x n of identical dimensions. */
static void check_mu_sd(SEXP mu, SEXP sd, int *S, int *n) {
  if (TYPEOF(mu) != REALSXP || !Rf_isMatrix(mu))
    Rf_error("'mu' must be a double matrix (draws x observations)");
  if (TYPEOF(sd) != REALSXP || !Rf_isMatrix(sd))
    Rf_error("'sd' must be a double matrix (draws x observations)");
  *S = Rf_nrows(mu);
  *n = Rf_ncols(mu);
  if (Rf_nrows(sd) != *S || Rf_ncols(sd) != *n)
    Rf_error("'sd' must have the same dimensions as 'mu' (%d x %d)", *S, *n);
  if (*S < 1) Rf_error("'mu' must have at least one row (draw)");
  const double *s = REAL(sd);
  R_xlen_t len = (R_xlen_t)(*S) * (*n);
  for (R_xlen_t k = 0; k < len; k++)
    if (!(s[k] > 0.0) || !R_FINITE(s[k]))
      Rf_error("'sd' must be positive and finite");
}

/* Returns list(mean = predictive means, lpd = log predictive densities,
 * pit = predictive CDF at y), each of length n. */
SEXP C_metrics_gauss(SEXP mu, SEXP sd, SEXP y) {
  int S, n;
  check_mu_sd(mu, sd, &S, &n);
  if (TYPEOF(y) != REALSXP || Rf_xlength(y) != n)
    Rf_error("'y' must be a double vector of length %d (columns of 'mu')", n);
  SEXP mean = PROTECT(Rf_allocVector(REALSXP, n));
  SEXP lpd = PROTECT(Rf_allocVector(REALSXP, n));
  SEXP pit = PROTECT(Rf_allocVector(REALSXP, n));
  const double *m = REAL(mu), *s = REAL(sd), *yy = REAL(y);
  for (int i = 0; i < n; i++) {
    const double *mi = m + (size_t)i * S, *si = s + (size_t)i * S;
    REAL(mean)[i] = bnn_gmix_mean(mi, S);
    REAL(lpd)[i] = bnn_gmix_logpdf(mi, si, S, yy[i]);
    REAL(pit)[i] = bnn_gmix_cdf(mi, si, S, yy[i], NULL);
    if (i % 256 == 255) R_CheckUserInterrupt();
  }
  SEXP out = PROTECT(Rf_allocVector(VECSXP, 3));
  SEXP nms = PROTECT(Rf_allocVector(STRSXP, 3));
  SET_VECTOR_ELT(out, 0, mean);
  SET_VECTOR_ELT(out, 1, lpd);
  SET_VECTOR_ELT(out, 2, pit);
  SET_STRING_ELT(nms, 0, Rf_mkChar("mean"));
  SET_STRING_ELT(nms, 1, Rf_mkChar("lpd"));
  SET_STRING_ELT(nms, 2, Rf_mkChar("pit"));
  Rf_setAttrib(out, R_NamesSymbol, nms);
  UNPROTECT(5);
  return out;
}

/* p: sorted probabilities in (0, 1); zp = qnorm(p); tol: root tolerance.
 * Returns a length(p) x n matrix of mixture quantiles, with attributes
 * "iterations" (the largest Newton/bisection count used for one root) and
 * "passes" (passes over the draws' components, in all: the cost). */
SEXP C_metrics_gmix_quantile(SEXP mu, SEXP sd, SEXP p, SEXP zp, SEXP tol) {
  int S, n;
  check_mu_sd(mu, sd, &S, &n);
  if (TYPEOF(p) != REALSXP || TYPEOF(zp) != REALSXP ||
      Rf_xlength(p) != Rf_xlength(zp))
    Rf_error("'p' and 'zp' must be double vectors of equal length");
  int m = Rf_length(p);
  const double *pp = REAL(p), *zz = REAL(zp);
  for (int j = 0; j < m; j++) {
    if (!(pp[j] > 0.0 && pp[j] < 1.0) || !R_FINITE(zz[j]))
      Rf_error("'p' must lie strictly between 0 and 1");
    if (j > 0 && !(pp[j] > pp[j - 1]))
      Rf_error("'p' must be strictly increasing");
  }
  double t = Rf_asReal(tol);
  if (!(t > 0.0) || !R_FINITE(t)) Rf_error("'tol' must be positive");
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, m, n));
  const double *mm = REAL(mu), *ss = REAL(sd);
  int maxit = 0;
  double total = 0.0;
  for (int i = 0; i < n; i++) {
    int np = 0;
    int it = bnn_gmix_quantiles(mm + (size_t)i * S, ss + (size_t)i * S, S, pp,
                                zz, m, t, REAL(out) + (size_t)i * m, &np);
    total += np;
    if (it > maxit) maxit = it;
    if (i % 16 == 15) R_CheckUserInterrupt();
  }
  SEXP its = PROTECT(Rf_ScalarInteger(maxit));
  Rf_setAttrib(out, Rf_install("iterations"), its);
  SEXP nps = PROTECT(Rf_ScalarReal(total));
  Rf_setAttrib(out, Rf_install("passes"), nps);
  UNPROTECT(3);
  return out;
}

/* .Call entry of greedy MMD thinning (mmd_thin.h). */
#include <math.h>
#include "api_util.h"
#include "interrupt.h"
#include "mmd_thin.h"

/* X: d x T double matrix (one draw per column); m: points to select.
 * Returns list(index = 1-based indices (m), mmd2 = MMD^2 after each). */
SEXP C_thin_mmd(SEXP X, SEXP m_) {
  if (TYPEOF(X) != REALSXP || !Rf_isMatrix(X)) Rf_error("'draws' must be a double matrix");
  int d = Rf_nrows(X), T = Rf_ncols(X);
  int m = Rf_asInteger(m_);
  if (m == NA_INTEGER || m < 1 || m > T)
    Rf_error("'m' must be a whole number between 1 and the number of draws (%d)", T);
  const double *x = REAL(X);
  for (R_xlen_t i = 0; i < (R_xlen_t)d * T; i++)
    if (!isfinite(x[i])) Rf_error("'draws' must be finite");
  const char *nm[] = {"index", "mmd2"};
  SEXP out = PROTECT(bnn_named_list(2, nm));
  SEXP idx = Rf_allocVector(INTSXP, m);
  SET_VECTOR_ELT(out, 0, idx);
  SEXP mmd2 = Rf_allocVector(REALSXP, m);
  SET_VECTOR_ELT(out, 1, mmd2);
  double *work = (double *)R_alloc((size_t)T * 4, sizeof(double));
  bnn_mmd_thin s;
  bnn_mmd_thin_init(&s, x, d, T, work);
  /* rows in chunks of about 2^24 distance terms between interrupt checks */
  double per = (double)d * T;
  int chunk = per > 0 ? (int)fmax(1.0, fmin((double)T, 16777216.0 / per)) : T;
  for (int j0 = 0; j0 < T; j0 += chunk) {
    int j1 = j0 + chunk < T ? j0 + chunk : T;
    bnn_mmd_thin_rows(&s, j0, j1);
    R_CheckUserInterrupt();
  }
  bnn_mmd_thin_finish(&s);
  /* a selection costs O(T d): with many long draws 64 of them take
   * seconds, so check by elapsed time (bnn_itimer) after each */
  bnn_itimer timer;
  bnn_itimer_init(&timer, bnn_interrupt_period());
  for (int i = 0; i < m; i++) {
    INTEGER(idx)[i] = bnn_mmd_thin_next(&s, REAL(mmd2) + i) + 1;
    if (bnn_itimer_due(&timer)) R_CheckUserInterrupt();
  }
  UNPROTECT(1);
  return out;
}

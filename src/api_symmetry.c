/* .Call entry point for the canonicalisation of draws (symmetry.c). */
#include "api_util.h"
#include "symmetry.h"

/* draws: a double matrix whose draws are rows (by_row = TRUE: n x d, as a
 * [iteration, chain, parameter] array flattened) or columns (d x n); sizes:
 * layer sizes; mode: enum bnn_sym_mode.  Entries beyond the network's
 * parameters (sigma) are copied unchanged.  Draws with a non-finite
 * network parameter are left unchanged and counted in attribute
 * "n_skipped". */
SEXP C_symmetry_canonical(SEXP draws, SEXP sizes, SEXP mode, SEXP by_row) {
  if (TYPEOF(draws) != REALSXP) Rf_error("'draws' must be a double matrix");
  if (TYPEOF(sizes) != INTSXP || Rf_length(sizes) < 2)
    Rf_error("'sizes' must be an integer vector of length >= 2");
  int md = Rf_asInteger(mode), rows = Rf_asLogical(by_row);
  if (md < BNN_SYM_PERMUTE || md > BNN_SYM_HOMOGENEOUS) Rf_error("unknown 'mode'");
  int L = Rf_length(sizes) - 1;
  const int *sz = INTEGER(sizes);
  long long n_net = 0;
  for (int l = 0; l < L; l++) {
    if (sz[l] < 1 || sz[l + 1] < 1) Rf_error("'sizes' must be positive");
    n_net += (long long)sz[l] * sz[l + 1] + sz[l + 1];
  }
  SEXP dim = Rf_getAttrib(draws, R_DimSymbol);
  if (Rf_length(dim) != 2) Rf_error("'draws' must be a matrix");
  R_xlen_t nr = INTEGER(dim)[0], nc = INTEGER(dim)[1];
  R_xlen_t n = rows ? nr : nc, d = rows ? nc : nr;
  if (d < n_net) Rf_error("'draws' has %lld parameters, the network %lld",
                          (long long)d, n_net);
  R_xlen_t s_draw = rows ? 1 : d, s_par = rows ? n : 1;
  SEXP out = PROTECT(Rf_duplicate(draws));
  double *o = REAL(out);
  double *th = (double *)R_alloc((size_t)n_net, sizeof(double));
  double *work = (double *)R_alloc(bnn_sym_work_doubles(L, sz), sizeof(double));
  int *iwork = (int *)R_alloc(bnn_sym_work_ints(L, sz), sizeof(int));
  int skipped = 0;
  for (R_xlen_t g = 0; g < n; g++) {
    double *base = o + g * s_draw;
    for (R_xlen_t j = 0; j < n_net; j++) th[j] = base[j * s_par];
    if (bnn_sym_canonical(L, sz, md, th, work, iwork)) { skipped++; continue; }
    for (R_xlen_t j = 0; j < n_net; j++) base[j * s_par] = th[j];
    if (g % 4096 == 4095) R_CheckUserInterrupt();
  }
  SEXP ns = PROTECT(Rf_ScalarInteger(skipped));
  Rf_setAttrib(out, Rf_install("n_skipped"), ns);
  UNPROTECT(2);
  return out;
}

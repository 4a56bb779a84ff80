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
  /* draws are gathered in blocks: with one draw per row, a block's values
   * of one parameter are contiguous, so memory is read line by line */
  enum { BLOCK = 64 };
  double *blk = (double *)R_alloc((size_t)BLOCK * (size_t)n_net, sizeof(double));
  double *work = (double *)R_alloc(bnn_sym_work_doubles(L, sz), sizeof(double));
  int *iwork = (int *)R_alloc(bnn_sym_work_ints(L, sz), sizeof(int));
  int skipped = 0;
  for (R_xlen_t g0 = 0; g0 < n; g0 += BLOCK) {
    int nb = (int)(n - g0 < BLOCK ? n - g0 : BLOCK);
    for (R_xlen_t j = 0; j < n_net; j++) {
      const double *src = o + g0 * s_draw + j * s_par;
      for (int b = 0; b < nb; b++) blk[(size_t)b * n_net + j] = src[b * s_draw];
    }
    /* a draw with a non-finite entry is left as it is */
    for (int b = 0; b < nb; b++)
      if (bnn_sym_canonical(L, sz, md, blk + (size_t)b * n_net, work, iwork)) skipped++;
    for (R_xlen_t j = 0; j < n_net; j++) {
      double *dst = o + g0 * s_draw + j * s_par;
      for (int b = 0; b < nb; b++) dst[b * s_draw] = blk[(size_t)b * n_net + j];
    }
    if ((g0 / BLOCK) % 64 == 63) R_CheckUserInterrupt();
  }
  SEXP ns = PROTECT(Rf_ScalarInteger(skipped));
  Rf_setAttrib(out, Rf_install("n_skipped"), ns);
  UNPROTECT(2);
  return out;
}

/* .Call entry point for the canonicalisation of draws (symmetry.c). */
#include <limits.h>
#include <string.h>
#include <stdint.h>
#include "api_util.h"
#include "symmetry.h"

/* draws: a double vector (one draw) or an array whose last dimension holds
 * the parameters and whose other dimensions index draws (a draws matrix,
 * one per row, or an [iteration, chain, parameter] array); sizes: layer
 * sizes; mode: enum bnn_sym_mode; threads: OpenMP threads.  Returns
 * list(canonical draws with the attributes of `draws`, number of draws left
 * unchanged because a network parameter is not finite).  Entries beyond
 * the network's parameters (sigma) are copied unchanged.
 *
 * The draws are read once and the result written once, in blocks: with the
 * parameters last, a block's values of one parameter are contiguous, so
 * memory is read and written line by line. */
SEXP C_symmetry_canonical(SEXP draws, SEXP sizes, SEXP mode, SEXP threads) {
  if (TYPEOF(draws) != REALSXP) Rf_error("'draws' must be a double array");
  if (TYPEOF(sizes) != INTSXP || Rf_length(sizes) < 2)
    Rf_error("'sizes' must be an integer vector of length >= 2");
  int md = Rf_asInteger(mode);
  if (md < BNN_SYM_PERMUTE || md > BNN_SYM_HOMOGENEOUS) Rf_error("unknown 'mode'");
  int L = Rf_length(sizes) - 1;
  const int *sz = INTEGER(sizes);
  long long n_net_ll = 0;
  for (int l = 0; l < L; l++) {
    if (sz[l] < 1 || sz[l + 1] < 1) Rf_error("'sizes' must be positive");
    n_net_ll += (long long)sz[l] * sz[l + 1] + sz[l + 1];
  }
  if (n_net_ll > 1000000000LL) Rf_error("the network has too many parameters");
  size_t n_net = (size_t)n_net_ll;
  SEXP dim = Rf_getAttrib(draws, R_DimSymbol);
  R_xlen_t len = XLENGTH(draws);
  R_xlen_t d = Rf_length(dim) ? INTEGER(dim)[Rf_length(dim) - 1] : len;
  if (d < (R_xlen_t)n_net)
    Rf_error("'draws' has %lld parameters, the network %lld", (long long)d, n_net_ll);
  R_xlen_t n = len / d;                    /* draws; parameter j at j * n */
  int perm = md != BNN_SYM_HOMOGENEOUS;    /* a signed permutation */
  /* blocks of BLOCK draws (a thread's two block buffers stay in its cache);
   * the threads share out the blocks of SUPER draws dynamically and meet
   * between them, where Ctrl-C is checked (every ~0.1 s); at most one
   * thread per block */
  enum { BLOCK = 32, SUPER = 1024 * BLOCK };
  R_xlen_t n_blocks = (n + BLOCK - 1) / BLOCK;
  int nth = bnn_loop_threads(threads, n_blocks > INT_MAX ? INT_MAX : (int)n_blocks);
  size_t nwd = perm ? bnn_sym_perm_work_doubles(L, sz) : bnn_sym_work_doubles(L, sz);
  size_t nwi = perm ? bnn_sym_perm_work_ints(L, sz) : bnn_sym_work_ints(L, sz);
  size_t per_thread = 2 * (size_t)BLOCK * n_net + nwd;
  double *wsd = (double *)R_alloc((size_t)nth * per_thread, sizeof(double));
  int *wsi = (int *)R_alloc((size_t)nth * nwi, sizeof(int));

  SEXP out = PROTECT(Rf_allocVector(REALSXP, len));
  bnn_hint_huge_pages(REAL(out), len);   /* a large result is written to fresh pages */
  DUPLICATE_ATTRIB(out, draws);
  const double *x = REAL(draws);
  double *o = REAL(out);
  /* columns beyond the network (sigma) */
  if (d > (R_xlen_t)n_net)
    memcpy(o + (size_t)n * n_net, x + (size_t)n * n_net,
           (size_t)(d - (R_xlen_t)n_net) * (size_t)n * sizeof(double));
  int skipped = 0;
  for (R_xlen_t s0 = 0; s0 < n; s0 += SUPER) {
    R_xlen_t s1 = n - s0 < SUPER ? n : s0 + SUPER;
    int n_blk = (int)((s1 - s0 + BLOCK - 1) / BLOCK);
#ifdef _OPENMP
#pragma omp parallel for num_threads(nth) schedule(dynamic, 8) reduction(+ : skipped) if (nth > 1)
#endif
    for (int k = 0; k < n_blk; k++) {
      int th = bnn_thread_num();
      double *in = wsd + (size_t)th * per_thread, *res = in + (size_t)BLOCK * n_net;
      double *work = res + (size_t)BLOCK * n_net;
      int *iwork = wsi + (size_t)th * nwi;
      R_xlen_t g0 = s0 + (R_xlen_t)k * BLOCK;
      int nb = (int)(s1 - g0 < BLOCK ? s1 - g0 : BLOCK);
      if (perm) {
        /* the block parameter by parameter (in[j * BLOCK + b]): gathered
         * and scattered by contiguous copies, the map reads with a stride */
        for (size_t j = 0; j < n_net; j++)
          memcpy(in + j * BLOCK, x + g0 + (R_xlen_t)j * n, (size_t)nb * sizeof(double));
        /* a draw with a non-finite entry is left as it is */
        for (int b = 0; b < nb; b++)
          skipped += bnn_sym_canonical_perm(L, sz, md, in + b, res + b, BLOCK, work, iwork);
        for (size_t j = 0; j < n_net; j++)
          memcpy(o + g0 + (R_xlen_t)j * n, res + j * BLOCK, (size_t)nb * sizeof(double));
      } else {
        /* draw by draw (in[b * n_net + j]), mapped in place */
        for (size_t j = 0; j < n_net; j++) {
          const double *src = x + g0 + (R_xlen_t)j * n;
          for (int b = 0; b < nb; b++) in[(size_t)b * n_net + j] = src[b];
        }
        for (int b = 0; b < nb; b++)
          skipped += bnn_sym_canonical(L, sz, md, in + (size_t)b * n_net, work, iwork);
        for (size_t j = 0; j < n_net; j++) {
          double *dst = o + g0 + (R_xlen_t)j * n;
          for (int b = 0; b < nb; b++) dst[b] = in[(size_t)b * n_net + j];
        }
      }
    }
    R_CheckUserInterrupt();
  }
  SEXP res = PROTECT(Rf_allocVector(VECSXP, 2));
  SET_VECTOR_ELT(res, 0, out);
  SET_VECTOR_ELT(res, 1, Rf_ScalarInteger(skipped));
  UNPROTECT(2);
  return res;
}

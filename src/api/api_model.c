/* .Call entry points for the model: log posterior with gradient, and the
 * forward pass over many draws. */
#include <limits.h>
#include <math.h>
#include <string.h>
#include "api_util.h"
#include "interrupt.h"
#include "simd.h"

/* theta: vector (one point) or matrix with one point per column.
 * Returns list(lp = numeric, grad = matrix dim x npoints,
 *              loglik = numeric, logprior = numeric). */
SEXP C_model_logpost(SEXP spec, SEXP theta) {
  if (TYPEOF(theta) != REALSXP) Rf_error("'theta' must be a double vector or matrix");
  bnn_model *m;
  bnn_model_protect(spec, 1, 0, &m);
  int d = m->dim;
  R_xlen_t len = Rf_xlength(theta);
  if (len % d != 0) Rf_error("'theta' must have a multiple of %d entries", d);
  int np = (int)(len / d);
  SEXP lp = PROTECT(Rf_allocVector(REALSXP, np));
  SEXP ll = PROTECT(Rf_allocVector(REALSXP, np));
  SEXP lpr = PROTECT(Rf_allocVector(REALSXP, np));
  SEXP grad = PROTECT(Rf_allocMatrix(REALSXP, d, np));
  /* each column is a full-data gradient (R calls this with thousands of
   * draws: KSD scores, approximations), so check for interrupts by time */
  bnn_itimer timer;
  bnn_itimer_init(&timer, bnn_interrupt_period());
  for (int j = 0; j < np; j++) {
    const double *th = REAL(theta) + (size_t)j * d;
    double *g = REAL(grad) + (size_t)j * d;
    REAL(ll)[j] = bnn_model_loglik(m, th, g, 0, m->n);
    REAL(lpr)[j] = bnn_model_logprior(m, th, g);
    REAL(lp)[j] = REAL(ll)[j] + REAL(lpr)[j];
    if (bnn_itimer_due(&timer)) R_CheckUserInterrupt();
  }
  SEXP out = PROTECT(Rf_allocVector(VECSXP, 4));
  SEXP nms = PROTECT(Rf_allocVector(STRSXP, 4));
  SET_VECTOR_ELT(out, 0, lp);
  SET_VECTOR_ELT(out, 1, grad);
  SET_VECTOR_ELT(out, 2, ll);
  SET_VECTOR_ELT(out, 3, lpr);
  SET_STRING_ELT(nms, 0, Rf_mkChar("lp"));
  SET_STRING_ELT(nms, 1, Rf_mkChar("grad"));
  SET_STRING_ELT(nms, 2, Rf_mkChar("loglik"));
  SET_STRING_ELT(nms, 3, Rf_mkChar("logprior"));
  Rf_setAttrib(out, R_NamesSymbol, nms);
  UNPROTECT(7);
  return out;
}

/* draws: dim x S matrix (one draw per column); X: n x p; threads: OpenMP
 * threads.  Returns an array n x n_out x S of network outputs.  The draws
 * are independent, so they are shared out over the threads, each with its
 * own model workspace: the outputs are the same whatever the number of
 * threads.  Blocks of 64 draws per thread, with a check for a user
 * interrupt between blocks. */
SEXP C_model_forward(SEXP spec, SEXP draws, SEXP X, SEXP threads) {
  if (TYPEOF(draws) != REALSXP) Rf_error("'draws' must be a double matrix");
  if (TYPEOF(X) != REALSXP) Rf_error("'X' must be a double matrix");
  bnn_model *m0;
  bnn_model_protect(spec, 0, 0, &m0);
  int d = m0->dim, K = bnn_model_n_out(m0), p = m0->sizes[0];
  R_xlen_t len = Rf_xlength(draws);
  if (len % d != 0 || Rf_xlength(X) % p != 0)
    Rf_error("'draws' must have %d rows and 'X' %d columns", d, p);
  int S = (int)(len / d), n = (int)(Rf_xlength(X) / p);
  int nth = bnn_loop_threads(threads, S);
  bnn_model **ms = (bnn_model **)R_alloc((size_t)nth, sizeof(bnn_model *));
  ms[0] = m0;
  for (int t = 1; t < nth; t++) bnn_model_protect(spec, 0, 0, &ms[t]);
  SEXP out = PROTECT(Rf_alloc3DArray(REALSXP, n, K, S));
  const double *pd = REAL(draws), *px = REAL(X);
  double *po = REAL(out);
  int block = 64 * nth;
  for (int s0 = 0; s0 < S; s0 += block) {
    int s1 = S - s0 < block ? S : s0 + block;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nth) schedule(static) if (nth > 1)
#endif
    for (int s = s0; s < s1; s++)
      bnn_model_forward(ms[bnn_thread_num()], pd + (size_t)s * d, px, n,
                        po + (size_t)s * n * K);
    R_CheckUserInterrupt();
  }
  UNPROTECT(nth + 1);
  return out;
}

/* Evaluate the log posterior and its gradient n_rep times at theta (for
 * benchmarks: no R overhead between evaluations).  Returns the last value. */
SEXP C_model_grad_loop(SEXP spec, SEXP theta, SEXP n_rep) {
  if (TYPEOF(theta) != REALSXP) Rf_error("'theta' must be a double vector");
  int reps = Rf_asInteger(n_rep);
  if (reps == NA_INTEGER || reps < 1) Rf_error("'n_rep' must be a positive integer");
  bnn_model *m;
  bnn_model_protect(spec, 1, 0, &m);
  if (Rf_length(theta) != m->dim) Rf_error("'theta' must have length %d", m->dim);
  double *g = (double *)R_alloc((size_t)m->dim, sizeof(double));
  double lp = 0.0;
  for (int r = 0; r < reps; r++) {
    lp = bnn_model_logpost(m, REAL(theta), g);
    if (r % 64 == 63) R_CheckUserInterrupt();
  }
  UNPROTECT(1);
  return Rf_ScalarReal(lp);
}

/* Select the SIMD level: TRUE = best the CPU supports, FALSE = portable C, or
 * a name ("generic", "avx2+fma", "avx512": that one or the best below it
 * that the CPU supports).  NULL only reports.  Returns the name of the
 * SIMD level in use. */
SEXP C_simd(SEXP enable) {
  if (!Rf_isNull(enable)) {
    int level;
    if (Rf_isString(enable) && XLENGTH(enable) == 1) {
      const char *nm = CHAR(STRING_ELT(enable, 0));
      if (!strcmp(nm, "generic")) level = 0;
      else if (!strcmp(nm, "avx2+fma")) level = 1;
      else if (!strcmp(nm, "avx512")) level = 2;
      else Rf_error("'enable' must be TRUE, FALSE, \"generic\", \"avx2+fma\" or \"avx512\"");
    } else {
      int e = Rf_asLogical(enable);
      if (e == NA_LOGICAL) Rf_error("'enable' must be TRUE or FALSE");
      level = e ? 2 : 0;
    }
    bnn_simd_select(level);
  }
  return Rf_mkString(bnn_simd()->name);
}

/* Elementwise exp, log1p, tanh or sigmoid of a double vector with the
 * SIMD level in use (for testing their accuracy against R's). */
SEXP C_vmath(SEXP which, SEXP x) {
  if (!Rf_isString(which) || XLENGTH(which) != 1)
    Rf_error("'which' must be \"exp\", \"log1p\", \"tanh\" or \"sigmoid\"");
  if (TYPEOF(x) != REALSXP) Rf_error("'x' must be a double vector");
  if (XLENGTH(x) > INT_MAX) Rf_error("'x' is too long");
  const char *w = CHAR(STRING_ELT(which, 0));
  int n = (int)XLENGTH(x);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
  const bnn_simd_table *k = bnn_simd();
  if (!strcmp(w, "exp")) k->vexp(REAL(x), REAL(out), n);
  else if (!strcmp(w, "tanh")) k->vtanh(REAL(x), REAL(out), n);
  else if (!strcmp(w, "sigmoid")) k->vsigmoid(REAL(x), REAL(out), n);
  else if (!strcmp(w, "log1p")) k->vlog1p(REAL(x), REAL(out), n);
  else Rf_error("'which' must be \"exp\", \"log1p\", \"tanh\" or \"sigmoid\"");
  UNPROTECT(1);
  return out;
}

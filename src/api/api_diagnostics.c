/* .Call entry points for the convergence diagnostics (diagnostics.c). */
#include <math.h>
#include <string.h>
#include "api_util.h"
#include "diagnostics.h"
#include "psis.h"

/* statistics known to C_diag; "per_prob" ones give one column per prob */
typedef enum {
  D_MEAN, D_SD, D_MEDIAN, D_QUANTILE, D_RHAT, D_RHAT_BULK, D_RHAT_TAIL,
  D_RHAT_BASIC, D_ESS_BULK, D_ESS_TAIL, D_ESS_BASIC, D_ESS_MEAN, D_ESS_SD,
  D_ESS_QUANTILE, D_MCSE_MEAN, D_MCSE_QUANTILE, D_COUNT
} diag_stat;

static const struct {
  const char *name;
  int per_prob;
} STATS[D_COUNT] = {
    {"mean", 0},         {"sd", 0},          {"median", 0},
    {"quantile", 1},     {"rhat", 0},        {"rhat_bulk", 0},
    {"rhat_tail", 0},    {"rhat_basic", 0},  {"ess_bulk", 0},
    {"ess_tail", 0},     {"ess_basic", 0},   {"ess_mean", 0},
    {"ess_sd", 0},       {"ess_quantile", 1}, {"mcse_mean", 0},
    {"mcse_quantile", 1}};

static double na_of(double v) { return isnan(v) ? NA_REAL : v; }

static double eval_stat(bnn_diag_ws *ws, int code, double prob) {
  switch (code) {
  case D_MEAN: return bnn_diag_mean(ws);
  case D_SD: return bnn_diag_sd(ws);
  case D_MEDIAN: return bnn_diag_quantile(ws, 0.5);
  case D_QUANTILE: return bnn_diag_quantile(ws, prob);
  case D_RHAT: return bnn_diag_rhat(ws);
  case D_RHAT_BULK: return bnn_diag_rhat_bulk(ws);
  case D_RHAT_TAIL: return bnn_diag_rhat_tail(ws);
  case D_RHAT_BASIC: return bnn_diag_rhat_basic(ws);
  case D_ESS_BULK: return bnn_diag_ess_bulk(ws);
  case D_ESS_TAIL: return bnn_diag_ess_tail(ws);
  case D_ESS_BASIC:
  case D_ESS_MEAN: return bnn_diag_ess_basic(ws);
  case D_ESS_SD: return bnn_diag_ess_sd(ws);
  case D_ESS_QUANTILE: return bnn_diag_ess_quantile(ws, prob);
  case D_MCSE_MEAN: return bnn_diag_mcse_mean(ws);
  case D_MCSE_QUANTILE: return bnn_diag_mcse_quantile(ws, prob);
  default: return NAN;
  }
}

/* Checks that argument arg, x, is a double matrix (ndim 2) or a double
 * array with three dimensions (ndim 3), laid out as `layout` says (e.g.
 * "draw, observation"); returns its dimensions in d. */
static void dims_of(SEXP x, const char *arg, int ndim, const char *layout, int *d) {
  if (TYPEOF(x) != REALSXP)
    Rf_error("'%s' must be a double %s [%s]", arg, ndim == 2 ? "matrix" : "array", layout);
  SEXP dim = Rf_getAttrib(x, R_DimSymbol);
  if (TYPEOF(dim) != INTSXP || Rf_length(dim) != ndim) {
    if (ndim == 2) Rf_error("'%s' must be a matrix [%s]", arg, layout);
    Rf_error("'%s' must be a %d-dimensional array", arg, ndim);
  }
  for (int k = 0; k < ndim; k++) d[k] = INTEGER(dim)[k];
}

/* item(ctx, i, t) for every i in [0, n), on nth OpenMP threads (t: the
 * thread's number, which picks its workspace), in blocks of per_thread x
 * nth items with R_CheckUserInterrupt() between blocks, outside the
 * parallel region; a thread takes chunk items at a time.  The items write
 * to places of their own, so the results do not depend on nth. */
static void over_blocks(int n, int nth, int per_thread, int chunk,
                        void (*item)(void *ctx, int i, int t), void *ctx) {
  const int block = per_thread * nth;
#ifndef _OPENMP
  (void) chunk;
#endif
  for (int i0 = 0; i0 < n; i0 += block) {
    R_CheckUserInterrupt();
    int i1 = n - i0 < block ? n : i0 + block;
#ifdef _OPENMP
#pragma omp parallel for num_threads(nth) schedule(dynamic, chunk) if (nth > 1)
#endif
    for (int i = i0; i < i1; i++) item(ctx, i, bnn_thread_num());
  }
}

/* C_diag's work for one variable v: its statistics' columns of the result
 * and, when asked for, its chain-wise R-hat and moments */
typedef struct {
  bnn_diag_ws **wss;
  const double *x, *probs;
  const int *codes;
  int n_stat, n_prob, n_var, n_chain;
  size_t per_var;
  double *r, *cw, *within, *between, *slope;
} diag_job;

static void diag_var(void *ctx, int v, int t) {
  const diag_job *j = ctx;
  bnn_diag_ws *ws = j->wss[t];
  int n_chain = j->n_chain;
  bnn_diag_load(ws, j->x + j->per_var * v);
  int col = 0;
  for (int s = 0; s < j->n_stat; s++) {
    int code = j->codes[s];
    if (STATS[code].per_prob) {
      for (int k = 0; k < j->n_prob; k++)
        j->r[v + (size_t) j->n_var * col++] = na_of(eval_stat(ws, code, j->probs[k]));
    } else {
      j->r[v + (size_t) j->n_var * col++] = na_of(eval_stat(ws, code, 0.0));
    }
  }
  if (j->cw) {
    double *o = j->cw + (size_t) n_chain * v;
    bnn_diag_chainwise_rhat(ws, o);
    for (int c = 0; c < n_chain; c++) o[c] = na_of(o[c]);
  }
  if (j->within) {
    double *o = j->slope + (size_t) n_chain * v;
    bnn_diag_moments(ws, j->within + v, j->between + v, o);
    j->within[v] = na_of(j->within[v]);
    j->between[v] = na_of(j->between[v]);
    for (int c = 0; c < n_chain; c++) o[c] = na_of(o[c]);
  }
}

/* x: double array [iteration, chain, variable]; stats: character vector;
 * probs: double vector (used by per-prob statistics); kappa: integer (>= 2,
 * sub-chains of the chain-wise R-hat); chainwise, moments: logical.
 * Returns list(stats = [variable, column] matrix, chainwise = [chain,
 * variable] matrix or NULL, within, between (vectors) and slope ([chain,
 * variable]) or NULL, n_capped = number of capped ESS values).  simd: FALSE
 * forces the portable autocovariance routine.  threads: number of OpenMP
 * threads over variables (each with its own workspace; results do not
 * depend on it); R_CheckUserInterrupt() runs between blocks of variables,
 * outside the parallel region. */
SEXP C_diag(SEXP x, SEXP stats, SEXP probs, SEXP kappa, SEXP chainwise,
            SEXP moments, SEXP simd, SEXP threads) {
  int d[3];
  dims_of(x, "x", 3, "iteration, chain, variable", d);
  int n_iter = d[0], n_chain = d[1], n_var = d[2];
  if (n_iter < 1) Rf_error("'x' must have at least one iteration");
  if (n_chain < 1) Rf_error("'x' must have at least one chain");
  if (TYPEOF(stats) != STRSXP) Rf_error("'stats' must be a character vector");
  if (TYPEOF(probs) != REALSXP) Rf_error("'probs' must be a double vector");
  int n_prob = Rf_length(probs);
  for (int k = 0; k < n_prob; k++) {
    double p = REAL(probs)[k];
    if (!(p >= 0 && p <= 1)) Rf_error("'probs' must be numbers in [0, 1]");
  }
  int do_cw = Rf_asLogical(chainwise), do_mom = Rf_asLogical(moments);
  if (do_cw == NA_LOGICAL) Rf_error("'chainwise' must be TRUE or FALSE");
  if (do_mom == NA_LOGICAL) Rf_error("'moments' must be TRUE or FALSE");
  int kap = Rf_asInteger(kappa);
  if (do_cw && (kap == NA_INTEGER || kap < 2))
    Rf_error("'kappa' must be an integer >= 2");
  if (!do_cw) kap = 0;

  int n_stat = Rf_length(stats), n_col = 0;
  int *codes = (int *) R_alloc(n_stat > 0 ? n_stat : 1, sizeof(int));
  for (int s = 0; s < n_stat; s++) {
    const char *nm = CHAR(STRING_ELT(stats, s));
    int code = -1;
    for (int k = 0; k < D_COUNT; k++)
      if (strcmp(nm, STATS[k].name) == 0) code = k;
    if (code < 0) Rf_error("'stats': unknown statistic '%s'", nm);
    codes[s] = code;
    n_col += STATS[code].per_prob ? n_prob : 1;
  }

  int nth = bnn_loop_threads(threads, n_var);
  size_t bytes = bnn_diag_ws_size(n_iter, n_chain, kap);
  if (!bytes) Rf_error("'x' has too many draws per variable (%d x %d)", n_iter, n_chain);
  int no_simd = Rf_asLogical(simd) == 0;
  bnn_diag_ws **wss = (bnn_diag_ws **) R_alloc(nth, sizeof(bnn_diag_ws *));
  for (int t = 0; t < nth; t++) {
    wss[t] = bnn_diag_ws_init(R_alloc(bytes, 1), n_iter, n_chain, kap);
    if (no_simd) bnn_diag_no_simd(wss[t]);
  }

  const char *nms[6] = {"stats", "chainwise", "within", "between", "slope", "n_capped"};
  SEXP out = PROTECT(bnn_named_list(6, nms));
  diag_job job = {.wss = wss, .x = REAL(x), .probs = REAL(probs), .codes = codes,
                  .n_stat = n_stat, .n_prob = n_prob, .n_var = n_var, .n_chain = n_chain,
                  .per_var = (size_t) n_iter * n_chain};
  SEXP res = Rf_allocMatrix(REALSXP, n_var, n_col);
  SET_VECTOR_ELT(out, 0, res);
  job.r = REAL(res);
  if (do_cw) {
    SEXP m = Rf_allocMatrix(REALSXP, n_chain, n_var);
    SET_VECTOR_ELT(out, 1, m);
    job.cw = REAL(m);
  }
  if (do_mom) {
    SEXP w = Rf_allocVector(REALSXP, n_var);
    SET_VECTOR_ELT(out, 2, w);
    SEXP b = Rf_allocVector(REALSXP, n_var);
    SET_VECTOR_ELT(out, 3, b);
    SEXP sl = Rf_allocMatrix(REALSXP, n_chain, n_var);
    SET_VECTOR_ELT(out, 4, sl);
    job.within = REAL(w);
    job.between = REAL(b);
    job.slope = REAL(sl);
  }

  over_blocks(n_var, nth, 8, 1, diag_var, &job);
  int n_capped = 0;
  for (int t = 0; t < nth; t++) n_capped += bnn_diag_n_capped(wss[t]);
  SET_VECTOR_ELT(out, 5, Rf_ScalarInteger(n_capped));
  UNPROTECT(1);
  return out;
}

/* ll: double matrix [draw, observation] of pointwise log-likelihoods, the
 * draws chain by chain (n_chain chains of equal length); threads: number of
 * OpenMP threads over observations (each with its own workspace; results
 * do not depend on it).  Returns the relative efficiency of each
 * observation as loo::relative_eff(exp(ll[, i] - max(ll[, i])), chain_id)
 * (bnn_diag_relative_eff), NA where that is NaN (a single iteration).  ll is
 * read in place; R_CheckUserInterrupt() runs between blocks of
 * observations, outside the parallel region. */
typedef struct {
  bnn_diag_ws **wss;
  const double *ll;
  int S;
  double *r;
} reff_job;

static void reff_obs(void *ctx, int i, int t) {
  const reff_job *j = ctx;
  j->r[i] = na_of(bnn_diag_relative_eff(j->wss[t], j->ll + (size_t) j->S * i));
}

SEXP C_relative_eff(SEXP ll, SEXP n_chain, SEXP threads) {
  int d[2];
  dims_of(ll, "ll", 2, "draw, observation", d);
  int S = d[0], n_obs = d[1];
  int M = Rf_asInteger(n_chain);
  if (M == NA_INTEGER || M < 1) Rf_error("'n_chain' must be a whole number >= 1");
  if (S < 1 || S % M != 0)
    Rf_error("'ll' must have n_chain chains of equal length (%d draws, %d chains)", S, M);
  int n_iter = S / M;
  int nth = bnn_loop_threads(threads, n_obs);
  size_t bytes = bnn_diag_reff_ws_size(n_iter, M);
  if (!bytes) Rf_error("'ll' has too many draws (%d x %d)", n_iter, M);
  bnn_diag_ws **wss = (bnn_diag_ws **) R_alloc(nth, sizeof(bnn_diag_ws *));
  for (int t = 0; t < nth; t++) wss[t] = bnn_diag_reff_ws_init(R_alloc(bytes, 1), n_iter, M);

  SEXP out = PROTECT(Rf_allocVector(REALSXP, n_obs));
  reff_job job = {.wss = wss, .ll = REAL(ll), .S = S, .r = REAL(out)};
  over_blocks(n_obs, nth, 64, 4, reff_obs, &job);
  UNPROTECT(1);
  return out;
}

/* ll: double array [iteration, chain, observation] of log-likelihoods.
 * Returns the cumulative LPPD, a matrix [iteration, chain]. */
SEXP C_cumulative_lppd(SEXP ll) {
  int d[3];
  dims_of(ll, "loglik", 3, "iteration, chain, observation", d);
  if (d[0] < 1 || d[1] < 1 || d[2] < 1)
    Rf_error("'loglik' must have at least one iteration, chain and observation");
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, d[0], d[1]));
  /* bnn_cumulative_lppd in blocks of observations (n_iter x n_chain x n_obs
   * log-sum-exp terms can take many seconds), checking for interrupts */
  double *o = REAL(out);
  size_t S = (size_t) d[0];
  int block = (int) (1048576.0 / (double) S) + 1;
  for (R_xlen_t k = 0; k < Rf_xlength(out); k++) o[k] = 0.0;
  for (int c = 0; c < d[1]; c++) {
    double *oc = o + S * c;
    for (int i0 = 0; i0 < d[2]; i0 += block) {
      int i1 = d[2] - i0 < block ? d[2] : i0 + block;
      bnn_cumulative_lppd_add(REAL(ll), d[0], d[1], c, i0, i1, oc);
      R_CheckUserInterrupt();
    }
    for (size_t s = 0; s < S; s++) oc[s] /= d[2];
  }
  for (R_xlen_t k = 0; k < Rf_xlength(out); k++) o[k] = na_of(o[k]);
  UNPROTECT(1);
  return out;
}

/* lppd: double matrix [iteration, chain]; eps > 0; window >= 1.
 * Returns an integer vector (one per chain): first iteration at which the
 * stopping rule fires, NA if never. */
SEXP C_lppd_stop(SEXP lppd, SEXP eps, SEXP window) {
  int d[2];
  dims_of(lppd, "cum_lppd", 2, "iteration, chain", d);
  int n_iter = d[0], n_chain = d[1];
  double e = Rf_asReal(eps);
  if (!(e > 0) || !isfinite(e)) Rf_error("'epsilon' must be a positive number");
  int w = Rf_asInteger(window);
  if (w == NA_INTEGER || w < 1) Rf_error("'window' must be an integer >= 1");
  SEXP out = PROTECT(Rf_allocVector(INTSXP, n_chain));
  bnn_lppd_stop(REAL(lppd), n_iter, n_chain, e, w, INTEGER(out));
  for (int c = 0; c < n_chain; c++)
    if (INTEGER(out)[c] == 0) INTEGER(out)[c] = NA_INTEGER;
  UNPROTECT(1);
  return out;
}

/* PSIS of the columns of a matrix [draw, observation]: with loo = 0, x holds
 * log importance ratios and the result is list(log_weights = the
 * normalised log weights [draw, observation], pareto_k); with loo = 1, x
 * holds pointwise log-likelihoods (the ratios are -x) and the result is a
 * matrix [observation, 3] of elpd_loo, lpd and pareto_k, as loo::loo()'s
 * pointwise columns, without the weights.  r_eff: one relative efficiency
 * per observation.  Columns are spread over `threads` OpenMP threads; the
 * result does not depend on their number. */
typedef struct {
  bnn_psis_pair **wss;
  double **cols;
  const double *x, *r_eff;
  int S, n_obs;
  double *op, *lwp, *kp;   /* loo's result, or the log weights and k */
} psis_job;

static void psis_obs(void *ctx, int i, int t) {
  const psis_job *j = ctx;
  int S = j->S;
  const double *xi = j->x + (size_t) S * i;
  if (!j->op) {
    j->kp[i] = na_of(bnn_psis(xi, S, j->r_eff[i], j->lwp + (size_t) S * i, j->wss[t]));
    return;
  }
  double *lr = j->cols[t], *lw = j->cols[t] + S;
  for (int s = 0; s < S; s++) lr[s] = -xi[s];
  double k = bnn_psis(lr, S, j->r_eff[i], lw, j->wss[t]);
  /* elpd_loo = log sum w_s p(y_i | theta_s), lpd = log mean p(y_i | theta_s) */
  for (int s = 0; s < S; s++) lw[s] += xi[s];
  j->op[i] = na_of(bnn_log_sum_exp(lw, S));
  j->op[i + j->n_obs] = na_of(bnn_log_sum_exp(xi, S) - log((double) S));
  j->op[i + 2 * (size_t) j->n_obs] = na_of(k);
}

SEXP C_psis(SEXP x, SEXP r_eff, SEXP loo, SEXP threads) {
  int d[2];
  dims_of(x, "x", 2, "draw, observation", d);
  int S = d[0], n_obs = d[1];
  if (S < 2) Rf_error("'x' must have at least 2 draws");
  if (TYPEOF(r_eff) != REALSXP || Rf_length(r_eff) != n_obs)
    Rf_error("'r_eff' must be a double vector with one value per observation (%d)", n_obs);
  int is_loo = Rf_asLogical(loo);
  if (is_loo == NA_LOGICAL) Rf_error("'loo' must be TRUE or FALSE");
  int nth = bnn_loop_threads(threads, n_obs);
  bnn_psis_pair **wss = (bnn_psis_pair **) R_alloc(nth, sizeof(bnn_psis_pair *));
  double **cols = (double **) R_alloc(nth, sizeof(double *));
  for (int t = 0; t < nth; t++) {
    wss[t] = (bnn_psis_pair *) R_alloc(bnn_psis_ws_size(S), 1);
    /* loo: a column's log ratios and log weights; else the result's own */
    cols[t] = is_loo ? (double *) R_alloc(2 * (size_t) S, sizeof(double)) : NULL;
  }
  psis_job job = {.wss = wss, .cols = cols, .x = REAL(x), .r_eff = REAL(r_eff), .S = S,
                  .n_obs = n_obs};
  SEXP out;
  if (is_loo) {
    out = PROTECT(Rf_allocMatrix(REALSXP, n_obs, 3));
    job.op = REAL(out);
  } else {
    const char *nms[2] = {"log_weights", "pareto_k"};
    out = PROTECT(bnn_named_list(2, nms));
    SEXP lw_m = Rf_allocMatrix(REALSXP, S, n_obs);
    SET_VECTOR_ELT(out, 0, lw_m);
    SEXP k_v = Rf_allocVector(REALSXP, n_obs);
    SET_VECTOR_ELT(out, 1, k_v);
    job.lwp = REAL(lw_m);
    job.kp = REAL(k_v);
  }
  over_blocks(n_obs, nth, 64, 4, psis_obs, &job);
  UNPROTECT(1);
  return out;
}

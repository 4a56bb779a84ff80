/* .Call entry points that create an MCLMC chain, tune it stage by stage in
 * blocks and sample in blocks (as the chain driver, api_kernel.c).  R checks
 * progress and interrupts between blocks; inside a block interrupts are
 * checked after every 0.2 s of work (bnn_itimer; option
 * bnnmc.interrupt_period), always at a step boundary, where the chain's
 * state is consistent (an MCLMC step is one gradient, so no check is needed
 * inside a step).  The checks do not change the draws. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "api_util.h"
#include "mclmc.h"
#include "ess_blackjax.h"
#include "interrupt.h"


static void mclmc_finalizer(SEXP xp) {
  bnn_mclmc_chain *c = R_ExternalPtrAddr(xp);
  if (c) bnn_mclmc_chain_free(c);
  R_ClearExternalPtr(xp);
}

static bnn_mclmc_chain *get_chain(SEXP xp) {
  if (TYPEOF(xp) != EXTPTRSXP) Rf_error("'chain' must be an MCLMC chain handle");
  bnn_mclmc_chain *c = R_ExternalPtrAddr(xp);
  if (!c) Rf_error("the chain handle is no longer valid (was the session restarted?)");
  return c;
}

static void set_colnames(SEXP mat, int n, const char **names) {
  SEXP dn = PROTECT(Rf_allocVector(VECSXP, 2));
  SEXP cn = Rf_allocVector(STRSXP, n);
  SET_VECTOR_ELT(dn, 1, cn);
  for (int i = 0; i < n; i++) SET_STRING_ELT(cn, i, Rf_mkChar(names[i]));
  Rf_setAttrib(mat, R_DimNamesSymbol, dn);
  UNPROTECT(1);
}

static double get_real(SEXP list, const char *name, double dflt) {
  double v = bnn_get_double(list, name, dflt);
  if (ISNAN(v)) Rf_error("'%s' must not be NA", name);
  return v;
}

static int get_count(SEXP list, const char *name, int dflt) {
  int v = bnn_get_int(list, name, dflt);
  if (v == NA_INTEGER || v < 0) Rf_error("'%s' must be a non-negative integer", name);
  return v;
}

/* spec: list(type = "bnn", ...) or list(type = "gaussian", mean, prec,
 * upper = NULL); settings: see .mclmc_c_settings() in R/mclmc.R. */
SEXP C_mclmc_new(SEXP spec, SEXP init, SEXP seed, SEXP chain_id, SEXP settings) {
  if (TYPEOF(spec) != VECSXP) Rf_error("'spec' must be a list");
  if (TYPEOF(init) != REALSXP) Rf_error("'init' must be a double vector");
  if (TYPEOF(settings) != VECSXP) Rf_error("'settings' must be a list");
  double sd = Rf_asReal(seed);
  if (!(sd >= 0 && sd < 9007199254740992.0)) Rf_error("'seed' must be a whole number >= 0");
  int id = Rf_asInteger(chain_id);
  if (id == NA_INTEGER || id < 0) Rf_error("'chain_id' must be a non-negative integer");

  bnn_mclmc_settings s;
  memset(&s, 0, sizeof s);
  s.integrator = bnn_get_int(settings, "integrator", BNN_MCLMC_MCLACHLAN);
  if (s.integrator != BNN_MCLMC_LEAPFROG && s.integrator != BNN_MCLMC_MCLACHLAN)
    Rf_error("'integrator' code must be 0 (leapfrog) or 1 (mclachlan)");
  SEXP nt = bnn_list_get(settings, "n_tune");
  if ((TYPEOF(nt) != INTSXP && TYPEOF(nt) != REALSXP) || Rf_length(nt) != 3)
    Rf_error("'n_tune' must be a numeric vector of length 3");
  int ntv[3];
  for (int i = 0; i < 3; i++) {
    double v;
    if (TYPEOF(nt) == INTSXP)
      v = INTEGER(nt)[i] == NA_INTEGER ? R_NaN : (double)INTEGER(nt)[i];
    else
      v = REAL(nt)[i];
    if (!(v >= 0 && v <= 2147483647.0) || v != floor(v))
      Rf_error("'n_tune' must hold non-negative whole numbers");
    ntv[i] = (int)v;
  }
  s.n1 = ntv[0];
  s.n2 = ntv[1];
  s.n3 = ntv[2];
  s.diag_precond = bnn_get_int(settings, "diag_precond", 0);
  if (s.diag_precond == NA_INTEGER) Rf_error("'diag_precond' must be TRUE or FALSE");
  s.stepsize = get_real(settings, "stepsize", 1e-3);
  s.L = get_real(settings, "L", 1.0);
  SEXP ev = bnn_list_get(settings, "energy_var");
  if (TYPEOF(ev) != REALSXP || Rf_length(ev) != 2)
    Rf_error("'energy_var' must be a double vector of length 2 (start, end)");
  s.ev_start = REAL(ev)[0];
  s.ev_end = REAL(ev)[1];
  s.n_eff = get_real(settings, "n_eff", 100.0);
  s.trust = get_real(settings, "trust", 1.5);
  s.Lfactor = get_real(settings, "Lfactor", 0.4);
  s.fft_params = get_count(settings, "fft_params", 0);
  s.fft_samples = get_count(settings, "fft_samples", 0);
  s.shrink = get_real(settings, "shrink", 0.8);
  s.safeguard = bnn_get_int(settings, "safeguard", BNN_SAFEGUARD_REVERT);
  if (s.safeguard != BNN_SAFEGUARD_REVERT && s.safeguard != BNN_SAFEGUARD_BLACKJAX)
    Rf_error("'safeguard' code must be 0 (revert) or 1 (blackjax)");
  if (!(s.stepsize > 0) || !isfinite(s.stepsize)) Rf_error("'stepsize' must be a positive number");
  if (!(s.L > 0)) Rf_error("'L' must be positive (Inf: no momentum noise)");
  if (!(s.ev_start > 0 && s.ev_end > 0) || !isfinite(s.ev_start) || !isfinite(s.ev_end))
    Rf_error("'energy_var' must be positive");
  if (!(s.n_eff >= 1) || !isfinite(s.n_eff)) Rf_error("'n_eff' must be >= 1");
  if (!(s.trust > 0) || !isfinite(s.trust)) Rf_error("'trust' must be positive");
  if (!(s.Lfactor > 0) || !isfinite(s.Lfactor)) Rf_error("'Lfactor' must be positive");
  if (!(s.shrink > 0 && s.shrink < 1)) Rf_error("'shrink' must be in (0, 1)");

  SEXP type = bnn_list_get(spec, "type");
  const char *ty = Rf_isString(type) ? CHAR(STRING_ELT(type, 0)) : "bnn";
  int gaussian = strcmp(ty, "gaussian") == 0;
  int dim;
  if (gaussian) {
    SEXP mean = bnn_list_get(spec, "mean"), prec = bnn_list_get(spec, "prec");
    if (TYPEOF(mean) != REALSXP || TYPEOF(prec) != REALSXP ||
        Rf_xlength(prec) != Rf_xlength(mean) * Rf_xlength(mean))
      Rf_error("'spec' of type gaussian needs double 'mean' and square 'prec'");
    dim = Rf_length(mean);
    SEXP up = bnn_list_get(spec, "upper");
    if (!Rf_isNull(up)) {
      if (TYPEOF(up) != REALSXP || Rf_length(up) != dim)
        Rf_error("'spec$upper' must be a double vector of length %d", dim);
      s.upper = REAL(up);
    }
  } else {
    bnn_model *probe;
    bnn_model_protect(spec, 0, 0, &probe); /* validates spec, freed by GC */
    dim = probe->dim;
    UNPROTECT(1);
  }
  if (dim < 2) Rf_error("MCLMC needs at least 2 parameters (the target has %d)", dim);
  if (Rf_length(init) != dim) Rf_error("'init' must have length %d", dim);
  SEXP sdc = bnn_list_get(settings, "sqrt_diag_cov");
  if (!Rf_isNull(sdc)) {
    if (TYPEOF(sdc) != REALSXP || Rf_length(sdc) != dim)
      Rf_error("'sqrt_diag_cov' must be a double vector of length %d", dim);
    for (int i = 0; i < dim; i++)
      if (!(REAL(sdc)[i] > 0) || !isfinite(REAL(sdc)[i]))
        Rf_error("'sqrt_diag_cov' must be positive and finite");
    s.sqrt_diag_cov = REAL(sdc);
  }

  SEXP xp = PROTECT(R_MakeExternalPtr(NULL, R_NilValue, R_NilValue));
  R_RegisterCFinalizerEx(xp, mclmc_finalizer, TRUE);
  bnn_model *model = NULL;
  bnn_gauss_target *gauss = NULL;
  if (gaussian) {
    gauss = bnn_gauss_new(dim, REAL(bnn_list_get(spec, "mean")),
                          REAL(bnn_list_get(spec, "prec")));
    if (!gauss) Rf_error("cannot allocate the target");
  } else {
    /* data are copied so the chain is independent of R's objects; the
     * spec was validated above, so this only fails on allocation */
    model = bnn_model_from_spec(spec, 1, 1);
  }
  bnn_mclmc_chain *c = bnn_mclmc_chain_new(model, gauss, REAL(init), (uint64_t)sd,
                                           (uint64_t)id, &s);
  if (!c) Rf_error("cannot allocate the chain workspace");
  R_SetExternalPtrAddr(xp, c);
  UNPROTECT(1);
  return xp;
}

static SEXP chain_info(bnn_mclmc_chain *c) {
  const char *nm[] = {"stepsize", "L", "sqrt_diag_cov", "n_grad", "n_reverted",
                      "status", "stage", "done", "total", "iter", "eevpd",
                      "position", "failed_at"};
  int d = c->dim;
  SEXP out = PROTECT(bnn_named_list(13, nm));
  SET_VECTOR_ELT(out, 0, Rf_ScalarReal(c->k.eps));
  SET_VECTOR_ELT(out, 1, Rf_ScalarReal(c->k.L));
  SEXP sg = Rf_allocVector(REALSXP, d);
  SET_VECTOR_ELT(out, 2, sg);
  memcpy(REAL(sg), c->k.sigma, sizeof(double) * (size_t)d);
  SET_VECTOR_ELT(out, 3, Rf_ScalarReal(c->target.n_grad));
  SET_VECTOR_ELT(out, 4, Rf_ScalarReal(c->n_reverted));
  SET_VECTOR_ELT(out, 5, Rf_ScalarInteger(c->status));
  SET_VECTOR_ELT(out, 6, Rf_ScalarInteger(c->stage));
  SEXP done = Rf_allocVector(INTSXP, 3);
  SET_VECTOR_ELT(out, 7, done);
  INTEGER(done)[0] = c->done1;
  INTEGER(done)[1] = c->done2;
  INTEGER(done)[2] = c->done3;
  SEXP tot = Rf_allocVector(INTSXP, 3);
  SET_VECTOR_ELT(out, 8, tot);
  for (int i = 0; i < 3; i++) INTEGER(tot)[i] = bnn_mclmc_stage_total(c, i + 1);
  SET_VECTOR_ELT(out, 9, Rf_ScalarReal(c->n_sample_steps));
  SET_VECTOR_ELT(out, 10, Rf_ScalarReal(
      c->n_sample_ok > 0 ? c->sum_de2 / (c->n_sample_ok * d) : NA_REAL));
  SEXP q = Rf_allocVector(REALSXP, d);
  SET_VECTOR_ELT(out, 11, q);
  memcpy(REAL(q), c->k.x, sizeof(double) * (size_t)d);
  /* phase (1-3 tuning stage, 4 sampling), step of that phase (from 1) and
   * reason (1 state, 2 step size) of a failure; zeros when none */
  SEXP fa = Rf_allocVector(REALSXP, 3);
  SET_VECTOR_ELT(out, 12, fa);
  REAL(fa)[0] = c->fail_stage;
  REAL(fa)[1] = c->fail_step;
  REAL(fa)[2] = c->fail_reason;
  UNPROTECT(1);
  return out;
}

SEXP C_mclmc_info(SEXP xp) { return chain_info(get_chain(xp)); }

/* Run up to n1 / n2 / n3 more steps of tuning stages 1 / 2 / 3 (each capped
 * at what remains of its stage).  Steps of a stage can only be requested
 * together with, or after, the completion of the earlier stages.  Returns
 * list(trace = steps x 6 (stage, energy_change, stepsize, L, logdens,
 * reverted), info). */
SEXP C_mclmc_tune(SEXP xp, SEXP n1, SEXP n2, SEXP n3) {
  bnn_mclmc_chain *c = get_chain(xp);
  if (c->status == BNN_MCLMC_BAD_INIT)
    Rf_error("the chain's initial values have a non-finite log density or gradient");
  SEXP rq[3] = {n1, n2, n3};
  int req[3], rem[3];
  for (int i = 0; i < 3; i++) {
    int v = Rf_asInteger(rq[i]);
    if (v == NA_INTEGER || v < 0) Rf_error("'n%d' must be a non-negative integer", i + 1);
    int st = i + 1;
    rem[i] = st < c->stage ? 0
             : bnn_mclmc_stage_total(c, st) -
                   (st == c->stage ? (st == 1 ? c->done1 : st == 2 ? c->done2 : c->done3) : 0);
    req[i] = v < rem[i] ? v : rem[i];
  }
  for (int i = 1; i < 3; i++)
    for (int j = 0; j < i; j++)
      if (req[i] > 0 && req[j] < rem[j])
        Rf_error("tuning stage %d has %d steps left; finish it before stage %d",
                 j + 1, rem[j] - req[j], i + 1);
  int total = req[0] + req[1] + req[2];
  const char *nm[] = {"trace", "info"};
  const char *cn[] = {"stage", "energy_change", "stepsize", "L", "logdens", "reverted"};
  SEXP out = PROTECT(bnn_named_list(2, nm));
  SEXP tr = Rf_allocMatrix(REALSXP, total, 6);
  SET_VECTOR_ELT(out, 0, tr);
  set_colnames(tr, 6, cn);
  double row[6];
  bnn_itimer timer;
  bnn_itimer_init(&timer, bnn_interrupt_period());
  for (int it = 0; it < total; it++) {
    if (c->status == BNN_MCLMC_NONFINITE) {
      /* the chain failed (safeguard "blackjax"): no more steps */
      for (int j = 0; j < 6; j++) REAL(tr)[it + (size_t)j * total] = NA_REAL;
      continue;
    }
    if (bnn_mclmc_tune_step(c, row))
      Rf_error("cannot allocate the stage-3 sample store");
    for (int j = 0; j < 6; j++) REAL(tr)[it + (size_t)j * total] = row[j];
    if (bnn_itimer_due(&timer)) R_CheckUserInterrupt();
  }
  SET_VECTOR_ELT(out, 1, chain_info(c));
  UNPROTECT(1);
  return out;
}

/* Sampling: n_iter steps at the tuned (eps, L); sampling step i (counted
 * over all calls, from 0) is kept when i %% thin == 0, as in MILE.
 * Returns list(draws = kept x dim, stats = kept x 6, info). */
SEXP C_mclmc_run(SEXP xp, SEXP n_iter, SEXP thin) {
  bnn_mclmc_chain *c = get_chain(xp);
  int n = Rf_asInteger(n_iter), th = Rf_asInteger(thin);
  if (n == NA_INTEGER || n < 0) Rf_error("'n_iter' must be a non-negative integer");
  if (th == NA_INTEGER || th < 1) Rf_error("'thin' must be a positive integer");
  if (c->status == BNN_MCLMC_BAD_INIT)
    Rf_error("the chain's initial values have a non-finite log density or gradient");
  if (c->status == BNN_MCLMC_NONFINITE && c->stage != BNN_STAGE_DONE)
    Rf_error("the chain failed during tuning stage %d (non-finite state or step size)",
             c->fail_stage);
  if (c->stage != BNN_STAGE_DONE)
    Rf_error("tuning is not complete (stage %d: %d of %d steps done)", c->stage,
             c->stage == 1 ? c->done1 : c->stage == 2 ? c->done2 : c->done3,
             bnn_mclmc_stage_total(c, c->stage));
  int d = c->dim;
  double i0 = c->n_sample_steps;
  int kept = 0;
  for (int it = 0; it < n; it++)
    if (fmod(i0 + it, (double)th) == 0.0) kept++;
  const char *nm[] = {"draws", "stats", "info"};
  const char *cn[] = {"energy_change", "kinetic_change", "logdens", "stepsize", "L", "reverted"};
  SEXP out = PROTECT(bnn_named_list(3, nm));
  SEXP draws = Rf_allocMatrix(REALSXP, kept, d);
  SET_VECTOR_ELT(out, 0, draws);
  SEXP stats = Rf_allocMatrix(REALSXP, kept, BNN_MCLMC_N_STATS);
  SET_VECTOR_ELT(out, 1, stats);
  set_colnames(stats, BNN_MCLMC_N_STATS, cn);
  double *D = REAL(draws), *S = REAL(stats);
  int r = 0;
  bnn_mclmc_info info;
  bnn_itimer timer;
  bnn_itimer_init(&timer, bnn_interrupt_period());
  for (int it = 0; it < n; it++) {
    /* a failed chain (safeguard "blackjax") takes no more steps */
    if (c->status == BNN_MCLMC_NONFINITE) break;
    int keep = fmod(c->n_sample_steps, (double)th) == 0.0;
    bnn_mclmc_sample_step(c, &info);
    if (keep && c->status != BNN_MCLMC_NONFINITE) {
      const double *x = c->k.x;
      for (int j = 0; j < d; j++) D[r + (size_t)j * kept] = x[j];
      double st[BNN_MCLMC_N_STATS] = {info.energy_change, info.kinetic_change,
                                      info.logdens, info.stepsize, info.L,
                                      info.ok ? 0.0 : 1.0};
      for (int j = 0; j < BNN_MCLMC_N_STATS; j++) S[r + (size_t)j * kept] = st[j];
      r++;
    }
    if (bnn_itimer_due(&timer)) R_CheckUserInterrupt();
  }
  /* draws of a failed chain from its failing step on are NA */
  for (; r < kept; r++) {
    for (int j = 0; j < d; j++) D[r + (size_t)j * kept] = NA_REAL;
    for (int j = 0; j < BNN_MCLMC_N_STATS; j++) S[r + (size_t)j * kept] = NA_REAL;
  }
  SET_VECTOR_ELT(out, 2, chain_info(c));
  UNPROTECT(1);
  return out;
}

/* Single-chain ESS (BlackJAX/Stan estimator used by tuning stage 3) of each
 * column of an n x p matrix. */
SEXP C_mclmc_ess(SEXP x) {
  if (TYPEOF(x) != REALSXP || !Rf_isMatrix(x)) Rf_error("'x' must be a double matrix");
  int n = Rf_nrows(x), p = Rf_ncols(x);
  if (n < 2) Rf_error("'x' needs at least 2 rows");
  SEXP out = PROTECT(Rf_allocVector(REALSXP, p));
  bnn_ess_work w;
  if (bnn_ess_alloc(&w, n)) Rf_error("cannot allocate the ESS workspace");
  double e[2];
  for (int j = 0; j < p; j += 2) {
    const double *a = REAL(x) + (size_t)j * n;
    const double *b = j + 1 < p ? a + n : NULL;
    bnn_ess_pair(&w, a, b, e);
    REAL(out)[j] = e[0];
    if (b) REAL(out)[j + 1] = e[1];
  }
  bnn_ess_free(&w);
  UNPROTECT(1);
  return out;
}

/* Gradient evaluations per MCLMC step for an integrator code. */
SEXP C_mclmc_grads_per_step(SEXP integrator) {
  int k = Rf_asInteger(integrator);
  if (k != BNN_MCLMC_LEAPFROG && k != BNN_MCLMC_MCLACHLAN)
    Rf_error("'integrator' code must be 0 (leapfrog) or 1 (mclachlan)");
  return Rf_ScalarInteger(bnn_mclmc_grads_per_step(k));
}

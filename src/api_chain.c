/* .Call entry points that create a chain and run it in blocks. */
#include <limits.h>
#include <signal.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "api_util.h"
#include "chain.h"
#include "interrupt.h"

static void chain_finalizer(SEXP xp) {
  bnn_chain *c = R_ExternalPtrAddr(xp);
  if (c) bnn_chain_free(c);
  R_ClearExternalPtr(xp);
}

static bnn_chain *get_chain(SEXP xp) {
  if (TYPEOF(xp) != EXTPTRSXP) Rf_error("'chain' must be a chain handle");
  bnn_chain *c = R_ExternalPtrAddr(xp);
  if (!c) Rf_error("the chain handle is no longer valid (was the session restarted?)");
  return c;
}

/* A zero, negative or non-finite entry of the inverse metric gives NaN or
 * infinite momenta, so the chain would never move (every transition
 * rejected).  Called before anything is allocated. */
static void check_metric(SEXP metric, int dim) {
  if (Rf_isNull(metric)) return;
  const double *im = REAL(metric);
  for (int i = 0; i < dim; i++)
    if (!(isfinite(im[i]) && im[i] > 0))
      Rf_error("'inv_metric' must have positive finite entries; entry %d is %g", i + 1, im[i]);
}

/* spec: list(type = "bnn", ...) or list(type = "gaussian", mean, prec).
 * settings: see R/chain.R.  seed: double in [0, 2^53). */
SEXP C_chain_new(SEXP spec, SEXP init, SEXP seed, SEXP chain_id, SEXP settings) {
  if (TYPEOF(init) != REALSXP) Rf_error("'init' must be a double vector");
  double sd = Rf_asReal(seed);
  if (!(sd >= 0 && sd < 9007199254740992.0)) Rf_error("'seed' must be a whole number >= 0");
  int id = Rf_asInteger(chain_id);
  if (id == NA_INTEGER || id < 0) Rf_error("'chain_id' must be a non-negative integer");
  bnn_chain_settings s;
  s.kernel = bnn_get_int(settings, "kernel", BNN_KERNEL_NUTS);
  s.max_depth = bnn_get_int(settings, "max_treedepth", 10);
  s.num_warmup = bnn_get_int(settings, "warmup", 0);
  s.adapt_stepsize = bnn_get_int(settings, "adapt_stepsize", 1);
  s.adapt_metric = bnn_get_int(settings, "adapt_metric", 1);
  s.init_buffer = bnn_get_int(settings, "init_buffer", 75);
  s.term_buffer = bnn_get_int(settings, "term_buffer", 50);
  s.window = bnn_get_int(settings, "window", 25);
  s.stepsize = bnn_get_double(settings, "stepsize", 1.0);
  s.delta = bnn_get_double(settings, "adapt_delta", 0.8);
  s.gamma = bnn_get_double(settings, "gamma", 0.05);
  s.kappa = bnn_get_double(settings, "kappa", 0.75);
  s.t0 = bnn_get_double(settings, "t0", 10.0);
  s.int_time = bnn_get_double(settings, "int_time", 1.0);
  if (s.max_depth < 0 || s.max_depth > 30) Rf_error("'max_treedepth' must be in 0..30");
  if (!(s.stepsize > 0 && isfinite(s.stepsize))) Rf_error("'stepsize' must be positive and finite");
  if (s.num_warmup < 0) Rf_error("'warmup' must be >= 0");
  /* the R constructors validate these; checked again so that a settings
   * list edited by hand cannot freeze or break a chain */
  if (!(s.delta > 0 && s.delta < 1)) Rf_error("'adapt_delta' must be in (0, 1)");
  if (!(s.gamma > 0 && isfinite(s.gamma)) || !(s.kappa > 0 && isfinite(s.kappa)) ||
      !(s.t0 > 0 && isfinite(s.t0)))
    Rf_error("'gamma', 'kappa' and 't0' must be positive and finite");
  if (s.init_buffer < 0 || s.term_buffer < 0 || s.window < 1)
    Rf_error("'init_buffer' and 'term_buffer' must be >= 0 and 'window' >= 1");
  if (s.kernel == BNN_KERNEL_HMC &&
      !(s.int_time > 0 && s.int_time / s.stepsize < (double)INT_MAX))
    Rf_error("static HMC: 'trajectory_length' / 'stepsize' must be positive and below %d "
             "leapfrog steps", INT_MAX);

  SEXP type = bnn_list_get(spec, "type");
  const char *ty = Rf_isString(type) ? CHAR(STRING_ELT(type, 0)) : "bnn";
  SEXP xp = PROTECT(R_MakeExternalPtr(NULL, R_NilValue, R_NilValue));
  R_RegisterCFinalizerEx(xp, chain_finalizer, TRUE);

  bnn_model *model = NULL;
  bnn_gauss_target *gauss = NULL;
  int dim;
  if (strcmp(ty, "gaussian") == 0) {
    SEXP mean = bnn_list_get(spec, "mean"), prec = bnn_list_get(spec, "prec");
    if (TYPEOF(mean) != REALSXP || TYPEOF(prec) != REALSXP ||
        Rf_xlength(prec) != Rf_xlength(mean) * Rf_xlength(mean))
      Rf_error("'spec' of type gaussian needs double 'mean' and square 'prec'");
    dim = Rf_length(mean);
  } else {
    /* validate before allocating: build once to learn the dimension */
    SEXP sizes = bnn_list_get(spec, "sizes");
    if (TYPEOF(sizes) != INTSXP) Rf_error("'spec$sizes' must be integer");
    dim = 0;
  }
  SEXP metric = bnn_list_get(settings, "inv_metric");
  if (strcmp(ty, "gaussian") == 0) {
    if (Rf_length(init) != dim) Rf_error("'init' must have length %d", dim);
    if (!Rf_isNull(metric) && (TYPEOF(metric) != REALSXP || Rf_length(metric) != dim))
      Rf_error("'inv_metric' must be a double vector of length %d", dim);
    check_metric(metric, dim);
    gauss = bnn_gauss_new(dim, REAL(bnn_list_get(spec, "mean")),
                          REAL(bnn_list_get(spec, "prec")));
    if (!gauss) Rf_error("cannot allocate the target");
  } else {
    /* data are copied so the chain is independent of R's objects */
    bnn_model *probe;
    bnn_model_protect(spec, 0, 0, &probe); /* validates spec, freed by GC */
    dim = probe->dim;
    if (Rf_length(init) != dim) Rf_error("'init' must have length %d", dim);
    if (!Rf_isNull(metric) && (TYPEOF(metric) != REALSXP || Rf_length(metric) != dim))
      Rf_error("'inv_metric' must be a double vector of length %d", dim);
    check_metric(metric, dim);
    SEXP sX = bnn_list_get(spec, "X"), sy = bnn_list_get(spec, "y");
    if (TYPEOF(sX) != REALSXP || TYPEOF(sy) != REALSXP ||
        Rf_xlength(sX) != Rf_xlength(sy) * (R_xlen_t)probe->sizes[0])
      Rf_error("'spec$X' and 'spec$y' do not match the architecture");
    UNPROTECT(1);
    model = bnn_model_from_spec(spec, 1, 1);
  }
  s.inv_metric = Rf_isNull(metric) ? NULL : REAL(metric);
  bnn_chain *c = bnn_chain_new(model, gauss, REAL(init), (uint64_t)sd,
                               (uint64_t)id, &s);
  if (!c) Rf_error("cannot allocate the chain workspace");
  R_SetExternalPtrAddr(xp, c);
  UNPROTECT(1);
  return xp;
}

static SEXP chain_info(bnn_chain *c) {
  const char *nm[] = {"stepsize", "inv_metric", "n_grad", "iter", "status", "position"};
  SEXP out = PROTECT(bnn_named_list(6, nm));
  SET_VECTOR_ELT(out, 0, Rf_ScalarReal(c->hmc.eps));
  SEXP im = Rf_allocVector(REALSXP, c->dim);
  SET_VECTOR_ELT(out, 1, im);
  memcpy(REAL(im), c->hmc.inv_metric, sizeof(double) * (size_t)c->dim);
  SET_VECTOR_ELT(out, 2, Rf_ScalarReal(c->target.n_grad));
  SET_VECTOR_ELT(out, 3, Rf_ScalarInteger(c->iter));
  SET_VECTOR_ELT(out, 4, Rf_ScalarInteger(c->status));
  SEXP q = Rf_allocVector(REALSXP, c->dim);
  SET_VECTOR_ELT(out, 5, q);
  memcpy(REAL(q), c->hmc.z.q, sizeof(double) * (size_t)c->dim);
  UNPROTECT(1);
  return out;
}

SEXP C_chain_info(SEXP xp) { return chain_info(get_chain(xp)); }

/* Interrupts.  Between transitions the chain's state is consistent and
 * everything else is R memory or owned by the external pointer, so
 * R_CheckUserInterrupt() may jump out directly.  Inside a trajectory (a
 * NUTS tree at depth 12 can take seconds) a jump would leave the kernel's
 * state half-updated, so there the kernel calls check_in_trajectory()
 * through its interrupt hook: it asks R inside R_ToplevelExec(), which
 * catches the jump and returns FALSE when the user interrupted.  The kernel
 * then ends the trajectory at once, the chain is marked unusable, and the
 * interrupt is re-raised at this boundary, where nothing is half-done.
 * Both checks are rate-limited by elapsed work (bnn_itimer, 0.2 s by
 * default), and neither reads random numbers or changes state, so the draws
 * do not depend on them. */
static void check_interrupt_fn(void *dummy) {
  (void)dummy;
  R_CheckUserInterrupt();
}

typedef struct {
  bnn_itimer *timer;   /* the chain's, kept across run calls */
} run_ctx;

static int check_in_trajectory(void *ctx) {
  run_ctx *r = ctx;
  if (!bnn_itimer_due(r->timer)) return 0;
  return R_ToplevelExec(check_interrupt_fn, NULL) ? 0 : 1;
}

/* Re-raise a user interrupt caught inside a trajectory: SIGINT sets R's
 * pending-interrupt flag (R's own handler), so R_CheckUserInterrupt() raises
 * a genuine interrupt condition; an error if the signal cannot be sent.
 * Only when a SIGINT handler is installed: an R embedded without R's signal
 * handlers would be terminated by the signal's default action.  Not on
 * Windows, where R_CheckUserInterrupt() does not look at the flag (Ctrl-C
 * comes through the console), which would stay set and interrupt some later
 * computation: there, an error. */
static void reraise_interrupt(void) {
#ifndef _WIN32
  struct sigaction sa;
  if (sigaction(SIGINT, NULL, &sa) == 0 && sa.sa_handler != SIG_DFL &&
      sa.sa_handler != SIG_IGN) {
    raise(SIGINT);
    R_CheckUserInterrupt();
  }
#endif
  Rf_error("interrupted by the user");
}

/* Run n_iter transitions; returns list(draws = n_iter x dim,
 * stats = n_iter x 7, info = chain_info). */
SEXP C_chain_run(SEXP xp, SEXP n_iter) {
  bnn_chain *c = get_chain(xp);
  int n = Rf_asInteger(n_iter);
  if (n == NA_INTEGER || n < 0) Rf_error("'n_iter' must be a non-negative integer");
  if (c->status == BNN_CHAIN_BAD_INIT) Rf_error("the chain's initial values have a non-finite log density");
  if (c->status == BNN_CHAIN_INTERRUPTED)
    Rf_error("the chain was interrupted inside a transition and cannot be continued");
  const char *nm[] = {"draws", "stats", "info"};
  SEXP out = PROTECT(bnn_named_list(3, nm));
  SEXP draws = Rf_allocMatrix(REALSXP, n, c->dim);
  SET_VECTOR_ELT(out, 0, draws);
  SEXP stats = Rf_allocMatrix(REALSXP, n, BNN_N_STATS);
  SET_VECTOR_ELT(out, 1, stats);
  double *draw = (double *)R_alloc((size_t)(c->dim > 0 ? c->dim : 1), sizeof(double));
  double st[BNN_N_STATS];
  run_ctx rc;
  bnn_itimer_resume(&c->itimer, bnn_interrupt_period());
  rc.timer = &c->itimer;
  c->hmc.interrupt = check_in_trajectory;
  c->hmc.interrupt_ctx = &rc;
  c->hmc.interrupted = 0;
  for (int it = 0; it < n; it++) {
    bnn_chain_step(c, draw, st);
    if (c->hmc.interrupted) {
      c->hmc.interrupt = NULL;
      c->status = BNN_CHAIN_INTERRUPTED;
      UNPROTECT(1);
      reraise_interrupt();
    }
    for (int j = 0; j < c->dim; j++) REAL(draws)[it + (size_t)j * n] = draw[j];
    for (int j = 0; j < BNN_N_STATS; j++) REAL(stats)[it + (size_t)j * n] = st[j];
    if (bnn_itimer_due(rc.timer)) {
      /* rc lives on this frame: unhook it before a possible jump */
      c->hmc.interrupt = NULL;
      R_CheckUserInterrupt();
      c->hmc.interrupt = check_in_trajectory;
    }
  }
  c->hmc.interrupt = NULL;
  SET_VECTOR_ELT(out, 2, chain_info(c));
  UNPROTECT(1);
  return out;
}

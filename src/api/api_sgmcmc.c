/* The SEXP boundary of the stochastic-gradient samplers: the minibatch
 * target built from a kernel's settings (used by api_kernel.c's
 * target_registry, "bnn" entry), the settings parsers of the SGLD / pSGLD / SGHMC kernels
 * (registered in api_kernel.c), and a .Call entry that evaluates a
 * minibatch target directly (tests, benchmarks). */
#include <math.h>
#include <string.h>
#include "api_sgmcmc.h"
#include "minibatch.h"
#include "sghmc.h"
#include "sgld.h"
#include "ziggurat.h"

static int kset_int(SEXP settings, const char *name, int dflt, int lower) {
  SEXP v = bnn_list_get(settings, name);
  if (Rf_isNull(v)) return dflt;
  if ((TYPEOF(v) != REALSXP && TYPEOF(v) != INTSXP) || Rf_length(v) != 1)
    Rf_error("'%s' must be a single whole number", name);
  double x = Rf_asReal(v);
  if (ISNAN(x) || x != floor(x) || x < lower || x > 2147483647.0)
    Rf_error("'%s' must be a whole number >= %d", name, lower);
  return (int)x;
}

/* ---- the minibatch target ------------------------------------------- */

int bnn_settings_minibatch(SEXP settings) {
  return !Rf_isNull(bnn_list_get(settings, "batch_size"));
}

static void free_minibatch(void *ctx) { bnn_minibatch_free(ctx); }

/* Validates everything before allocating; Rf_error names the argument. */
static void parse_minibatch(SEXP spec, SEXP settings, int dim,
                            bnn_minibatch_settings *s) {
  SEXP y = bnn_list_get(spec, "y");
  if (TYPEOF(y) != REALSXP) Rf_error("a minibatch target needs a model with data");
  /* a batch holds one response per row (minibatch.c copies y[idx]) */
  if (bnn_get_int(spec, "lik", 0) == BNN_LIK_MGAUSS)
    Rf_error("a minibatch target needs one response per row, not the multi-output "
             "Gaussian likelihood of an emulator");
  /* rows: the count likelihoods' y has several columns */
  int n = Rf_isMatrix(y) ? Rf_nrows(y) : Rf_length(y);
  memset(s, 0, sizeof *s);
  s->batch_size = kset_int(settings, "batch_size", n, 1);
  if (s->batch_size > n)
    Rf_error("'batch_size' must be between 1 and the number of rows (%d), not %d",
             n, s->batch_size);
  s->replace = bnn_kset_flag(settings, "replace", 0);
  s->estimator = kset_int(settings, "gradient", BNN_GRAD_PLAIN, 0);
  if (s->estimator > BNN_GRAD_SVRG)
    Rf_error("'gradient' code must be 0 (minibatch), 1 (cv) or 2 (svrg)");
  s->svrg_period = kset_int(settings, "svrg_period", 100, 1);
  if (s->estimator != BNN_GRAD_PLAIN) {
    SEXP c = bnn_list_get(settings, "centre");
    if (TYPEOF(c) != REALSXP || Rf_length(c) != dim)
      Rf_error("'centre' (the control variates' centring point) must be a double vector of length %d",
               dim);
    for (int j = 0; j < dim; j++)
      if (!isfinite(REAL(c)[j])) Rf_error("'centre' must be finite (entry %d)", j + 1);
    s->centre = REAL(c);
  }
}

bnn_target bnn_minibatch_target(SEXP spec, SEXP settings, uint64_t seed,
                                 uint64_t stream, void (**free_fn)(void *)) {
  bnn_model *probe;
  bnn_model_protect(spec, 1, 0, &probe);   /* validates spec and data */
  int dim = probe->dim;
  UNPROTECT(1);
  bnn_minibatch_settings s;
  parse_minibatch(spec, settings, dim, &s);
  bnn_model *m = bnn_model_from_spec(spec, 1, 1);
  bnn_minibatch *mb = bnn_minibatch_new(m, &s, seed, stream);
  if (!mb) Rf_error("cannot allocate the minibatch target");
  bnn_target t;
  memset(&t, 0, sizeof t);
  bnn_minibatch_bind(&t, mb);
  *free_fn = free_minibatch;
  return t;
}

/* Evaluate a minibatch target (built from `settings` as a chain would,
 * with the batches of chain `chain_id`) at the columns of theta in turn.
 * hold: NULL, or one integer per evaluation: 1 = bnn_target_hold(on)
 * before it, -1 = hold(off) before it, 0 = nothing.
 * Returns list(lp, grad = dim x k, idx = batch x k (1-based rows),
 * n_full = full-data gradients computed). */
SEXP C_minibatch_eval(SEXP spec, SEXP settings, SEXP seed, SEXP chain_id,
                      SEXP theta, SEXP hold) {
  if (TYPEOF(theta) != REALSXP) Rf_error("'theta' must be a double matrix");
  if (TYPEOF(settings) != VECSXP) Rf_error("'settings' must be a list");
  double sd = bnn_arg_seed(seed);
  int id = bnn_arg_chain_id(chain_id);
  bnn_model *probe;
  bnn_model_protect(spec, 1, 0, &probe);
  int dim = probe->dim;
  UNPROTECT(1);
  if (Rf_xlength(theta) % dim != 0) Rf_error("'theta' must have %d rows", dim);
  int k = (int)(Rf_xlength(theta) / dim);
  if (!Rf_isNull(hold) && (TYPEOF(hold) != INTSXP || Rf_length(hold) != k))
    Rf_error("'hold' must be NULL or an integer vector with one entry per column");
  bnn_minibatch_settings s;
  parse_minibatch(spec, settings, dim, &s);
  const char *nm[] = {"lp", "grad", "idx", "n_full"};
  SEXP out = PROTECT(bnn_named_list(4, nm));
  SEXP lp = Rf_allocVector(REALSXP, k);
  SET_VECTOR_ELT(out, 0, lp);
  SEXP grad = Rf_allocMatrix(REALSXP, dim, k);
  SET_VECTOR_ELT(out, 1, grad);
  SEXP idx = Rf_allocMatrix(INTSXP, s.batch_size, k);
  SET_VECTOR_ELT(out, 2, idx);
  /* nothing below can raise an R error, so the target cannot leak */
  void (*free_fn)(void *) = NULL;
  bnn_target t = bnn_minibatch_target(spec, settings, (uint64_t)sd, (uint64_t)id, &free_fn);
  bnn_minibatch *mb = t.ctx;
  for (int i = 0; i < k; i++) {
    if (!Rf_isNull(hold) && INTEGER(hold)[i] != 0)
      bnn_target_hold(&t, INTEGER(hold)[i] > 0);
    REAL(lp)[i] = bnn_target_eval(&t, REAL(theta) + (size_t)i * dim,
                                  REAL(grad) + (size_t)i * dim);
    for (int b = 0; b < s.batch_size; b++)
      INTEGER(idx)[b + (size_t)i * s.batch_size] = mb->idx[b] + 1;
  }
  SET_VECTOR_ELT(out, 3, Rf_ScalarReal(mb->n_full));
  free_fn(mb);
  UNPROTECT(1);
  return out;
}

/* ---- settings of the kernels ------------------------------------------- */

static void parse_schedule(SEXP settings, bnn_sg_schedule *s) {
  s->eps0 = bnn_kset_real(settings, "stepsize", 1e-4, 0, 1e300, 1);
  s->cycles = kset_int(settings, "cycles", 0, 0);
  int warmup = kset_int(settings, "warmup", 0, 0);
  int iter = kset_int(settings, "iter", 0, 0);
  if ((double)warmup + (double)iter > 2147483647.0)   /* int overflow */
    Rf_error("'warmup' + 'iter' must be at most 2147483647, not %.0f",
             (double)warmup + (double)iter);
  s->n_total = warmup + iter;
  if (s->cycles > 0 && s->cycles > s->n_total)
    Rf_error("'cycles' (%d) must not exceed the number of iterations (warmup + iter = %d)",
             s->cycles, s->n_total);
}

void bnn_parse_sgld(SEXP settings, int dim, void *out) {
  (void)dim;
  bnn_sgld_settings *s = out;
  parse_schedule(settings, &s->schedule);
  s->alpha = bnn_kset_real(settings, "alpha", 0.95, 0, 1, 0);
  if (!(s->alpha < 1)) Rf_error("'alpha' must be below 1");
  s->lambda = bnn_kset_real(settings, "lambda", 1e-6, 0, 1e300, 1);
}

void bnn_parse_sghmc(SEXP settings, int dim, void *out) {
  (void)dim;
  bnn_sghmc_settings *s = out;
  parse_schedule(settings, &s->schedule);
  s->alpha = bnn_kset_real(settings, "friction", 0.01, 0, 1, 1);
  s->n_leapfrog = kset_int(settings, "n_leapfrog", 10, 1);
  s->batch_per_iter = bnn_kset_flag(settings, "batch_per_iteration", 0);
}

/* Evaluate a minibatch target n_rep times at theta (benchmarks: the cost
 * of a minibatch gradient without R in between).  Returns the last value. */
SEXP C_minibatch_grad_loop(SEXP spec, SEXP settings, SEXP theta, SEXP n_rep) {
  if (TYPEOF(theta) != REALSXP) Rf_error("'theta' must be a double vector");
  if (TYPEOF(settings) != VECSXP) Rf_error("'settings' must be a list");
  int reps = Rf_asInteger(n_rep);
  if (reps == NA_INTEGER || reps < 1) Rf_error("'n_rep' must be a positive integer");
  bnn_model *probe;
  bnn_model_protect(spec, 1, 0, &probe);
  int dim = probe->dim;
  UNPROTECT(1);
  if (Rf_length(theta) != dim) Rf_error("'theta' must have length %d", dim);
  double *g = (double *)R_alloc((size_t)dim, sizeof(double));
  bnn_minibatch_settings s;
  parse_minibatch(spec, settings, dim, &s);
  void (*free_fn)(void *) = NULL;
  bnn_target t = bnn_minibatch_target(spec, settings, 1, 0, &free_fn);
  double lp = 0.0;
  for (int r = 0; r < reps; r++) lp = bnn_target_eval(&t, REAL(theta), g);
  free_fn(t.ctx);
  return Rf_ScalarReal(lp);
}

/* n standard normal deviates of the ziggurat from the stream (seed, 0),
 * one at a time (bnn_zig_norm) or by bnn_zig_fill, the kernels' path
 * (tests). */
SEXP C_zig_draws(SEXP seed, SEXP n_, SEXP fill_) {
  int n = Rf_asInteger(n_);
  if (n == NA_INTEGER || n < 0) Rf_error("'n' must be a non-negative integer");
  bnn_rng rng;
  bnn_rng_seed(&rng, (uint64_t)Rf_asReal(seed), 0);
  bnn_zig z;
  bnn_zig_init(&z);
  SEXP out = PROTECT(Rf_allocVector(REALSXP, n));
  if (Rf_asLogical(fill_) == 1)
    bnn_zig_fill(&rng, &z, REAL(out), n);
  else
    for (int i = 0; i < n; i++) REAL(out)[i] = bnn_zig_norm(&rng, &z);
  UNPROTECT(1);
  return out;
}

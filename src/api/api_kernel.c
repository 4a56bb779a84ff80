/* The one .Call boundary of the chain driver: build a target from a spec,
 * create a chain of any registered kernel (an R external pointer with a
 * finalizer), run it in blocks, read its state, free it. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "api_kernel.h"
#include "api_sgmcmc.h"
#include "gauss_target.h"
#include "api_mclmc.h"
#include "hmc_kernel.h"
#include "mclmc_kernel.h"
#include "rwm.h"
#include "sghmc.h"
#include "sgld.h"
#include "pcn.h"
#include "reference.h"
#include "api_ces.h"

/* ---- the kernels ------------------------------------------------------ */

static void parse_rwm(SEXP settings, int dim, void *out) {
  bnn_rwm_settings *s = out;
  s->stepsize = bnn_kset_real(settings, "stepsize", 0.1, 0, 1e300, 1);
  s->adapt = bnn_kset_flag(settings, "adapt_stepsize", 1);
  s->target_accept = bnn_kset_real(settings, "target_accept", 0.234, 0, 1, 1);
  if (!(s->target_accept < 1)) Rf_error("'target_accept' must be below 1");
  s->inv_metric = bnn_kset_inv_metric(settings, dim);
}

static void parse_pcn(SEXP settings, int dim, void *out) {
  (void)dim;
  bnn_pcn_settings *s = out;
  s->beta = bnn_kset_real(settings, "beta", 0.1, 0, 1, 1);
  s->adapt = bnn_kset_flag(settings, "adapt_beta", 1);
  s->target_accept = bnn_kset_real(settings, "target_accept", 0.25, 0, 1, 1);
  if (!(s->target_accept < 1)) Rf_error("'target_accept' must be below 1");
  s->extra_stepsize = bnn_kset_real(settings, "extra_stepsize", 0.1, 0, 1e300, 1);
}

/* NUTS and static HMC: settings from sampler_c_settings() (R/sampler-hmc.R).
 * The R constructors validate these; checked again so that a settings list
 * edited by hand cannot freeze or break a chain. */
static void parse_hmc_common(SEXP settings, int dim, bnn_hmc_settings *s) {
  s->max_depth = bnn_get_int(settings, "max_treedepth", 10);
  s->num_warmup = bnn_get_int(settings, "warmup", 0);
  s->adapt_stepsize = bnn_get_int(settings, "adapt_stepsize", 1);
  s->adapt_metric = bnn_get_int(settings, "adapt_metric", 1);
  s->init_buffer = bnn_get_int(settings, "init_buffer", 75);
  s->term_buffer = bnn_get_int(settings, "term_buffer", 50);
  s->window = bnn_get_int(settings, "window", 25);
  s->stepsize = bnn_get_double(settings, "stepsize", 1.0);
  s->delta = bnn_get_double(settings, "adapt_delta", 0.8);
  s->gamma = bnn_get_double(settings, "gamma", 0.05);
  s->kappa = bnn_get_double(settings, "kappa", 0.75);
  s->t0 = bnn_get_double(settings, "t0", 10.0);
  s->int_time = bnn_get_double(settings, "int_time", 1.0);
  if (s->max_depth < 0 || s->max_depth > 30) Rf_error("'max_treedepth' must be in 0..30");
  if (!(s->stepsize > 0 && isfinite(s->stepsize))) Rf_error("'stepsize' must be positive and finite");
  if (s->num_warmup < 0) Rf_error("'warmup' must be >= 0");
  if (!(s->delta > 0 && s->delta < 1)) Rf_error("'adapt_delta' must be in (0, 1)");
  if (!(s->gamma > 0 && isfinite(s->gamma)) || !(s->kappa > 0 && isfinite(s->kappa)) ||
      !(s->t0 > 0 && isfinite(s->t0)))
    Rf_error("'gamma', 'kappa' and 't0' must be positive and finite");
  if (s->init_buffer < 0 || s->term_buffer < 0 || s->window < 1)
    Rf_error("'init_buffer' and 'term_buffer' must be >= 0 and 'window' >= 1");
  s->inv_metric = bnn_kset_inv_metric(settings, dim);
}

static void parse_nuts(SEXP settings, int dim, void *out) {
  parse_hmc_common(settings, dim, out);
}

static void parse_hmc(SEXP settings, int dim, void *out) {
  bnn_hmc_settings *s = out;
  parse_hmc_common(settings, dim, s);
  if (!(s->int_time > 0 && s->int_time / s->stepsize < (double)INT_MAX))
    Rf_error("static HMC: 'trajectory_length' / 'stepsize' must be positive and below %d "
             "leapfrog steps", INT_MAX);
}

/* Add a kernel here (and its settings parser above or in its own api file). */
static const bnn_kernel_entry kernel_registry[] = {
    {"nuts", &bnn_kernel_nuts, sizeof(bnn_hmc_settings), parse_nuts, 0},
    {"hmc", &bnn_kernel_hmc, sizeof(bnn_hmc_settings), parse_hmc, 0},
    {"mclmc", &bnn_kernel_mclmc, sizeof(bnn_mclmc_settings), bnn_parse_mclmc, 0},
    {"rwm", &bnn_kernel_rwm, sizeof(bnn_rwm_settings), parse_rwm, 0},
    /* sgmcmc: parsers in api_sgmcmc.c */
    {"sgld", &bnn_kernel_sgld, sizeof(bnn_sgld_settings), bnn_parse_sgld, 0},
    {"psgld", &bnn_kernel_psgld, sizeof(bnn_sgld_settings), bnn_parse_sgld, 0},
    {"sghmc", &bnn_kernel_sghmc, sizeof(bnn_sghmc_settings), bnn_parse_sghmc, 0},
    /* ces */
    {"pcn", &bnn_kernel_pcn, sizeof(bnn_pcn_settings), parse_pcn, 1},
    {NULL, NULL, 0, NULL, 0}};

static const bnn_kernel_entry *find_kernel(SEXP name) {
  if (!Rf_isString(name) || Rf_length(name) != 1)
    Rf_error("'kernel' must be a kernel name");
  const char *nm = CHAR(STRING_ELT(name, 0));
  for (const bnn_kernel_entry *e = kernel_registry; e->name; e++)
    if (strcmp(e->name, nm) == 0) return e;
  Rf_error("unknown kernel '%s'", nm);
  return NULL; /* not reached */
}

/* ---- targets ---------------------------------------------------------- */

static void free_model(void *ctx) { bnn_model_free(ctx); }
static void free_gauss(void *ctx) { bnn_gauss_free(ctx); }

/* Each kind of target: its dimension, validated before anything is
 * allocated, and its construction (data copied, so the chain is
 * independent of R's objects).  A spec names its kind in `type`, which R
 * sets (make_spec(): "bnn", bnn_sample_gaussian(): "gaussian",
 * emulated_spec(): "emulated"); a spec without one is the network's. */
typedef struct {
  const char *type;
  int (*dim)(SEXP spec);
  bnn_target (*build)(SEXP spec, SEXP settings, uint64_t seed, uint64_t stream,
                      void (**free_fn)(void *));
} bnn_target_entry;

/* The network (model.c) on its data; settings with a batch_size give the
 * minibatch target (minibatch.h), its batches drawn from the chain's own
 * stream (seed, chain id) in the minibatch domain. */
static int model_dim(SEXP spec) {
  bnn_model *probe;
  bnn_model_protect(spec, 1, 0, &probe);  /* validates spec and data */
  int dim = probe->dim;
  UNPROTECT(1);
  return dim;
}

static bnn_target model_build(SEXP spec, SEXP settings, uint64_t seed, uint64_t stream,
                              void (**free_fn)(void *)) {
  if (bnn_settings_minibatch(settings))
    return bnn_minibatch_target(spec, settings, seed, stream, free_fn);
  bnn_target t;
  memset(&t, 0, sizeof t);
  bnn_model *m = bnn_model_from_spec(spec, 1, 1);
  if (!m) Rf_error("cannot allocate the model");
  bnn_target_bind(&t, m, NULL);
  bnn_target_bind_reference(&t, m);
  *free_fn = free_model;
  return t;
}

/* A Gaussian N(mean, prec^-1), optionally with a wall (log density -Inf)
 * above `upper`: list(type = "gaussian", mean, prec, upper). */
static int gauss_dim(SEXP spec) {
  SEXP mean = bnn_list_get(spec, "mean"), prec = bnn_list_get(spec, "prec");
  if (TYPEOF(mean) != REALSXP || TYPEOF(prec) != REALSXP ||
      Rf_xlength(prec) != Rf_xlength(mean) * Rf_xlength(mean))
    Rf_error("'spec' of type gaussian needs double 'mean' and square 'prec'");
  SEXP up = bnn_list_get(spec, "upper");
  if (!Rf_isNull(up) && (TYPEOF(up) != REALSXP || Rf_length(up) != Rf_length(mean)))
    Rf_error("'spec$upper' must be a double vector of length %d", Rf_length(mean));
  return Rf_length(mean);
}

static bnn_target gauss_build(SEXP spec, SEXP settings, uint64_t seed, uint64_t stream,
                              void (**free_fn)(void *)) {
  (void)seed;
  (void)stream;
  if (bnn_settings_minibatch(settings))
    Rf_error("'batch_size' needs a model with data, not a Gaussian test target");
  bnn_target t;
  memset(&t, 0, sizeof t);
  bnn_gauss_target *g = bnn_gauss_new(Rf_length(bnn_list_get(spec, "mean")),
                                      REAL(bnn_list_get(spec, "mean")),
                                      REAL(bnn_list_get(spec, "prec")));
  if (!g) Rf_error("cannot allocate the target");
  SEXP up = bnn_list_get(spec, "upper");   /* a test wall, validated by gauss_dim */
  if (!Rf_isNull(up) && bnn_gauss_set_upper(g, REAL(up))) {
    bnn_gauss_free(g);
    Rf_error("cannot allocate the target");
  }
  bnn_target_bind(&t, NULL, g);
  *free_fn = free_gauss;
  return t;
}

/* CES's emulated posterior (api_ces.c): the emulator maps theta to all N
 * outputs at once, so no minibatches. */
static bnn_target emulated_build(SEXP spec, SEXP settings, uint64_t seed, uint64_t stream,
                                 void (**free_fn)(void *)) {
  (void)seed;
  (void)stream;
  if (bnn_settings_minibatch(settings))
    Rf_error("an emulated target is evaluated in full: 'batch_size' must be NULL");
  return bnn_ces_build_target(spec, free_fn);
}

/* Add a kind of target here. */
static const bnn_target_entry target_registry[] = {
    {"bnn", model_dim, model_build},
    {"gaussian", gauss_dim, gauss_build},
    {"emulated", bnn_ces_spec_dim, emulated_build},
    {NULL, NULL, NULL}};

static const bnn_target_entry *find_target(SEXP spec) {
  if (TYPEOF(spec) != VECSXP) Rf_error("'spec' must be a list");
  SEXP type = bnn_list_get(spec, "type");
  if (Rf_isNull(type)) return &target_registry[0];
  if (!Rf_isString(type) || Rf_length(type) != 1 || STRING_ELT(type, 0) == NA_STRING)
    Rf_error("'spec$type' must be a target's name");
  const char *nm = CHAR(STRING_ELT(type, 0));
  for (const bnn_target_entry *e = target_registry; e->type; e++)
    if (strcmp(e->type, nm) == 0) return e;
  Rf_error("unknown target type '%s'", nm);
  return NULL; /* not reached */
}

/* ---- chains ------------------------------------------------------------ */

static void kchain_finalizer(SEXP xp) {
  bnn_kchain *c = R_ExternalPtrAddr(xp);
  if (c) bnn_kchain_free(c);
  R_ClearExternalPtr(xp);
}

static bnn_kchain *get_kchain(SEXP xp) {
  if (TYPEOF(xp) != EXTPTRSXP) Rf_error("'chain' must be a chain handle");
  bnn_kchain *c = R_ExternalPtrAddr(xp);
  if (!c) Rf_error("the chain handle is no longer valid (was the session restarted?)");
  return c;
}

SEXP C_kchain_new(SEXP kernel, SEXP spec, SEXP init, SEXP seed, SEXP chain_id,
                  SEXP settings) {
  const bnn_kernel_entry *e = find_kernel(kernel);
  if (TYPEOF(init) != REALSXP) Rf_error("'init' must be a double vector");
  if (TYPEOF(settings) != VECSXP) Rf_error("'settings' must be a list");
  double sd = bnn_arg_seed(seed);
  int id = bnn_arg_chain_id(chain_id);
  int warmup = bnn_get_int(settings, "warmup", 0);
  if (warmup == NA_INTEGER || warmup < 0) Rf_error("'warmup' must be a non-negative integer");
  const bnn_target_entry *te = find_target(spec);
  int dim = te->dim(spec);
  if (Rf_length(init) != dim) Rf_error("'init' must have length %d", dim);
  for (int j = 0; j < dim; j++)
    if (!isfinite(REAL(init)[j])) Rf_error("'init' must be finite (entry %d is %g)", j + 1, REAL(init)[j]);
  /* parse into aligned scratch memory before anything is allocated */
  double ks[BNN_KERNEL_SETTINGS_MAX / sizeof(double)];
  if (e->settings_size > sizeof ks) Rf_error("kernel settings too large (internal)");
  memset(ks, 0, sizeof ks);
  e->parse(settings, dim, ks);

  SEXP xp = PROTECT(R_MakeExternalPtr(NULL, R_NilValue, R_NilValue));
  R_RegisterCFinalizerEx(xp, kchain_finalizer, TRUE);
  void (*free_fn)(void *) = NULL;
  bnn_target t = te->build(spec, settings, (uint64_t)sd, (uint64_t)id, &free_fn);
  if (e->needs_reference && !t.loglik) {
    if (free_fn) free_fn(t.ctx);
    Rf_error("the '%s' kernel needs a model with a Normal prior on the network's "
             "weights (its proposal keeps that Gaussian prior invariant); "
             "a Laplace prior or a Gaussian test target cannot be used", e->name);
  }
  bnn_kchain *c = bnn_kchain_new(e->type, ks, t, free_fn, REAL(init), (uint64_t)sd,
                                 (uint64_t)id, warmup, bnn_interrupt_period());
  if (!c) Rf_error("cannot allocate the chain workspace");
  R_SetExternalPtrAddr(xp, c);
  UNPROTECT(1);
  return xp;
}

static SEXP dvec(const double *x, int n) {
  if (!x) return R_NilValue;
  SEXP v = Rf_allocVector(REALSXP, n);
  if (n > 0) memcpy(REAL(v), x, sizeof(double) * (size_t)n);
  return v;
}

/* list(stepsize, n_grad, iter, status, failed_iter, reason, position,
 * inv_metric, <the kernel's named statistics>); position and inv_metric
 * are NULL for a kernel that does not expose them. */
static SEXP kchain_info(const bnn_kchain *c) {
  const bnn_kernel_type *k = c->kernel;
  int ni = k->info ? k->n_info : 0;
  enum { NFIX = 8 };
  const char *nm[NFIX + 16] = {"stepsize", "n_grad", "iter", "status", "failed_iter",
                               "reason", "position", "inv_metric"};
  if (ni > 16) Rf_error("too many kernel statistics (internal)");
  for (int i = 0; i < ni; i++) nm[NFIX + i] = k->info_names[i];
  SEXP out = PROTECT(bnn_named_list(NFIX + ni, nm));
  double eps = k->stepsize ? k->stepsize(c->state) : NA_REAL;
  SET_VECTOR_ELT(out, 0, Rf_ScalarReal(eps));
  SET_VECTOR_ELT(out, 1, Rf_ScalarReal(c->target.n_grad));
  SET_VECTOR_ELT(out, 2, Rf_ScalarInteger(c->iter));
  SET_VECTOR_ELT(out, 3, Rf_ScalarInteger(c->status));
  SET_VECTOR_ELT(out, 4, Rf_ScalarInteger(c->failed_iter));
  SET_VECTOR_ELT(out, 5, c->reason ? Rf_mkString(c->reason) : Rf_ScalarString(NA_STRING));
  SET_VECTOR_ELT(out, 6, dvec(k->position ? k->position(c->state) : NULL, c->dim));
  if (k->inv_metric) {
    SEXP im = Rf_allocVector(REALSXP, c->dim);
    SET_VECTOR_ELT(out, 7, im);
    k->inv_metric(c->state, REAL(im));
  }
  if (ni > 0) {
    double val[16];
    k->info(c->state, val);
    for (int i = 0; i < ni; i++) SET_VECTOR_ELT(out, NFIX + i, Rf_ScalarReal(val[i]));
  }
  UNPROTECT(1);
  return out;
}

SEXP C_kchain_info(SEXP xp) { return kchain_info(get_kchain(xp)); }

/* The chain statuses (kernel.h's bnn_status_table) as
 * list(code, name, label, reason, in_fit), one element per status. */
SEXP C_chain_status_table(void) {
  int n = 0;
  while (bnn_status_table[n].name) n++;
  const char *nm[] = {"code", "name", "label", "reason", "in_fit"};
  SEXP out = PROTECT(bnn_named_list(5, nm));
  SEXP code = PROTECT(Rf_allocVector(INTSXP, n));
  SEXP name = PROTECT(Rf_allocVector(STRSXP, n));
  SEXP label = PROTECT(Rf_allocVector(STRSXP, n));
  SEXP reason = PROTECT(Rf_allocVector(STRSXP, n));
  SEXP in_fit = PROTECT(Rf_allocVector(LGLSXP, n));
  for (int i = 0; i < n; i++) {
    const bnn_status_info *s = &bnn_status_table[i];
    INTEGER(code)[i] = s->code;
    SET_STRING_ELT(name, i, Rf_mkChar(s->name));
    SET_STRING_ELT(label, i, Rf_mkChar(s->label));
    SET_STRING_ELT(reason, i, s->reason ? Rf_mkChar(s->reason) : NA_STRING);
    LOGICAL(in_fit)[i] = s->in_fit != 0;
  }
  SET_VECTOR_ELT(out, 0, code);
  SET_VECTOR_ELT(out, 1, name);
  SET_VECTOR_ELT(out, 2, label);
  SET_VECTOR_ELT(out, 3, reason);
  SET_VECTOR_ELT(out, 4, in_fit);
  UNPROTECT(6);
  return out;
}

SEXP C_kchain_stat_names(SEXP kernel) {
  const bnn_kernel_entry *e = find_kernel(kernel);
  SEXP out = PROTECT(Rf_allocVector(STRSXP, e->type->n_stats));
  for (int i = 0; i < e->type->n_stats; i++)
    SET_STRING_ELT(out, i, Rf_mkChar(e->type->stat_names[i]));
  UNPROTECT(1);
  return out;
}

/* ---- the kept draws' sink ----------------------------------------------
 * A run of many blocks can write its kept draws straight into one matrix
 * that the chain handle owns (its protected field holds list(matrix,
 * rows written)) instead of returning a matrix per block that R then binds
 * and copies again: for a 10,000-parameter network with 2,000 kept draws
 * every copy is 166 MB of fresh memory, and on some machines touching fresh
 * pages costs more than the copy.  The matrix is not visible to R until
 * C_kchain_take hands it over (and forgets it). */
SEXP C_kchain_sink(SEXP xp, SEXP n_keep) {
  bnn_kchain *c = get_kchain(xp);
  int nk = Rf_asInteger(n_keep);
  if (nk == NA_INTEGER || nk < 0) Rf_error("'n_keep' must be a non-negative integer");
  SEXP sink = PROTECT(Rf_allocVector(VECSXP, 2));
  /* not filled here: C_kchain_take fills the rows that were never written
   * with NA (a chain that failed), so each page is first touched by a
   * write of draws */
  SEXP m = Rf_allocMatrix(REALSXP, nk, c->dim);
  SET_VECTOR_ELT(sink, 0, m);
  bnn_hint_huge_pages(REAL(m), XLENGTH(m));
  SET_VECTOR_ELT(sink, 1, Rf_ScalarInteger(0));
  R_SetExternalPtrProtected(xp, sink);
  UNPROTECT(1);
  return R_NilValue;
}

SEXP C_kchain_take(SEXP xp) {
  (void)get_kchain(xp);
  SEXP sink = R_ExternalPtrProtected(xp);
  if (TYPEOF(sink) != VECSXP || Rf_length(sink) != 2)
    Rf_error("the chain has no draws' sink (internal)");
  SEXP m = PROTECT(VECTOR_ELT(sink, 0));
  R_xlen_t nk = Rf_nrows(m), dim = Rf_ncols(m), rows = INTEGER(VECTOR_ELT(sink, 1))[0];
  double *D = REAL(m);
  for (R_xlen_t j = 0; j < dim; j++)
    for (R_xlen_t i = rows; i < nk; i++) D[i + j * nk] = NA_REAL;
  /* let go of the sink's reference to the matrix, so that R can give it
   * its shape without a copy */
  SET_VECTOR_ELT(sink, 0, R_NilValue);
  R_SetExternalPtrProtected(xp, R_NilValue);
  UNPROTECT(1);
  return m;
}

/* Write nb draws held draw by draw in buf (dim values each) to rows 0..nb-1
 * of a column-major matrix D with leading dimension ld. */
static void flush_draws(const double *buf, int nb, int dim, double *D, R_xlen_t ld) {
  for (int j = 0; j < dim; j++) {
    double *dst = D + (R_xlen_t)j * ld;
    for (int b = 0; b < nb; b++) dst[b] = buf[(size_t)b * dim + j];
  }
}

/* ---- interrupts ---------------------------------------------------------
 * Between transitions a chain's state is consistent and everything else is
 * R memory or owned by the external pointer, so R_CheckUserInterrupt() may
 * jump out there: at the start of every block, and after a transition when
 * the chain's timer (bnn_itimer, 0.2 s by default, option
 * bnnmc.interrupt_period) is due.  The timer lives in the chain, so that
 * blocks shorter than the period do not restart it and a chain driven in
 * many short blocks is still checked.  Never inside a transition: a jump
 * there would leave the kernel's state half-updated.  A long transition (a
 * NUTS tree at depth 12 can take seconds) instead calls the chain's abort
 * hook (kernel.h) after every leapfrog step, which only reads R's
 * pending-interrupt flag (set by R's own SIGINT handler; UserBreak on
 * Windows): no R call, no jump.  When it is set the kernel ends its
 * transition at once, the chain is marked unusable (BNN_K_INTERRUPTED), and
 * this boundary lets R_CheckUserInterrupt() raise the interrupt, still
 * pending, where nothing is half-done.  Neither check reads random numbers
 * or changes a chain's state, so the draws do not depend on them. */
#include <R_ext/libextern.h>
/* declared as in R_ext/GraphicsDevice.h (graphics devices read it too) */
LibExtern int R_interrupts_pending;
#ifdef _WIN32
LibExtern int UserBreak;   /* as in Rembedded.h */
#endif

static int abort_requested(void *ctx) {
  (void)ctx;
#ifdef _WIN32
  return UserBreak != 0;
#else
  return R_interrupts_pending != 0;
#endif
}

/* Raise the interrupt that ended a transition (still pending in R); an
 * error if R does not raise it (e.g. interrupts suspended). */
static void raise_pending_interrupt(void) {
  R_CheckUserInterrupt();
  Rf_error("interrupted by the user");
}

/* Run up to n_iter transitions.  Returns list(draws = n_keep x dim (NULL
 * when the chain has a sink: the kept draws were written there),
 * stats = n x n_stats, n_done, info); n_done < n_iter when the chain
 * failed: row n_done + 1 of stats then holds what the kernel wrote of the
 * failing transition's statistics (NA if nothing), the rows after it NA.
 * keep: NULL (every transition's draw is returned, n_keep = n) or the
 * increasing 0-based indices within the
 * block of the transitions whose draws are returned (thinning, burn-in), so
 * long runs of big models do not copy draws that are thrown away.
 * Interrupts: see above (the block's draws are lost, the chain is not,
 * unless it was interrupted inside a transition). */
SEXP C_kchain_run(SEXP xp, SEXP n_iter, SEXP keep) {
  bnn_kchain *c = get_kchain(xp);
  if (c->status == BNN_K_INTERRUPTED)
    Rf_error("the chain was interrupted inside a transition and cannot be continued");
  R_CheckUserInterrupt();   /* between blocks */
  int n = Rf_asInteger(n_iter);
  if (n == NA_INTEGER || n < 0) Rf_error("'n_iter' must be a non-negative integer");
  int nk = n;
  const int *kp = NULL;
  if (!Rf_isNull(keep)) {
    if (TYPEOF(keep) != INTSXP) Rf_error("'keep' must be NULL or an integer vector");
    nk = Rf_length(keep);
    kp = INTEGER(keep);
    for (int i = 0; i < nk; i++)
      if (kp[i] < 0 || kp[i] >= n || (i > 0 && kp[i] <= kp[i - 1]))
        Rf_error("'keep' must hold increasing indices in [0, n_iter)");
  }
  int dim = c->dim, ns = c->kernel->n_stats;
  const char *nm[] = {"draws", "stats", "n_done", "info"};
  SEXP out = PROTECT(bnn_named_list(4, nm));
  /* the kept draws go to the sink when there is one (rows row0 ...,
   * leading dimension ld), else to a matrix of this block's (row0 = 0) */
  SEXP sink = R_ExternalPtrProtected(xp);
  double *D;
  int *sink_rows = NULL;
  R_xlen_t ld = nk, row0 = 0;
  if (TYPEOF(sink) == VECSXP && Rf_length(sink) == 2) {
    SEXP m = VECTOR_ELT(sink, 0);
    sink_rows = INTEGER(VECTOR_ELT(sink, 1));
    ld = Rf_nrows(m);
    row0 = *sink_rows;
    if (row0 + nk > ld) Rf_error("more kept draws than the sink holds (internal)");
    D = REAL(m);
  } else {
    SEXP draws = Rf_allocMatrix(REALSXP, nk, dim);
    SET_VECTOR_ELT(out, 0, draws);
    D = REAL(draws);
    for (R_xlen_t i = 0; i < (R_xlen_t)nk * dim; i++) D[i] = NA_REAL;
  }
  SEXP stats = Rf_allocMatrix(REALSXP, n, ns);
  SET_VECTOR_ELT(out, 1, stats);
  double *S = REAL(stats);
  for (R_xlen_t i = 0; i < (R_xlen_t)n * ns; i++) S[i] = NA_REAL;
  /* kept draws are gathered draw by draw in buf (nbuf of them) and written
   * parameter by parameter, nbuf consecutive values at a time: the matrix
   * holds a parameter's values contiguously, so writing one draw directly
   * touches a page per parameter */
  enum { NBUF = 32 };
  int nbuf = nk < NBUF ? (nk > 0 ? nk : 1) : NBUF, nb = 0;
  double *buf = (double *)R_alloc((size_t)nbuf * (size_t)(dim > 0 ? dim : 1), sizeof(double));
  double *st = (double *)R_alloc((size_t)(ns > 0 ? ns : 1), sizeof(double));
  int done = 0, row = 0;
  /* the hook's context is the chain, which outlives this call */
  c->abort.fn = abort_requested;
  c->abort.ctx = c;
  for (int it = 0; it < n; it++) {
    int want = !kp || (row < nk && kp[row] == it);
    for (int j = 0; j < ns; j++) st[j] = NA_REAL;
    int stc = bnn_kchain_step(c, want ? buf + (size_t)nb * dim : NULL, st);
    if (stc == BNN_K_INTERRUPTED) {
      c->abort.fn = NULL;
      UNPROTECT(1);
      raise_pending_interrupt();
    }
    if (stc != BNN_K_OK) {
      /* the failing transition's statistics, as far as its kernel wrote
       * them (NA otherwise), in the row after the n_done ones */
      for (int j = 0; j < ns; j++) S[it + (size_t)j * n] = st[j];
      break;
    }
    if (want) {
      row++;
      if (++nb == nbuf) {
        flush_draws(buf, nb, dim, D + row0 + row - nb, ld);
        nb = 0;
      }
    }
    for (int j = 0; j < ns; j++) S[it + (size_t)j * n] = st[j];
    done++;
    if (bnn_itimer_due(&c->timer)) {
      flush_draws(buf, nb, dim, D + row0 + row - nb, ld);   /* before a possible longjmp */
      nb = 0;
      if (sink_rows) *sink_rows = (int)(row0 + row);
      R_CheckUserInterrupt();
    }
  }
  c->abort.fn = NULL;
  flush_draws(buf, nb, dim, D + row0 + row - nb, ld);
  if (sink_rows) *sink_rows = (int)(row0 + row);
  SET_VECTOR_ELT(out, 2, Rf_ScalarInteger(done));
  SET_VECTOR_ELT(out, 3, kchain_info(c));
  UNPROTECT(1);
  return out;
}

/* Free a chain's memory now (its handle then refuses further use); the
 * finalizer does the same when the handle is garbage collected. */
SEXP C_kchain_free(SEXP xp) {
  if (TYPEOF(xp) != EXTPTRSXP) Rf_error("'chain' must be a chain handle");
  kchain_finalizer(xp);
  return R_NilValue;
}

/* The SEXP boundary of MCLMC: the settings parser of the driver's "mclmc"
 * kernel (registered in api_kernel.c; settings from .mclmc_c_settings() in
 * R/sampler-mclmc.R), BlackJAX's single-chain ESS and the gradients per step. */
#include <math.h>
#include <string.h>
#include "api_mclmc.h"
#include "ess_blackjax.h"
#include "mclmc_kernel.h"

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

/* Fills a bnn_mclmc_settings; the warm-up ("warmup") must be the tuning's
 * steps (n1 + n2 + the preconditioning steps + n3). */
void bnn_parse_mclmc(SEXP settings, int dim, void *out) {
  bnn_mclmc_settings *sp = out;
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
  s.ziggurat = bnn_get_int(settings, "ziggurat", 0);
  if (s.ziggurat != 0 && s.ziggurat != 1) Rf_error("'ziggurat' code must be 0 (polar) or 1 (ziggurat)");
  if (!(s.stepsize > 0) || !isfinite(s.stepsize)) Rf_error("'stepsize' must be a positive number");
  if (!(s.L > 0)) Rf_error("'L' must be positive (Inf: no momentum noise)");
  if (!(s.ev_start > 0 && s.ev_end > 0) || !isfinite(s.ev_start) || !isfinite(s.ev_end))
    Rf_error("'energy_var' must be positive");
  if (!(s.n_eff >= 1) || !isfinite(s.n_eff)) Rf_error("'n_eff' must be >= 1");
  if (!(s.trust > 0) || !isfinite(s.trust)) Rf_error("'trust' must be positive");
  if (!(s.Lfactor > 0) || !isfinite(s.Lfactor)) Rf_error("'Lfactor' must be positive");
  if (!(s.shrink > 0 && s.shrink < 1)) Rf_error("'shrink' must be in (0, 1)");

  if (dim < 2) Rf_error("MCLMC needs at least 2 parameters (the target has %d)", dim);
  SEXP sdc = bnn_list_get(settings, "sqrt_diag_cov");
  if (!Rf_isNull(sdc)) {
    if (TYPEOF(sdc) != REALSXP || Rf_length(sdc) != dim)
      Rf_error("'sqrt_diag_cov' must be a double vector of length %d", dim);
    for (int i = 0; i < dim; i++)
      if (!(REAL(sdc)[i] > 0) || !isfinite(REAL(sdc)[i]))
        Rf_error("'sqrt_diag_cov' must be positive and finite");
    s.sqrt_diag_cov = REAL(sdc);
  }
  if ((double)s.n1 + (double)s.n2 + (double)(s.diag_precond ? s.n2 / 3 : 0) +
      (double)s.n3 > 2147483647.0)
    Rf_error("MCLMC's tuning steps ('n_tune') must add up to at most 2147483647");
  int warmup = bnn_get_int(settings, "warmup", 0);
  if (warmup != bnn_mclmc_warmup_steps(&s))
    Rf_error("MCLMC's warm-up must be its %d tuning steps, not %d",
             bnn_mclmc_warmup_steps(&s), warmup);
  *sp = s;
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

/* A standard normal target, log pi = -|x|^2 / 2: its gradient costs d
 * operations, so MCLMC steps on it cost what a step costs besides the
 * model's gradients (the momentum refresh's normal draws, the momentum
 * updates and the drift). */
static double std_normal_logdens(void *ctx, const double *x, double *g) {
  int d = *(const int *)ctx;
  double s = 0.0;
  for (int i = 0; i < d; i++) {
    s += x[i] * x[i];
    g[i] = -x[i];
  }
  return -0.5 * s;
}

/* Runs n_steps MCLMC steps (integrator code) of dimension dim on the
 * standard normal; R times the call (run-cost.R) to add the sampler's own
 * cost per step to the gradients' in the announced estimate. */
SEXP C_mclmc_step_cost(SEXP dim, SEXP integrator, SEXP n_steps, SEXP ziggurat) {
  int d = Rf_asInteger(dim), k = Rf_asInteger(integrator), n = Rf_asInteger(n_steps);
  int zg = Rf_asLogical(ziggurat);
  if (zg == NA_LOGICAL) Rf_error("'ziggurat' must be TRUE or FALSE");
  if (d == NA_INTEGER || d < 2) Rf_error("'dim' must be an integer of at least 2");
  if (k != BNN_MCLMC_LEAPFROG && k != BNN_MCLMC_MCLACHLAN)
    Rf_error("'integrator' code must be 0 (leapfrog) or 1 (mclachlan)");
  if (n == NA_INTEGER || n < 0) Rf_error("'n_steps' must be a non-negative integer");
  bnn_target t;
  memset(&t, 0, sizeof t);
  t.dim = d;
  t.fn = std_normal_logdens;
  t.ctx = &d;
  bnn_rng rng;
  bnn_rng_seed(&rng, 1, 1);
  double *start = (double *)R_alloc((size_t)d, sizeof(double));
  for (int i = 0; i < d; i++) start[i] = 0.1;
  bnn_mclmc m;
  if (bnn_mclmc_alloc(&m, d)) {
    bnn_mclmc_free(&m);
    Rf_error("out of memory");
  }
  m.target = &t;
  m.rng = &rng;
  m.integrator = k;
  m.check = BNN_CHECK_ALL;
  m.eps = 0.5;
  m.L = sqrt((double)d);
  bnn_zig zig;
  if (zg) {
    bnn_zig_init(&zig);
    m.zig = &zig;
  }
  bnn_mclmc_init(&m, start);
  bnn_mclmc_info info;
  double acc = 0.0;
  for (int s = 0; s < n; s++) {
    bnn_mclmc_step(&m, &info);
    acc += info.logdens;
  }
  bnn_mclmc_free(&m);
  return Rf_ScalarReal(acc);
}

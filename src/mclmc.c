/* MCLMC kernel, single-chain ESS and the three-stage tuning; see mclmc.h.
 *
 * Reference: BlackJAX blackjax/mcmc/{mclmc,integrators}.py and
 * blackjax/adaptation/mclmc_adaptation.py at a4408d3 (the code behind
 * blackjax 1.2.2, which MILE pins), and MILE's modified copy of the tuning
 * (src/training/warmup.py).  Formulas were re-derived from the description
 * in the package's research notes; no code was copied. */
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mclmc.h"
#include "ess_blackjax.h"

/* McLachlan's minimal-norm two-stage coefficients (b1, a1 = 1/2, b2) */
#define MCLACHLAN_B1 0.1931833275037836
#define MCLACHLAN_B2 (1.0 - 2.0 * MCLACHLAN_B1)

static double *alloc_vec(int n) {
  return calloc((size_t)(n > 0 ? n : 1), sizeof(double));
}

/* ================================================================ kernel */

int bnn_mclmc_grads_per_step(int integrator) {
  return integrator == BNN_MCLMC_LEAPFROG ? 1 : 2;
}

int bnn_mclmc_alloc(bnn_mclmc *k, int dim) {
  memset(k, 0, sizeof *k);
  k->dim = dim;
  k->integrator = BNN_MCLMC_MCLACHLAN;
  k->eps = 1.0;
  k->L = 1.0;
  double **v[] = {&k->sigma, &k->x, &k->u, &k->g, &k->x1, &k->u1, &k->g1};
  int bad = 0;
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    *v[i] = alloc_vec(dim);
    bad |= *v[i] == NULL;
  }
  if (!bad)
    for (int i = 0; i < dim; i++) k->sigma[i] = 1.0;
  return bad;
}

void bnn_mclmc_free(bnn_mclmc *k) {
  double *v[] = {k->sigma, k->x, k->u, k->g, k->x1, k->u1, k->g1};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) free(v[i]);
  memset(k, 0, sizeof *k);
}

static int all_finite(const double *x, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(x[i])) return 0;
  return 1;
}

/* numpy/jax nan_to_num: NaN -> 0, +-Inf -> +-DBL_MAX */
static double nan_to_num(double v) {
  if (isnan(v)) return 0.0;
  if (isinf(v)) return v > 0 ? DBL_MAX : -DBL_MAX;
  return v;
}

static void nan_to_num_vec(double *x, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(x[i])) x[i] = nan_to_num(x[i]);
}

/* u <- z / |z| with z ~ N(0, I): uniform on the unit sphere */
static void random_unit(bnn_rng *r, double *u, int d) {
  double nn = 0.0;
  for (int i = 0; i < d; i++) {
    u[i] = bnn_rng_norm(r);
    nn += u[i] * u[i];
  }
  double s = 1.0 / sqrt(nn);
  for (int i = 0; i < d; i++) u[i] *= s;
}

int bnn_mclmc_init(bnn_mclmc *k, const double *x0) {
  int d = k->dim;
  memcpy(k->x, x0, sizeof(double) * (size_t)d);
  k->logp = bnn_target_eval(k->target, k->x, k->g);
  random_unit(k->rng, k->u, d);
  return !(isfinite(k->logp) && all_finite(k->g, d));
}

/* B: exact solution of the isokinetic (ESH) momentum flow
 *   du/dt = (I - u u') g~ / (d - 1),  g~ = sigma * grad log p,
 * for a time c*eps with the gradient held fixed, in the overflow-free form
 *   u' ~ e (1 - z)(1 + z + ue (1 - z)) + 2 z u,   z = exp(-delta),
 *   delta = c eps |g~| / (d - 1),   e = g~ / |g~|,   ue = u . e,
 * returning the kinetic-energy change
 *   (d - 1) (delta - log 2 + log(1 + ue + (1 - ue) z^2))
 *   = (d - 1) log(cosh delta + ue sinh delta). */
static double esh_update(const bnn_mclmc *k, double *u, const double *g,
                         double ceps) {
  int d = k->dim;
  const double *s = k->sigma;
  double gn2 = 0.0;
  for (int i = 0; i < d; i++) {
    double gi = s[i] * g[i];
    gn2 += gi * gi;
  }
  double gn = sqrt(gn2);
  /* BlackJAX leaves a (numerically) zero gradient unnormalised */
  double inv = gn > 1e-13 ? 1.0 / gn : 1.0;
  double ue = 0.0;
  for (int i = 0; i < d; i++) ue += u[i] * s[i] * g[i];
  ue *= inv;
  double delta = ceps * gn / (double)(d - 1);
  double zeta = exp(-delta);
  double ce = (1.0 - zeta) * (1.0 + zeta + ue * (1.0 - zeta)) * inv;
  double cu = 2.0 * zeta;
  double nn = 0.0;
  for (int i = 0; i < d; i++) {
    u[i] = ce * s[i] * g[i] + cu * u[i];
    nn += u[i] * u[i];
  }
  double r = 1.0 / sqrt(nn);
  for (int i = 0; i < d; i++) u[i] *= r;
  return (double)(d - 1) *
         (delta - M_LN2 + log(1.0 + ue + (1.0 - ue) * zeta * zeta));
}

/* A: x <- x + a eps sigma * u, then log density and gradient at x. */
static void drift(bnn_mclmc *k, double aeps) {
  int d = k->dim;
  for (int i = 0; i < d; i++) k->x1[i] += aeps * k->sigma[i] * k->u1[i];
  k->logp1 = bnn_target_eval(k->target, k->x1, k->g1);
}

/* O: partial refresh for a time s,  u <- (u + nu z) / |u + nu z|,
 * nu = sqrt((exp(2 s / L) - 1) / d).  L = Inf means no noise (and no
 * random numbers drawn): deterministic isokinetic dynamics.  A NaN L gives
 * a NaN momentum, as in blackjax. */
static void refresh(bnn_mclmc *k, double *u, double s) {
  if (k->L == INFINITY) return;
  int d = k->dim;
  double nu = sqrt(expm1(2.0 * s / k->L) / (double)d);
  double nn = 0.0;
  for (int i = 0; i < d; i++) {
    u[i] += nu * bnn_rng_norm(k->rng);
    nn += u[i] * u[i];
  }
  double r = 1.0 / sqrt(nn);
  for (int i = 0; i < d; i++) u[i] *= r;
}

/* Partial refresh placement: BlackJAX has two variants, (i) one refresh
 * with s = eps after the deterministic step (code before May 2024, and the
 * original MCLMC code) and (ii) with_isokinetic_maruyama, a half refresh
 * with s = eps/2 before and after the step (O B A B A B O).  We implement
 * (ii): it is what blackjax at a4408d3 / 1.2.2 runs, i.e. what MILE used,
 * and the symmetric splitting keeps the stochastic step palindromic.  Both
 * have the same stationary dynamics.  The step draws 2 d normals. */
void bnn_mclmc_step(bnn_mclmc *k, bnn_mclmc_info *info) {
  int d = k->dim;
  double eps = k->eps;
  size_t b = sizeof(double) * (size_t)d;
  memcpy(k->x1, k->x, b);
  memcpy(k->u1, k->u, b);
  memcpy(k->g1, k->g, b);
  k->logp1 = k->logp;

  refresh(k, k->u1, 0.5 * eps);
  double dk = 0.0;
  /* Every position update evaluates the gradient, even after a non-finite
   * value, so the number of gradient evaluations per step is fixed. */
  if (k->integrator == BNN_MCLMC_LEAPFROG) {
    dk += esh_update(k, k->u1, k->g1, 0.5 * eps);
    drift(k, eps);
    dk += esh_update(k, k->u1, k->g1, 0.5 * eps);
  } else {
    dk += esh_update(k, k->u1, k->g1, MCLACHLAN_B1 * eps);
    drift(k, 0.5 * eps);
    dk += esh_update(k, k->u1, k->g1, MCLACHLAN_B2 * eps);
    drift(k, 0.5 * eps);
    dk += esh_update(k, k->u1, k->g1, MCLACHLAN_B1 * eps);
  }
  refresh(k, k->u1, 0.5 * eps);

  double de = dk - k->logp1 + k->logp;
  int ok;
  info->nonfinite = 0;
  if (k->check == BNN_CHECK_ALL) {
    ok = isfinite(k->logp1) && isfinite(de) && all_finite(k->x1, d) &&
         all_finite(k->u1, d) && all_finite(k->g1, d);
  } else if (k->check == BNN_CHECK_POSITION) {
    /* blackjax 1.2.2 handle_nans: select(all(isfinite(position)),
     * nan_to_num(new state), old state) */
    ok = all_finite(k->x1, d);
    if (ok) {
      nan_to_num_vec(k->u1, d);
      nan_to_num_vec(k->g1, d);
      k->logp1 = nan_to_num(k->logp1);
    }
  } else {
    /* the blackjax kernel itself: no check at all */
    ok = 1;
    info->nonfinite = !(all_finite(k->x1, d) && all_finite(k->u1, d) &&
                        all_finite(k->g1, d));
  }
  info->stepsize = eps;
  info->L = k->L;
  info->ok = ok;
  if (ok) {
    double *t;
    t = k->x; k->x = k->x1; k->x1 = t;
    t = k->u; k->u = k->u1; k->u1 = t;
    t = k->g; k->g = k->g1; k->g1 = t;
    k->logp = k->logp1;
    info->energy_change = de;
    info->kinetic_change = dk;
  } else {
    /* The position, gradient and log density stay.  With BNN_CHECK_ALL the
     * momentum is drawn afresh, uniformly on the sphere (its stationary
     * law, so this is a valid Gibbs move), as newer BlackJAX does in
     * handle_nans; keeping it (MILE / blackjax 1.2.2, BNN_CHECK_POSITION)
     * would aim the next step at the same non-finite region again. */
    if (k->check == BNN_CHECK_ALL) random_unit(k->rng, k->u, d);
    info->energy_change = NAN;
    info->kinetic_change = NAN;
  }
  info->logdens = k->logp;
}

/* ============================================================ the chain */

/* Test target: a Gaussian whose log density is -Inf where some x_i exceeds
 * upper_i (the gradient stays the Gaussian one). */
static double wall_logdens(void *ctx, const double *x, double *grad) {
  bnn_mclmc_chain *c = ctx;
  double lp = bnn_gauss_logdens(c->gauss, x, grad);
  for (int i = 0; i < c->dim; i++)
    if (x[i] > c->upper[i]) return -INFINITY;
  return lp;
}

int bnn_mclmc_stage_total(const bnn_mclmc_chain *c, int stage) {
  switch (stage) {
  case BNN_STAGE_1: return c->s.n1;
  case BNN_STAGE_2: return c->s.n2 + c->n2b;
  case BNN_STAGE_3: return c->s.n3;
  default: return 0;
  }
}

static int stage_done(const bnn_mclmc_chain *c, int stage) {
  switch (stage) {
  case BNN_STAGE_1: return c->done1;
  case BNN_STAGE_2: return c->done2;
  case BNN_STAGE_3: return c->done3;
  default: return 0;
  }
}

static void check_params(bnn_mclmc_chain *c) {
  if (!(isfinite(c->k.eps) && c->k.eps > 0 && c->k.L > 0 && !isnan(c->k.L)))
    c->status = BNN_MCLMC_STEPSIZE;
}

/* End of the first n2 steps of stage 2: L = sqrt(sum Var) from the
 * eps-weighted moments; with diagonal preconditioning sigma = sqrt(Var),
 * L = sqrt(d) and the step-size estimator restarts (BlackJAX).  Guards (not
 * in BlackJAX, safeguard "revert" only): coordinates with a non-positive or
 * non-finite variance are left out of L and keep sigma = 1; without any
 * weight L is unchanged.  With safeguard "blackjax" the formulas are
 * applied as they are (a NaN L then turns the next step non-finite). */
static void stage2_moments(bnn_mclmc_chain *c) {
  int d = c->dim;
  if (c->s.safeguard == BNN_SAFEGUARD_BLACKJAX) {
    double sum = 0.0;
    for (int i = 0; i < d; i++) sum += c->m2[i] - c->m1[i] * c->m1[i];
    c->k.L = sqrt(sum);
    if (c->s.diag_precond) {
      for (int i = 0; i < d; i++)
        c->k.sigma[i] = sqrt(c->m2[i] - c->m1[i] * c->m1[i]);
      c->k.L = sqrt((double)d);
    }
  } else if (c->w_tot > 0) {
    double sum = 0.0;
    for (int i = 0; i < d; i++) {
      double v = c->m2[i] - c->m1[i] * c->m1[i];
      if (v > 0 && isfinite(v)) sum += v;
    }
    if (sum > 0) c->k.L = sqrt(sum);
    if (c->s.diag_precond) {
      for (int i = 0; i < d; i++) {
        double v = c->m2[i] - c->m1[i] * c->m1[i];
        c->k.sigma[i] = (v > 0 && isfinite(v)) ? sqrt(v) : 1.0;
      }
      c->k.L = sqrt((double)d);
    }
  }
  if (c->n2b > 0) {
    c->X = 0.0;
    c->W = 0.0;
    c->eps_max = INFINITY;
  }
}

/* Rows of the stage-3 store: floor(linspace(0, n3 - 1, rows)) as in MILE. */
static int s3_row_index(const bnn_mclmc_chain *c, int j) {
  if (c->s3_rows <= 1) return 0;
  if (c->s3_rows == c->s.n3) return j;
  return (int)floor((double)j * (double)(c->s.n3 - 1) /
                    (double)(c->s3_rows - 1));
}

static int stage3_begin(bnn_mclmc_chain *c) {
  int d = c->dim, n3 = c->s.n3;
  int rows = n3, cols = d;
  if (c->s.fft_samples > 0 && rows > c->s.fft_samples) rows = c->s.fft_samples;
  if (c->s.fft_params > 0 && cols > c->s.fft_params) cols = c->s.fft_params;
  c->s3_idx = malloc(sizeof(int) * (size_t)d);
  c->s3 = malloc(sizeof(double) * (size_t)rows * (size_t)cols);
  if (!c->s3_idx || !c->s3) return 1;
  for (int i = 0; i < d; i++) c->s3_idx[i] = i;
  if (cols < d) {
    /* MILE keeps a random subset of the coordinates: partial Fisher-Yates */
    for (int i = 0; i < cols; i++) {
      int j = i + (int)floor(bnn_rng_unif(&c->rng) * (double)(d - i));
      if (j >= d) j = d - 1;
      int t = c->s3_idx[i];
      c->s3_idx[i] = c->s3_idx[j];
      c->s3_idx[j] = t;
    }
  }
  c->s3_rows = rows;
  c->s3_cols = cols;
  c->s3_next = 0;
  return 0;
}

static void stage3_free(bnn_mclmc_chain *c) {
  free(c->s3);
  free(c->s3_idx);
  c->s3 = NULL;
  c->s3_idx = NULL;
}

/* L = Lfactor * eps * mean_i(n3 / ESS_i) over the stored coordinates.
 * Guard (not in BlackJAX, safeguard "revert" only): coordinates with a
 * non-finite ESS (constant series) are left out; if none remains L is
 * unchanged. */
static int stage3_finish(bnn_mclmc_chain *c) {
  int rows = c->s3_next, cols = c->s3_cols;
  int literal = c->s.safeguard == BNN_SAFEGUARD_BLACKJAX;
  if (rows >= 2) {
    bnn_ess_work w;
    if (bnn_ess_alloc(&w, rows)) return 1;
    double acc = 0.0, ess[2];
    int cnt = 0;
    for (int j = 0; j < cols; j += 2) {
      const double *a = c->s3 + (size_t)j * rows;
      const double *b = j + 1 < cols ? a + rows : NULL;
      bnn_ess_pair(&w, a, b, ess);
      for (int q = 0; q < (b ? 2 : 1); q++)
        if (literal || (isfinite(ess[q]) && ess[q] > 0)) {
          acc += (double)c->s.n3 / ess[q];
          cnt++;
        }
    }
    bnn_ess_free(&w);
    if (cnt > 0) c->k.L = c->s.Lfactor * c->k.eps * acc / cnt;
  }
  stage3_free(c);
  return 0;
}

static void advance_stage(bnn_mclmc_chain *c) {
  while (c->stage < BNN_STAGE_DONE &&
         stage_done(c, c->stage) >= bnn_mclmc_stage_total(c, c->stage))
    c->stage++;
}

/* desired energy variance per dimension at tuning step t of stages 1+2
 * (MILE: linear from start to end over n1 + n2 + 1 steps, exponential with
 * tau = T/4 when start > 2; start == end gives BlackJAX's constant). */
static double desired_var(const bnn_mclmc_chain *c, int t) {
  double a = c->s.ev_start, b = c->s.ev_end;
  double T = (double)(c->s.n1 + c->s.n2 + 1);
  if (a > 2.0) {
    double e = exp(-(double)t / (T / 4.0));
    return a * e + b * (1.0 - e);
  }
  double p = (double)t / T;
  if (p > 1.0) p = 1.0;
  return a - (a - b) * p;
}

/* The step-size predictor of stages 1 and 2: weighted exponential moving
 * average of xi / eps^6 with xi = dE^2 / (d v) + 1e-8 and weight
 * exp(-(log xi / (6 trust))^2 / 2), then eps = (X / W)^(-1/6), capped at
 * eps_max.  Deviations (documented): min() for the cap (BlackJAX's
 * (eps < max) eps + (eps > max) max gives 0 when equal), and a zero weight
 * (xi overflow) adds nothing instead of 0 * Inf = NaN. */
static void adapt_stepsize(bnn_mclmc_chain *c, const bnn_mclmc_info *info,
                           double v) {
  double eps = info->stepsize;
  double de = info->ok ? info->energy_change : 0.0;
  if (!info->ok) c->eps_max = c->s.shrink * eps;
  double xi = de * de / ((double)c->dim * v) + 1e-8;
  double lx = log(xi) / (6.0 * c->s.trust);
  double w = exp(-0.5 * lx * lx);
  double e2 = eps * eps, e6 = e2 * e2 * e2;
  c->X = c->decay * c->X + (w > 0 ? w * xi / e6 : 0.0);
  c->W = c->decay * c->W + w;
  if (c->W > 0) {
    double e_new = pow(c->X / c->W, -1.0 / 6.0);
    if (e_new > c->eps_max) e_new = c->eps_max;
    if (isfinite(e_new) && e_new > 0)
      c->k.eps = e_new;
    else
      c->status = BNN_MCLMC_STEPSIZE;
  }
}

/* The same predictor as blackjax 1.2.2 / MILE compute it (safeguard
 * "blackjax"), without the guards: after handle_nans (a caught step sets
 * eps_max = shrink * eps and dE = 0, an accepted one passes eps_max and dE
 * through nan_to_num), xi = dE^2 / (d v) + 1e-8, w = exp(-(log xi /
 * (6 trust))^2 / 2), X <- decay X + w (xi / eps^6), W <- decay W + w,
 * eps <- (X / W)^(-1/6), then eps <- (eps < eps_max) eps + (eps > eps_max)
 * eps_max with IEEE arithmetic (0 * Inf = NaN).  An infinite energy error
 * thus gives w = 0, X = NaN and a NaN step size, from which blackjax never
 * recovers: X stays NaN, every later tuning step has a NaN position and is
 * caught, and the first step of stage 3 or of sampling (which check
 * nothing) turns the position NaN.  Such a chain is stopped at once and
 * marked failed (reason BNN_FAIL_STEPSIZE). */
static void adapt_stepsize_blackjax(bnn_mclmc_chain *c,
                                    const bnn_mclmc_info *info, double v) {
  double eps = info->stepsize, de;
  if (info->ok) {
    c->eps_max = nan_to_num(c->eps_max);
    de = nan_to_num(info->energy_change);
  } else {
    c->eps_max = c->s.shrink * eps;
    de = 0.0;
  }
  double xi = de * de / ((double)c->dim * v) + 1e-8;
  double lx = log(xi) / (6.0 * c->s.trust);
  double w = exp(-0.5 * lx * lx);
  c->X = c->decay * c->X + w * (xi / pow(eps, 6.0));
  c->W = c->decay * c->W + w;
  double e_new = pow(c->X / c->W, -1.0 / 6.0);
  double m = c->eps_max;
  c->k.eps = (double)(e_new < m) * e_new + (double)(e_new > m) * m;
}

static void mark_failed(bnn_mclmc_chain *c, int phase, double step,
                        int reason) {
  c->status = BNN_MCLMC_NONFINITE;
  c->fail_stage = phase;
  c->fail_step = step;
  c->fail_reason = reason;
  stage3_free(c);
}

int bnn_mclmc_tune_step(bnn_mclmc_chain *c, double *trace) {
  int stage = c->stage, d = c->dim;
  int bj = c->s.safeguard == BNN_SAFEGUARD_BLACKJAX;
  if (c->status == BNN_MCLMC_NONFINITE || stage == BNN_STAGE_DONE) {
    if (trace)
      for (int j = 0; j < 6; j++) trace[j] = NAN;
    return 0;
  }
  if (stage == BNN_STAGE_3 && c->s3 == NULL && stage3_begin(c)) {
    stage3_free(c);
    return 1;
  }
  c->k.check = !bj ? BNN_CHECK_ALL
               : stage == BNN_STAGE_3 ? BNN_CHECK_NONE : BNN_CHECK_POSITION;
  bnn_mclmc_info info;
  bnn_mclmc_step(&c->k, &info);
  if (!info.ok) c->n_reverted += 1.0;
  int failed = 0;

  if (stage == BNN_STAGE_1 || stage == BNN_STAGE_2) {
    int in_precond = stage == BNN_STAGE_2 && c->done2 >= c->s.n2;
    /* the preconditioning steps continue at the schedule's end value */
    double v = in_precond ? c->s.ev_end : desired_var(c, c->done1 + c->done2);
    if (bj)
      adapt_stepsize_blackjax(c, &info, v);
    else
      adapt_stepsize(c, &info, v);
    if (stage == BNN_STAGE_2 && !in_precond && (info.ok || bj)) {
      /* streaming eps-weighted mean of x and x^2 (new eps, as BlackJAX);
       * blackjax weighs a caught step with 0, and divides by a zero total
       * weight (NaN moments) when the first steps of stage 2 are caught */
      double wt = info.ok ? c->k.eps : 0.0, wn = c->w_tot + wt;
      const double *x = c->k.x;
      for (int i = 0; i < d; i++) {
        c->m1[i] = (c->w_tot * c->m1[i] + wt * x[i]) / wn;
        c->m2[i] = (c->w_tot * c->m2[i] + wt * x[i] * x[i]) / wn;
      }
      c->w_tot = wn;
    }
    if (bj && isnan(c->k.eps)) failed = BNN_FAIL_STEPSIZE;
  } else {
    if (bj) {
      /* stage 3 of blackjax: no check; a non-finite state ends the chain */
      if (info.nonfinite) failed = BNN_FAIL_STATE;
    } else if (!info.ok) {
      /* stage 3: fixed (eps, L); a failed step shrinks eps as in sampling */
      c->k.eps *= c->s.shrink;
    }
    if (!failed && c->s3_next < c->s3_rows &&
        c->done3 == s3_row_index(c, c->s3_next)) {
      double *dst = c->s3 + c->s3_next;
      for (int j = 0; j < c->s3_cols; j++)
        dst[(size_t)j * c->s3_rows] = c->k.x[c->s3_idx[j]];
      c->s3_next++;
    }
  }

  if (trace) {
    trace[0] = stage;
    trace[1] = info.energy_change;
    trace[2] = info.stepsize;
    trace[3] = info.L;
    trace[4] = info.logdens;
    trace[5] = info.ok ? 0.0 : 1.0;
  }

  int rc = 0;
  if (stage == BNN_STAGE_1) {
    c->done1++;
  } else if (stage == BNN_STAGE_2) {
    c->done2++;
    if (!failed && c->done2 == c->s.n2) stage2_moments(c);
  } else {
    c->done3++;
    if (!failed && c->done3 == c->s.n3) rc = stage3_finish(c);
  }
  if (failed) {
    mark_failed(c, stage, (double)stage_done(c, stage), failed);
    return 0;
  }
  advance_stage(c);
  /* blackjax samples with whatever tuning gave (a NaN L or step size turns
   * the first sampling step non-finite) */
  if (c->stage == BNN_STAGE_DONE && !bj) check_params(c);
  return rc;
}

void bnn_mclmc_sample_step(bnn_mclmc_chain *c, bnn_mclmc_info *info) {
  if (c->status == BNN_MCLMC_NONFINITE) {
    info->energy_change = info->kinetic_change = info->logdens = NAN;
    info->stepsize = info->L = NAN;
    info->ok = 0;
    info->nonfinite = 1;
    return;
  }
  int bj = c->s.safeguard == BNN_SAFEGUARD_BLACKJAX;
  c->k.check = bj ? BNN_CHECK_NONE : BNN_CHECK_ALL;
  bnn_mclmc_step(&c->k, info);
  c->n_sample_steps += 1.0;
  if (!info->ok) {
    c->n_reverted += 1.0;
    c->k.eps *= c->s.shrink;
  } else if (info->nonfinite) {
    mark_failed(c, BNN_STAGE_DONE, c->n_sample_steps, BNN_FAIL_STATE);
  } else if (isfinite(info->energy_change)) {
    c->sum_de2 += info->energy_change * info->energy_change;
    c->n_sample_ok += 1.0;
  }
}

bnn_mclmc_chain *bnn_mclmc_chain_new(bnn_model *model, bnn_gauss_target *gauss,
                                     const double *init, uint64_t seed,
                                     uint64_t stream,
                                     const bnn_mclmc_settings *s) {
  bnn_mclmc_chain *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->model = model;
  c->gauss = gauss;
  c->s = *s;
  c->s.upper = NULL;
  c->s.sqrt_diag_cov = NULL;
  bnn_target_bind(&c->target, model, gauss);
  c->dim = c->target.dim;
  int d = c->dim;
  if (s->upper && gauss) {
    c->upper = malloc(sizeof(double) * (size_t)d);
    if (!c->upper) goto fail;
    memcpy(c->upper, s->upper, sizeof(double) * (size_t)d);
    c->target.fn = wall_logdens;
    c->target.ctx = c;
  }
  bnn_rng_seed(&c->rng, seed, stream);
  c->m1 = alloc_vec(d);
  c->m2 = alloc_vec(d);
  if (!c->m1 || !c->m2 || bnn_mclmc_alloc(&c->k, d)) goto fail;
  c->k.integrator = s->integrator;
  c->k.check = BNN_CHECK_ALL;
  c->k.target = &c->target;
  c->k.rng = &c->rng;
  c->k.eps = s->stepsize;
  c->k.L = s->L;
  if (s->sqrt_diag_cov)
    memcpy(c->k.sigma, s->sqrt_diag_cov, sizeof(double) * (size_t)d);
  c->n2b = s->diag_precond ? s->n2 / 3 : 0;
  c->decay = (s->n_eff - 1.0) / (s->n_eff + 1.0);
  c->eps_max = INFINITY;
  c->stage = BNN_STAGE_1;
  advance_stage(c);
  if (bnn_mclmc_init(&c->k, init)) {
    c->status = BNN_MCLMC_BAD_INIT;
    return c;
  }
  return c;
fail:
  bnn_mclmc_chain_free(c);
  return NULL;
}

void bnn_mclmc_chain_free(bnn_mclmc_chain *c) {
  if (!c) return;
  bnn_mclmc_free(&c->k);
  stage3_free(c);
  free(c->m1);
  free(c->m2);
  free(c->upper);
  bnn_model_free(c->model);
  bnn_gauss_free(c->gauss);
  free(c);
}

/* The MCLMC kernel: isokinetic integrators and the partial momentum
 * refresh; see mclmc.h.  (As BlackJAX's mcmc/mclmc.py: init and one step;
 * the tuning is mclmc_adapt.c, the driver's kernel type mclmc_kernel.c.)
 *
 * Reference: BlackJAX blackjax/mcmc/{mclmc,integrators}.py at a4408d3 (the
 * code behind blackjax 1.2.2, which MILE pins).  Formulas were re-derived
 * from the description in the package's research notes; no code was
 * copied. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mclmc.h"

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

static void nan_to_num_vec(double *x, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(x[i])) x[i] = bnn_nan_to_num(x[i]);
}

/* One standard normal deviate of the kernel's generator */
static inline double mclmc_norm(const bnn_mclmc *k) {
  return k->zig ? bnn_zig_norm(k->rng, k->zig) : bnn_rng_norm(k->rng);
}

/* u <- z / |z| with z ~ N(0, I): uniform on the unit sphere */
static void random_unit(const bnn_mclmc *k, double *u, int d) {
  double nn = 0.0;
  for (int i = 0; i < d; i++) {
    u[i] = mclmc_norm(k);
    nn += u[i] * u[i];
  }
  double s = 1.0 / sqrt(nn);
  for (int i = 0; i < d; i++) u[i] *= s;
}

int bnn_mclmc_init(bnn_mclmc *k, const double *x0) {
  int d = k->dim;
  memcpy(k->x, x0, sizeof(double) * (size_t)d);
  k->logp = bnn_target_eval(k->target, k->x, k->g);
  random_unit(k, k->u, d);
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
  /* |g~|^2 and u . g~ in one pass: two independent serial sums (each in
   * its own order, as in two loops) that wait on the latency of each
   * addition side by side instead of one after the other */
  double gn2 = 0.0, ue = 0.0;
  for (int i = 0; i < d; i++) {
    double gi = s[i] * g[i];
    gn2 += gi * gi;
    ue += u[i] * s[i] * g[i];
  }
  double gn = sqrt(gn2);
  /* BlackJAX leaves a (numerically) zero gradient unnormalised */
  double inv = gn > 1e-13 ? 1.0 / gn : 1.0;
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
    u[i] += nu * mclmc_norm(k);
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
      k->logp1 = bnn_nan_to_num(k->logp1);
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
    if (k->check == BNN_CHECK_ALL) random_unit(k, k->u, d);
    info->energy_change = NAN;
    info->kinetic_change = NAN;
  }
  info->logdens = k->logp;
}

/* Stochastic-gradient Langevin dynamics (Welling and Teh 2011) and
 * preconditioned SGLD (pSGLD, Li et al. 2016).
 *
 * With g = grad log pi_hat(theta), the target's (possibly minibatch)
 * estimate of the log-posterior gradient, and xi ~ N(0, I):
 *
 *   SGLD:   theta <- theta + eps_k g + sqrt(2 eps_k) xi
 *
 * i.e. the convention theta <- theta - eps grad U + sqrt(2 eps) xi of
 * Staber & Da Veiga (2022), BlackJAX and pbnn (U = -log pi).  The R package
 * sgmcmc writes theta <- theta + eps/2 g + N(0, eps): its eps is twice ours.
 * No Metropolis correction: the draws carry a bias of order eps.
 *
 *   pSGLD:  V <- alpha V + (1 - alpha) g o g,   D = 1 / (lambda + sqrt(V)),
 *           theta <- theta + eps_k D o g + sqrt(2 eps_k D) o xi
 *
 * with V started at the first gradient squared and updated with the
 * gradient at the current position before the move (pbnn; Li et al. start
 * V at 0), g the full N-scaled gradient with the prior (the form of Staber
 * & Da Veiga; Li et al. average the mean minibatch gradient), and the
 * correction term Gamma neglected, as in both.
 *
 * eps_k follows the schedule of sg_schedule.h (constant or cyclical).
 * A transition costs one gradient estimate; a non-finite position, value
 * or gradient fails the chain (step size too large). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sg_update.h"
#include "ziggurat.h"
#include "sgld.h"

static const char *const sgld_stat_names[] = {"lp__", "stepsize__"};

typedef struct {
  int dim, precond;
  bnn_sgld_settings s;
  bnn_target *target;
  bnn_rng *rng;
  bnn_zig zig;         /* normal deviates (ziggurat.h) */
  double *q, *g, *v;   /* position, gradient estimate there, pSGLD's V */
  double *z;           /* a step's normal deviates */
  double lp, eps;
} sgld_state;

static void sgld_destroy(void *state) {
  sgld_state *r = state;
  if (!r) return;
  free(r->q);
  free(r);
}

static void *sgld_create_impl(int dim, const void *settings, int precond) {
  sgld_state *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->dim = dim;
  r->precond = precond;
  r->s = *(const bnn_sgld_settings *)settings;
  size_t n = dim > 0 ? (size_t)dim : 1;
  r->q = malloc(4 * n * sizeof(double));
  if (!r->q) {
    sgld_destroy(r);
    return NULL;
  }
  r->g = r->q + n;
  r->v = r->q + 2 * n;
  r->z = r->q + 3 * n;
  bnn_zig_init(&r->zig);
  return r;
}
static void *sgld_create(int dim, const void *s) { return sgld_create_impl(dim, s, 0); }
static void *psgld_create(int dim, const void *s) { return sgld_create_impl(dim, s, 1); }

static int all_finite(const double *x, int n) {
  for (int j = 0; j < n; j++)
    if (!isfinite(x[j])) return 0;
  return 1;
}

static int sgld_init(void *state, bnn_target *target, bnn_rng *rng,
                     const double *init, int n_warmup) {
  (void)n_warmup;   /* warm-up is burn-in: nothing is adapted */
  sgld_state *r = state;
  r->target = target;
  r->rng = rng;
  r->eps = r->s.schedule.eps0;
  memcpy(r->q, init, sizeof(double) * (size_t)r->dim);
  r->lp = bnn_target_eval(target, r->q, r->g);
  if (!isfinite(r->lp) || !all_finite(r->g, r->dim)) return BNN_K_BAD_INIT;
  if (r->precond)
    for (int j = 0; j < r->dim; j++) r->v[j] = r->g[j] * r->g[j];
  return BNN_K_OK;
}

static int sgld_step(void *state, int iter, double *draw, double *stats,
                     const char **reason) {
  sgld_state *r = state;
  int d = r->dim;
  double eps = bnn_sg_stepsize(&r->s.schedule, iter);
  r->eps = eps;
  /* bad flags a non-finite position (and so a non-finite gradient of the
   * step before) */
  uint64_t bad = 0;
  bnn_zig_fill(r->rng, &r->zig, r->z, d);
  if (r->precond) {
    double a = r->s.alpha, lam = r->s.lambda;
    for (int j = 0; j < d; j++) {
      double D = 1.0 / (lam + sqrt(r->v[j]));
      r->q[j] += eps * D * r->g[j] + sqrt(2.0 * eps * D) * r->z[j];
      bad |= bnn_nonfinite(r->q[j]);
    }
    r->lp = bnn_target_eval(r->target, r->q, r->g);
    for (int j = 0; j < d; j++) r->v[j] = a * r->v[j] + (1.0 - a) * r->g[j] * r->g[j];
  } else {
    bad = (uint64_t)bnn_sg_kern()->sgld_update(r->q, r->g, r->z, eps, sqrt(2.0 * eps), d);
    r->lp = bnn_target_eval(r->target, r->q, r->g);
  }
  if (!isfinite(r->lp) || bad) {
    *reason = "non-finite position or gradient: the chain diverged (step size too large?)";
    return BNN_K_NONFINITE;
  }
  stats[0] = r->lp;
  stats[1] = eps;
  if (draw) memcpy(draw, r->q, sizeof(double) * (size_t)d);
  return BNN_K_OK;
}

static double sgld_stepsize(const void *state) {
  return ((const sgld_state *)state)->eps;
}

const bnn_kernel_type bnn_kernel_sgld = {
    .name = "sgld",
    .n_stats = 2,
    .stat_names = sgld_stat_names,
    .create = sgld_create,
    .destroy = sgld_destroy,
    .init = sgld_init,
    .step = sgld_step,
    .stepsize = sgld_stepsize};
const bnn_kernel_type bnn_kernel_psgld = {
    .name = "psgld",
    .n_stats = 2,
    .stat_names = sgld_stat_names,
    .create = psgld_create,
    .destroy = sgld_destroy,
    .init = sgld_init,
    .step = sgld_step,
    .stepsize = sgld_stepsize};

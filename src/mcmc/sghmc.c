/* Stochastic-gradient Hamiltonian Monte Carlo (Chen, Fox and Guestrin 2014)
 * in the form of Staber & Da Veiga (2022), eq. of their section 3:
 *
 *   v <- sqrt(eps_k) xi0                     (momentum resampled)
 *   repeat L times:
 *     g <- grad log pi_hat(w)                (target's estimate)
 *     w <- w + v
 *     v <- (1 - alpha) v + eps_k g + sqrt(2 alpha eps_k) xi
 *
 * with xi0, xi ~ N(0, I), friction alpha in (0, 1] and no gradient-noise
 * correction (beta = 0).  One transition is L leapfrog steps followed by a
 * stored draw, so the momentum is resampled every L steps.  v is the
 * momentum in the paper's "v = eta M^{-1} r" variables, whose stationary
 * law is N(0, eps I); hence the refresh sqrt(eps) N(0, I) of BlackJAX (the
 * paper's "centred normalised Gaussian" read in those variables: N(0, I)
 * would be a displacement of order 1 per step).
 *
 * Conventions elsewhere: BlackJAX's SGHMC (as used by the paper) refreshes
 * v ~ sqrt(h) N(0, I) and updates v <- (1 - alpha) v + h g +
 * sqrt(2 alpha h) xi, w <- w + v: ours with eps = h.  The R package sgmcmc
 * writes nu <- nu + eps g - alpha nu + N(0, 2 alpha eps), theta <- theta + nu:
 * the same eps and alpha, with the position moved after the momentum.
 *
 * Minibatches: with batch_per_iter the L gradients of a transition share
 * one batch (BlackJAX: one minibatch per kernel call); otherwise each
 * leapfrog step draws a fresh one (sgmcmc). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "sg_update.h"
#include "ziggurat.h"
#include "sghmc.h"

static const char *const sghmc_stat_names[] = {"lp__", "stepsize__"};

typedef struct {
  int dim;
  bnn_sghmc_settings s;
  bnn_target *target;
  bnn_rng *rng;
  bnn_zig zig;         /* normal deviates (ziggurat.h) */
  double *w, *v, *g;
  double *z;           /* normal deviates of a leapfrog step */
  double lp, eps;
} sghmc_state;

static void sghmc_destroy(void *state) {
  sghmc_state *r = state;
  if (!r) return;
  free(r->w);
  free(r);
}

static void *sghmc_create(int dim, const void *settings) {
  sghmc_state *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->dim = dim;
  r->s = *(const bnn_sghmc_settings *)settings;
  size_t n = dim > 0 ? (size_t)dim : 1;
  r->w = malloc(4 * n * sizeof(double));
  if (!r->w) {
    sghmc_destroy(r);
    return NULL;
  }
  r->v = r->w + n;
  r->g = r->w + 2 * n;
  r->z = r->w + 3 * n;
  bnn_zig_init(&r->zig);
  return r;
}

static int sghmc_init(void *state, bnn_target *target, bnn_rng *rng,
                      const double *init, int n_warmup) {
  (void)n_warmup;   /* warm-up is burn-in: nothing is adapted */
  sghmc_state *r = state;
  r->target = target;
  r->rng = rng;
  r->eps = r->s.schedule.eps0;
  memcpy(r->w, init, sizeof(double) * (size_t)r->dim);
  r->lp = bnn_target_eval(target, r->w, r->g);
  for (int j = 0; j < r->dim; j++)
    if (!isfinite(r->g[j])) return BNN_K_BAD_INIT;
  return isfinite(r->lp) ? BNN_K_OK : BNN_K_BAD_INIT;
}

static int sghmc_step(void *state, int iter, double *draw, double *stats,
                      const char **reason) {
  sghmc_state *r = state;
  int d = r->dim;
  double eps = bnn_sg_stepsize(&r->s.schedule, iter);
  double a = r->s.alpha, sd_v = sqrt(eps), sd_xi = sqrt(2.0 * a * eps);
  r->eps = eps;
  bnn_zig_fill(r->rng, &r->zig, r->z, d);
  for (int j = 0; j < d; j++) r->v[j] = sd_v * r->z[j];
  if (r->s.batch_per_iter) bnn_target_hold(r->target, 1);
  int ok = 1;
  for (int l = 0; l < r->s.n_leapfrog && ok; l++) {
    r->lp = bnn_target_eval(r->target, r->w, r->g);
    /* bad flags a non-finite position or momentum (a non-finite gradient
     * shows in v) */
    bnn_zig_fill(r->rng, &r->zig, r->z, d);
    int bad = bnn_sg_kern()->sghmc_update(r->w, r->v, r->g, r->z, 1.0 - a, eps, sd_xi, d);
    ok = isfinite(r->lp) && !bad;
  }
  if (r->s.batch_per_iter) bnn_target_hold(r->target, 0);
  if (!ok) {
    *reason = "non-finite position, momentum or gradient: the chain diverged (step size too large?)";
    return BNN_K_NONFINITE;
  }
  stats[0] = r->lp;
  stats[1] = eps;
  if (draw) memcpy(draw, r->w, sizeof(double) * (size_t)d);
  return BNN_K_OK;
}

static double sghmc_stepsize(const void *state) {
  return ((const sghmc_state *)state)->eps;
}

const bnn_kernel_type bnn_kernel_sghmc = {
    .name = "sghmc",
    .n_stats = 2,
    .stat_names = sghmc_stat_names,
    .create = sghmc_create,
    .destroy = sghmc_destroy,
    .init = sghmc_init,
    .step = sghmc_step,
    .stepsize = sghmc_stepsize};

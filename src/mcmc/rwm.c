/* Random-walk Metropolis: the simplest kernel of the generic driver.
 *
 * Proposal q' = q + eps * sqrt(M^{-1}) xi with xi ~ N(0, I) and a fixed
 * diagonal inverse metric M^{-1}; accepted with probability
 * min(1, pi(q') / pi(q)).  During warm-up the scale eps is tuned by Stan's
 * dual averaging towards a target acceptance rate (0.234 by default, the
 * optimal rate for random-walk proposals in high dimension, Roberts,
 * Gelman and Gilks 1997) and is fixed at the end of warm-up.  It serves as a
 * gradient-free baseline and as the reference kernel of the driver. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "adapt.h"
#include "rwm.h"

static const char *const rwm_stat_names[] = {"accept_stat__", "stepsize__", "lp__"};

typedef struct {
  int dim;
  bnn_rwm_settings s;
  bnn_target *target;
  bnn_rng *rng;
  double *q, *qp, *g, *sd;   /* position, proposal, gradient scratch, sqrt(M^-1) */
  double lp, eps;
  bnn_dual_avg da;
  int n_warmup;
  double n_accept_warmup;
} rwm_state;

static void rwm_destroy(void *state) {
  rwm_state *r = state;
  if (!r) return;
  free(r->q);
  free(r->sd);
  free(r);
}

static void *rwm_create(int dim, const void *settings) {
  rwm_state *r = calloc(1, sizeof *r);
  if (!r) return NULL;
  r->dim = dim;
  r->s = *(const bnn_rwm_settings *)settings;
  size_t n = dim > 0 ? (size_t)dim : 1;
  r->q = malloc(3 * n * sizeof(double));
  r->sd = malloc(n * sizeof(double));
  if (!r->q || !r->sd) {
    rwm_destroy(r);
    return NULL;
  }
  r->qp = r->q + n;
  r->g = r->q + 2 * n;
  for (int j = 0; j < dim; j++)
    r->sd[j] = r->s.inv_metric ? sqrt(r->s.inv_metric[j]) : 1.0;
  r->s.inv_metric = NULL;   /* not kept: the caller's memory */
  return r;
}

static int rwm_init(void *state, bnn_target *target, bnn_rng *rng,
                    const double *init, int n_warmup) {
  rwm_state *r = state;
  r->target = target;
  r->rng = rng;
  r->n_warmup = n_warmup;
  r->eps = r->s.stepsize;
  memcpy(r->q, init, sizeof(double) * (size_t)r->dim);
  r->lp = bnn_target_eval(target, r->q, r->g);
  bnn_da_init(&r->da, r->s.target_accept, 0.05, 0.75, 10.0);
  r->da.mu = log(10.0 * r->eps);
  return isfinite(r->lp) ? BNN_K_OK : BNN_K_BAD_INIT;
}

static int rwm_step(void *state, int iter, double *draw, double *stats,
                    const char **reason) {
  rwm_state *r = state;
  for (int j = 0; j < r->dim; j++)
    r->qp[j] = r->q[j] + r->eps * r->sd[j] * bnn_rng_norm(r->rng);
  double lpp = bnn_target_eval(r->target, r->qp, r->g);
  double acc = isfinite(lpp) ? exp(lpp - r->lp) : 0.0;
  if (acc > 1) acc = 1;
  if (bnn_rng_unif(r->rng) < acc) {
    memcpy(r->q, r->qp, sizeof(double) * (size_t)r->dim);
    r->lp = lpp;
    if (iter < r->n_warmup) r->n_accept_warmup += 1;
  }
  stats[0] = acc;
  stats[1] = r->eps;
  stats[2] = r->lp;
  if (iter < r->n_warmup) {
    if (r->s.adapt) r->eps = bnn_da_learn(&r->da, acc);
    if (iter == r->n_warmup - 1) {
      if (r->s.adapt) r->eps = bnn_da_final(&r->da, r->eps);
      if (r->n_accept_warmup == 0) {
        *reason = "no proposal was accepted during warm-up: the chain did not move";
        return BNN_K_FAILED;
      }
      if (!(r->eps > 0) || !isfinite(r->eps)) {
        *reason = "the adapted step size is zero or not finite";
        return BNN_K_FAILED;
      }
    }
  }
  if (draw) memcpy(draw, r->q, sizeof(double) * (size_t)r->dim);
  return BNN_K_OK;
}

static double rwm_stepsize(const void *state) {
  return ((const rwm_state *)state)->eps;
}

const bnn_kernel_type bnn_kernel_rwm = {
    .name = "rwm",
    .n_stats = 3,
    .stat_names = rwm_stat_names,
    .create = rwm_create,
    .destroy = rwm_destroy,
    .init = rwm_init,
    .step = rwm_step,
    .stepsize = rwm_stepsize};

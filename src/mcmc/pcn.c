/* Preconditioned Crank-Nicolson (Cotter, Roberts, Stuart and White 2013).
 *
 * The target must split (target.h) into a Gaussian reference N(0, C),
 * C = diag(ref_sd^2), on its first n_ref coordinates and the rest, log pi =
 * log N(theta; 0, C) + loglik(theta).  In the prior-whitened coordinates
 * z = theta / ref_sd the proposal is
 *     z' = sqrt(1 - beta^2) z + beta xi,   xi ~ N(0, I),
 * i.e. theta' = sqrt(1 - beta^2) theta + beta C^{1/2} xi, which is reversible
 * with respect to N(0, C); so the move is accepted with probability
 * min(1, exp(loglik(theta') - loglik(theta))), the likelihood only (the
 * potential Phi = -loglik).  In the (h) parametrisation of Cotter et al.,
 * FBNN's code and CalibrateEmulateSample.jl, rho = sqrt(1 - beta^2) =
 * (1 - h/4) / (1 + h/4), i.e. beta = sqrt(h) / (1 + h/4).
 *
 * Coordinates after the first n_ref (log sigma of a sampled-sigma
 * likelihood, whose prior is not Gaussian) are updated in the same
 * transition by a random-walk Metropolis step on their full conditional
 * (Metropolis-within-Gibbs): loglik includes their prior, and the reference
 * density does not depend on them.
 *
 * Warm-up: beta is tuned by Stan's dual averaging on log beta towards
 * target_accept (clamped to beta <= 1, where the proposal is an independent
 * draw from the prior), the extra coordinates' scale by Robbins-Monro
 * towards 0.44 (the optimal one-dimensional random-walk rate); both are
 * fixed at the end of warm-up.
 *
 * The proposal's N(0, I) deviates come from the ziggurat (ziggurat.h, one
 * 64-bit draw per deviate), not the polar method: for a 30,000-parameter
 * network the polar method's deviates cost more than an emulated
 * likelihood. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "adapt.h"
#include "pcn.h"
#include "ziggurat.h"

#define HALF_LOG_2PI 0.91893853320467274178

static const char *const pcn_stat_names[] = {"accept_stat__", "stepsize__", "lp__",
                                             "loglik__", "accept_extra__"};

typedef struct {
  int dim, n_ref;
  bnn_pcn_settings s;
  bnn_target *target;
  bnn_rng *rng;
  double *u, *v, *sd, *xi;
  bnn_zig zig;               /* the proposal's normal deviates (ziggurat.h) */
  double ll, beta, log_xs;   /* current loglik, pCN step, log RW scale */
  double ref_const, ref_u;   /* -sum log sd - n_ref log sqrt(2 pi); log N(u; 0, C) */
  bnn_dual_avg da;
  int n_warmup;
  double n_accept_warmup;
} pcn_state;

static void pcn_destroy(void *state) {
  pcn_state *p = state;
  if (!p) return;
  free(p->u);
  free(p);
}

static void *pcn_create(int dim, const void *settings) {
  pcn_state *p = calloc(1, sizeof *p);
  if (!p) return NULL;
  p->dim = dim;
  p->s = *(const bnn_pcn_settings *)settings;
  size_t n = dim > 0 ? (size_t)dim : 1;
  p->u = malloc(4 * n * sizeof(double));
  if (!p->u) {
    pcn_destroy(p);
    return NULL;
  }
  p->v = p->u + n;
  p->sd = p->u + 2 * n;
  p->xi = p->u + 3 * n;
  bnn_zig_init(&p->zig);
  return p;
}

/* log density of the Gaussian reference at theta */
static double ref_logdens(const pcn_state *p, const double *th) {
  double lp = 0.0;
  for (int j = 0; j < p->n_ref; j++) {
    double z = th[j] / p->sd[j];
    lp -= 0.5 * z * z + log(p->sd[j]);
  }
  return lp - p->n_ref * HALF_LOG_2PI;
}

static int pcn_init(void *state, bnn_target *target, bnn_rng *rng,
                    const double *init, int n_warmup) {
  pcn_state *p = state;
  p->target = target;
  p->rng = rng;
  p->n_warmup = n_warmup;
  p->beta = p->s.beta;
  p->log_xs = log(p->s.extra_stepsize);
  /* api_kernel.c refuses targets without a split; be safe anyway */
  if (!target->loglik || !target->ref_sd || target->n_ref > p->dim)
    return BNN_K_BAD_INIT;
  p->n_ref = target->n_ref;
  memcpy(p->sd, target->ref_sd, sizeof(double) * (size_t)p->n_ref);
  memcpy(p->u, init, sizeof(double) * (size_t)p->dim);
  p->ll = bnn_target_loglik(target, p->u, NULL);
  /* the reference log density without a log() per coordinate and step:
   * its constant once, its quadratic form with each proposal */
  p->ref_const = -p->n_ref * HALF_LOG_2PI;
  for (int j = 0; j < p->n_ref; j++) p->ref_const -= log(p->sd[j]);
  p->ref_u = ref_logdens(p, p->u);
  bnn_da_init(&p->da, p->s.target_accept, 0.05, 0.75, 10.0);
  p->da.mu = log(10.0 * p->beta);
  return isfinite(p->ll) ? BNN_K_OK : BNN_K_BAD_INIT;
}

static int pcn_step(void *state, int iter, double *draw, double *stats,
                    const char **reason) {
  pcn_state *p = state;
  int d = p->dim, nr = p->n_ref;
  size_t bytes = sizeof(double) * (size_t)d;
  int warm = iter < p->n_warmup;
  /* the pCN move of the reference block */
  double rho = sqrt(1.0 - p->beta * p->beta);
  double qv = 0.0;
  bnn_zig_fill(p->rng, &p->zig, p->xi, nr);
  for (int j = 0; j < nr; j++) {
    p->v[j] = rho * p->u[j] + p->beta * p->sd[j] * p->xi[j];
    double z = p->v[j] / p->sd[j];
    qv += z * z;
  }
  for (int j = nr; j < d; j++) p->v[j] = p->u[j];
  double llv = bnn_target_loglik(p->target, p->v, NULL);
  double acc = isfinite(llv) ? exp(llv - p->ll) : 0.0;
  if (acc > 1) acc = 1;
  if (bnn_rng_unif(p->rng) < acc) {
    memcpy(p->u, p->v, bytes);
    p->ll = llv;
    p->ref_u = p->ref_const - 0.5 * qv;
    if (warm) p->n_accept_warmup += 1;
  }
  /* Metropolis-within-Gibbs for the coordinates outside the reference */
  double acc_x = NAN;
  if (d > nr) {
    double xs = exp(p->log_xs);
    memcpy(p->v, p->u, bytes);
    for (int j = nr; j < d; j++) p->v[j] += xs * bnn_rng_norm(p->rng);
    double llw = bnn_target_loglik(p->target, p->v, NULL);
    acc_x = isfinite(llw) ? exp(llw - p->ll) : 0.0;
    if (acc_x > 1) acc_x = 1;
    if (bnn_rng_unif(p->rng) < acc_x) {
      memcpy(p->u, p->v, bytes);
      p->ll = llw;
    }
    if (warm && p->s.adapt) p->log_xs += (acc_x - 0.44) / sqrt((double)iter + 1.0);
  }
  stats[0] = acc;
  stats[1] = p->beta;
  stats[2] = p->ll + p->ref_u;
  stats[3] = p->ll;
  stats[4] = acc_x;
  if (warm) {
    if (p->s.adapt) {
      p->beta = bnn_da_learn(&p->da, acc);
      if (p->beta > 1) p->beta = 1;
    }
    if (iter == p->n_warmup - 1) {
      if (p->s.adapt) {
        p->beta = bnn_da_final(&p->da, p->beta);
        if (p->beta > 1) p->beta = 1;
      }
      if (p->n_accept_warmup == 0) {
        *reason = "no pCN proposal was accepted during warm-up: the chain did not move";
        return BNN_K_FAILED;
      }
      if (!(p->beta > 0) || !isfinite(p->beta)) {
        *reason = "the adapted pCN step beta is zero or not finite";
        return BNN_K_FAILED;
      }
    }
  }
  if (draw) memcpy(draw, p->u, bytes);   /* NULL: the driver keeps no draw */
  return BNN_K_OK;
}

static double pcn_stepsize(const void *state) {
  return ((const pcn_state *)state)->beta;
}

const bnn_kernel_type bnn_kernel_pcn = {
    .name = "pcn",
    .n_stats = 5,
    .stat_names = pcn_stat_names,
    .create = pcn_create,
    .destroy = pcn_destroy,
    .init = pcn_init,
    .step = pcn_step,
    .stepsize = pcn_stepsize};

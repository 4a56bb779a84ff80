#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "chain.h"

bnn_chain *bnn_chain_new(bnn_model *model, bnn_gauss_target *gauss,
                         const double *init, uint64_t seed, uint64_t stream,
                         const bnn_chain_settings *s) {
  bnn_chain *c = calloc(1, sizeof *c);
  if (!c) return NULL;
  c->model = model;
  c->gauss = gauss;
  bnn_target_bind(&c->target, model, gauss);
  c->dim = c->target.dim;
  c->kernel = s->kernel;
  c->num_warmup = s->num_warmup;
  c->adapt_stepsize = s->adapt_stepsize && s->num_warmup > 0;
  c->adapt_metric = s->adapt_metric && s->num_warmup > 0;
  bnn_rng_seed(&c->rng, seed, stream);
  if (bnn_hmc_alloc(&c->hmc, c->dim, s->max_depth) ||
      bnn_win_init(&c->win, c->dim, s->num_warmup, s->init_buffer,
                   s->term_buffer, s->window, c->adapt_metric)) {
    bnn_chain_free(c);
    return NULL;
  }
  c->hmc.target = &c->target;
  c->hmc.rng = &c->rng;
  c->hmc.eps = s->stepsize;
  c->hmc.int_time = s->int_time;
  if (s->inv_metric)
    memcpy(c->hmc.inv_metric, s->inv_metric, sizeof(double) * (size_t)c->dim);
  bnn_da_init(&c->da, s->delta, s->gamma, s->kappa, s->t0);
  memcpy(c->hmc.z.q, init, sizeof(double) * (size_t)c->dim);
  double lp = bnn_hmc_eval(&c->hmc, &c->hmc.z);
  if (!isfinite(lp)) {
    c->status = BNN_CHAIN_BAD_INIT;
    return c;
  }
  if (c->adapt_stepsize) {
    c->da.mu = log(10.0 * c->hmc.eps);
    if (bnn_hmc_init_stepsize(&c->hmc)) c->status = BNN_CHAIN_STEPSIZE;
  } else if (s->adapt_stepsize && s->num_warmup == 0) {
    /* No warm-up, so no dual averaging: as Stan's adaptive service does
     * before its warm-up loop, start from the step-size heuristic instead of
     * the nominal step size (1 by default, with which every transition of a
     * BNN diverges).  The step size then stays fixed ("not adapted"). */
    if (bnn_hmc_init_stepsize(&c->hmc)) c->status = BNN_CHAIN_STEPSIZE;
  }
  return c;
}

void bnn_chain_free(bnn_chain *c) {
  if (!c) return;
  bnn_hmc_free(&c->hmc);
  bnn_win_free(&c->win);
  bnn_model_free(c->model);
  bnn_gauss_free(c->gauss);
  free(c);
}

void bnn_chain_step(bnn_chain *c, double *draw, double *stats) {
  bnn_hmc_stats st;
  if (c->kernel == BNN_KERNEL_HMC)
    bnn_static_hmc_transition(&c->hmc, &st);
  else
    bnn_nuts_transition(&c->hmc, &st);

  if (c->iter < c->num_warmup) {
    if (c->adapt_stepsize) c->hmc.eps = bnn_da_learn(&c->da, st.accept_stat);
    if (c->adapt_metric) {
      int upd = bnn_win_learn(&c->win, c->hmc.z.q, c->hmc.inv_metric);
      if (upd < 0) {
        c->status = BNN_CHAIN_METRIC;
      } else if (upd > 0 && c->adapt_stepsize) {
        if (bnn_hmc_init_stepsize(&c->hmc)) c->status = BNN_CHAIN_STEPSIZE;
        c->da.mu = log(10.0 * c->hmc.eps);
        bnn_da_restart(&c->da);
      }
    }
    if (c->iter == c->num_warmup - 1 && c->adapt_stepsize)
      c->hmc.eps = bnn_da_final(&c->da, c->hmc.eps);
  }
  c->iter++;
  if (draw) memcpy(draw, c->hmc.z.q, sizeof(double) * (size_t)c->dim);
  if (stats) {
    stats[0] = st.accept_stat;
    stats[1] = st.stepsize;
    stats[2] = st.treedepth;
    stats[3] = st.n_leapfrog;
    stats[4] = st.divergent;
    stats[5] = st.energy;
    stats[6] = st.lp;
  }
}

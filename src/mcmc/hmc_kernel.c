/* NUTS and static HMC as kernels of the chain driver (kernel.h): the
 * transitions of hmc.c plus Stan's warm-up adaptation (adapt.c), dual
 * averaging of the step size and windowed estimation of a diagonal metric,
 * done by the kernel during the n_warmup first transitions (Stan's
 * adapt_diag_e_nuts::transition).  The random numbers are drawn in Stan's
 * order: the step-size heuristic at init, then per transition the
 * momentum, the tree's directions and its multinomial choices, and the
 * heuristic again whenever a metric window closes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "adapt.h"
#include "hmc.h"
#include "hmc_kernel.h"

static const char *const hmc_stat_names[] = {
    "accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__",
    "divergent__", "energy__", "lp__"};

typedef struct {
  int static_hmc;             /* 0: NUTS, 1: static HMC */
  bnn_hmc_settings s;
  bnn_hmc hmc;
  bnn_dual_avg da;
  bnn_windowed win;
  int adapt_stepsize, adapt_metric;
} hmc_state;

static void hmc_destroy(void *state) {
  hmc_state *k = state;
  if (!k) return;
  bnn_hmc_free(&k->hmc);
  bnn_win_free(&k->win);
  free(k);
}

static void *create(int dim, const void *settings, int static_hmc) {
  const bnn_hmc_settings *s = settings;
  hmc_state *k = calloc(1, sizeof *k);
  if (!k) return NULL;
  k->static_hmc = static_hmc;
  k->s = *s;
  k->s.inv_metric = NULL;
  k->adapt_stepsize = s->adapt_stepsize && s->num_warmup > 0;
  k->adapt_metric = s->adapt_metric && s->num_warmup > 0;
  if (bnn_hmc_alloc(&k->hmc, dim, s->max_depth) ||
      bnn_win_init(&k->win, dim, s->num_warmup, s->init_buffer, s->term_buffer,
                   s->window, k->adapt_metric)) {
    hmc_destroy(k);
    return NULL;
  }
  k->hmc.eps = s->stepsize;
  k->hmc.int_time = s->int_time;
  if (s->inv_metric)
    memcpy(k->hmc.inv_metric, s->inv_metric, sizeof(double) * (size_t)dim);
  bnn_da_init(&k->da, s->delta, s->gamma, s->kappa, s->t0);
  return k;
}

static void *nuts_create(int dim, const void *settings) { return create(dim, settings, 0); }
static void *static_create(int dim, const void *settings) { return create(dim, settings, 1); }

static void hmc_set_abort(void *state, const bnn_abort_hook *hook) {
  ((hmc_state *)state)->hmc.abort = hook;
}

static int hmc_init(void *state, bnn_target *target, bnn_rng *rng,
                    const double *init, int n_warmup) {
  hmc_state *k = state;
  (void)n_warmup;   /* the settings' num_warmup (the same number) */
  k->hmc.target = target;
  k->hmc.rng = rng;
  memcpy(k->hmc.z.q, init, sizeof(double) * (size_t)k->hmc.dim);
  double lp = bnn_hmc_eval(&k->hmc, &k->hmc.z);
  if (!isfinite(lp)) return BNN_K_BAD_INIT;
  if (k->adapt_stepsize) {
    k->da.mu = log(10.0 * k->hmc.eps);
    if (bnn_hmc_init_stepsize(&k->hmc)) return BNN_K_STEPSIZE;
  } else if (k->s.adapt_stepsize && k->s.num_warmup == 0) {
    /* No warm-up, so no dual averaging: as Stan's adaptive service does
     * before its warm-up loop, start from the step-size heuristic instead of
     * the nominal step size (1 by default, with which every transition of a
     * BNN diverges).  The step size then stays fixed ("not adapted"). */
    if (bnn_hmc_init_stepsize(&k->hmc)) return BNN_K_STEPSIZE;
  }
  return BNN_K_OK;
}

static int hmc_step(void *state, int iter, double *draw, double *stats,
                    const char **reason) {
  hmc_state *k = state;
  bnn_hmc_stats st;
  int status = BNN_K_OK;
  if (k->static_hmc)
    bnn_static_hmc_transition(&k->hmc, &st);
  else
    bnn_nuts_transition(&k->hmc, &st);
  if (k->hmc.interrupted) {
    *reason = bnn_status_reason(BNN_K_INTERRUPTED);
    return BNN_K_INTERRUPTED;
  }

  if (iter < k->s.num_warmup) {
    if (k->adapt_stepsize) k->hmc.eps = bnn_da_learn(&k->da, st.accept_stat);
    if (k->adapt_metric) {
      int upd = bnn_win_learn(&k->win, k->hmc.z.q, k->hmc.inv_metric);
      if (upd < 0) {
        status = BNN_K_METRIC;
      } else if (upd > 0 && k->adapt_stepsize) {
        if (bnn_hmc_init_stepsize(&k->hmc)) status = BNN_K_STEPSIZE;
        k->da.mu = log(10.0 * k->hmc.eps);
        bnn_da_restart(&k->da);
      }
    }
    if (iter == k->s.num_warmup - 1 && k->adapt_stepsize)
      k->hmc.eps = bnn_da_final(&k->da, k->hmc.eps);
  }
  if (status != BNN_K_OK) {
    *reason = bnn_status_reason(status);
    return status;
  }
  if (draw) memcpy(draw, k->hmc.z.q, sizeof(double) * (size_t)k->hmc.dim);
  stats[0] = st.accept_stat;
  stats[1] = st.stepsize;
  stats[2] = st.treedepth;
  stats[3] = st.n_leapfrog;
  stats[4] = st.divergent;
  stats[5] = st.energy;
  stats[6] = st.lp;
  return BNN_K_OK;
}

static double hmc_stepsize(const void *state) { return ((const hmc_state *)state)->hmc.eps; }
static const double *hmc_position(const void *state) {
  return ((const hmc_state *)state)->hmc.z.q;
}
static void hmc_inv_metric(const void *state, double *out) {
  const hmc_state *k = state;
  memcpy(out, k->hmc.inv_metric, sizeof(double) * (size_t)k->hmc.dim);
}

/* NUTS and static HMC differ only in their transition (create() sets it) */
#define HMC_KERNEL_TYPE(kname, create_fn)                                     \
  {.name = kname, .n_stats = 7, .stat_names = hmc_stat_names,                 \
   .create = create_fn, .destroy = hmc_destroy, .init = hmc_init,             \
   .step = hmc_step, .stepsize = hmc_stepsize, .position = hmc_position,      \
   .inv_metric = hmc_inv_metric, .set_abort = hmc_set_abort}

const bnn_kernel_type bnn_kernel_nuts = HMC_KERNEL_TYPE("nuts", nuts_create);
const bnn_kernel_type bnn_kernel_hmc = HMC_KERNEL_TYPE("hmc", static_create);

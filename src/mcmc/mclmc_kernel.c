/* MCLMC as a kernel of the chain driver (kernel.h): the n_warmup first
 * transitions are the tuning (mclmc_adapt.c), the others sampling steps of
 * the kernel (mclmc.c) at the tuned step size and L.  In sampling, with
 * safeguard "revert" a reverted step keeps the state and multiplies the
 * step size by `shrink`; with "blackjax" a non-finite state ends the chain
 * (BNN_K_NONFINITE).  Tuning that gives a non-finite or zero step size or
 * L (safeguard "revert") ends it too (BNN_K_STEPSIZE).  Statistics of
 * every transition, tuning included: energy_change__, kinetic_change__,
 * lp__, stepsize__, L__, reverted__. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mclmc_kernel.h"

static const char *const mclmc_stat_names[] = {
    "energy_change__", "kinetic_change__", "lp__", "stepsize__", "L__", "reverted__"};

static const char *const mclmc_info_names[] = {
    "L", "n_reverted", "eevpd", "tuned_stepsize", "tuned_L", "fail_reason",
    "stage", "done1", "done2", "done3", "n_sample_steps"};
#define N_INFO 11

typedef struct {
  int dim, n_tune;
  int blackjax;            /* safeguard "blackjax" */
  double shrink;
  bnn_mclmc k;
  bnn_zig zig;             /* the ziggurat's tables (settings' ziggurat) */
  bnn_mclmc_tuner t;
  double n_reverted;
  double n_sample_steps;   /* sampling steps taken */
  double n_sample_ok;      /* sampling steps that were not reverted */
  double sum_de2;          /* sum of energy_change^2 over those */
  double tuned_eps, tuned_L;
  int fail_reason;         /* BNN_FAIL_* of a failed "blackjax" chain */
} mclmc_state;

static void mclmc_destroy(void *state) {
  mclmc_state *m = state;
  if (!m) return;
  bnn_mclmc_free(&m->k);
  bnn_mclmc_tuner_free(&m->t);
  free(m);
}

static void *mclmc_create(int dim, const void *settings) {
  const bnn_mclmc_settings *s = settings;
  mclmc_state *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->dim = dim;
  if (bnn_mclmc_alloc(&m->k, dim) || bnn_mclmc_tuner_alloc(&m->t, dim, s)) {
    mclmc_destroy(m);
    return NULL;
  }
  m->n_tune = bnn_mclmc_tuner_steps(&m->t);
  m->blackjax = s->safeguard == BNN_SAFEGUARD_BLACKJAX;
  m->shrink = s->shrink;
  m->k.integrator = s->integrator;
  m->k.check = BNN_CHECK_ALL;
  m->k.eps = s->stepsize;
  m->k.L = s->L;
  if (s->ziggurat) {
    bnn_zig_init(&m->zig);
    m->k.zig = &m->zig;
  }
  if (s->sqrt_diag_cov)
    memcpy(m->k.sigma, s->sqrt_diag_cov, sizeof(double) * (size_t)dim);
  m->tuned_eps = m->k.eps;
  m->tuned_L = m->k.L;
  return m;
}

static int mclmc_init(void *state, bnn_target *target, bnn_rng *rng,
                      const double *init, int n_warmup) {
  mclmc_state *m = state;
  (void)n_warmup;   /* checked against the tuning's steps at the boundary */
  m->k.target = target;
  m->k.rng = rng;
  return bnn_mclmc_init(&m->k, init) ? BNN_K_BAD_INIT : BNN_K_OK;
}

static void write_stats(const bnn_mclmc_info *info, double *stats) {
  stats[0] = info->energy_change;
  stats[1] = info->kinetic_change;
  stats[2] = info->logdens;
  stats[3] = info->stepsize;
  stats[4] = info->L;
  stats[5] = info->ok ? 0.0 : 1.0;
}

static int mclmc_step(void *state, int iter, double *draw, double *stats,
                      const char **reason) {
  mclmc_state *m = state;
  bnn_mclmc_info info;
  if (iter < m->n_tune) {
    int bad = 0;
    int failed = bnn_mclmc_tune_step(&m->t, &m->k, m->k.rng, &info, &bad);
    if (!info.ok) m->n_reverted += 1.0;
    write_stats(&info, stats);
    if (failed) {
      m->fail_reason = failed;
      *reason = failed == BNN_FAIL_STEPSIZE ? "the step size became NaN"
                                            : "non-finite state (position, momentum or gradient)";
      return BNN_K_NONFINITE;
    }
    if (bad) {
      *reason = "tuning gave a non-finite or zero step size or L";
      return BNN_K_STEPSIZE;
    }
    if (m->t.stage == BNN_STAGE_DONE) {
      m->tuned_eps = m->k.eps;
      m->tuned_L = m->k.L;
    }
  } else {
    m->k.check = m->blackjax ? BNN_CHECK_NONE : BNN_CHECK_ALL;
    bnn_mclmc_step(&m->k, &info);
    m->n_sample_steps += 1.0;
    write_stats(&info, stats);
    if (!info.ok) {
      m->n_reverted += 1.0;
      m->k.eps *= m->shrink;
    } else if (info.nonfinite) {
      m->fail_reason = BNN_FAIL_STATE;
      *reason = "non-finite state (position, momentum or gradient)";
      return BNN_K_NONFINITE;
    } else if (isfinite(info.energy_change)) {
      m->sum_de2 += info.energy_change * info.energy_change;
      m->n_sample_ok += 1.0;
    }
  }
  if (draw) memcpy(draw, m->k.x, sizeof(double) * (size_t)m->dim);
  return BNN_K_OK;
}

static double mclmc_stepsize(const void *state) { return ((const mclmc_state *)state)->k.eps; }
static const double *mclmc_position(const void *state) {
  return ((const mclmc_state *)state)->k.x;
}
/* the preconditioner sigma as a diagonal inverse metric, sigma^2 */
static void mclmc_inv_metric(const void *state, double *out) {
  const mclmc_state *m = state;
  for (int i = 0; i < m->dim; i++) out[i] = m->k.sigma[i] * m->k.sigma[i];
}

static void mclmc_info(const void *state, double *out) {
  const mclmc_state *m = state;
  out[0] = m->k.L;
  out[1] = m->n_reverted;
  /* mean energy_change^2 / dim over the sampling steps (NaN: none) */
  out[2] = m->n_sample_ok > 0 ? m->sum_de2 / (m->n_sample_ok * m->dim) : NAN;
  out[3] = m->tuned_eps;
  out[4] = m->tuned_L;
  out[5] = m->fail_reason;
  out[6] = m->t.stage;
  out[7] = m->t.done1;
  out[8] = m->t.done2;
  out[9] = m->t.done3;
  out[10] = m->n_sample_steps;
}

int bnn_mclmc_warmup_steps(const bnn_mclmc_settings *s) {
  return s->n1 + s->n2 + (s->diag_precond ? s->n2 / 3 : 0) + s->n3;
}

const bnn_kernel_type bnn_kernel_mclmc = {
    .name = "mclmc",
    .n_stats = 6,
    .stat_names = mclmc_stat_names,
    .create = mclmc_create,
    .destroy = mclmc_destroy,
    .init = mclmc_init,
    .step = mclmc_step,
    .stepsize = mclmc_stepsize,
    .position = mclmc_position,
    .inv_metric = mclmc_inv_metric,
    .n_info = N_INFO,
    .info_names = mclmc_info_names,
    .info = mclmc_info};

/* The one chain driver: one chain of any kernel (kernel.h). */
#include <math.h>
#include <stdlib.h>
#include "kernel.h"

const bnn_status_info bnn_status_table[] = {
    {BNN_K_OK, "ok", "ok", NULL, 1},
    {BNN_K_BAD_INIT, "bad_init", "initial values have a non-finite log density",
     "the log density is not finite at the initial values", 1},
    {BNN_K_STEPSIZE, "stepsize", "step-size search failed (step size reached 0 or 1e7)",
     "step-size search failed (step size reached 0 or 1e7)", 1},
    {BNN_K_METRIC, "metric", "adapted metric not finite", "adapted metric not finite", 1},
    {BNN_K_NONFINITE, "nonfinite", "non-finite state (NaN/Inf): the chain diverged",
     "non-finite position", 1},
    {BNN_K_FAILED, "failed", "the sampler failed (see $failed_at)", "kernel failure", 1},
    {BNN_K_STUCK, "stuck", "the chain never moved (every transition rejected)",
     "kernel failure", 1},
    {BNN_K_INTERRUPTED, "interrupted", "interrupted inside a transition",
     "interrupted inside a transition", 0},
    {0, NULL, NULL, NULL, 0}};

const char *bnn_status_reason(int status) {
  for (const bnn_status_info *s = bnn_status_table; s->name; s++)
    if (s->code == status) return s->reason;
  return "kernel failure";
}

bnn_kchain *bnn_kchain_new(const bnn_kernel_type *kernel, const void *settings,
                           bnn_target target, void (*target_free)(void *),
                           const double *init, uint64_t seed, uint64_t stream,
                           int n_warmup, double interrupt_period) {
  bnn_kchain *c = calloc(1, sizeof *c);
  if (!c) {
    if (target_free) target_free(target.ctx);
    return NULL;
  }
  c->kernel = kernel;
  c->target = target;
  c->target.n_grad = 0.0;
  c->target_free = target_free;
  c->dim = target.dim;
  c->n_warmup = n_warmup;
  c->failed_iter = -1;
  bnn_rng_seed(&c->rng, seed, stream);
  bnn_itimer_init(&c->timer, interrupt_period);
  c->state = kernel->create(c->dim, settings);
  if (!c->state) {
    bnn_kchain_free(c);
    return NULL;
  }
  if (kernel->set_abort) kernel->set_abort(c->state, &c->abort);
  c->status = kernel->init(c->state, &c->target, &c->rng, init, n_warmup);
  if (c->status != BNN_K_OK) {
    c->failed_iter = 0;
    c->reason = bnn_status_reason(c->status);
  }
  return c;
}

void bnn_kchain_free(bnn_kchain *c) {
  if (!c) return;
  if (c->state) c->kernel->destroy(c->state);
  if (c->target_free) c->target_free(c->target.ctx);
  free(c);
}

int bnn_kchain_step(bnn_kchain *c, double *draw, double *stats) {
  if (c->status != BNN_K_OK) return c->status;
  const char *reason = NULL;
  int st = c->kernel->step(c->state, c->iter, draw, stats, &reason);
  if (st == BNN_K_OK && draw) {
    /* a kernel must never hand out a non-finite position as a draw (x * 0
     * is NaN exactly for Inf and NaN; branch-free sums are cheaper than a
     * test per value, which matters for kernels whose step is cheap) */
    double chk[4] = {0.0, 0.0, 0.0, 0.0};   /* independent sums: no chain */
    int j = 0;
    for (; j + 4 <= c->dim; j += 4)
      for (int k = 0; k < 4; k++) chk[k] += draw[j + k] * 0.0;
    for (; j < c->dim; j++) chk[0] += draw[j] * 0.0;
    if (chk[0] + chk[1] + chk[2] + chk[3] != 0.0) {
      st = BNN_K_NONFINITE;
      reason = "non-finite position";
    }
  }
  if (st != BNN_K_OK) {
    c->status = st;
    c->failed_iter = c->iter;
    c->reason = reason ? reason : bnn_status_reason(st);
    return st;
  }
  c->iter++;
  return BNN_K_OK;
}

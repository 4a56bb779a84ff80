/* The one log-density interface every sampler uses.
 *
 * A target evaluates log pi(theta) (up to a constant, Jacobians included) and
 * its gradient at a flat parameter vector.  The context owns all workspace it
 * needs, allocated once, so evaluation allocates nothing and is thread-safe
 * across contexts.  A non-finite return value means "outside the support or
 * numerically failed"; samplers treat it as a rejection/divergence. */
#ifndef BNNMC_TARGET_H
#define BNNMC_TARGET_H

typedef double (*bnn_logdens_fn)(void *ctx, const double *theta, double *grad);

typedef struct {
  int dim;
  bnn_logdens_fn fn;   /* value and gradient (grad may not be NULL) */
  void *ctx;
  double n_grad;       /* gradient evaluations so far (kept by callers) */
  /* Optional (NULL for exact targets): a stochastic target, such as the
   * minibatch estimate of minibatch.h, draws fresh randomness (a batch) for
   * every evaluation; hold(ctx, 1) makes the next evaluation draw it and
   * the following ones reuse it until hold(ctx, 0). */
  void (*hold)(void *ctx, int on);
} bnn_target;

static inline double bnn_target_eval(bnn_target *t, const double *theta,
                                     double *grad) {
  t->n_grad += 1.0;
  return t->fn(t->ctx, theta, grad);
}

/* Share one draw of a stochastic target's randomness between evaluations
 * (see hold above); does nothing for an exact target. */
static inline void bnn_target_hold(bnn_target *t, int on) {
  if (t->hold) t->hold(t->ctx, on);
}
#endif

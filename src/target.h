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
} bnn_target;

static inline double bnn_target_eval(bnn_target *t, const double *theta,
                                     double *grad) {
  t->n_grad += 1.0;
  return t->fn(t->ctx, theta, grad);
}
#endif

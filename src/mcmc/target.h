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
  /* Optional split of log pi into a Gaussian reference measure and the rest,
   * for kernels whose proposals keep the reference invariant (pCN, ces.c):
   * the first n_ref coordinates have independent N(0, ref_sd[j]^2) priors,
   * and loglik(ctx, theta, grad) is log pi minus their log density (the
   * likelihood, plus the priors of any further coordinates); grad may be
   * NULL.  loglik == NULL: the target has no such split.  Targets built
   * with memset/calloc leave these zero. */
  bnn_logdens_fn loglik;
  const double *ref_sd;
  int n_ref;
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

/* The log density without the Gaussian reference (see above); counted as
 * one evaluation. */
static inline double bnn_target_loglik(bnn_target *t, const double *theta,
                                       double *grad) {
  t->n_grad += 1.0;
  return t->loglik(t->ctx, theta, grad);
}

/* Share one draw of a stochastic target's randomness between evaluations
 * (see hold above); does nothing for an exact target. */
static inline void bnn_target_hold(bnn_target *t, int on) {
  if (t->hold) t->hold(t->ctx, on);
}
#endif

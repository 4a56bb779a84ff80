/* The Gaussian-reference split of a BNN target; see reference.h. */
#include <math.h>
#include <stddef.h>
#include "reference.h"

#define HALF_LOG_2PI 0.91893853320467274178

/* The same formula as the sigma part of bnn_model_logprior (model.c). */
double bnn_model_extra_logprior(const bnn_model *m, const double *theta,
                                double *grad) {
  if (m->lik != BNN_LIK_GAUSS) return 0.0;
  double u = theta[m->n_net], sg = exp(u), c = m->sigma_prior_scale;
  if (m->sigma_prior == BNN_SIGMA_HALF_NORMAL) {
    if (grad) grad[m->n_net] += -(sg / c) * (sg / c) + 1.0;
    return -0.5 * (sg / c) * (sg / c) - log(c) + log(2.0) - HALF_LOG_2PI + u;
  }
  if (grad) grad[m->n_net] += -c * sg + 1.0;
  return log(c) - c * sg + u;
}

double bnn_model_loglik_ref(void *ctx, const double *theta, double *grad) {
  bnn_model *m = ctx;
  double ll = bnn_model_loglik(m, theta, grad, 0, m->n);
  return ll + bnn_model_extra_logprior(m, theta, grad);
}

void bnn_target_bind_reference(bnn_target *t, bnn_model *m) {
  t->loglik = NULL;
  t->ref_sd = NULL;
  t->n_ref = 0;
  if (m->prior != BNN_PRIOR_NORMAL) return;
  t->loglik = bnn_model_loglik_ref;
  t->ref_sd = m->prior_scale;
  t->n_ref = m->n_net;
}

/* The Gaussian-reference split of a BNN target; see reference.h. */
#include <math.h>
#include <stddef.h>
#include "reference.h"

/* The sigma part of bnn_model_logprior (model.c), by the same function. */
double bnn_model_extra_logprior(const bnn_model *m, const double *theta,
                                double *grad) {
  if (m->lik != BNN_LIK_GAUSS) return 0.0;
  return bnn_sigma_logprior(m->sigma_prior, m->sigma_prior_scale, theta[m->n_net],
                            grad ? grad + m->n_net : NULL);
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

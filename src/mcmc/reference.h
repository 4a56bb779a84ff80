/* The Gaussian-reference split of a BNN target (target.h: loglik, ref_sd,
 * n_ref), used by pCN (pcn.c) and by the emulated targets (ces.c). */
#ifndef BNNMC_REFERENCE_H
#define BNNMC_REFERENCE_H
#include "model.h"
#include "target.h"

/* log p(y | theta) plus the prior of the likelihood's own parameter (log
 * sigma of the sampled-sigma Gaussian, Jacobian included): the model's log
 * posterior without the network's Normal prior.  grad may be NULL. */
double bnn_model_loglik_ref(void *ctx, const double *theta, double *grad);

/* The prior of the likelihood's own parameter alone (0 if there is none);
 * adds its gradient to grad[m->n_net] when grad is not NULL. */
double bnn_model_extra_logprior(const bnn_model *m, const double *theta,
                                double *grad);

/* Set t's split for model m (already bound with bnn_target_bind): only a
 * Normal weight prior gives a Gaussian reference; a Laplace prior leaves
 * t->loglik NULL. */
void bnn_target_bind_reference(bnn_target *t, bnn_model *m);
#endif

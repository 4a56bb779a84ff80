/* A minibatch target: an unbiased estimate of the log posterior of a BNN
 * and of its gradient from a batch B of the N rows,
 *
 *   log pi_hat(theta) = (N / |B|) sum_{i in B} log p(y_i | x_i, theta)
 *                       + log p(theta),
 *
 * bound to the one log-density interface of target.h, so a kernel does not
 * know whether its gradient is exact.
 *
 * Batches.  Each target has its own RNG stream from (seed, chain id) in a
 * domain of its own (BNN_MINIBATCH_STREAM_TAG), so the batches do not
 * depend on the kernel's use of random numbers nor on how chains are
 * scheduled.  By default a batch is the next |B| entries of a random
 * permutation of the rows, reshuffled when fewer than |B| are left (an
 * epoch is floor(N / |B|) batches; each batch is a uniformly random subset,
 * so the estimate is unbiased, and the batches of an epoch are disjoint).
 * With replace = 1 the |B| rows are drawn independently with replacement.
 * Every evaluation draws a fresh batch unless the kernel holds it
 * (bnn_target_hold): the batch is never reused silently.
 *
 * Control variates (Baker et al. 2019), with a centring point theta_c and
 * the full-data gradient there, both batch terms on the same batch:
 *   grad_cv(theta) = (N/|B|) sum_B [grad l_i(theta) - grad l_i(theta_c)]
 *                    + sum_{i=1}^N grad l_i(theta_c) + grad log p(theta),
 * and likewise for the value.  "cv" keeps theta_c fixed (the MAP); "svrg"
 * (Dubey et al. 2016) starts at theta_c and moves it to the evaluation
 * point at every svrg_period-th evaluation (one full-data gradient each).
 * At the centre the estimate is the full-data gradient exactly. */
#ifndef BNNMC_MINIBATCH_H
#define BNNMC_MINIBATCH_H
#include <stdint.h>
#include "model.h"
#include "rng.h"
#include "target.h"

#define BNN_MINIBATCH_STREAM_TAG 0x4000000000000000ULL

enum bnn_grad_estimator { BNN_GRAD_PLAIN = 0, BNN_GRAD_CV = 1, BNN_GRAD_SVRG = 2 };

typedef struct {
  int batch_size;        /* 1..N */
  int replace;           /* draw rows with replacement */
  int estimator;         /* enum bnn_grad_estimator */
  int svrg_period;       /* evaluations between SVRG re-centrings */
  const double *centre;  /* dim values for cv / svrg (copied) */
} bnn_minibatch_settings;

typedef struct {
  bnn_model *full;       /* owns a copy of the data */
  bnn_model *batch;      /* the same network over the batch buffers */
  bnn_minibatch_settings s;
  bnn_rng rng;
  int n, p, dim;
  int *perm, pos;        /* epoch permutation and the next unused entry */
  int *idx;              /* rows of the current batch */
  double *Xb, *yb;       /* the current batch's rows (batch_size x p) */
  double *wb;            /* their observation weights, or NULL (unweighted) */
  double *centre, *g_centre, *g_tmp;   /* control variates */
  double ll_centre;      /* full-data log-likelihood at the centre */
  double prior_const;    /* the network prior's normalising constant */
  bnn_model sigma_view;  /* the model seen with no network parameters:
                            bnn_model_logprior on it is the likelihood
                            parameter's prior alone */
  int held, fresh;       /* bnn_target_hold state */
  double n_eval;         /* evaluations so far */
  double n_batches;      /* batches drawn so far */
  double n_full;         /* full-data gradients (SVRG re-centrings) */
} bnn_minibatch;

/* Takes ownership of `full` (which must own its data; freed also on
 * failure).  Returns NULL on allocation failure. */
bnn_minibatch *bnn_minibatch_new(bnn_model *full, const bnn_minibatch_settings *s,
                                 uint64_t seed, uint64_t stream);
void bnn_minibatch_free(bnn_minibatch *mb);
double bnn_minibatch_logdens(void *ctx, const double *theta, double *grad);
void bnn_minibatch_hold(void *ctx, int on);
void bnn_minibatch_bind(bnn_target *t, bnn_minibatch *mb);
#endif

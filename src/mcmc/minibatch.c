/* The minibatch target (see minibatch.h for the estimator and the batches). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "simd.h"
#include "minibatch.h"

void bnn_minibatch_free(bnn_minibatch *mb) {
  if (!mb) return;
  bnn_model_free(mb->full);
  bnn_model_free(mb->batch);
  free(mb->perm);
  free(mb->idx);
  free(mb->Xb);
  free(mb->yb);
  free(mb->wb);
  free(mb->centre);
  free(mb->g_centre);
  free(mb->g_tmp);
  free(mb);
}

/* Move the control variates' centre to theta: one full-data gradient. */
static void recentre(bnn_minibatch *mb, const double *theta) {
  if (theta != mb->centre)
    memcpy(mb->centre, theta, sizeof(double) * (size_t)mb->dim);
  mb->ll_centre = bnn_model_loglik(mb->full, mb->centre, mb->g_centre, 0, mb->n);
  mb->n_full += 1.0;
}

bnn_minibatch *bnn_minibatch_new(bnn_model *full, const bnn_minibatch_settings *s,
                                 uint64_t seed, uint64_t stream) {
  bnn_minibatch *mb = calloc(1, sizeof *mb);
  if (!mb) {
    bnn_model_free(full);
    return NULL;
  }
  mb->full = full;
  mb->s = *s;
  mb->s.centre = NULL;   /* the caller's memory: copied below */
  mb->n = full->n;
  mb->p = full->p;
  mb->dim = full->dim;
  int B = s->batch_size, n = mb->n, p = mb->p;
  size_t bd = sizeof(double) * (size_t)(mb->dim > 0 ? mb->dim : 1);
  mb->perm = malloc(sizeof(int) * (size_t)n);
  mb->idx = malloc(sizeof(int) * (size_t)B);
  /* zeroed: bnn_model_new takes them as const data (filled per batch) */
  mb->Xb = calloc((size_t)B * (size_t)(p > 0 ? p : 1), sizeof(double));
  mb->yb = calloc((size_t)B * (size_t)full->y_cols, sizeof(double));
  if (!mb->perm || !mb->idx || !mb->Xb || !mb->yb) goto fail;
  mb->batch = bnn_model_new(full->n_layers, full->sizes, full->act, full->lik,
                            full->sigma_fixed, full->sigma_prior,
                            full->sigma_prior_scale, full->prior, full->prior_scale,
                            B, p, mb->Xb, mb->yb, 0);
  if (!mb->batch) goto fail;
  bnn_model_set_lik_par(mb->batch, full->nu_fixed, full->aux_shape, full->aux_rate);
  /* the batch's network in the precision of the full model's */
  if (full->single && bnn_model_set_single(mb->batch, 0)) goto fail;
  if (full->w) {   /* a weighted likelihood: the batch carries its weights */
    mb->wb = malloc(sizeof(double) * (size_t)B);
    if (!mb->wb) goto fail;
    mb->batch->w = mb->wb;
  }
  mb->batch->lik_scale = (double)n / (double)B;
  /* the prior's constant once, not a log per parameter per evaluation */
  /* (the model's per-parameter constants, log scale or log 2 scale) */
  const double *c = full->prior_logc;
  for (int i = 0; i < full->n_net; i++)
    mb->prior_const -= full->prior == BNN_PRIOR_NORMAL
                           ? c[i] + 0.91893853320467274178   /* log sqrt(2 pi) */
                           : c[i];
  mb->sigma_view = *full;
  mb->sigma_view.n_net = 0;
  for (int i = 0; i < n; i++) mb->perm[i] = i;
  mb->pos = n;   /* the first batch shuffles */
  bnn_rng_seed(&mb->rng, seed, stream | BNN_MINIBATCH_STREAM_TAG);
  if (s->estimator != BNN_GRAD_PLAIN) {
    mb->centre = malloc(bd);
    mb->g_centre = malloc(bd);
    mb->g_tmp = malloc(bd);
    if (!mb->centre || !mb->g_centre || !mb->g_tmp) goto fail;
    recentre(mb, s->centre);
  }
  return mb;
fail:
  bnn_minibatch_free(mb);
  return NULL;
}

/* The next batch: rows into idx, and their data into Xb / yb. */
static void draw_batch(bnn_minibatch *mb) {
  int B = mb->s.batch_size, n = mb->n, p = mb->p;
  if (mb->s.replace) {
    for (int i = 0; i < B; i++) {
      int j = (int)(bnn_rng_unif(&mb->rng) * (double)n);
      mb->idx[i] = j < n ? j : n - 1;
    }
  } else {
    if (mb->pos + B > n) {   /* a new epoch: Fisher-Yates reshuffle */
      for (int i = n - 1; i > 0; i--) {
        int j = (int)(bnn_rng_unif(&mb->rng) * (double)(i + 1));
        if (j > i) j = i;
        int t = mb->perm[i];
        mb->perm[i] = mb->perm[j];
        mb->perm[j] = t;
      }
      mb->pos = 0;
    }
    memcpy(mb->idx, mb->perm + mb->pos, sizeof(int) * (size_t)B);
    mb->pos += B;
  }
  const double *X = mb->full->X, *y = mb->full->y;
  for (int k = 0; k < p; k++) {
    const double *src = X + (size_t)k * n;
    double *dst = mb->Xb + (size_t)k * B;
    for (int i = 0; i < B; i++) dst[i] = src[mb->idx[i]];
  }
  for (int k = 0; k < mb->full->y_cols; k++) {   /* the count likelihoods' columns */
    const double *src = y + (size_t)k * n;
    double *dst = mb->yb + (size_t)k * B;
    for (int i = 0; i < B; i++) dst[i] = src[mb->idx[i]];
  }
  if (mb->wb)
    for (int i = 0; i < B; i++) mb->wb[i] = mb->full->w[mb->idx[i]];
  mb->n_batches += 1.0;
}

/* The log prior and its gradient (added to grad), as bnn_model_logprior
 * (the same gradient, bit for bit) but with the constant cached (that
 * function takes a log per parameter, which costs as much as the
 * likelihood of a small batch) and the normal prior's loop vectorised
 * (prior_impl.h; the value may differ from the scalar sum in its last
 * bits). */
static double logprior(const bnn_minibatch *mb, const double *theta, double *grad) {
  const bnn_model *m = mb->full;
  const double *s = m->prior_scale;
  int n = m->n_net;
  double q = 0.0;
  if (m->prior == BNN_PRIOR_NORMAL) {
    q = 0.5 * bnn_simd()->prior_normal(theta, s, grad, n);
  } else {
    for (int i = 0; i < n; i++) {
      q += fabs(theta[i]) / s[i];
      grad[i] -= (theta[i] > 0 ? 1.0 : (theta[i] < 0 ? -1.0 : 0.0)) / s[i];
    }
  }
  double lp = mb->prior_const - q;
  if (m->dim > n)   /* the likelihood's parameter (log sigma) */
    lp += bnn_model_logprior(&mb->sigma_view, theta + n, grad + n);
  return lp;
}

double bnn_minibatch_logdens(void *ctx, const double *theta, double *grad) {
  bnn_minibatch *mb = ctx;
  int B = mb->s.batch_size, d = mb->dim;
  if (!mb->held || mb->fresh) {
    draw_batch(mb);
    mb->fresh = 0;
  }
  if (mb->s.estimator == BNN_GRAD_SVRG && mb->n_eval > 0 &&
      fmod(mb->n_eval, (double)mb->s.svrg_period) == 0.0)
    recentre(mb, theta);
  mb->n_eval += 1.0;
  bnn_model *m = mb->batch;
  if (mb->s.estimator == BNN_GRAD_PLAIN) {
    double ll = bnn_model_loglik(m, theta, grad, 0, B);   /* scaled by N/|B| */
    return ll + logprior(mb, theta, grad);
  }
  double c = m->lik_scale;
  m->lik_scale = 1.0;
  double l1 = bnn_model_loglik(m, theta, grad, 0, B);
  double l0 = bnn_model_loglik(m, mb->centre, mb->g_tmp, 0, B);
  m->lik_scale = c;
  for (int j = 0; j < d; j++)
    grad[j] = c * (grad[j] - mb->g_tmp[j]) + mb->g_centre[j];
  double lp = logprior(mb, theta, grad);
  return c * (l1 - l0) + mb->ll_centre + lp;
}

void bnn_minibatch_hold(void *ctx, int on) {
  bnn_minibatch *mb = ctx;
  mb->held = on != 0;
  mb->fresh = on != 0;
}

void bnn_minibatch_bind(bnn_target *t, bnn_minibatch *mb) {
  t->dim = mb->dim;
  t->fn = bnn_minibatch_logdens;
  t->ctx = mb;
  t->n_grad = 0.0;
  t->hold = bnn_minibatch_hold;
}

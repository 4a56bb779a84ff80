#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "optim.h"

void bnn_glorot_init(const bnn_model *m, bnn_rng *r, double *theta) {
  memset(theta, 0, sizeof(double) * (size_t)m->dim);
  for (int l = 0; l < m->n_layers; l++) {
    int fin = m->sizes[l], fout = m->sizes[l + 1];
    double a = sqrt(6.0 / (double)(fin + fout));
    double *W = theta + m->w_off[l];
    for (int i = 0; i < fin * fout; i++)
      W[i] = a * (2.0 * bnn_rng_unif(r) - 1.0);
  }
}

void bnn_optim_free(bnn_optim *o) {
  if (!o) return;
  bnn_model_free(o->train);
  bnn_model_free(o->valid);
  free(o->theta);
  free(o->best);
  free(o->grad);
  free(o->m);
  free(o->v);
  free(o->prev);
  free(o->perm);
  free(o->vhist);
  bnn_dropout_free(o->drop);
  free(o);
}

bnn_optim *bnn_optim_new(bnn_model *train, bnn_model *valid, const double *X0,
                         const double *y0, const double *init, uint64_t seed,
                         uint64_t member, const bnn_optim_settings *s) {
  bnn_optim *o = calloc(1, sizeof *o);
  if (!o) {
    bnn_model_free(train);
    bnn_model_free(valid);
    return NULL;
  }
  o->train = train;
  o->valid = valid;
  o->X0 = X0;
  o->y0 = y0;
  o->s = *s;
  o->dim = train->dim;
  o->n = train->n;
  size_t bd = sizeof(double) * (size_t)(o->dim > 0 ? o->dim : 1);
  o->theta = malloc(bd);
  o->best = malloc(bd);
  o->grad = malloc(bd);
  o->m = calloc(1, bd);
  o->v = calloc(1, bd);
  o->prev = malloc(bd);
  o->perm = malloc(sizeof(int) * (size_t)(o->n > 0 ? o->n : 1));
  int hist = o->s.patience > 0 ? o->s.patience + 1 : 1;
  o->vhist = malloc(sizeof(double) * (size_t)hist);
  if (!o->theta || !o->best || !o->grad || !o->m || !o->v || !o->prev ||
      !o->perm || !o->vhist) {
    bnn_optim_free(o);
    return NULL;
  }
  /* The member's stream lives in its own domain (top bit set), so the
   * optimiser and a sampler chain with the same index never share random
   * numbers. */
  bnn_rng_seed(&o->rng, seed, member | BNN_OPTIM_STREAM_TAG);
  if (init)
    memcpy(o->theta, init, bd);
  else
    bnn_glorot_init(train, &o->rng, o->theta);
  memcpy(o->best, o->theta, bd);
  for (int i = 0; i < o->n; i++) o->perm[i] = i;
  if (o->s.batch_size <= 0 || o->s.batch_size > o->n) o->s.batch_size = o->n;
  o->best_loss = INFINITY;
  return o;
}

int bnn_optim_set_dropout(bnn_optim *o, double rate_in, const double *rates) {
  bnn_dropout_free(o->drop);
  o->drop = bnn_dropout_new(o->train, rate_in, rates);
  return o->drop != NULL;
}

/* Fisher-Yates shuffle of the rows into the training model's own copy, so
 * every minibatch is a contiguous row range [r0, r1). */
static void shuffle_rows(bnn_optim *o) {
  int n = o->n, p = o->train->p;
  for (int i = n - 1; i > 0; i--) {
    int j = (int)floor(bnn_rng_unif(&o->rng) * (double)(i + 1));
    if (j > i) j = i;
    int t = o->perm[i];
    o->perm[i] = o->perm[j];
    o->perm[j] = t;
  }
  double *X = o->train->X, *y = o->train->y;
  for (int k = 0; k < p; k++) {
    const double *src = o->X0 + (size_t)k * n;
    double *dst = X + (size_t)k * n;
    for (int i = 0; i < n; i++) dst[i] = src[o->perm[i]];
  }
  for (int k = 0; k < o->train->y_cols; k++)   /* 1 column except MGAUSS */
    for (int i = 0; i < n; i++) y[i + (size_t)k * n] = o->y0[o->perm[i] + (size_t)k * n];
  bnn_model_sync_single(o->train);   /* its float copy of X, if single */
}

/* loss and gradient of the loss on rows [r0, r1) */
static double batch_loss(bnn_optim *o, int r0, int r1) {
  bnn_model *m = o->train;
  int d = o->dim;
  m->lik_scale = (double)o->n / (double)(r1 - r0);
  double obj = o->drop ? bnn_dropout_loglik(o->drop, m, o->theta, o->grad, r0, r1, &o->rng)
                       : bnn_model_loglik(m, o->theta, o->grad, r0, r1);
  m->lik_scale = 1.0;
  if (o->s.loss == BNN_LOSS_POSTERIOR)
    obj += bnn_model_logprior(m, o->theta, o->grad);
  o->n_grad += 1.0;
  double sc = -1.0 / (double)o->n;
  for (int i = 0; i < d; i++) o->grad[i] *= sc;
  return sc * obj;
}

static int finite_vec(const double *x, int n) {
  for (int i = 0; i < n; i++)
    if (!isfinite(x[i])) return 0;
  return 1;
}

/* The learning rate of the current epoch (exactly s->lr without decay). */
static double epoch_lr(const bnn_optim *o) {
  const bnn_optim_settings *s = &o->s;
  return s->lr_decay == 1.0 ? s->lr : s->lr * pow(s->lr_decay, (double)o->epoch);
}

/* SGD with heavy-ball momentum (o->m is the velocity) */
static void sgd_update(bnn_optim *o) {
  const bnn_optim_settings *s = &o->s;
  int d = o->dim;
  double *th = o->theta, *g = o->grad;
  double lr = epoch_lr(o);
  o->t++;
  for (int i = 0; i < d; i++) {
    double gi = g[i] + s->weight_decay * th[i];
    o->m[i] = s->momentum * o->m[i] + gi;
    th[i] -= lr * o->m[i];
  }
}

/* RMSProp as torch.optim.RMSprop without momentum or centring */
static void rmsprop_update(bnn_optim *o) {
  const bnn_optim_settings *s = &o->s;
  int d = o->dim;
  double *th = o->theta, *g = o->grad;
  double lr = epoch_lr(o);
  o->t++;
  for (int i = 0; i < d; i++) {
    double gi = g[i] + s->weight_decay * th[i];
    o->v[i] = s->beta2 * o->v[i] + (1.0 - s->beta2) * gi * gi;
    th[i] -= lr * gi / (sqrt(o->v[i]) + s->eps);
  }
}

static void adam_update(bnn_optim *o) {
  const bnn_optim_settings *s = &o->s;
  int d = o->dim;
  double *th = o->theta, *g = o->grad;
  o->t++;
  double bc1 = 1.0 - pow(s->beta1, (double)o->t);
  double bc2 = 1.0 - pow(s->beta2, (double)o->t);
  int coupled = s->optimizer == BNN_OPT_ADAM && s->weight_decay != 0.0;
  int decoupled = s->optimizer == BNN_OPT_ADAMW && s->weight_decay != 0.0;
  double lr = epoch_lr(o);
  for (int i = 0; i < d; i++) {
    double gi = g[i];
    if (coupled) gi += s->weight_decay * th[i];
    o->m[i] = s->beta1 * o->m[i] + (1.0 - s->beta1) * gi;
    o->v[i] = s->beta2 * o->v[i] + (1.0 - s->beta2) * gi * gi;
    double step = (o->m[i] / bc1) / (sqrt(o->v[i] / bc2) + s->eps);
    if (decoupled) step += s->weight_decay * th[i];
    th[i] -= lr * step;
  }
}

/* Early stopping after epoch o->epoch with validation loss vl. */
static int stop_now(bnn_optim *o, double vl) {
  int p = o->s.patience, t = o->epoch;
  if (o->s.stopping == BNN_STOP_BEST) return o->since_best >= p;
  /* window rule: losses L_1..L_t kept in a ring of p + 1 */
  o->vhist[(t - 1) % (p + 1)] = vl;
  if (t < p) return 0;
  /* the reference loss is L_{t-p}; with t == p there is none yet and the
   * reference code's clamped index takes L_1, itself one of the last p */
  double ref = o->vhist[(t > p ? t - p - 1 : 0) % (p + 1)];
  for (int k = t - p + 1; k <= t; k++)
    if (!(o->vhist[(k - 1) % (p + 1)] >= ref)) return 0;   /* NaN: no stop */
  return 1;
}

int bnn_optim_epoch(bnn_optim *o, double *train_loss, double *valid_loss) {
  int n = o->n, B = o->s.batch_size, d = o->dim;
  size_t bd = sizeof(double) * (size_t)d;
  *train_loss = NAN;
  *valid_loss = NAN;
  if (B < n) shuffle_rows(o);
  double acc = 0.0;
  int nb = 0;
  for (int r0 = 0; r0 < n; r0 += B) {
    int r1 = r0 + B < n ? r0 + B : n;
    double loss = batch_loss(o, r0, r1);
    if (!isfinite(loss) || !finite_vec(o->grad, d)) {
      o->status = BNN_OPTIM_NONFINITE;
      return 1;
    }
    memcpy(o->prev, o->theta, bd);
    if (o->s.optimizer == BNN_OPT_SGD)
      sgd_update(o);
    else if (o->s.optimizer == BNN_OPT_RMSPROP)
      rmsprop_update(o);
    else
      adam_update(o);
    if (!finite_vec(o->theta, d)) {
      memcpy(o->theta, o->prev, bd);
      o->status = BNN_OPTIM_NONFINITE;
      return 1;
    }
    acc += loss;
    nb++;
  }
  o->epoch++;
  *train_loss = acc / nb;
  if (o->valid) {
    bnn_model *v = o->valid;
    double vl = -bnn_model_loglik(v, o->theta, NULL, 0, v->n) / (double)v->n;
    *valid_loss = vl;
    if (vl < o->best_loss) {   /* NaN never improves */
      o->best_loss = vl;
      o->best_epoch = o->epoch;
      o->since_best = 0;
      memcpy(o->best, o->theta, bd);
    } else {
      o->since_best++;
    }
    if (o->s.patience > 0 && stop_now(o, vl)) {
      o->status = BNN_OPTIM_EARLY_STOP;
      return 1;
    }
  }
  return 0;
}

const double *bnn_optim_result(const bnn_optim *o) {
  if (o->valid && o->s.restore_best && o->best_epoch > 0) return o->best;
  return o->theta;
}

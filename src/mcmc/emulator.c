/* Emulator MLP and emulated target; see emulator.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "emulator.h"
#include "reference.h"

void bnn_emulator_free(bnn_emulator *e) {
  if (!e) return;
  free(e->sizes);
  free(e->w_off);
  free(e->b_off);
  free(e->w);
  free(e->in_center);
  free(e->out_center);
  free(e->z);
  free(e);
}

bnn_emulator *bnn_emulator_new(int n_layers, const int *sizes, int act,
                               const double *w, const double *in_center,
                               const double *in_scale, const double *out_center,
                               const double *out_scale) {
  bnn_emulator *e = calloc(1, sizeof *e);
  if (!e) return NULL;
  e->n_layers = n_layers;
  e->act = act;
  e->sizes = malloc(sizeof(int) * (size_t)(n_layers + 1));
  e->w_off = malloc(sizeof(int) * (size_t)n_layers);
  e->b_off = malloc(sizeof(int) * (size_t)n_layers);
  if (!e->sizes || !e->w_off || !e->b_off) goto fail;
  memcpy(e->sizes, sizes, sizeof(int) * (size_t)(n_layers + 1));
  size_t off = 0, units = 0;
  int maxw = 0;
  for (int l = 0; l < n_layers; l++) {
    e->w_off[l] = (int)off;
    off += (size_t)sizes[l] * sizes[l + 1];
    e->b_off[l] = (int)off;
    off += sizes[l + 1];
    units += sizes[l + 1];
    if (sizes[l] > maxw) maxw = sizes[l];
    if (sizes[l + 1] > maxw) maxw = sizes[l + 1];
  }
  e->max_width = maxw;
  int d = sizes[0], D = sizes[n_layers];
  e->w = malloc(sizeof(double) * off);
  e->in_center = malloc(sizeof(double) * (size_t)(2 * d));
  e->out_center = malloc(sizeof(double) * (size_t)(2 * D));
  /* z and a: every layer's units; da, dz: two vectors of max width */
  e->z = malloc(sizeof(double) * (2 * units + 2 * (size_t)maxw));
  if (!e->w || !e->in_center || !e->out_center || !e->z) goto fail;
  e->in_scale = e->in_center + d;
  e->out_scale = e->out_center + D;
  e->a = e->z + units;
  e->da = e->a + units;
  e->dz = e->da + maxw;
  memcpy(e->w, w, sizeof(double) * off);
  memcpy(e->in_center, in_center, sizeof(double) * (size_t)d);
  memcpy(e->in_scale, in_scale, sizeof(double) * (size_t)d);
  memcpy(e->out_center, out_center, sizeof(double) * (size_t)D);
  memcpy(e->out_scale, out_scale, sizeof(double) * (size_t)D);
  return e;
fail:
  bnn_emulator_free(e);
  return NULL;
}

/* Dot product with four partial sums (instruction-level parallelism; the
 * emulator's evaluations are its hot loop). */
static inline double dot(const double *x, const double *y, int n) {
  double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
  int i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += x[i] * y[i];
    s1 += x[i + 1] * y[i + 1];
    s2 += x[i + 2] * y[i + 2];
    s3 += x[i + 3] * y[i + 3];
  }
  for (; i < n; i++) s0 += x[i] * y[i];
  return (s0 + s1) + (s2 + s3);
}

static double act_slope(int act, double z, double a) {
  switch (act) {
  case BNN_ACT_RELU: return z > 0 ? 1.0 : 0.0;
  case BNN_ACT_TANH: return 1.0 - a * a;
  default: return 1.0;   /* identity */
  }
}

void bnn_emulator_forward(bnn_emulator *e, const double *theta, double *out) {
  int L = e->n_layers, d = e->sizes[0];
  /* the standardised input lives in dz (max width >= d) until backward */
  double *ain = e->dz;
  for (int i = 0; i < d; i++) ain[i] = (theta[i] - e->in_center[i]) / e->in_scale[i];
  size_t uoff = 0;
  for (int l = 0; l < L; l++) {
    int fin = e->sizes[l], fout = e->sizes[l + 1];
    const double *W = e->w + e->w_off[l], *b = e->w + e->b_off[l];
    double *z = e->z + uoff, *a = e->a + uoff;
    for (int j = 0; j < fout; j++) z[j] = b[j] + dot(W + (size_t)j * fin, ain, fin);
    if (l < L - 1) {
      for (int j = 0; j < fout; j++) a[j] = bnn_act_apply1(e->act, z[j]);
      ain = a;
    }
    uoff += fout;
  }
  int D = e->sizes[L];
  const double *zl = e->z + uoff - D;
  for (int k = 0; k < D; k++) out[k] = e->out_center[k] + e->out_scale[k] * zl[k];
}

void bnn_emulator_backward(bnn_emulator *e, const double *dout, double *grad) {
  int L = e->n_layers, d = e->sizes[0];
  size_t uoff = 0;
  for (int l = 0; l < L; l++) uoff += e->sizes[l + 1];
  int D = e->sizes[L];
  uoff -= D;            /* offset of the last layer's units */
  /* dz of the output layer; the input vector in dz is no longer needed */
  double *dz = e->dz, *da = e->da;
  for (int k = 0; k < D; k++) dz[k] = dout[k] * e->out_scale[k];
  for (int l = L - 1; l >= 0; l--) {
    int fin = e->sizes[l], fout = e->sizes[l + 1];
    const double *W = e->w + e->w_off[l];
    for (int i = 0; i < fin; i++) da[i] = 0.0;
    for (int j = 0; j < fout; j++) {
      const double *wj = W + (size_t)j * fin;
      double g = dz[j];
      if (g == 0.0) continue;
      for (int i = 0; i < fin; i++) da[i] += wj[i] * g;
    }
    if (l > 0) {
      size_t po = uoff - fin;   /* units of layer l - 1 */
      for (int i = 0; i < fin; i++)
        dz[i] = da[i] * act_slope(e->act, e->z[po + i], e->a[po + i]);
      uoff = po;
    }
  }
  for (int i = 0; i < d; i++) grad[i] += da[i] / e->in_scale[i];
}

/* ---- the emulated target ------------------------------------------------ */

void bnn_emul_target_free(bnn_emul_target *t) {
  if (!t) return;
  bnn_model_free(t->model);
  bnn_emulator_free(t->emul);
  free(t->out);
  free(t);
}

bnn_emul_target *bnn_emul_target_new(bnn_model *model, bnn_emulator *emul) {
  bnn_emul_target *t = calloc(1, sizeof *t);
  if (!t) {
    bnn_model_free(model);
    bnn_emulator_free(emul);
    return NULL;
  }
  t->model = model;
  t->emul = emul;
  size_t nk = (size_t)model->n * (size_t)bnn_model_n_out(model);
  t->out = malloc(sizeof(double) * 2 * (nk > 0 ? nk : 1));
  if (!t->out) {
    bnn_emul_target_free(t);
    return NULL;
  }
  t->dout = t->out + nk;
  return t;
}

/* The log-likelihood alone at the emulated (or exact) outputs; grad, when
 * not NULL, is overwritten with its gradient. */
static double emul_lik(bnn_emul_target *t, const double *theta, double *grad) {
  bnn_model *m = t->model;
  t->n_emul += 1.0;
  if (!t->emul) {
    if (grad) return bnn_model_loglik(m, theta, grad, 0, m->n);
    bnn_model_forward(m, theta, m->X, m->n, t->out);
    return bnn_model_loglik_outputs(m, theta, t->out, NULL, NULL);
  }
  bnn_emulator_forward(t->emul, theta, t->out);
  double g_extra = 0.0;
  double ll = bnn_model_loglik_outputs(m, theta, t->out, grad ? t->dout : NULL, &g_extra);
  if (grad) {
    memset(grad, 0, sizeof(double) * (size_t)m->dim);
    bnn_emulator_backward(t->emul, t->dout, grad);
    if (m->lik == BNN_LIK_GAUSS) grad[m->n_net] = g_extra;
  }
  return ll;
}

double bnn_emul_loglik(void *ctx, const double *theta, double *grad) {
  bnn_emul_target *t = ctx;
  double ll = emul_lik(t, theta, grad);
  return ll + bnn_model_extra_logprior(t->model, theta, grad);
}

double bnn_emul_logpost(void *ctx, const double *theta, double *grad) {
  bnn_emul_target *t = ctx;
  double ll = emul_lik(t, theta, grad);
  return ll + bnn_model_logprior(t->model, theta, grad);
}

double bnn_emul_loglik_logpost(bnn_emul_target *t, const double *theta, double *lp,
                               double *grad) {
  double ll = emul_lik(t, theta, grad);
  *lp = ll + bnn_model_logprior(t->model, theta, grad);
  return ll + bnn_model_extra_logprior(t->model, theta, NULL);
}

void bnn_emul_target_bind(bnn_target *t, bnn_emul_target *et) {
  t->dim = et->model->dim;
  t->fn = bnn_emul_logpost;
  t->ctx = et;
  t->n_grad = 0.0;
  t->loglik = NULL;
  t->ref_sd = NULL;
  t->n_ref = 0;
  if (et->model->prior == BNN_PRIOR_NORMAL) {
    t->loglik = bnn_emul_loglik;
    t->ref_sd = et->model->prior_scale;
    t->n_ref = et->model->n_net;
  }
}

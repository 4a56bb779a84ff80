#include <stdlib.h>
#include <string.h>
#include "dropout.h"
#include "kernels.h"

void bnn_dropout_free(bnn_dropout *dw) {
  if (!dw) return;
  free(dw->rate);
  free(dw->xin);
  free(dw->xmask);
  free(dw->am);
  free(dw->mask);
  free(dw->tmp);
  free(dw);
}

bnn_dropout *bnn_dropout_new(const bnn_model *m, double rate_in, const double *rates) {
  bnn_dropout *dw = calloc(1, sizeof *dw);
  if (!dw) return NULL;
  int L = m->n_layers, zsize = 0;
  for (int l = 0; l < L; l++) zsize += m->sizes[l + 1];
  size_t p = (size_t)(m->p > 0 ? m->p : 1);
  dw->rate_in = rate_in;
  dw->rate = calloc((size_t)(L > 1 ? L - 1 : 1), sizeof(double));
  dw->xin = malloc(sizeof(double) * BNN_CHUNK * p);
  dw->xmask = malloc(sizeof(double) * BNN_CHUNK * p);
  dw->am = malloc(sizeof(double) * BNN_CHUNK * (size_t)zsize);
  dw->mask = malloc(sizeof(double) * BNN_CHUNK * (size_t)zsize);
  dw->tmp = malloc(sizeof(double) * BNN_CHUNK);
  if (!dw->rate || !dw->xin || !dw->xmask || !dw->am || !dw->mask || !dw->tmp) {
    bnn_dropout_free(dw);
    return NULL;
  }
  for (int l = 0; l < L - 1; l++) dw->rate[l] = rates[l];
  return dw;
}

/* masks of n values: 0 with probability rate, 1 / (1 - rate) otherwise */
static void draw_mask(double *mask, int n, double rate, bnn_rng *rng) {
  double keep = 1.0 / (1.0 - rate);
  for (int i = 0; i < n; i++) mask[i] = bnn_rng_unif(rng) < rate ? 0.0 : keep;
}

static inline int layer_off(const bnn_model *m, int l) {
  int off = 0;
  for (int k = 0; k < l; k++) off += BNN_CHUNK * m->sizes[k + 1];
  return off;
}

/* Forward pass of rows [r0, r0 + mrows) with fresh masks; returns the
 * outputs (the last layer's z). */
static double *forward_chunk_dropout(bnn_dropout *dw, bnn_model *m, const double *theta,
                                     int r0, int mrows, bnn_rng *rng) {
  const double *ain = m->X + r0;
  int lda = m->n, L = m->n_layers, off = 0, p = m->sizes[0];
  if (dw->rate_in > 0) {
    for (int k = 0; k < p; k++) {
      double *mk = dw->xmask + (size_t)k * BNN_CHUNK, *xk = dw->xin + (size_t)k * BNN_CHUNK;
      const double *src = m->X + (size_t)k * m->n + r0;
      draw_mask(mk, mrows, dw->rate_in, rng);
      for (int i = 0; i < mrows; i++) xk[i] = src[i] * mk[i];
    }
    ain = dw->xin;
    lda = BNN_CHUNK;
  }
  double *z = m->z;
  for (int l = 0; l < L; l++) {
    int fin = m->sizes[l], fout = m->sizes[l + 1];
    z = m->z + off;
    bnn_kern()->dense(ain, lda, mrows, fin, fout, theta + m->w_off[l], 1, fin,
                      theta + m->b_off[l], z, BNN_CHUNK);
    if (l < L - 1) {
      double *a = m->a + off;
      for (int j = 0; j < fout; j++)
        bnn_kern()->act_forward(m->act, z + (size_t)j * BNN_CHUNK, a + (size_t)j * BNN_CHUNK, mrows);
      ain = a;
      if (dw->rate[l] > 0) {
        double *am = dw->am + off, *mk = dw->mask + off;
        for (int j = 0; j < fout; j++) {
          size_t o = (size_t)j * BNN_CHUNK;
          draw_mask(mk + o, mrows, dw->rate[l], rng);
          for (int i = 0; i < mrows; i++) am[o + i] = a[o + i] * mk[o + i];
        }
        ain = am;
      }
      lda = BNN_CHUNK;
    }
    off += BNN_CHUNK * fout;
  }
  return z;
}

double bnn_dropout_loglik(bnn_dropout *dw, bnn_model *m, const double *theta,
                          double *grad, int row_begin, int row_end, bnn_rng *rng) {
  int L = m->n_layers;
  double ll = 0.0, g_extra = 0.0;
  if (grad) memset(grad, 0, sizeof(double) * (size_t)m->dim);
  for (int r0 = row_begin; r0 < row_end; r0 += BNN_CHUNK) {
    int mrows = row_end - r0 < BNN_CHUNK ? row_end - r0 : BNN_CHUNK;
    double *o = forward_chunk_dropout(dw, m, theta, r0, mrows, rng);
    double *delta = grad ? m->delta : NULL;
    ll += bnn_model_lik_chunk(m, theta, o, m->y + r0, mrows, delta, &g_extra);
    if (!grad) continue;
    double *dcur = m->delta, *dnext = m->delta2;
    for (int l = L - 1; l >= 0; l--) {
      int fin = m->sizes[l], fout = m->sizes[l + 1];
      const double *ain;
      int lda = BNN_CHUNK;
      if (l == 0) {
        if (dw->rate_in > 0) {
          ain = dw->xin;
        } else {
          ain = m->X + r0;
          lda = m->n;
        }
      } else {
        int zo = layer_off(m, l - 1);
        ain = dw->rate[l - 1] > 0 ? dw->am + zo : m->a + zo;
      }
      bnn_kern()->grad_w(ain, lda, dcur, BNN_CHUNK, mrows, fin, fout,
                         grad + m->w_off[l], grad + m->b_off[l]);
      if (l > 0) {
        bnn_kern()->dense(dcur, BNN_CHUNK, mrows, fout, fin, theta + m->w_off[l],
                          fin, 1, NULL, dnext, BNN_CHUNK);
        int zo = layer_off(m, l - 1);
        for (int k = 0; k < fin; k++) {
          double *dk = dnext + (size_t)k * BNN_CHUNK;
          if (dw->rate[l - 1] > 0) {
            const double *mk = dw->mask + zo + (size_t)k * BNN_CHUNK;
            for (int i = 0; i < mrows; i++) dk[i] *= mk[i];
          }
          bnn_kern()->act_backward(m->act, m->z + zo + k * BNN_CHUNK,
                                   m->a + zo + k * BNN_CHUNK, dk, dw->tmp, mrows);
        }
        double *t = dcur;
        dcur = dnext;
        dnext = t;
      }
    }
  }
  if (grad && m->lik == BNN_LIK_GAUSS) grad[m->n_net] = g_extra;
  if (m->lik_scale != 1.0) {
    ll *= m->lik_scale;
    if (grad)
      for (int i = 0; i < m->dim; i++) grad[i] *= m->lik_scale;
  }
  return ll;
}

#include <stdlib.h>
#include <string.h>
#include "dropout.h"

void bnn_dropout_free(bnn_dropout *dw) {
  if (!dw) return;
  free(dw->in);
  free(dw->ld);
  free(dw->rate);
  free(dw->xin);
  free(dw->xmask);
  free(dw->am);
  free(dw->mask);
  free(dw);
}

static inline int layer_off(const bnn_model *m, int l) {
  int off = 0;
  for (int k = 0; k < l; k++) off += BNN_CHUNK * m->sizes[k + 1];
  return off;
}

/* masks of n values: 0 with probability rate, 1 / (1 - rate) otherwise */
static void draw_mask(double *mask, int n, double rate, bnn_rng *rng) {
  double keep = 1.0 / (1.0 - rate);
  for (int i = 0; i < n; i++) mask[i] = bnn_rng_unif(rng) < rate ? 0.0 : keep;
}

/* The input of weight layer l with fresh masks: the inputs (l = 0) or the
 * activations of hidden layer l - 1, masked when their rate is positive.
 * Masks are drawn unit by unit, row by row, layer by layer, inputs first. */
static const double *masked_input(bnn_pass *p, bnn_model *m, int l, const double *ain,
                                  int *lda, int r0, int mrows) {
  bnn_dropout *dw = (bnn_dropout *)p;
  (void)r0;
  if (l == 0) {
    if (!(dw->rate_in > 0)) return ain;
    for (int k = 0; k < m->sizes[0]; k++) {
      double *mk = dw->xmask + (size_t)k * BNN_CHUNK, *xk = dw->xin + (size_t)k * BNN_CHUNK;
      const double *src = ain + (size_t)k * *lda;
      draw_mask(mk, mrows, dw->rate_in, dw->rng);
      for (int i = 0; i < mrows; i++) xk[i] = src[i] * mk[i];
    }
    *lda = BNN_CHUNK;
    return dw->xin;
  }
  if (!(dw->rate[l - 1] > 0)) return ain;
  int off = layer_off(m, l - 1), fout = m->sizes[l];
  double *am = dw->am + off, *mk = dw->mask + off;
  for (int j = 0; j < fout; j++) {
    size_t o = (size_t)j * BNN_CHUNK;
    draw_mask(mk + o, mrows, dw->rate[l - 1], dw->rng);
    for (int i = 0; i < mrows; i++) am[o + i] = ain[o + i] * mk[o + i];
  }
  return am;
}

/* the delta of a dropped unit is 0, of a kept one scaled as its output */
static void masked_delta(bnn_pass *p, bnn_model *m, int l, int k, double *dk, int mrows) {
  bnn_dropout *dw = (bnn_dropout *)p;
  if (!(dw->rate[l] > 0)) return;
  const double *mk = dw->mask + layer_off(m, l) + (size_t)k * BNN_CHUNK;
  for (int i = 0; i < mrows; i++) dk[i] *= mk[i];
}

bnn_dropout *bnn_dropout_new(const bnn_model *m, double rate_in, const double *rates) {
  bnn_dropout *dw = calloc(1, sizeof *dw);
  if (!dw) return NULL;
  int L = m->n_layers, zsize = 0;
  for (int l = 0; l < L; l++) zsize += m->sizes[l + 1];
  size_t p = (size_t)(m->p > 0 ? m->p : 1);
  dw->rate_in = rate_in;
  dw->in = malloc(sizeof(const double *) * (size_t)(L > 0 ? L : 1));
  dw->ld = malloc(sizeof(int) * (size_t)(L > 0 ? L : 1));
  dw->rate = calloc((size_t)(L > 1 ? L - 1 : 1), sizeof(double));
  dw->xin = malloc(sizeof(double) * BNN_CHUNK * p);
  dw->xmask = malloc(sizeof(double) * BNN_CHUNK * p);
  dw->am = malloc(sizeof(double) * BNN_CHUNK * (size_t)zsize);
  dw->mask = malloc(sizeof(double) * BNN_CHUNK * (size_t)zsize);
  if (!dw->in || !dw->ld || !dw->rate || !dw->xin || !dw->xmask || !dw->am || !dw->mask) {
    bnn_dropout_free(dw);
    return NULL;
  }
  for (int l = 0; l < L - 1; l++) dw->rate[l] = rates[l];
  dw->pass.input = masked_input;
  dw->pass.unit_delta = masked_delta;
  dw->pass.in = dw->in;
  dw->pass.ld = dw->ld;
  return dw;
}

double bnn_dropout_loglik(bnn_dropout *dw, bnn_model *m, const double *theta,
                          double *grad, int row_begin, int row_end, bnn_rng *rng) {
  dw->rng = rng;
  double ll = bnn_model_loglik_pass(m, theta, grad, row_begin, row_end, &dw->pass);
  dw->rng = NULL;
  return ll;
}

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "gauss_target.h"

bnn_gauss_target *bnn_gauss_new(int dim, const double *mean, const double *prec) {
  bnn_gauss_target *g = calloc(1, sizeof *g);
  if (!g) return NULL;
  g->dim = dim;
  g->mean = malloc(sizeof(double) * (size_t)dim);
  g->tmp = malloc(sizeof(double) * (size_t)dim);
  g->prec = malloc(sizeof(double) * (size_t)dim * (size_t)dim);
  if (!g->mean || !g->tmp || !g->prec) {
    bnn_gauss_free(g);
    return NULL;
  }
  memcpy(g->mean, mean, sizeof(double) * (size_t)dim);
  memcpy(g->prec, prec, sizeof(double) * (size_t)dim * (size_t)dim);
  return g;
}

void bnn_gauss_free(bnn_gauss_target *g) {
  if (!g) return;
  free(g->mean);
  free(g->tmp);
  free(g->prec);
  free(g->upper);
  free(g);
}

int bnn_gauss_set_upper(bnn_gauss_target *g, const double *upper) {
  g->upper = malloc(sizeof(double) * (size_t)(g->dim > 0 ? g->dim : 1));
  if (!g->upper) return 1;
  memcpy(g->upper, upper, sizeof(double) * (size_t)g->dim);
  return 0;
}

static double wall_logdens(void *ctx, const double *x, double *grad) {
  bnn_gauss_target *g = ctx;
  double lp = bnn_gauss_logdens(g, x, grad);
  for (int i = 0; i < g->dim; i++)
    if (x[i] > g->upper[i]) return -INFINITY;
  return lp;
}

double bnn_gauss_logdens(void *ctx, const double *x, double *grad) {
  bnn_gauss_target *g = ctx;
  int d = g->dim;
  for (int i = 0; i < d; i++) g->tmp[i] = x[i] - g->mean[i];
  double lp = 0.0;
  for (int j = 0; j < d; j++) {
    const double *col = g->prec + (size_t)j * d;
    double s = 0.0;
    for (int i = 0; i < d; i++) s += col[i] * g->tmp[i];
    grad[j] = -s;  /* P symmetric */
    lp += -0.5 * s * g->tmp[j];
  }
  return lp;
}

void bnn_target_bind(bnn_target *t, bnn_model *model, bnn_gauss_target *gauss) {
  if (model) {
    t->dim = model->dim;
    t->fn = bnn_model_logpost;
    t->ctx = model;
  } else {
    t->dim = gauss->dim;
    t->fn = gauss->upper ? wall_logdens : bnn_gauss_logdens;
    t->ctx = gauss;
  }
  t->n_grad = 0.0;
  t->hold = NULL;
  /* no Gaussian-reference split unless bnn_target_bind_reference() sets it
   * (a target on the stack need not be zeroed first) */
  t->loglik = NULL;
  t->ref_sd = NULL;
  t->n_ref = 0;
}

/* Gaussian test target N(mean, P^{-1}) given its precision matrix P, so the
 * samplers can be validated on known answers from R. */
#ifndef BNNMC_GAUSS_TARGET_H
#define BNNMC_GAUSS_TARGET_H
typedef struct {
  int dim;
  double *mean, *prec, *tmp;
  double *upper;   /* NULL, or a wall: log density -Inf where x_i > upper_i */
} bnn_gauss_target;
bnn_gauss_target *bnn_gauss_new(int dim, const double *mean, const double *prec);
void bnn_gauss_free(bnn_gauss_target *g);
double bnn_gauss_logdens(void *ctx, const double *x, double *grad);
/* Give the target a wall (for testing how samplers handle non-finite log
 * densities; the gradient stays the Gaussian one).  Nonzero: no memory. */
int bnn_gauss_set_upper(bnn_gauss_target *g, const double *upper);

/* Bind a BNN model or a Gaussian test target (exactly one non-NULL) to the
 * log-density interface of target.h. */
#include "model.h"
#include "target.h"
void bnn_target_bind(bnn_target *t, bnn_model *model, bnn_gauss_target *gauss);
#endif

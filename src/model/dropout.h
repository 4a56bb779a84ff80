/* Dropout in the network's forward/backward pass (MC dropout training).
 *
 * Inverted dropout: unit j of hidden layer l is kept for row i with
 * probability 1 - p_l, and then its activation is scaled by 1 / (1 - p_l);
 * dropped units output 0.  Optionally the inputs are dropped the same way
 * (rate p_in).  Every row of a batch gets its own masks, drawn from the
 * caller's RNG chunk by chunk (inputs first, then hidden layers in order,
 * unit by unit, row by row).  A rate of 0 draws nothing and multiplies
 * nothing, so with all rates 0 the log-likelihood and gradient are
 * bit-identical to bnn_model_loglik().  The output layer is never dropped.
 * The pass is the model's own (model.c, bnn_pass): dropout only adds hooks
 * that mask a layer's input and the deltas of masked units. */
#ifndef BNNMC_DROPOUT_H
#define BNNMC_DROPOUT_H
#include "model.h"
#include "rng.h"

typedef struct {
  bnn_pass pass;      /* the hooks (first member: the hooks get dropout) */
  const double **in;  /* the pass's per-layer inputs */
  int *ld;
  bnn_rng *rng;       /* the masks' RNG during bnn_dropout_loglik() */
  double rate_in;     /* input dropout rate */
  double *rate;       /* per hidden layer (n_layers - 1) */
  double *xin;        /* masked inputs: BNN_CHUNK x p */
  double *xmask;      /* their masks */
  double *am;         /* masked activations, laid out as the model's a */
  double *mask;       /* their masks */
} bnn_dropout;

/* rates: n_layers - 1 values in [0, 1).  NULL on allocation failure. */
bnn_dropout *bnn_dropout_new(const bnn_model *m, double rate_in, const double *rates);
void bnn_dropout_free(bnn_dropout *dw);
/* Log-likelihood of rows [row_begin, row_end) with fresh masks from rng
 * (times m->lik_scale, as bnn_model_loglik) and its gradient if grad is
 * not NULL. */
double bnn_dropout_loglik(bnn_dropout *dw, bnn_model *m, const double *theta,
                          double *grad, int row_begin, int row_end, bnn_rng *rng);
#endif

/* The emulator of calibration-emulation-sampling (FBNN): an MLP
 * G_e from the network's parameters theta (d = n_net values) to the
 * network's outputs on all N training inputs (D = N x K values), and the
 * emulated target: the model's own likelihood evaluated at G_e(theta),
 * with its gradient by backpropagation through the emulator to its input.
 * With exact = 1 the "emulator" is the network's true forward map
 * G(X; theta), which gives the exact posterior through the same code. */
#ifndef BNNMC_EMULATOR_H
#define BNNMC_EMULATOR_H
#include "model.h"
#include "target.h"

typedef struct {
  int n_layers;          /* weight layers of the emulator */
  int *sizes;            /* d, hidden..., D */
  int *w_off, *b_off;
  int act;               /* enum bnn_act: relu or tanh (or identity) */
  double *w;             /* flat weights, model.c's layout */
  double *in_center, *in_scale;    /* d: theta is standardised first */
  double *out_center, *out_scale;  /* D: outputs are de-standardised */
  double *z, *a, *da, *dz;         /* workspace: per layer, and deltas */
  int max_width;
} bnn_emulator;

/* Copies everything; NULL on allocation failure. */
bnn_emulator *bnn_emulator_new(int n_layers, const int *sizes, int act,
                               const double *w, const double *in_center,
                               const double *in_scale, const double *out_center,
                               const double *out_scale);
void bnn_emulator_free(bnn_emulator *e);
/* G_e(theta) into out (D values). */
void bnn_emulator_forward(bnn_emulator *e, const double *theta, double *out);
/* After bnn_emulator_forward at theta: adds (d G_e / d theta)^T dout to
 * grad (d values). */
void bnn_emulator_backward(bnn_emulator *e, const double *dout, double *grad);

typedef struct {
  bnn_model *model;      /* the original network, its data and its prior */
  bnn_emulator *emul;    /* NULL: the exact forward map */
  double *out, *dout;    /* N x K */
  double n_emul;         /* emulated (or exact) likelihood evaluations */
} bnn_emul_target;

/* Takes ownership of model and emul (freed on failure too). */
bnn_emul_target *bnn_emul_target_new(bnn_model *model, bnn_emulator *emul);
void bnn_emul_target_free(bnn_emul_target *t);
/* log-likelihood at the emulated outputs plus the likelihood parameter's
 * prior (the Gaussian-reference split of target.h); grad may be NULL */
double bnn_emul_loglik(void *ctx, const double *theta, double *grad);
/* that plus the network's prior: the emulated log posterior */
double bnn_emul_logpost(void *ctx, const double *theta, double *grad);
/* both at once, the likelihood evaluated once: returns bnn_emul_loglik's
 * value and puts bnn_emul_logpost's in *lp, and its gradient in grad
 * (unless NULL) */
double bnn_emul_loglik_logpost(bnn_emul_target *t, const double *theta, double *lp,
                               double *grad);
/* bind to the target interface, with the Gaussian-reference split when
 * the model's prior is Normal */
void bnn_emul_target_bind(bnn_target *t, bnn_emul_target *et);
#endif

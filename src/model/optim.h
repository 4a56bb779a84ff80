/* Adam / AdamW training of one network (a deep-ensemble member), full batch
 * or minibatch, with validation-based early stopping.
 *
 * Loss (per training observation, so learning rates and weight decay mean
 * the same as with PyTorch/optax "mean" losses):
 *   nll:       L(theta) = -(1/n) sum_i log p(y_i | x_i, theta)
 *   posterior: L(theta) = -(1/n) [sum_i log p(y_i | x_i, theta) + log p(theta)]
 * A minibatch B estimates the sum over rows by (n / |B|) sum_{i in B}
 * (the model's lik_scale), so each minibatch loss is unbiased for L.
 *
 * Likelihood parameterisation: the model's, i.e. for the heteroscedastic
 * Gaussian the network's second output is log sd, identical to the sampler.
 * (DEI-MCMC's PyTorch ensemble passed exp(output 2) to GaussianNLLLoss as a
 * variance, i.e. used it as log variance; MILE's optax code used log sd.)
 *
 * Updates, t = 1, 2, ... (bias-corrected Adam, eps added to sqrt(v_hat),
 * as in PyTorch and optax):
 *   g = grad L (+ wd theta for "adam" with weight decay: PyTorch Adam's
 *       coupled L2 decay, as DEI-MCMC's torch.optim.Adam(weight_decay=...))
 *   m = b1 m + (1 - b1) g;  v = b2 v + (1 - b2) g^2
 *   step = m / (1 - b1^t) / (sqrt(v / (1 - b2^t)) + eps)
 *   adam:  theta -= lr step
 *   adamw: theta -= lr (step + wd theta)   (decoupled; optax.adamw and
 *          torch.optim.AdamW give the same update) */
#ifndef BNNMC_OPTIM_H
#define BNNMC_OPTIM_H
#include "model.h"
#include "rng.h"
#include "dropout.h"

#define BNN_OPTIM_STREAM_TAG 0x8000000000000000ULL

/* BNN_OPT_SGD: plain SGD with optional (heavy-ball) momentum, PyTorch's
 * convention: v = momentum v + g (+ wd theta, coupled); theta -= lr v
 * (SWAG's trajectory). */
enum bnn_optimizer { BNN_OPT_ADAM = 0, BNN_OPT_ADAMW = 1, BNN_OPT_SGD = 2,
                     BNN_OPT_RMSPROP = 3 };
/* RMSProp (PyTorch's torch.optim.RMSprop without momentum or centring, used
 * by the deep ensembles of Wiese et al. 2023): v = beta2 v + (1 - beta2) g^2,
 * theta -= lr g / (sqrt(v) + eps), g including coupled weight decay. */
enum bnn_loss { BNN_LOSS_NLL = 0, BNN_LOSS_POSTERIOR = 1 };
/* Early-stopping rules (bnn_optim_settings.stopping) */
enum bnn_stopping {
  BNN_STOP_BEST = 0,    /* stop after `patience` epochs without a new best
                           validation loss (Keras, PyTorch Lightning) */
  BNN_STOP_WINDOW = 1   /* MILE's reference code: stop when each of the last
                           `patience` losses is >= the loss `patience` + 1
                           epochs back (the first loss until there is one) */
};

enum bnn_optim_status {
  BNN_OPTIM_OK = 0,
  BNN_OPTIM_EARLY_STOP = 1,   /* stopped by patience */
  BNN_OPTIM_NONFINITE = 2     /* non-finite loss or gradient: stopped, the
                                 last finite parameters are returned */
};

typedef struct {
  int optimizer, loss;
  int epochs;
  int batch_size;        /* <= 0 or >= n: full batch */
  int patience;          /* <= 0: no early stopping */
  int restore_best;      /* with validation data: return the best epoch */
  int stopping;          /* enum bnn_stopping */
  double lr, weight_decay, beta1, beta2, eps;
  double lr_decay;       /* exponential decay: epoch e (0-based) uses
                            lr * lr_decay^e; 1 = constant (the default) */
  double momentum;       /* BNN_OPT_SGD only */
} bnn_optim_settings;

typedef struct {
  int dim, n;
  bnn_model *train;      /* owns a copy of the data (rows are permuted) */
  bnn_model *valid;      /* or NULL */
  const double *X0, *y0; /* original training rows */
  bnn_optim_settings s;
  bnn_rng rng;
  double *theta, *best, *grad, *m, *v, *prev;
  int *perm;
  long t;                /* Adam steps so far */
  int epoch;             /* epochs done */
  int best_epoch;        /* 1-based; 0 = none yet */
  double best_loss;
  int since_best;
  double *vhist;         /* last patience + 1 validation losses (ring) */
  double n_grad;
  int status;
  bnn_dropout *drop;     /* NULL: no dropout (the default path); else
                            owned, set by bnn_optim_set_dropout() */
} bnn_optim;

/* Glorot-uniform weights U(-a, a), a = sqrt(6 / (fan_in + fan_out)), zero
 * biases and zero likelihood parameters, drawn layer by layer in the flat
 * order. */
void bnn_glorot_init(const bnn_model *m, bnn_rng *r, double *theta);

/* train must own its data (copied); X0/y0 are the original rows and must
 * stay valid while o is used.  init NULL: Glorot from the RNG seeded by
 * (seed, member | BNN_OPTIM_STREAM_TAG); the same RNG shuffles the rows.
 * Returns NULL on allocation failure (the models are freed). */
bnn_optim *bnn_optim_new(bnn_model *train, bnn_model *valid, const double *X0,
                         const double *y0, const double *init, uint64_t seed,
                         uint64_t member, const bnn_optim_settings *s);
void bnn_optim_free(bnn_optim *o);  /* frees the models too */
/* One epoch.  Writes the mean training loss over the epoch's batches and
 * the validation loss (mean NLL per validation row; NaN without validation
 * data).  Returns 1 when training should stop (early stopping or a
 * non-finite value, see ->status), 0 otherwise. */
int bnn_optim_epoch(bnn_optim *o, double *train_loss, double *valid_loss);
/* Turn on dropout in training (MC dropout): rates as in bnn_dropout_new();
 * masks come from the optimiser's own RNG.  Returns 0 on allocation
 * failure.  Without this call training is unchanged. */
int bnn_optim_set_dropout(bnn_optim *o, double rate_in, const double *rates);
/* Final parameters: the best validation epoch's if restore_best and
 * validation data were given, else the current ones. */
const double *bnn_optim_result(const bnn_optim *o);
#endif

/* A Bayesian MLP: architecture, likelihood, prior and data, and the log
 * posterior with its gradient by backpropagation.
 *
 * Flat parameter layout (documented for users in ?bnn_parameters):
 *   for each weight layer l = 1..L: W_l (fan_in x fan_out, column-major),
 *   then b_l (fan_out); last, the likelihood's own unconstrained parameters
 *   (log sigma for the homoscedastic Gaussian with sampled sd, log phi for
 *   the negative binomial, log sigma then log nu for the Student-t). */
#ifndef BNNMC_MODEL_H
#define BNNMC_MODEL_H
#include <math.h>

enum bnn_act {
  BNN_ACT_TANH = 0, BNN_ACT_RELU, BNN_ACT_LEAKY_RELU, BNN_ACT_SILU,
  BNN_ACT_SIGMOID, BNN_ACT_SOFTPLUS, BNN_ACT_GELU, BNN_ACT_TRUNC_RELU,
  BNN_ACT_IDENTITY, BNN_ACT_COUNT
};

enum bnn_lik {
  BNN_LIK_HETERO = 0,       /* outputs (mu, log sd), sd clipped to [1e-6, 1e6] */
  BNN_LIK_GAUSS,            /* output mu, parameter log sigma sampled */
  BNN_LIK_GAUSS_FIXED,      /* output mu, sigma fixed */
  BNN_LIK_BERNOULLI,        /* output logit */
  BNN_LIK_CATEGORICAL,      /* K outputs, softmax */
  BNN_LIK_MGAUSS,           /* K outputs, K responses per row (y is n x K,
                               column-major), independent N(out_k, sigma^2)
                               with sigma fixed: squared error (emulators) */
  BNN_LIK_POISSON,          /* output log mean; y is n x 3: count, offset on
                               the log scale, lgamma(count + 1) */
  BNN_LIK_NEGBIN,           /* as Poisson, plus log phi sampled: NB2 with
                               variance mu + mu^2 / phi (brms's shape) */
  BNN_LIK_STUDENT,          /* output location; log sigma sampled, then log
                               nu sampled unless nu_fixed > 0 */
  BNN_LIK_BINOMIAL,         /* output logit; y is n x 4: successes, trials,
                               offset on the logit scale, log choose(trials,
                               successes) */
  BNN_LIK_COUNT
};

enum bnn_prior { BNN_PRIOR_NORMAL = 0, BNN_PRIOR_LAPLACE, BNN_PRIOR_COUNT };
/* Priors of a sampled Gaussian sigma: half-normal on sigma (the default,
 * as the reference code of Wiese et al. 2023), exponential on sigma, and
 * half-normal on the variance sigma^2 (Wiese et al.'s paper as printed). */
enum bnn_sigma_prior { BNN_SIGMA_HALF_NORMAL = 0, BNN_SIGMA_EXPONENTIAL,
                       BNN_SIGMA_HALF_NORMAL_VAR, BNN_SIGMA_PRIOR_COUNT };

#define BNN_CHUNK 256   /* rows processed together (cache blocking) */

typedef struct {
  /* architecture */
  int n_layers;      /* weight layers L */
  int *sizes;        /* L + 1: inputs, hidden..., outputs */
  int *w_off, *b_off;
  int act;
  int n_net;         /* network parameters */
  int dim;           /* n_net + likelihood parameters */
  int max_width;
  /* likelihood */
  int lik;
  double sigma_fixed;
  int sigma_prior;
  double sigma_prior_scale;
  /* Student-t's degrees of freedom when fixed (> 0), else 0 (sampled); the
   * gamma(shape, rate) prior of a sampled nu (Student-t) or phi (negative
   * binomial), on the parameter's natural scale (sampled on the log scale,
   * Jacobian included).  Set by bnn_model_set_lik_par(). */
  double nu_fixed;
  double aux_shape, aux_rate;
  /* prior: one scale per network parameter */
  int prior;
  double *prior_scale;
  double *prior_logc;  /* per network parameter: log(scale) (normal) or
                          log(2 scale) (Laplace), the prior's constant
                          computed once, not a log per evaluation */
  /* data: X column-major n x p, y length n (class index 0..K-1 for
   * classification), optional observation weights (NULL = all 1).
   * Rows [row_begin, row_end) are used (minibatch hook). */
  int n, p;
  double *X, *y;
  int y_cols;        /* columns of y: K for BNN_LIK_MGAUSS, 3 for Poisson
                        and negative binomial, 4 for binomial, else 1 */
  double lik_scale;  /* multiplies the log-likelihood (n / batch size) */
  int owns_data;     /* X, y were malloc()ed here: only when copied and n > 0 */
  /* workspace, allocated once */
  double *z;         /* pre-activations, per layer: BNN_CHUNK x width */
  double *a;         /* activations, per layer */
  double *delta, *delta2;
  double *out_tmp;
  /* observation weights of a weighted likelihood (length n), or NULL: the
   * unweighted path, which never reads them (bit-identical to a model
   * without this field) */
  double *w;
  int owns_w;        /* w was malloc()ed here (a copy; never R memory) */
  /* single precision (bnn_model_set_single; 0 and NULL otherwise): the
   * network's forward and backward pass of bnn_model_loglik() in float on
   * float workspaces (the chunk's rows of X converted as they are read, the
   * weights once per evaluation), the likelihood, its sum, the prior and
   * the gradient's accumulation in double */
  int single;
  float *f_X;        /* float copy of X (n x p), or NULL: rows converted per chunk */
  float *f_x, *f_z, *f_a, *f_d, *f_d2, *f_theta;
  double *f_tmp;     /* 3 x BNN_CHUNK doubles: other activations in double,
                        and the likelihoods' scratch (lik_chunk_f32) */
} bnn_model;

/* Allocate a model; copies X and y when copy_data is nonzero.  Returns NULL
 * on allocation failure.  prior_scale has n_net entries. */
bnn_model *bnn_model_new(int n_layers, const int *sizes, int act, int lik,
                         double sigma_fixed, int sigma_prior,
                         double sigma_prior_scale, int prior,
                         const double *prior_scale, int n, int p,
                         const double *X, const double *y, int copy_data);
void bnn_model_free(bnn_model *m);
/* Columns of y for likelihood lik with n_out outputs. */
int bnn_lik_y_cols(int lik, int n_out);
/* The likelihood's own parameters (log scale) after the network's: 1 for
 * the Gaussian with sampled sigma and the negative binomial, 1 or 2 for the
 * Student-t (nu fixed or sampled), else 0. */
int bnn_lik_n_par(int lik, double nu_fixed);
/* Set the Student-t's fixed nu (0: sampled) and the gamma prior of nu or
 * phi; recomputes m->dim.  Call before the model is used. */
void bnn_model_set_lik_par(bnn_model *m, double nu_fixed, double aux_shape,
                           double aux_rate);
/* Switch the model to single precision (allocates the float workspace);
 * returns 0, or -1 when out of memory.  With copy_x, X is copied to float
 * once (whoever rewrites m->X afterwards calls bnn_model_sync_single);
 * without, each chunk's rows are converted as they are read (for models
 * whose X changes all the time: minibatches).  Passes with hooks
 * (bnn_model_loglik_pass, bnn_model_forward_chunk) and the forward pass of
 * predictions stay in double. */
int bnn_model_set_single(bnn_model *m, int copy_x);
/* Refresh the float copy of X after m->X was rewritten (no-op without one). */
void bnn_model_sync_single(bnn_model *m);

/* log posterior (up to a constant) and gradient; matches bnn_logdens_fn */
double bnn_model_logpost(void *ctx, const double *theta, double *grad);

/* Pieces, exposed for testing and for the optimiser's loss. */
double bnn_model_loglik(bnn_model *m, const double *theta, double *grad,
                        int row_begin, int row_end);
double bnn_model_logprior(const bnn_model *m, const double *theta, double *grad);

/* Forward pass only: outputs for rows of X (column-major nx x p) written to
 * out (nx x n_out, column-major). */
void bnn_model_forward(bnn_model *m, const double *theta, const double *X,
                       int nx, double *out);

/* The network's forward and backward pass with hooks, for passes that
 * change or observe its layers (dropout.c: masks; laplace.c: Kronecker
 * factors) without a copy of the pass.  NULL hooks: the plain network.
 * The arithmetic is the model's own, so with hooks that change nothing the
 * results are bit-identical to bnn_model_loglik(). */
typedef struct bnn_pass bnn_pass;
struct bnn_pass {
  /* Forward: the input of weight layer l for rows [r0, r0 + mrows) (ain,
   * leading dimension *lda; X's rows for l = 0, the activations of layer
   * l - 1 otherwise); returns the input the layer is to use (setting *lda)
   * or ain.  Called for l = 0 .. L - 1 in order. */
  const double *(*input)(bnn_pass *p, bnn_model *m, int l, const double *ain,
                         int *lda, int r0, int mrows);
  /* Backward: given the delta of layer l's pre-activations (dcur, leading
   * dimension BNN_CHUNK) and the input the layer used; NULL: add the
   * gradient of its weights and biases to grad. */
  void (*layer_delta)(bnn_pass *p, bnn_model *m, int l, const double *ain,
                      int lda, const double *dcur, int mrows);
  /* Backward: the delta dk of unit k of hidden layer l's activations,
   * before the activation's slope is applied (e.g. times the dropout
   * mask); NULL: nothing. */
  void (*unit_delta)(bnn_pass *p, bnn_model *m, int l, int k, double *dk,
                     int mrows);
  /* per weight layer (n_layers each, the caller's memory): the inputs the
   * forward pass used, read by the backward pass */
  const double **in;
  int *ld;
};

/* Forward pass of rows [r0, r0 + mrows) of the model's data (mrows <=
 * BNN_CHUNK); returns the outputs (BNN_CHUNK x n_out).  pass may be NULL. */
double *bnn_model_forward_chunk(bnn_model *m, const double *theta, int r0,
                                int mrows, bnn_pass *pass);
/* Backward pass of the same rows from the delta of the outputs in
 * m->delta (BNN_CHUNK x n_out), after bnn_model_forward_chunk with the
 * same pass; grad receives the weights' gradients unless the pass has a
 * layer_delta hook. */
void bnn_model_backward_chunk(bnn_model *m, const double *theta, int r0,
                              int mrows, double *grad, bnn_pass *pass);
/* bnn_model_loglik through a pass.  The likelihood is the unweighted one
 * (observation weights are not applied), as the dropout pass always had. */
double bnn_model_loglik_pass(bnn_model *m, const double *theta, double *grad,
                             int row_begin, int row_end, bnn_pass *pass);

/* The log-likelihood of all rows from given network outputs out (n x K,
 * column-major, as bnn_model_forward writes them); when dout is not NULL,
 * dout <- d loglik / d out (n x K) and *g_extra accumulates the gradient
 * of the likelihood's own parameter (log sigma).  Chunked exactly as
 * bnn_model_loglik, so with the network's own outputs the value is the
 * same to the last bit. */
double bnn_model_loglik_outputs(bnn_model *m, const double *theta,
                                const double *out, double *dout,
                                double *g_extra);

/* per-observation log-likelihood given network outputs */
int bnn_model_n_out(const bnn_model *m);
double bnn_act_apply1(int act, double x);
/* log p(sigma) + log |d sigma / d u| at u = log sigma for the prior `prior`
 * with scale (half-normal) or rate (exponential) c; adds its derivative in u
 * to *g when g is not NULL.  One formula for the model's log prior and the
 * Gaussian-reference split (reference.c). */
static inline double bnn_sigma_logprior(int prior, double c, double u, double *g) {
  const double half_log_2pi = 0.91893853320467274178;
  double sg = exp(u);
  if (prior == BNN_SIGMA_HALF_NORMAL) {
    if (g) *g += -(sg / c) * (sg / c) + 1.0;
    return -0.5 * (sg / c) * (sg / c) - log(c) + log(2.0) - half_log_2pi + u;
  }
  if (prior == BNN_SIGMA_HALF_NORMAL_VAR) {
    /* v = sigma^2 = exp(2u): log p(v) + log |dv/du| = log p(v) + log 2 + 2u */
    double v = sg * sg;
    if (g) *g += -2.0 * (v / c) * (v / c) + 2.0;
    return -0.5 * (v / c) * (v / c) - log(c) + log(2.0) - half_log_2pi + log(2.0) + 2.0 * u;
  }
  if (g) *g += -c * sg + 1.0;
  return log(c) - c * sg + u;
}

#endif

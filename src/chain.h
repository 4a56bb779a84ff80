/* One Markov chain: a target, a kernel, its adaptation and its RNG, kept
 * between blocks of iterations so R can drive it (progress, interrupts,
 * early stopping) without changing the draws. */
#ifndef BNNMC_CHAIN_H
#define BNNMC_CHAIN_H
#include "adapt.h"
#include "hmc.h"
#include "interrupt.h"
#include "model.h"
#include "gauss_target.h"
#include "rng.h"
#include "target.h"

enum bnn_kernel { BNN_KERNEL_NUTS = 0, BNN_KERNEL_HMC = 1 };
enum bnn_chain_status {
  BNN_CHAIN_OK = 0,
  BNN_CHAIN_BAD_INIT = 1,      /* log density not finite at the start */
  BNN_CHAIN_STEPSIZE = 2,      /* step-size search failed */
  BNN_CHAIN_METRIC = 3,        /* metric estimate not finite */
  BNN_CHAIN_INTERRUPTED = 9    /* interrupted inside a transition: unusable */
};

#define BNN_N_STATS 7   /* accept_stat, stepsize, treedepth, n_leapfrog,
                           divergent, energy, lp */

typedef struct {
  int kernel;
  int dim;
  bnn_target target;
  bnn_model *model;           /* owned, or NULL */
  bnn_gauss_target *gauss;    /* owned, or NULL */
  bnn_rng rng;
  bnn_hmc hmc;
  bnn_dual_avg da;
  bnn_windowed win;
  int adapt_stepsize, adapt_metric;
  int num_warmup;
  int iter;                   /* transitions done so far */
  int status;
  bnn_itimer itimer;          /* interrupt timer, kept across run calls */
} bnn_chain;

typedef struct {
  int kernel, max_depth, num_warmup, adapt_stepsize, adapt_metric;
  int init_buffer, term_buffer, window;
  double stepsize, delta, gamma, kappa, t0, int_time;
  const double *inv_metric;   /* NULL: identity */
} bnn_chain_settings;

/* Takes ownership of model/gauss (exactly one non-NULL; freed also when
 * NULL is returned).  Returns NULL on allocation failure; otherwise check
 * ->status. */
bnn_chain *bnn_chain_new(bnn_model *model, bnn_gauss_target *gauss,
                         const double *init, uint64_t seed, uint64_t stream,
                         const bnn_chain_settings *s);
void bnn_chain_free(bnn_chain *c);
/* One transition with adaptation during warm-up.  Writes the draw (dim) and
 * the stats (BNN_N_STATS) when not NULL. */
void bnn_chain_step(bnn_chain *c, double *draw, double *stats);
#endif

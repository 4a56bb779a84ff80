/* NUTS and static HMC as kernels of the chain driver (hmc_kernel.c). */
#ifndef BNNMC_HMC_KERNEL_H
#define BNNMC_HMC_KERNEL_H
#include "kernel.h"

typedef struct {
  int max_depth, num_warmup, adapt_stepsize, adapt_metric;
  int init_buffer, term_buffer, window;
  double stepsize, delta, gamma, kappa, t0, int_time;
  const double *inv_metric;   /* NULL: identity; copied by create() */
} bnn_hmc_settings;

/* Stan's NUTS (bnn_nuts_transition) and static HMC
 * (bnn_static_hmc_transition), both with Stan's windowed warm-up
 * adaptation.  Statistics: accept_stat__, stepsize__, treedepth__,
 * n_leapfrog__, divergent__, energy__, lp__. */
extern const bnn_kernel_type bnn_kernel_nuts;
extern const bnn_kernel_type bnn_kernel_hmc;
#endif

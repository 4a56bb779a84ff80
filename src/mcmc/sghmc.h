/* Stochastic-gradient Hamiltonian Monte Carlo (sghmc.c) for the generic
 * driver. */
#ifndef BNNMC_SGHMC_H
#define BNNMC_SGHMC_H
#include "kernel.h"
#include "sg_schedule.h"

typedef struct {
  bnn_sg_schedule schedule;
  double alpha;          /* friction, in (0, 1] */
  int n_leapfrog;        /* L: steps per transition (momentum resampled) */
  int batch_per_iter;    /* 1: one minibatch for the L steps (BlackJAX);
                            0: a fresh one per step (sgmcmc, Chen et al.) */
} bnn_sghmc_settings;

extern const bnn_kernel_type bnn_kernel_sghmc;
#endif

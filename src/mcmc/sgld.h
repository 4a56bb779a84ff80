/* Stochastic-gradient Langevin dynamics and its RMSprop-preconditioned
 * variant (sgld.c) for the generic driver. */
#ifndef BNNMC_SGLD_H
#define BNNMC_SGLD_H
#include "kernel.h"
#include "sg_schedule.h"

typedef struct {
  bnn_sg_schedule schedule;
  double alpha;    /* pSGLD: decay of the squared-gradient average */
  double lambda;   /* pSGLD: regulariser added to its square root */
} bnn_sgld_settings;

extern const bnn_kernel_type bnn_kernel_sgld;
extern const bnn_kernel_type bnn_kernel_psgld;
#endif

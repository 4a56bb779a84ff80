/* Preconditioned Crank-Nicolson kernel (pcn.c) for the generic driver. */
#ifndef BNNMC_PCN_H
#define BNNMC_PCN_H
#include "kernel.h"

typedef struct {
  double beta;            /* initial step beta in (0, 1] */
  int adapt;              /* tune beta during warm-up */
  double target_accept;   /* dual averaging's target acceptance rate */
  double extra_stepsize;  /* initial random-walk scale of the coordinates
                             outside the Gaussian reference (log sigma) */
} bnn_pcn_settings;

extern const bnn_kernel_type bnn_kernel_pcn;
#endif

/* Random-walk Metropolis kernel (rwm.c) for the generic driver. */
#ifndef BNNMC_RWM_H
#define BNNMC_RWM_H
#include "kernel.h"

typedef struct {
  double stepsize;            /* initial proposal scale */
  int adapt;                  /* tune the scale during warm-up */
  double target_accept;       /* dual averaging's target acceptance rate */
  const double *inv_metric;   /* diagonal, dim values; NULL: identity */
} bnn_rwm_settings;

extern const bnn_kernel_type bnn_kernel_rwm;
#endif

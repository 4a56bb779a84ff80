/* MCLMC (tuning and sampling) as a kernel of the chain driver
 * (mclmc_kernel.c); settings: bnn_mclmc_settings (mclmc_adapt.h). */
#ifndef BNNMC_MCLMC_KERNEL_H
#define BNNMC_MCLMC_KERNEL_H
#include "kernel.h"
#include "mclmc_adapt.h"

extern const bnn_kernel_type bnn_kernel_mclmc;
/* The tuning's transitions (the driver's warm-up): n1 + n2 + the
 * preconditioning steps + n3. */
int bnn_mclmc_warmup_steps(const bnn_mclmc_settings *s);
#endif

/* Boundary helpers of the stochastic-gradient samplers (api_sgmcmc.c). */
#ifndef BNNMC_API_SGMCMC_H
#define BNNMC_API_SGMCMC_H
#include <stdint.h>
#include "api_util.h"
#include "target.h"

/* Whether a kernel's settings ask for a minibatch target (batch_size). */
int bnn_settings_minibatch(SEXP settings);
/* The minibatch target of a BNN spec from the settings (batch_size,
 * replace, gradient, svrg_period, centre), its batches drawn from the
 * stream (seed, stream); validates before allocating. */
bnn_target bnn_minibatch_target(SEXP spec, SEXP settings, uint64_t seed,
                                 uint64_t stream, void (**free_fn)(void *));
/* Settings parsers of the kernels sgld / psgld (bnn_sgld_settings) and
 * sghmc (bnn_sghmc_settings). */
void bnn_parse_sgld(SEXP settings, int dim, void *out);
void bnn_parse_sghmc(SEXP settings, int dim, void *out);
#endif

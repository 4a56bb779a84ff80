/* The settings parser of the driver's "mclmc" kernel (api_mclmc.c). */
#ifndef BNNMC_API_MCLMC_H
#define BNNMC_API_MCLMC_H
#include "api_util.h"

void bnn_parse_mclmc(SEXP settings, int dim, void *out);
#endif

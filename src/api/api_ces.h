/* Emulated targets (api_ces.c) for the generic driver's build_target. */
#ifndef BNNMC_API_CES_H
#define BNNMC_API_CES_H
#include "api_util.h"
#include "target.h"

int bnn_spec_is_emulated(SEXP spec);
int bnn_ces_spec_dim(SEXP spec);
bnn_target bnn_ces_build_target(SEXP spec, void (**free_fn)(void *));
#endif

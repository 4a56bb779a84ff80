/* Helpers for the SEXP boundary (api_*.c files only). */
#ifndef BNNMC_API_UTIL_H
#define BNNMC_API_UTIL_H
#include <R.h>
#include <Rinternals.h>
#include "model.h"

SEXP bnn_list_get(SEXP list, const char *name);       /* R_NilValue if absent */
/* a list of n elements with the given names (returned unprotected) */
SEXP bnn_named_list(int n, const char **names);
int bnn_get_int(SEXP list, const char *name, int dflt);
/* A chain's seed (a whole number in [0, 2^53)) and chain id (a
 * non-negative integer), with errors that name the argument. */
double bnn_arg_seed(SEXP seed);
int bnn_arg_chain_id(SEXP chain_id);
double bnn_get_double(SEXP list, const char *name, double dflt);
/* Builds a model from the spec list made by R's bnn_spec_c(); data are
 * referenced, not copied, unless copy is nonzero.  with_data = 0 builds a
 * model for forward passes only.  Errors (Rf_error) before allocating. */
bnn_model *bnn_model_from_spec(SEXP spec, int with_data, int copy);
/* A PROTECTed external pointer that owns a model (freed by the finalizer), so
 * an R error or interrupt after this point cannot leak it.  Caller
 * UNPROTECTs one. */
SEXP bnn_model_protect(SEXP spec, int with_data, int copy, bnn_model **out);
/* Seconds of work between checks for a user interrupt: the option
 * bnnmc.interrupt_period (0.2 by default; 0 checks at every opportunity). */
double bnn_interrupt_period(void);
/* The threads of an OpenMP loop over n_items items: `threads` (a whole
 * number >= 1; an R error otherwise), at most one per item, 1 without
 * OpenMP or in a forked child. */
int bnn_loop_threads(SEXP threads, int n_items);
/* Records the process that loads the package (called at load): in a
 * child made by fork() of it, bnn_loop_threads() gives one thread, as the
 * OpenMP runtime is not fork-safe. */
void bnn_record_loading_process(void);
/* The calling thread's number in an OpenMP loop (0 without OpenMP). */
int bnn_thread_num(void);
/* Ask the system to back a large fresh vector with huge pages: on some
 * (virtual) machines the first touch of every 4 KiB page costs
 * microseconds, more than writing the data.  A hint on Linux (nothing
 * changes if it is refused), nothing elsewhere. */
void bnn_hint_huge_pages(double *x, R_xlen_t len);
/* Read a double / a logical / a diagonal inverse metric from a kernel's
 * settings list, with errors that name the argument. */
double bnn_kset_real(SEXP settings, const char *name, double dflt,
                     double lower, double upper, int open_lower);
int bnn_kset_flag(SEXP settings, const char *name, int dflt);
const double *bnn_kset_inv_metric(SEXP settings, int dim);
#endif

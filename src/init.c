/* Registration of the native routines.  Each module adds its entries in its
 * own section below; nothing is found by dynamic lookup. */
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>
#include <stdlib.h>

/* --- model and chains (api_model.c, api_chain.c) --- */
SEXP C_model_logpost(SEXP, SEXP);
SEXP C_model_forward(SEXP, SEXP, SEXP);
SEXP C_chain_new(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP C_chain_run(SEXP, SEXP);
SEXP C_chain_info(SEXP);

/* --- diagnostics (api_diagnostics.c) --- */
SEXP C_diag(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP C_cumulative_lppd(SEXP);
SEXP C_lppd_stop(SEXP, SEXP, SEXP);

/* --- optimiser and MCLMC (api_optim.c, api_mclmc.c) --- */

/* --- metrics (api_metrics.c) --- */

#define CALLDEF(name, n) {#name, (DL_FUNC) &name, n}

static const R_CallMethodDef CallEntries[] = {
    /* model and chains */
    CALLDEF(C_model_logpost, 2),
    CALLDEF(C_model_forward, 3),
    CALLDEF(C_chain_new, 5),
    CALLDEF(C_chain_run, 2),
    CALLDEF(C_chain_info, 1),
    /* diagnostics */
    CALLDEF(C_diag, 7),
    CALLDEF(C_cumulative_lppd, 1),
    CALLDEF(C_lppd_stop, 3),
    /* optimiser and MCLMC */
    /* metrics */
    {NULL, NULL, 0}};

void R_init_bnnmc(DllInfo *dll) {
  R_registerRoutines(dll, NULL, CallEntries, NULL, NULL);
  R_useDynamicSymbols(dll, FALSE);
  R_forceSymbols(dll, TRUE);
}

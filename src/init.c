/* Registration of the native routines.  Each module adds its entries in its
 * own section below; nothing is found by dynamic lookup. */
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>
#include <stdlib.h>
#include "simd.h"
#include "api_util.h"

/* --- model (api_model.c) --- */
SEXP C_model_logpost(SEXP, SEXP);
SEXP C_model_forward(SEXP, SEXP, SEXP, SEXP);
SEXP C_model_grad_loop(SEXP, SEXP, SEXP);
SEXP C_simd(SEXP);
SEXP C_vmath(SEXP, SEXP);

/* --- diagnostics (api_diagnostics.c) --- */
SEXP C_diag(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP C_cumulative_lppd(SEXP);
SEXP C_lppd_stop(SEXP, SEXP, SEXP);
SEXP C_relative_eff(SEXP, SEXP, SEXP);
SEXP C_psis(SEXP, SEXP, SEXP, SEXP);

/* --- optimiser and MCLMC (api_optim.c, api_mclmc.c) --- */
SEXP C_optimize(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP C_mclmc_ess(SEXP);
SEXP C_mclmc_grads_per_step(SEXP);
SEXP C_mclmc_step_cost(SEXP, SEXP, SEXP, SEXP);

/* --- the chain driver, every kernel (api_kernel.c) --- */
SEXP C_kchain_new(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP C_kchain_run(SEXP, SEXP, SEXP);
SEXP C_kchain_sink(SEXP, SEXP);
SEXP C_kchain_take(SEXP);
SEXP C_kchain_info(SEXP);
SEXP C_kchain_stat_names(SEXP);
SEXP C_chain_status_table(void);
SEXP C_kchain_free(SEXP);

/* --- metrics (api_metrics.c) --- */
SEXP C_metrics_gauss(SEXP, SEXP, SEXP);
SEXP C_metrics_gmix_quantile(SEXP, SEXP, SEXP, SEXP, SEXP);

/* sgmcmc */
SEXP C_minibatch_eval(SEXP, SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP C_thin_mmd(SEXP, SEXP);
SEXP C_minibatch_grad_loop(SEXP, SEXP, SEXP, SEXP);
SEXP C_zig_draws(SEXP, SEXP, SEXP);
/* sgapprox: approximate posteriors (api_approx.c) */
SEXP C_dropout_loglik(SEXP, SEXP, SEXP, SEXP, SEXP);
SEXP C_laplace_kfac(SEXP, SEXP);
/* evaluation */
SEXP C_mean_dist(SEXP);
SEXP C_ksd(SEXP, SEXP, SEXP, SEXP);
/* symmetry */
SEXP C_symmetry_canonical(SEXP, SEXP, SEXP, SEXP);

/* ces */
SEXP C_ces_loglik(SEXP, SEXP, SEXP);
SEXP C_ces_emulate(SEXP, SEXP);
SEXP C_ces_time(SEXP, SEXP, SEXP);

/* through void (*)(void): the cast GCC accepts for any function pointer */
#define CALLDEF(name, n) {#name, (DL_FUNC) (void (*)(void)) &name, n}

static const R_CallMethodDef CallEntries[] = {
    /* model */
    CALLDEF(C_model_logpost, 2),
    CALLDEF(C_model_forward, 4),
    CALLDEF(C_model_grad_loop, 3),
    CALLDEF(C_simd, 1),
    CALLDEF(C_vmath, 2),
    /* diagnostics */
    CALLDEF(C_diag, 8),
    CALLDEF(C_cumulative_lppd, 1),
    CALLDEF(C_lppd_stop, 3),
    CALLDEF(C_relative_eff, 3),
    CALLDEF(C_psis, 4),
    /* optimiser and MCLMC */
    CALLDEF(C_optimize, 6),
    CALLDEF(C_mclmc_ess, 1),
    CALLDEF(C_mclmc_grads_per_step, 1),
    CALLDEF(C_mclmc_step_cost, 4),
    /* the chain driver */
    CALLDEF(C_kchain_new, 6),
    CALLDEF(C_kchain_run, 3),
    CALLDEF(C_kchain_sink, 2),
    CALLDEF(C_kchain_take, 1),
    CALLDEF(C_kchain_info, 1),
    CALLDEF(C_kchain_stat_names, 1),
    CALLDEF(C_chain_status_table, 0),
    CALLDEF(C_kchain_free, 1),
    /* metrics */
    CALLDEF(C_metrics_gauss, 3),
    CALLDEF(C_metrics_gmix_quantile, 5),
    /* sgmcmc */
    CALLDEF(C_minibatch_eval, 6),
    CALLDEF(C_thin_mmd, 2),
    CALLDEF(C_minibatch_grad_loop, 4),
    CALLDEF(C_zig_draws, 3),
    /* sgapprox */
    CALLDEF(C_dropout_loglik, 5),
    CALLDEF(C_laplace_kfac, 2),
    /* evaluation */
    CALLDEF(C_mean_dist, 1),
    CALLDEF(C_ksd, 4),
    /* symmetry */
    CALLDEF(C_symmetry_canonical, 4),
    /* ces */
    CALLDEF(C_ces_loglik, 3),
    CALLDEF(C_ces_emulate, 2),
    CALLDEF(C_ces_time, 3),
    {NULL, NULL, 0}};

void R_init_bnnmc(DllInfo *dll) {
  R_registerRoutines(dll, NULL, CallEntries, NULL, NULL);
  R_useDynamicSymbols(dll, FALSE);
  R_forceSymbols(dll, TRUE);
  bnn_simd_select(2);
  bnn_record_loading_process();
}

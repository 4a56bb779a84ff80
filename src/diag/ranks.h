/* Sorting and rank normalisation of the draws of one variable for the
 * convergence diagnostics (ranks.c); the results are cached in the
 * workspace (diag_ws.h) until the next bnn_diag_load(). */
#ifndef BNNMC_RANKS_H
#define BNNMC_RANKS_H
#include "diag_ws.h"

/* Sorts the non-NaN draws of the current variable (sval, sidx, n_valid). */
void diag_sort_draws(bnn_diag_ws *ws);
/* Median of all draws as R's median() (no NaN; sorts). */
double diag_median_sorted(bnn_diag_ws *ws);
/* Normal scores of the split draws (zb, zb_na) and, with kappa, the
 * accumulators of the within-chain scores (cK, cS1, cS2, cw_const). */
void diag_make_zb(bnn_diag_ws *ws);
/* Accumulators of the normal scores of the split folded draws (tK, tS1,
 * tS2, zt_na). */
void diag_make_zt(bnn_diag_ws *ws);
#endif

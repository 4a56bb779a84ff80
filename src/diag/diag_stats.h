/* Helpers of the convergence diagnostics (diag_stats.c): R's mean(),
 * var() and type-7 quantile, the NaN/Inf scan of the current variable and
 * column statistics.  Private to the diagnostics' implementation. */
#ifndef BNNMC_DIAG_STATS_H
#define BNNMC_DIAG_STATS_H
#include "diag_ws.h"

/* R's mean() and var() of a vector, stats::quantile(type = 7) of a sorted
 * vector. */
double diag_r_mean(const double *x, int n);
double diag_r_var(const double *x, int n);
double diag_quantile7(const double *s, int n, double prob);
/* Flags has_nan, has_inf, split_nan and chain_nan of the current variable. */
void diag_scan(bnn_diag_ws *ws);
/* Column means (colMeans2; R's mean() into rmean if not NULL) and
 * variances of m columns of n values. */
void diag_col_means(const double *const *cols, int n, int m, double *dmean,
                    double *rmean);
void diag_col_vars(const double *const *cols, int n, int m, const double *cm,
                   double *cv);
/* Column means and variances from the accumulators of ranks.c. */
void diag_acc_moments(const double *K, const double *s1, const double *s2, int n,
                      int m, double *cm, double *cv);
/* posterior's should_return_NA for m columns of n values. */
int diag_should_na_cols(const double *const *cols, int n, int m, double *range);
#endif

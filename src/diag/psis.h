/* Pareto-smoothed importance sampling (Vehtari, Simpson, Gelman, Yao and
 * Gabry 2024, "Pareto smoothed importance sampling", JMLR 25(72)), one
 * column of log importance ratios at a time, as the loo package computes
 * it (psis(), version 2.5): the largest ceiling(min(0.2 S, 3 sqrt(S /
 * r_eff))) ratios are replaced by the quantiles of a generalized Pareto
 * distribution fitted to them by Zhang and Stephens' (2009) method, with
 * the weakly informative prior on k (k n / (n + 10) + 5 / (n + 10)), and
 * the weights are truncated at the largest raw weight.  psis.c. */
#ifndef BNNMC_PSIS_H
#define BNNMC_PSIS_H
#include <stddef.h>

typedef struct {
  double v;
  int i;
} bnn_psis_pair;

/* Workspace of one column of S draws, in bytes (S pairs and 2 S + 32
 * doubles), suitably aligned for bnn_psis_pair. */
size_t bnn_psis_ws_size(int S);

/* The normalised log weights lw[S] (log-sum-exp 0) of the log ratios
 * lr[S] with relative efficiency r_eff, and the Pareto k (Inf when the
 * tail has fewer than 5 draws, all of one value, or the fit fails; NaN,
 * with NaN weights, when lr holds NaN or +Inf or r_eff is not positive). */
double bnn_psis(const double *lr, int S, double r_eff, double *lw, void *ws);

/* log(sum(exp(x))) of n values (-Inf for none). */
double bnn_log_sum_exp(const double *x, int n);
#endif

/* Sample discrepancies between sets of draws (pure C, no R API): the
 * energy-distance (distance-induced kernel) MMD and the kernelized Stein
 * discrepancy with the inverse multiquadric kernel.
 *
 * A set of n draws in d dimensions is stored draw by draw: draw a occupies
 * X[a * d .. a * d + d - 1] (a d x n column-major matrix).  The functions
 * work on a range of rows [a0, a1) so that callers can split the O(n^2 d)
 * work into blocks (and check for interrupts between them); they use O(1)
 * extra memory. */
#ifndef BNNMC_DISCREPANCY_H
#define BNNMC_DISCREPANCY_H

/* Euclidean distance between two d-vectors. */
double bnn_dist(const double *x, const double *y, int d);

/* Sum over a in [a0, a1) and b in [0, m) of ||X_a - Y_b||. */
double bnn_dist_sum_cross(const double *X, const double *Y, int m, int d,
                          int a0, int a1);

/* Sum over a in [a0, a1) and b in (a, n) of ||X_a - X_b|| (each unordered
 * pair once; the full double sum over a, b is twice the total). */
double bnn_dist_sum_within(const double *X, int n, int d, int a0, int a1);

/* Langevin Stein kernel on the IMQ base kernel k(w, w') = (1 + ||w -
 * w'||^2 / ell^2)^(-1/2) between draws w, w' with scores s, s' (gradients
 * of the log target density):
 *   k_p = d/ell^2 u^-3/2 - 3 ||r||^2/ell^4 u^-5/2
 *         + u^-3/2 (s - s')'r / ell^2 + u^-1/2 s's',
 * with r = w - w' and u = 1 + ||r||^2 / ell^2. */
double bnn_stein_imq(const double *w, const double *s, const double *w2,
                     const double *s2, int d, double ell);

/* Sum over a in [a0, a1) of k_p(W_a, W_a) + 2 sum_{b > a} k_p(W_a, W_b):
 * summed over all rows this is the V-statistic double sum
 * sum_{a, b} k_p(W_a, W_b).  S holds the scores in W's layout. */
double bnn_ksd_sum_rows(const double *W, const double *S, int n, int d,
                        double ell, int a0, int a1);

/* The same double sum in three parts, added into part[0..2]: the terms
 * d/ell^2 u^-3/2 - 3 ||r||^2/ell^4 u^-5/2, u^-3/2 (s - s')'r / ell^2 and
 * u^-1/2 s's'.  They scale differently when the draws (and ell) and the
 * scores are rescaled, so R can compute the KSD of draws or scores whose
 * squares overflow from rescaled ones. */
void bnn_ksd_sum_rows_parts(const double *W, const double *S, int n, int d,
                            double ell, int a0, int a1, double *part);

#endif

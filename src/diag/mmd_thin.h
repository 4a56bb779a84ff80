/* Greedy MMD thinning (Teymur et al. 2021) with the distance-induced kernel
 * k(x, y) = |x| + |y| - |x - y| (Sejdinovic et al. 2013), as Staber & Da
 * Veiga (2022) thin every SG-MCMC run: select indices pi(1..m) of the T
 * draws one at a time, each minimising MMD^2(P_T, Q_{i+1}) between the
 * empirical law of all draws and that of the selected ones (with
 * replacement: an index may repeat).  Dropping the terms that do not depend
 * on the candidate j, the choice is
 *   argmin_j  k(w_j, w_j) + 2 c_j - 2 (i + 1) kbar_j,
 *   c_j = sum_{l <= i} k(w_j, w_pi(l)),  kbar_j = (1/T) sum_a k(w_j, w_a).
 * kbar takes O(T^2 d) time once, streamed in rows so that no T x T matrix is
 * stored; each selection updates c in O(T d).  Memory O(T d): the draws
 * (one column per draw) and a few vectors of length T. */
#ifndef BNNMC_MMD_THIN_H
#define BNNMC_MMD_THIN_H

typedef struct {
  const double *X;   /* d x T, one draw per column */
  int d, T;
  double *norm;      /* |w_j| */
  double *dsum;      /* sum_a |w_j - w_a|, accumulated by rows */
  double *kbar;      /* (1/T) sum_a k(w_j, w_a) */
  double *c;         /* sum over the selected of k(w_j, w_pi) */
  double mean_kbar;  /* (1/T^2) sum_{a,b} k(w_a, w_b) */
  double sum_kbar_sel, sum_k_sel;   /* for MMD^2 of the selection */
  int n_sel;
} bnn_mmd_thin;

/* work: 4 T doubles.  Computes the norms and zeroes the sums. */
void bnn_mmd_thin_init(bnn_mmd_thin *s, const double *X, int d, int T, double *work);
/* Add the pairs (j, a), a > j, for rows j in [j0, j1) to the distance sums
 * (call for consecutive row ranges covering [0, T), then _finish). */
void bnn_mmd_thin_rows(bnn_mmd_thin *s, int j0, int j1);
void bnn_mmd_thin_finish(bnn_mmd_thin *s);
/* Select the next point; returns its 0-based index and writes MMD^2 between
 * all draws and the selection so far (V-statistic). */
int bnn_mmd_thin_next(bnn_mmd_thin *s, double *mmd2);
#endif

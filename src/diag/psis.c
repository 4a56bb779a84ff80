/* Pareto-smoothed importance sampling of one column (psis.h). */
#include <math.h>
#include <stdlib.h>
#include "psis.h"

size_t bnn_psis_ws_size(int S) {
  size_t n = (size_t)(S > 0 ? S : 1);
  return sizeof(bnn_psis_pair) * n + sizeof(double) * (2 * n + 32);
}

double bnn_log_sum_exp(const double *x, int n) {
  double mx = -INFINITY;
  for (int i = 0; i < n; i++) {
    if (isnan(x[i])) return NAN;
    if (x[i] > mx) mx = x[i];
  }
  if (!isfinite(mx)) return mx;
  double s = 0.0;
  for (int i = 0; i < n; i++) s += exp(x[i] - mx);
  return mx + log(s);
}

/* ascending by value, ties by position: the order of a stable sort */
static int cmp_pair(const void *a, const void *b) {
  const bnn_psis_pair *p = a, *q = b;
  if (p->v < q->v) return -1;
  if (p->v > q->v) return 1;
  return (p->i > q->i) - (p->i < q->i);
}

/* Reorders p[0..n) so that p[k] is the element a full sort (cmp_pair)
 * would put there, with none greater before it and none smaller after it
 * (Hoare's selection). */
static void select_pair(bnn_psis_pair *p, int n, int k) {
  int lo = 0, hi = n - 1;
  while (hi > lo) {
    bnn_psis_pair piv = p[lo + (hi - lo) / 2];
    int i = lo, j = hi;
    while (i <= j) {
      while (cmp_pair(&p[i], &piv) < 0) i++;
      while (cmp_pair(&p[j], &piv) > 0) j--;
      if (i <= j) {
        bnn_psis_pair t = p[i];
        p[i] = p[j];
        p[j] = t;
        i++;
        j--;
      }
    }
    if (k <= j) hi = j;
    else if (k >= i) lo = i;
    else return;
  }
}

/* Zhang and Stephens' (2009) estimate of the generalized Pareto's shape k
 * and scale sigma from the N ascending exceedances x, with the prior of 3
 * on the grid and the weakly informative adjustment of k; k = Inf when it
 * cannot be estimated.  l: room for the grid's 30 + sqrt(N) values. */
static void gpd_fit(const double *x, int N, double *l, double *k_out, double *sigma_out) {
  const double prior = 3.0;
  int M = 30 + (int)floor(sqrt((double)N));
  double xmax = x[N - 1];
  double xstar = x[(int)floor((double)N / 4.0 + 0.5) - 1];
  /* the grid's profile log-likelihoods l, then their softmax weights */
  double l_max = -INFINITY;
  for (int j = 1; j <= M; j++) {
    double theta = 1.0 / xmax + (1.0 - sqrt((double)M / ((double)j - 0.5))) / prior / xstar;
    double a = -theta, kk = 0.0;
    for (int i = 0; i < N; i++) kk += log1p(a * x[i]);
    kk /= (double)N;
    l[j - 1] = (double)N * (log(a / kk) - kk - 1.0);
    if (isnan(l[j - 1]) || !(l_max >= -INFINITY)) l_max = NAN;
    else if (l[j - 1] > l_max) l_max = l[j - 1];
  }
  if (!isfinite(l_max)) {
    *k_out = INFINITY;
    *sigma_out = NAN;
    return;
  }
  double theta_hat = 0.0, wsum = 0.0;
  for (int j = 1; j <= M; j++) {
    double theta = 1.0 / xmax + (1.0 - sqrt((double)M / ((double)j - 0.5))) / prior / xstar;
    double w = exp(l[j - 1] - l_max);
    wsum += w;
    theta_hat += theta * w;
  }
  theta_hat /= wsum;
  double k = 0.0;
  for (int i = 0; i < N; i++) k += log1p(-theta_hat * x[i]);
  k /= (double)N;
  double sigma = -k / theta_hat;
  k = k * (double)N / ((double)N + 10.0) + 10.0 * 0.5 / ((double)N + 10.0);
  *k_out = isnan(k) ? INFINITY : k;
  *sigma_out = sigma;
}

double bnn_psis(const double *lr, int S, double r_eff, double *lw, void *work) {
  bnn_psis_pair *ws = work;
  double *xs = (double *)(ws + (S > 0 ? S : 1));
  double mx = -INFINITY;
  int bad = !(r_eff > 0) || S < 1;
  for (int s = 0; s < S && !bad; s++) {
    if (isnan(lr[s]) || lr[s] == INFINITY) bad = 1;
    else if (lr[s] > mx) mx = lr[s];
  }
  if (bad || !isfinite(mx)) {
    for (int s = 0; s < S; s++) lw[s] = NAN;
    return NAN;
  }
  for (int s = 0; s < S; s++) lw[s] = lr[s] - mx;
  double khat = INFINITY;
  double tl = ceil(fmin(0.2 * (double)S, 3.0 * sqrt((double)S / r_eff)));
  int T = (int)tl;
  if (T >= 5 && T < S) {
    for (int s = 0; s < S; s++) {
      ws[s].v = lw[s];
      ws[s].i = s;
    }
    /* only the T largest and the one below them need sorting */
    select_pair(ws, S, S - T - 1);
    qsort(ws + (S - T), (size_t)T, sizeof *ws, cmp_pair);
    const bnn_psis_pair *tail = ws + (S - T);
    if (fabs(tail[T - 1].v - tail[0].v) >= 2.220446049250313e-16 / 100.0) {
      double cut = exp(ws[S - T - 1].v);
      double k, sigma;
      for (int j = 0; j < T; j++) xs[j] = exp(tail[j].v) - cut;
      gpd_fit(xs, T, xs + T, &k, &sigma);
      khat = k;
      if (isfinite(k)) {
        for (int j = 0; j < T; j++) {
          double p = ((double)j + 0.5) / (double)T;
          double q = (isnan(sigma) || sigma <= 0) ? NAN : sigma * expm1(-k * log1p(-p)) / k;
          lw[tail[j].i] = log(q + cut);
        }
      }
    }
  }
  for (int s = 0; s < S; s++) {
    if (lw[s] > 0) lw[s] = 0;
    lw[s] += mx;
  }
  double lse = bnn_log_sum_exp(lw, S);
  for (int s = 0; s < S; s++) lw[s] -= lse;
  return khat;
}

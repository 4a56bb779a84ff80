/* Greedy MMD thinning with the distance-induced kernel (see mmd_thin.h). */
#include <math.h>
#include <string.h>
#include "mmd_thin.h"

static double dist(const double *x, const double *y, int d) {
  double s = 0.0;
  for (int k = 0; k < d; k++) {
    double t = x[k] - y[k];
    s += t * t;
  }
  return sqrt(s);
}

void bnn_mmd_thin_init(bnn_mmd_thin *s, const double *X, int d, int T, double *work) {
  memset(s, 0, sizeof *s);
  s->X = X;
  s->d = d;
  s->T = T;
  s->norm = work;
  s->dsum = work + T;
  s->kbar = work + 2 * (size_t)T;
  s->c = work + 3 * (size_t)T;
  for (int j = 0; j < T; j++) {
    const double *x = X + (size_t)j * d;
    double q = 0.0;
    for (int k = 0; k < d; k++) q += x[k] * x[k];
    s->norm[j] = sqrt(q);
    s->dsum[j] = 0.0;
    s->c[j] = 0.0;
  }
}

void bnn_mmd_thin_rows(bnn_mmd_thin *s, int j0, int j1) {
  int d = s->d, T = s->T;
  for (int j = j0; j < j1; j++) {
    const double *x = s->X + (size_t)j * d;
    double acc = 0.0;
    for (int a = j + 1; a < T; a++) {
      double r = dist(x, s->X + (size_t)a * d, d);
      acc += r;
      s->dsum[a] += r;
    }
    s->dsum[j] += acc;
  }
}

void bnn_mmd_thin_finish(bnn_mmd_thin *s) {
  int T = s->T;
  double mean_norm = 0.0;
  for (int j = 0; j < T; j++) mean_norm += s->norm[j];
  mean_norm /= T;
  double mk = 0.0;
  for (int j = 0; j < T; j++) {
    s->kbar[j] = s->norm[j] + mean_norm - s->dsum[j] / T;
    mk += s->kbar[j];
  }
  s->mean_kbar = mk / T;
}

int bnn_mmd_thin_next(bnn_mmd_thin *s, double *mmd2) {
  int T = s->T, d = s->d, best = 0;
  double i1 = (double)(s->n_sel + 1), best_obj = INFINITY;
  for (int j = 0; j < T; j++) {
    double obj = 2.0 * s->norm[j] + 2.0 * s->c[j] - 2.0 * i1 * s->kbar[j];
    if (obj < best_obj) {   /* first index on ties */
      best_obj = obj;
      best = j;
    }
  }
  /* sum over the selected pairs gains 2 c_best + k(w_best, w_best) */
  s->sum_k_sel += 2.0 * s->c[best] + 2.0 * s->norm[best];
  s->sum_kbar_sel += s->kbar[best];
  s->n_sel++;
  const double *xp = s->X + (size_t)best * d;
  for (int j = 0; j < T; j++)
    s->c[j] += s->norm[j] + s->norm[best] - dist(s->X + (size_t)j * d, xp, d);
  double n = (double)s->n_sel;
  *mmd2 = s->mean_kbar - 2.0 * s->sum_kbar_sel / n + s->sum_k_sel / (n * n);
  return best;
}

/* Cumulative (expanding-window) LPPD and its stopping rule (Sommer et al.
 * 2024, Eq. 8-9); see diagnostics.h. */
#include <math.h>
#include <stddef.h>
#include "diagnostics.h"

void bnn_cumulative_lppd_add(const double *ll, int n_iter, int n_chain, int c,
                             int i0, int i1, double *oc) {
  size_t S = (size_t) n_iter;
  for (int i = i0; i < i1; i++) {
    const double *l = ll + S * ((size_t) c + (size_t) n_chain * i);
    double mx = -INFINITY, sum = 0.0; /* sum exp(l - mx) */
    for (size_t s = 0; s < S; s++) {
      double v = l[s];
      if (isnan(v) || isnan(sum)) {
        sum = NAN;
      } else if (v == INFINITY) {
        mx = INFINITY;
        sum = 1.0;
      } else if (v > mx) {
        sum = sum * exp(mx - v) + 1.0;
        mx = v;
      } else if (v > -INFINITY && mx < INFINITY) {
        sum += exp(v - mx);
      }
      double lse = mx == -INFINITY ? -INFINITY : mx + log(sum);
      oc[s] += lse - log((double) (s + 1));
    }
  }
}

void bnn_cumulative_lppd(const double *ll, int n_iter, int n_chain, int n_obs,
                         double *out) {
  size_t S = (size_t) n_iter;
  for (size_t k = 0; k < S * n_chain; k++) out[k] = 0.0;
  for (int c = 0; c < n_chain; c++) {
    double *oc = out + S * c;
    bnn_cumulative_lppd_add(ll, n_iter, n_chain, c, 0, n_obs, oc);
    for (size_t s = 0; s < S; s++) oc[s] /= n_obs;
  }
}

void bnn_lppd_stop(const double *lppd, int n_iter, int n_chain, double eps,
                   int window, int *out) {
  for (int c = 0; c < n_chain; c++) {
    const double *v = lppd + (size_t) n_iter * c;
    out[c] = 0;
    if (window < 1) continue;
    long double s = 0.0;
    int n_nan = 0;
    /* non-finite values are counted, not summed: a window holding one
     * gives a non-finite mean, and the rule cannot fire */
    for (int l = 0; l < window && l < n_iter; l++) {
      if (!isfinite(v[l])) n_nan++;
      else s += v[l];
    }
    /* 0-based l: window = v[l - window .. l - 1] */
    for (int l = window; l < n_iter; l++) {
      if (!n_nan && isfinite(v[l])) {
        double mean = (double) (s / window);
        if (fabs(mean - v[l]) < eps) {
          out[c] = l + 1;
          break;
        }
      }
      if (!isfinite(v[l - window])) n_nan--;
      else s -= v[l - window];
      if (!isfinite(v[l])) n_nan++;
      else s += v[l];
    }
  }
}

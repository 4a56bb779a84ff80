/* BlackJAX's single-chain ESS: see ess_blackjax.h. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "ess_blackjax.h"
#include "fft.h"

int bnn_ess_alloc(bnn_ess_work *w, int n) {
  memset(w, 0, sizeof *w);
  int log2L, L = bnn_fft_len(n, &log2L);
  w->n = n;
  w->tw = malloc(sizeof(double) * 2 * (size_t) L);
  w->z = malloc(sizeof(double) * 2 * (size_t) L);
  w->acov_a = malloc(sizeof(double) * (size_t) n);
  w->acov_b = malloc(sizeof(double) * (size_t) n);
  if (!w->tw || !w->z || !w->acov_a || !w->acov_b) {
    bnn_ess_free(w);
    return 1;
  }
  bnn_fft_twiddles(L, w->tw, NULL);
  w->fft.L = L;
  w->fft.log2L = log2L;
  w->fft.tw = w->tw;
  w->fft.z = w->z;
  return 0;
}

void bnn_ess_free(bnn_ess_work *w) {
  free(w->tw);
  free(w->z);
  free(w->acov_a);
  free(w->acov_b);
  memset(w, 0, sizeof *w);
}

/* BlackJAX's effective_sample_size for one chain, from the autocovariances
 * acov[t] = sum_j x_j x_{j+t} / n (centred x):
 *   rho_0 = 1, rho_t = 1 - (var0 - acov_t) / acov_0, var0 = acov_0 n/(n-1);
 *   pairs P_k = rho_2k + rho_2k+1 kept while positive (initial positive
 *   sequence), plus rho at the next even lag if positive; then the initial
 *   monotone sequence (P_k <- min(P_k, P_k-1));
 *   tau = -1 + 2 sum(P) - rho_even[kmax + 1], tau >= 1 / log10(n);
 *   ESS = n / tau.
 * Where the positive sequence runs to the end, JAX clamps the out-of-range
 * index kmax + 1 to the last pair; we do the same. */
static double ess_from_acov(const double *acov, int n) {
  if (n < 2 || !(acov[0] > 0) || !isfinite(acov[0])) return NAN;
  double var0 = acov[0] * (double)n / (double)(n - 1);
  double wvar = acov[0];
  int K = (n - n % 2) / 2;
#define RHO(t) ((t) == 0 ? 1.0 : 1.0 - (var0 - acov[(t)]) / wvar)
  int kmax = -1;
  for (int q = 0; q < K; q++) {
    if (RHO(2 * q) + RHO(2 * q + 1) > 0.0)
      kmax = q;
    else
      break;
  }
  int max_t = kmax >= 0 ? kmax : 0;
  int extra = max_t + 1;  /* even lag 2 * extra kept if positive */
  double sum = 0.0, carry = 0.0, even_at_extra = 0.0;
  int last = extra < K ? extra : K - 1;
  for (int q = 0; q < K; q++) {
    double ev = 0.0, od = 0.0;
    if (q <= kmax) {
      ev = RHO(2 * q);
      od = RHO(2 * q + 1);
    } else if (q == extra) {
      double r = RHO(2 * q);
      ev = r > 0.0 ? r : 0.0;
    }
    double s = ev + od;
    if (q == 0) carry = s;
    if (s > carry) {         /* initial monotone sequence */
      ev = od = 0.5 * carry;
      s = carry;
    } else {
      carry = s;
    }
    sum += s;
    if (q == last) even_at_extra = ev;
  }
#undef RHO
  double tau = -1.0 + 2.0 * sum - even_at_extra;
  double floor_tau = 1.0 / log10((double)n);
  if (tau < floor_tau) tau = floor_tau;
  return (double)n / tau;
}

void bnn_ess_pair(bnn_ess_work *w, const double *a, const double *b,
                  double *ess) {
  int n = w->n;
  bnn_acov_fft_pair(&w->fft, a, b, n, w->acov_a, b ? w->acov_b : NULL);
  ess[0] = ess_from_acov(w->acov_a, n);
  if (b) ess[1] = ess_from_acov(w->acov_b, n);
}

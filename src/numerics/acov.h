/* Autocovariances of centred series (pure C, no SEXP), shared by the
 * convergence diagnostics (ess.c) and MCLMC's tuning ESS (ess_blackjax.c).
 *
 * Directly, eight lags at a time (bnn_acov_lags8), or all lags at once by
 * FFT (fft.h) with zero padding to L >= 2n: summed over the columns of a
 * matrix (bnn_acov_fft_sum, posterior's multi-chain ESS) or for two series
 * separately (bnn_acov_fft_pair, single-chain ESS).  All give the biased
 * estimator sum_i x_i x_{i+t} (/ n) up to rounding. */
#ifndef BNNMC_ACOV_H
#define BNNMC_ACOV_H
#include <stdint.h>

/* out[k] += sum_{i=0}^{n-1-t-k} a[i] a[i+t+k], k = 0..7 (lags >= n add 0).
 * avx2 (only if bnn_cpu_has_avx2_fma()): the AVX2/FMA routine, about five
 * times faster, equal up to rounding. */
void bnn_acov_lags8(const double *a, int n, int t, double *out, int avx2);

/* The FFT of length L = bnn_fft_len(n) and its buffers; the caller
 * allocates them and fills tw (and tw3) with bnn_fft_twiddles() and partner
 * with bnn_fft_partners(). */
typedef struct {
  int L, log2L;
  int avx2;                /* AVX2 routines (bnn_acov_fft_sum only) */
  const double *tw;        /* 2L */
  const double *tw3;       /* 2L, bnn_acov_fft_sum only */
  const uint32_t *partner; /* L, bnn_acov_fft_sum only */
  double *z;               /* 2L: interleaved, or split as z[0, L) + i z[L, 2L) */
  double *pw;              /* L, bnn_acov_fft_sum only */
} bnn_acov_fft;

/* acov[t] = sum_j sum_i yc_j[i] yc_j[i+t] for t = from..n-1 over the m
 * centred columns yc_j of the matrix yc [n, m] (sums, not divided by n). */
void bnn_acov_fft_sum(const bnn_acov_fft *f, const double *yc, int n, int m,
                      int from, double *acov);

/* Centres the series a and b (b may be NULL) of n values by their means
 * and gives acov_a[t] = sum_i a_i a_{i+t} / n (and acov_b likewise),
 * t < n, from one complex transform each way (portable routine only). */
void bnn_acov_fft_pair(const bnn_acov_fft *f, const double *a, const double *b,
                       int n, double *acov_a, double *acov_b);
#endif

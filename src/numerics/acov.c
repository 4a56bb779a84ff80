/* Autocovariances: see acov.h. */
#include <string.h>
#include "acov.h"
#include "fft.h"

static void lags8_portable(const double *a, int n, int t, double *out) {
  const double *b = a + t;
  int lim = n - t - 7, i = 0;
  double s[8] = {0, 0, 0, 0, 0, 0, 0, 0}, u[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (; i + 1 < lim; i += 2) {
    double a0 = a[i], a1 = a[i + 1];
    const double *bi = b + i;
    for (int k = 0; k < 8; k++) {
      s[k] += a0 * bi[k];
      u[k] += a1 * bi[k + 1];
    }
  }
  for (int k = 0; k < 8; k++) {
    double sk = s[k] + u[k];
    int e = n - t - k;
    for (int j = i; j < e; j++) sk += a[j] * b[j + k];
    out[k] += sk;
  }
}

/* BNNMC_PORTABLE_ONLY: no AVX2 routines (inst/benchmarks/f32 compiles this
 * file with `double` meaning `float`) */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(BNNMC_PORTABLE_ONLY)
#define BNN_HAVE_AVX2_ROUTINES 1
#include <immintrin.h>
__attribute__((target("avx2,fma"))) static void lags8_avx2(const double *a, int n,
                                                           int t, double *out) {
  const double *b = a + t;
  int lim = n - t - 7, i = 0;
  __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
  __m256d s4 = s0, s5 = s0, s6 = s0, s7 = s0;
  for (; i + 3 < lim; i += 4) {
    __m256d ai = _mm256_loadu_pd(a + i);
    const double *bi = b + i;
    s0 = _mm256_fmadd_pd(ai, _mm256_loadu_pd(bi), s0);
    s1 = _mm256_fmadd_pd(ai, _mm256_loadu_pd(bi + 1), s1);
    s2 = _mm256_fmadd_pd(ai, _mm256_loadu_pd(bi + 2), s2);
    s3 = _mm256_fmadd_pd(ai, _mm256_loadu_pd(bi + 3), s3);
    s4 = _mm256_fmadd_pd(ai, _mm256_loadu_pd(bi + 4), s4);
    s5 = _mm256_fmadd_pd(ai, _mm256_loadu_pd(bi + 5), s5);
    s6 = _mm256_fmadd_pd(ai, _mm256_loadu_pd(bi + 6), s6);
    s7 = _mm256_fmadd_pd(ai, _mm256_loadu_pd(bi + 7), s7);
  }
  double v[32];
  _mm256_storeu_pd(v, s0);
  _mm256_storeu_pd(v + 4, s1);
  _mm256_storeu_pd(v + 8, s2);
  _mm256_storeu_pd(v + 12, s3);
  _mm256_storeu_pd(v + 16, s4);
  _mm256_storeu_pd(v + 20, s5);
  _mm256_storeu_pd(v + 24, s6);
  _mm256_storeu_pd(v + 28, s7);
  for (int k = 0; k < 8; k++) {
    double sk = (v[4 * k] + v[4 * k + 1]) + (v[4 * k + 2] + v[4 * k + 3]);
    int e = n - t - k;
    for (int j = i; j < e; j++) sk += a[j] * b[j + k];
    out[k] += sk;
  }
}
#endif

void bnn_acov_lags8(const double *a, int n, int t, double *out, int avx2) {
#ifdef BNN_HAVE_AVX2_ROUTINES
  if (avx2) {
    lags8_avx2(a, n, t, out);
    return;
  }
#else
  (void) avx2;
#endif
  lags8_portable(a, n, t, out);
}

/* Two real columns per complex transform: |A_k|^2 + |B_k|^2 = (|Z_k|^2 +
 * |Z_{L-k}|^2) / 2, summed over the columns, then one transform back (the
 * power spectrum is real and symmetric, so forward and inverse agree). */
void bnn_acov_fft_sum(const bnn_acov_fft *f, const double *yc, int n, int m,
                      int from, double *acov) {
  int L = f->L;
  double *z = f->z, *pw = f->pw;
  const uint32_t *partner = f->partner;
  memset(pw, 0, (size_t) L * sizeof(double));
  for (int j = 0; j < m; j += 2) {
    const double *a = yc + (size_t) n * j;
    const double *b = j + 1 < m ? yc + (size_t) n * (j + 1) : NULL;
    bnn_fft_dif_padded(z, L, f->tw, f->tw3, a, b, n, f->avx2);
    for (int p = 0; p < L; p++) pw[p] += z[2 * p] * z[2 * p] + z[2 * p + 1] * z[2 * p + 1];
  }
  /* symmetrise once: (|Z_k|^2 + |Z_{L-k}|^2) / 2, a real sequence */
  double *re = z, *im = z + L;
  for (int p = 0; p < L; p++) {
    re[p] = 0.5 * (pw[p] + pw[partner[p]]);
    im[p] = 0.0;
  }
  bnn_fft_dit(re, im, L, f->tw, 0, f->avx2);
  for (int t = from; t < n; t++) acov[t] = re[t] / L;
}

/* With z = a + i b and Z its DFT, A_k = (Z_k + conj Z_{L-k}) / 2 and B_k =
 * (Z_k - conj Z_{L-k}) / (2i); the inverse DFT of |A|^2 + i |B|^2 has the
 * two autocovariance sums as its real and imaginary parts. */
void bnn_acov_fft_pair(const bnn_acov_fft *f, const double *a, const double *b,
                       int n, double *acov_a, double *acov_b) {
  int L = f->L;
  double *re = f->z, *im = f->z + L;
  double ma = 0.0, mb = 0.0;
  for (int i = 0; i < n; i++) {
    ma += a[i];
    if (b) mb += b[i];
  }
  ma /= n;
  mb /= n;
  for (int i = 0; i < L; i++) {
    re[i] = i < n ? a[i] - ma : 0.0;
    im[i] = (i < n && b) ? b[i] - mb : 0.0;
  }
  bnn_fft_bitrev(re, im, L);
  bnn_fft_dit(re, im, L, f->tw, 0, 0);
  for (int q = 0; q <= L / 2; q++) {
    int qm = (L - q) & (L - 1);
    double zr = re[q], zi = im[q], cr = re[qm], ci = -im[qm];
    double ar = 0.5 * (zr + cr), ai = 0.5 * (zi + ci);
    double br = 0.5 * (zi - ci), bi = -0.5 * (zr - cr);
    double pa = ar * ar + ai * ai, pb = br * br + bi * bi;
    re[q] = pa;
    im[q] = pb;
    re[qm] = pa;
    im[qm] = pb;
  }
  bnn_fft_bitrev(re, im, L);
  bnn_fft_dit(re, im, L, f->tw, 1, 0);
  double sc = 1.0 / ((double) L * (double) n);
  for (int t = 0; t < n; t++) {
    acov_a[t] = re[t] * sc;
    if (acov_b) acov_b[t] = im[t] * sc;
  }
}

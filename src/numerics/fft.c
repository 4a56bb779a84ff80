/* Radix-2 FFTs: see fft.h.
 *
 * One set of twiddles serves all transforms; the DIT transform's portable
 * butterfly is the one both the diagnostics (inverse of a power spectrum)
 * and MCLMC's tuning ESS (forward and inverse transforms of two packed real
 * series) use, so that their results stay exactly those of the separate
 * implementations they replace. */
#include <math.h>
#include <stdint.h>
#include "fft.h"

/* BNNMC_PORTABLE_ONLY: no AVX2 routines (inst/benchmarks/f32 compiles this
 * file with `double` meaning `float`) */
#if defined(__GNUC__) && defined(__x86_64__) && !defined(BNNMC_PORTABLE_ONLY)
#define BNN_HAVE_AVX2_ROUTINES 1
#include <immintrin.h>
int bnn_cpu_has_avx2_fma(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#else
int bnn_cpu_has_avx2_fma(void) { return 0; }
#endif

int bnn_fft_len(int n, int *log2L) {
  int L = 1, k = 0;
  while (L < 2 * n) {
    L <<= 1;
    k++;
  }
  if (L < 4) {
    L = 4;
    k = 2;
  }
  *log2L = k;
  return L;
}

void bnn_fft_twiddles(int L, double *tw, double *tw3) {
  for (int hh = 1; hh < L; hh <<= 1)
    for (int k = 0; k < hh; k++) {
      double ang = -M_PI * (double) k / (double) hh;
      tw[2 * (hh - 1 + k)] = cos(ang);
      tw[2 * (hh - 1 + k) + 1] = sin(ang);
      if (tw3) { /* w1 * w2 of a fused radix-2^2 stage: exp(-3 pi i k / hh) */
        tw3[2 * (hh - 1 + k)] = cos(3 * ang);
        tw3[2 * (hh - 1 + k) + 1] = sin(3 * ang);
      }
    }
}

static uint32_t bit_reverse(uint32_t v, int bits) {
  uint32_t r = 0;
  for (int b = 0; b < bits; b++) {
    r = (r << 1) | (v & 1u);
    v >>= 1;
  }
  return r;
}

void bnn_fft_partners(int L, int log2L, uint32_t *partner) {
  for (int i = 0; i < L; i++) {
    uint32_t k = bit_reverse((uint32_t) i, log2L); /* frequency held at i */
    uint32_t k2 = (uint32_t) ((L - (int) k) & (L - 1));
    partner[i] = bit_reverse(k2, log2L);
  }
}

void bnn_fft_bitrev(double *re, double *im, int L) {
  for (int i = 1, j = 0; i < L; i++) {
    int bit = L >> 1;
    for (; j & bit; bit >>= 1) j ^= bit;
    j ^= bit;
    if (i < j) {
      double t = re[i];
      re[i] = re[j];
      re[j] = t;
      t = im[i];
      im[i] = im[j];
      im[j] = t;
    }
  }
}

/* ---------- DIF forward transform of zero-padded data ---------- */

/* Pairs of radix-2 stages are fused into radix-2^2 butterflies (three
 * complex multiplications per four points, half the memory passes); the
 * output order is still bit-reversed.  tw3 holds tw[k] * tw2[k] of the next
 * stage at the same offsets as tw. */
#define CMUL(xr, xi, wr, wi, outr, outi)                                      \
  do {                                                                        \
    double xr_ = (xr), xi_ = (xi), wr_ = (wr), wi_ = (wi);                    \
    outr = xr_ * wr_ - xi_ * wi_;                                             \
    outi = xr_ * wi_ + xi_ * wr_;                                             \
  } while (0)

#ifdef BNN_HAVE_AVX2_ROUTINES
/* x * w for two interleaved complex numbers per vector */
__attribute__((target("avx2,fma"))) static inline __m256d cmul2(__m256d x, __m256d w) {
  __m256d wr = _mm256_movedup_pd(w), wi = _mm256_permute_pd(w, 0xF);
  return _mm256_fmaddsub_pd(x, wr, _mm256_mul_pd(_mm256_permute_pd(x, 0x5), wi));
}

/* one fused radix-2^2 DIF stage (hh, hh / 2), two k per vector (q >= 2) */
__attribute__((target("avx2,fma"))) static void dif_pair_avx2(double *z, int L, int hh,
                                                              const double *tw,
                                                              const double *tw3) {
  int q = hh >> 1;
  const double *w1 = tw + 2 * (hh - 1), *w2 = tw + 2 * (q - 1), *w3 = tw3 + 2 * (hh - 1);
  const __m256d neg_odd = _mm256_set_pd(-0.0, 0.0, -0.0, 0.0);
  for (int i = 0; i < L; i += 2 * hh) {
    double *p0 = z + 2 * i, *p1 = p0 + 2 * q, *p2 = p0 + 2 * hh, *p3 = p2 + 2 * q;
    for (int k = 0; k < q; k += 2) {
      __m256d x0 = _mm256_loadu_pd(p0 + 2 * k), x1 = _mm256_loadu_pd(p1 + 2 * k);
      __m256d x2 = _mm256_loadu_pd(p2 + 2 * k), x3 = _mm256_loadu_pd(p3 + 2 * k);
      __m256d y0 = _mm256_add_pd(x0, x2), y1 = _mm256_add_pd(x1, x3);
      __m256d d0 = _mm256_sub_pd(x0, x2);
      /* -i (x1 - x3): (re, im) -> (im, -re) */
      __m256d d1 = _mm256_xor_pd(_mm256_permute_pd(_mm256_sub_pd(x1, x3), 0x5), neg_odd);
      _mm256_storeu_pd(p0 + 2 * k, _mm256_add_pd(y0, y1));
      _mm256_storeu_pd(p1 + 2 * k, cmul2(_mm256_sub_pd(y0, y1), _mm256_loadu_pd(w2 + 2 * k)));
      _mm256_storeu_pd(p2 + 2 * k, cmul2(_mm256_add_pd(d0, d1), _mm256_loadu_pd(w1 + 2 * k)));
      _mm256_storeu_pd(p3 + 2 * k, cmul2(_mm256_sub_pd(d0, d1), _mm256_loadu_pd(w3 + 2 * k)));
    }
  }
}
#endif

void bnn_fft_dif_padded(double *z, int L, const double *tw, const double *tw3,
                        const double *a, const double *b, int n, int avx2) {
  int hh = L >> 1, q = hh >> 1;
  const double *w1 = tw + 2 * (hh - 1), *w2 = tw + 2 * (q - 1), *w3 = tw3 + 2 * (hh - 1);
  /* first two stages: x2 = x3 = 0; x0 = (a, b)[k] for k < n, x1 = (a,
   * b)[k + q] for k + q < n (n <= L / 2 = 2q) */
  for (int k = 0; k < q; k++) {
    int v0 = k < n, v1 = k + q < n;
    double x0r = v0 ? a[k] : 0.0, x0i = (b && v0) ? b[k] : 0.0;
    double x1r = v1 ? a[k + q] : 0.0, x1i = (b && v1) ? b[k + q] : 0.0;
    z[2 * k] = x0r + x1r;
    z[2 * k + 1] = x0i + x1i;
    CMUL(x0r - x1r, x0i - x1i, w2[2 * k], w2[2 * k + 1], z[2 * (k + q)], z[2 * (k + q) + 1]);
    /* (x0 - i x1) w1 and (x0 + i x1) w3 */
    CMUL(x0r + x1i, x0i - x1r, w1[2 * k], w1[2 * k + 1], z[2 * (k + hh)], z[2 * (k + hh) + 1]);
    CMUL(x0r - x1i, x0i + x1r, w3[2 * k], w3[2 * k + 1], z[2 * (k + hh + q)],
         z[2 * (k + hh + q) + 1]);
  }
  for (hh = L >> 3; hh >= 2; hh >>= 2) {
#ifdef BNN_HAVE_AVX2_ROUTINES
    if (avx2 && hh >= 4) {
      dif_pair_avx2(z, L, hh, tw, tw3);
      continue;
    }
#else
    (void) avx2;
#endif
    q = hh >> 1;
    w1 = tw + 2 * (hh - 1);
    w2 = tw + 2 * (q - 1);
    w3 = tw3 + 2 * (hh - 1);
    for (int i = 0; i < L; i += 2 * hh) {
      double *p0 = z + 2 * i, *p1 = p0 + 2 * q, *p2 = p0 + 2 * hh, *p3 = p2 + 2 * q;
      for (int k = 0; k < q; k++) {
        double x0r = p0[2 * k], x0i = p0[2 * k + 1], x1r = p1[2 * k], x1i = p1[2 * k + 1];
        double x2r = p2[2 * k], x2i = p2[2 * k + 1], x3r = p3[2 * k], x3i = p3[2 * k + 1];
        double y0r = x0r + x2r, y0i = x0i + x2i, y1r = x1r + x3r, y1i = x1i + x3i;
        double d0r = x0r - x2r, d0i = x0i - x2i;
        double d1r = x1i - x3i, d1i = x3r - x1r; /* -i (x1 - x3) */
        p0[2 * k] = y0r + y1r;
        p0[2 * k + 1] = y0i + y1i;
        CMUL(y0r - y1r, y0i - y1i, w2[2 * k], w2[2 * k + 1], p1[2 * k], p1[2 * k + 1]);
        CMUL(d0r + d1r, d0i + d1i, w1[2 * k], w1[2 * k + 1], p2[2 * k], p2[2 * k + 1]);
        CMUL(d0r - d1r, d0i - d1i, w3[2 * k], w3[2 * k + 1], p3[2 * k], p3[2 * k + 1]);
      }
    }
  }
  if (hh == 1) /* last radix-2 stage, twiddle 1 */
    for (int i = 0; i < 2 * L; i += 4) {
      double ar = z[i], ai = z[i + 1], br = z[i + 2], bi = z[i + 3];
      z[i] = ar + br;
      z[i + 1] = ai + bi;
      z[i + 2] = ar - br;
      z[i + 3] = ai - bi;
    }
}

/* ---------- DIT transform ---------- */

/* The data are split (separate real and imaginary arrays): written so, the
 * butterfly is plain element-wise arithmetic for a vectorising compiler,
 * which could otherwise turn an interleaved complex product into fused
 * multiply-adds (GCC does, with -march=native, even under
 * -ffp-contract=off) and change the last bits of MCLMC's tuning. */

#ifdef BNN_HAVE_AVX2_ROUTINES
/* the forward DIT stages of half-length hh = 2 (two k per vector) and
 * hh >= 4 (four k per vector); b = q * w is rounded as
 * (fma(qr, wr, -(qi wi)), fma(qi, wr, qr wi)) */
__attribute__((target("avx2,fma"))) static void dit_stage2_avx2(double *re, double *im,
                                                                int L, const double *tw) {
  const double *w = tw + 2; /* hh = 2: offset hh - 1 = 1 */
  __m128d wr = _mm_set_pd(w[2], w[0]), wi = _mm_set_pd(w[3], w[1]);
  for (int i = 0; i < L; i += 4) {
    __m128d qr = _mm_loadu_pd(re + i + 2), qi = _mm_loadu_pd(im + i + 2);
    __m128d br = _mm_fmsub_pd(qr, wr, _mm_mul_pd(qi, wi));
    __m128d bi = _mm_fmadd_pd(qi, wr, _mm_mul_pd(qr, wi));
    __m128d ar = _mm_loadu_pd(re + i), ai = _mm_loadu_pd(im + i);
    _mm_storeu_pd(re + i, _mm_add_pd(ar, br));
    _mm_storeu_pd(im + i, _mm_add_pd(ai, bi));
    _mm_storeu_pd(re + i + 2, _mm_sub_pd(ar, br));
    _mm_storeu_pd(im + i + 2, _mm_sub_pd(ai, bi));
  }
}

__attribute__((target("avx2,fma"))) static void dit_stage_avx2(double *re, double *im,
                                                               int L, int hh,
                                                               const double *tw) {
  const double *w = tw + 2 * (hh - 1);
  for (int i = 0; i < L; i += 2 * hh) {
    double *pr = re + i, *pi = im + i, *qr_ = pr + hh, *qi_ = pi + hh;
    for (int k = 0; k < hh; k += 4) {
      /* de-interleave four twiddles */
      __m256d w01 = _mm256_loadu_pd(w + 2 * k), w23 = _mm256_loadu_pd(w + 2 * k + 4);
      __m256d wr = _mm256_permute4x64_pd(_mm256_unpacklo_pd(w01, w23), 0xD8);
      __m256d wi = _mm256_permute4x64_pd(_mm256_unpackhi_pd(w01, w23), 0xD8);
      __m256d qr = _mm256_loadu_pd(qr_ + k), qi = _mm256_loadu_pd(qi_ + k);
      __m256d br = _mm256_fmsub_pd(qr, wr, _mm256_mul_pd(qi, wi));
      __m256d bi = _mm256_fmadd_pd(qi, wr, _mm256_mul_pd(qr, wi));
      __m256d ar = _mm256_loadu_pd(pr + k), ai = _mm256_loadu_pd(pi + k);
      _mm256_storeu_pd(pr + k, _mm256_add_pd(ar, br));
      _mm256_storeu_pd(pi + k, _mm256_add_pd(ai, bi));
      _mm256_storeu_pd(qr_ + k, _mm256_sub_pd(ar, br));
      _mm256_storeu_pd(qi_ + k, _mm256_sub_pd(ai, bi));
    }
  }
}
#endif

void bnn_fft_dit(double *re, double *im, int L, const double *tw, int inverse,
                 int avx2) {
  /* the inverse uses the conjugate twiddles: -1 * wi is exact */
  double sgn = inverse ? -1.0 : 1.0;
  for (int len = 2; len <= L; len <<= 1) {
    int half = len >> 1;
#ifdef BNN_HAVE_AVX2_ROUTINES
    if (avx2 && !inverse && half >= 2) {
      if (half == 2) dit_stage2_avx2(re, im, L, tw);
      else dit_stage_avx2(re, im, L, half, tw);
      continue;
    }
#else
    (void) avx2;
#endif
    const double *w = tw + 2 * (half - 1);
    for (int i = 0; i < L; i += len) {
      for (int q = 0; q < half; q++) {
        double wr = w[2 * q], wi = sgn * w[2 * q + 1];
        int a = i + q, bb = a + half;
        double tr = re[bb] * wr - im[bb] * wi;
        double ti = re[bb] * wi + im[bb] * wr;
        re[bb] = re[a] - tr;
        im[bb] = im[a] - ti;
        re[a] += tr;
        im[a] += ti;
      }
    }
  }
}

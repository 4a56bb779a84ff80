/* AVX-512 routines (F, DQ, VL), compiled for that instruction set by a target
 * pragma and used only when the CPU and the operating system support it
 * (see simd.c).
 *
 * What differs from the AVX2 routines:
 *  - exp and tanh use a 16-entry table of 2^(j/16), looked up with one
 *    two-register permute, so the polynomial is of degree 7 on
 *    |r| <= ln2/32 instead of degree 13 on |r| <= ln2/2; scalef applies the
 *    power of two, which keeps NaN a NaN;
 *  - tanh is computed from expm1(-2|x|) as -em1 / (2 + em1), accurate to a
 *    few ulp relative to the result for every x, tiny ones included;
 *  - the dense products work on 16 rows (two registers) at a time and
 *    handle the last rows with masked loads and stores. */
#include <stddef.h>
#include "simd.h"
#include "sg_update.h"

#ifdef BNNMC_HAVE_AVX512_ROUTINES
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx512f,avx512dq,avx512vl,avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx512f,avx512dq,avx512vl,avx2,fma")
#pragma GCC optimize("O3", "no-trapping-math")
#endif
#include <immintrin.h>

#define KSUF(name) name##_avx512v
#include "vmath_impl.h"
#include "prior_impl.h"
#include "sg_update_impl.h"
#define KF32_DENSE_OWN 1   /* dense_f32, grad_w_f32, tanh_f32: intrinsics below */
#define KF32_TANH_OWN 1
#include "simd_f32_impl.h"

/* 2^(j/16), j = 0..15, correctly rounded */
static const double exp2_16[16] = {
  0x1.0000000000000p+0, 0x1.0b5586cf9890fp+0, 0x1.172b83c7d517bp+0,
  0x1.2387a6e756238p+0, 0x1.306fe0a31b715p+0, 0x1.3dea64c123422p+0,
  0x1.4bfdad5362a27p+0, 0x1.5ab07dd485429p+0, 0x1.6a09e667f3bcdp+0,
  0x1.7a11473eb0187p+0, 0x1.8ace5422aa0dbp+0, 0x1.9c49182a3f090p+0,
  0x1.ae89f995ad3adp+0, 0x1.c199bdd85529cp+0, 0x1.d5818dcfba487p+0,
  0x1.ea4afa2a490dap+0};
/* 2^(j/16) minus its rounded value above */
static const double exp2_16_lo[16] = {
  0x0.0p+0, 0x1.8a62e4adc610bp-54, -0x1.19041b9d78a76p-55,
  0x1.9b07eb6c70573p-54, 0x1.6f46ad23182e4p-55, 0x1.ada0911f09ebcp-55,
  0x1.d4397afec42e2p-56, 0x1.6324c054647adp-54, -0x1.bdd3413b26456p-54,
  -0x1.41577ee04992fp-55, 0x1.6e9f156864b27p-54, 0x1.c7c46b071f2bep-56,
  0x1.7a1cd345dcc81p-54, 0x1.11065895048ddp-55, 0x1.2ed02d75b3707p-55,
  -0x1.e9c23179c2893p-54};

/* x = (16 m + j) ln2/16 + r, |r| <= ln2/32.  Returns s = 2^(m + j/16) and
 * p = exp(r) - 1 (degree-7 Taylor polynomial; truncation < 2e-18
 * relative), so exp(x) = s (1 + p) and expm1(x) = s p + (s - 1) + slo,
 * where slo = 2^m times the rounding error of the table entry (computed
 * when lo_tab, the two registers holding exp2_16_lo, is given).  x must be
 * clamped to [-708, 709] by the caller (NaN passes through as NaN). */
static inline __attribute__((always_inline)) void exp_parts(__m512d x, __m512d tlo, __m512d thi, __m512d *s,
                             __m512d *p, const __m512d *lo_tab, __m512d *slo) {
  const __m512d shifter = _mm512_set1_pd(6755399441055744.0); /* 1.5 2^52 */
  const __m512d inv = _mm512_set1_pd(23.083120654223414);    /* 16 / ln2 */
  const __m512d hi = _mm512_set1_pd(0x1.62e42f0000000p-5);
  const __m512d lo = _mm512_set1_pd(0x1.df473de6af279p-30);
  __m512d t = _mm512_fmadd_pd(x, inv, shifter);
  __m512d k = _mm512_sub_pd(t, shifter);                       /* round(x 16/ln2) */
  __m512d r = _mm512_fnmadd_pd(k, hi, x);
  r = _mm512_fnmadd_pd(k, lo, r);
  /* the low 4 bits of t's mantissa are k mod 16: the table index */
  __m512d tj = _mm512_permutex2var_pd(tlo, _mm512_castpd_si512(t), thi);
  __m512d m = _mm512_roundscale_pd(_mm512_mul_pd(k, _mm512_set1_pd(0.0625)),
                                   _MM_FROUND_TO_NEG_INF | _MM_FROUND_NO_EXC);
  __m512d q = _mm512_set1_pd(1.0 / 5040.0);
  q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(1.0 / 720.0));
  q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(1.0 / 120.0));
  q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(1.0 / 24.0));
  q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(1.0 / 6.0));
  q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(0.5));
  q = _mm512_fmadd_pd(q, r, _mm512_set1_pd(1.0));
  *p = _mm512_mul_pd(q, r);
  *s = _mm512_scalef_pd(tj, m);
  if (lo_tab) {
    __m512d l = _mm512_permutex2var_pd(lo_tab[0], _mm512_castpd_si512(t), lo_tab[1]);
    *slo = _mm512_scalef_pd(l, m);
  }
}

static void vexp_avx512(const double *x, double *out, int n) {
  const __m512d tlo = _mm512_loadu_pd(exp2_16), thi = _mm512_loadu_pd(exp2_16 + 8);
  const __m512d lo = _mm512_set1_pd(-708.0), hi = _mm512_set1_pd(709.0);
  for (int i = 0; i < n; i += 8) {
    __mmask8 mk = n - i >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << (n - i)) - 1u);
    __m512d v = _mm512_maskz_loadu_pd(mk, x + i);
    v = _mm512_min_pd(hi, _mm512_max_pd(lo, v)); /* NaN stays NaN */
    __m512d s, p;
    exp_parts(v, tlo, thi, &s, &p, NULL, NULL);
    _mm512_mask_storeu_pd(out + i, mk, _mm512_fmadd_pd(s, p, s));
  }
}

/* tanh(x) = sign(x) * (-e) / (2 + e), e = expm1(-2|x|) in (-1, 0]; |x| is
 * capped at 20, beyond which tanh is 1 in double precision. */
static void vtanh_avx512(const double *x, double *out, int n) {
  const __m512d tlo = _mm512_loadu_pd(exp2_16), thi = _mm512_loadu_pd(exp2_16 + 8);
  const __m512d cap = _mm512_set1_pd(40.0), one = _mm512_set1_pd(1.0);
  const __m512d two = _mm512_set1_pd(2.0);
  const __m512i sign = _mm512_set1_epi64((long long)0x8000000000000000ULL);
  const __m512d lo_tab[2] = {_mm512_loadu_pd(exp2_16_lo), _mm512_loadu_pd(exp2_16_lo + 8)};
  for (int i = 0; i < n; i += 8) {
    __mmask8 mk = n - i >= 8 ? (__mmask8)0xFF : (__mmask8)((1u << (n - i)) - 1u);
    __m512d v = _mm512_maskz_loadu_pd(mk, x + i);
    __m512i vb = _mm512_castpd_si512(v);
    __m512d ax2 = _mm512_castsi512_pd(_mm512_andnot_si512(sign, vb));
    ax2 = _mm512_add_pd(ax2, ax2);
    ax2 = _mm512_min_pd(cap, ax2); /* NaN stays NaN */
    __m512d s, p, sl;
    exp_parts(_mm512_sub_pd(_mm512_setzero_pd(), ax2), tlo, thi, &s, &p, lo_tab, &sl);
    /* the low part of the table entry matters where s - 1 cancels */
    __m512d em1 = _mm512_add_pd(_mm512_fmadd_pd(s, p, _mm512_sub_pd(s, one)), sl);
    __m512d t = _mm512_div_pd(_mm512_sub_pd(_mm512_setzero_pd(), em1),
                              _mm512_add_pd(two, em1));
    t = _mm512_castsi512_pd(_mm512_or_si512(_mm512_castpd_si512(t),
                                            _mm512_and_si512(sign, vb)));
    _mm512_mask_storeu_pd(out + i, mk, t);
  }
}

static void act_forward_avx512(int act, const double *z, double *a, int n) {
  if (act == 0)
    vtanh_avx512(z, a, n);
  else
    act_forward_avx512v(act, z, a, n);
}

static inline __mmask8 tail_mask(int left) {
  return left >= 8 ? (__mmask8)0xFF : left <= 0 ? (__mmask8)0
                                                : (__mmask8)((1u << left) - 1u);
}

/* z[j*ldz + i] = b[j] + sum_k a[k*lda + i] W[k*wk + j*wj] for rows
 * i0 .. i0+15 (masks m0, m1) and NJ outputs starting at j. */
#define DENSE_BLOCK(NJ)                                                        \
  static inline __attribute__((always_inline)) void dense_block##NJ(const double *a, int lda, int i0,        \
                                     __mmask8 m0, __mmask8 m1, int fin,        \
                                     const double *W, int wk, int wj,          \
                                     const double *b, int j, double *z,        \
                                     int ldz) {                                \
    __m512d c0[NJ], c1[NJ];                                                    \
    _Pragma("GCC unroll 8") for (int q = 0; q < NJ; q++)                       \
      c0[q] = c1[q] = _mm512_set1_pd(b ? b[j + q] : 0.0);                      \
    const double *w = W + (size_t)j * wj;                                      \
    for (int k = 0; k < fin; k++) {                                            \
      const double *ak = a + (size_t)k * lda + i0;                             \
      __m512d x0 = _mm512_maskz_loadu_pd(m0, ak);                              \
      __m512d x1 = _mm512_maskz_loadu_pd(m1, ak + 8);                          \
      const double *wkp = w + (size_t)k * wk;                                  \
      _Pragma("GCC unroll 8") for (int q = 0; q < NJ; q++) {                   \
        __m512d wq = _mm512_set1_pd(wkp[(size_t)q * wj]);                      \
        c0[q] = _mm512_fmadd_pd(wq, x0, c0[q]);                                \
        c1[q] = _mm512_fmadd_pd(wq, x1, c1[q]);                                \
      }                                                                        \
    }                                                                          \
    _Pragma("GCC unroll 8") for (int q = 0; q < NJ; q++) {                     \
      double *zq = z + (size_t)(j + q) * ldz + i0;                             \
      _mm512_mask_storeu_pd(zq, m0, c0[q]);                                    \
      _mm512_mask_storeu_pd(zq + 8, m1, c1[q]);                                \
    }                                                                          \
  }
DENSE_BLOCK(8)
DENSE_BLOCK(4)
DENSE_BLOCK(2)
DENSE_BLOCK(1)

static void dense_avx512(const double *a, int lda, int m, int fin, int fout,
                         const double *W, int wk, int wj, const double *b,
                         double *z, int ldz) {
  for (int i0 = 0; i0 < m; i0 += 16) {
    __mmask8 m0 = tail_mask(m - i0), m1 = tail_mask(m - i0 - 8);
    int j = 0;
    for (; j + 8 <= fout; j += 8) dense_block8(a, lda, i0, m0, m1, fin, W, wk, wj, b, j, z, ldz);
    for (; j + 4 <= fout; j += 4) dense_block4(a, lda, i0, m0, m1, fin, W, wk, wj, b, j, z, ldz);
    for (; j + 2 <= fout; j += 2) dense_block2(a, lda, i0, m0, m1, fin, W, wk, wj, b, j, z, ldz);
    for (; j < fout; j++) dense_block1(a, lda, i0, m0, m1, fin, W, wk, wj, b, j, z, ldz);
  }
}

/* gW[k + j*fin] += sum_i a[k*lda + i] d[j*ldd + i] for NK inputs from k and
 * NJ outputs from j; rows in steps of 8 with a masked tail. */
#define GRAD_BLOCK(NK, NJ)                                                     \
  static inline __attribute__((always_inline)) void grad_block##NK##x##NJ(const double *a, int lda,          \
                                           const double *d, int ldd, int m,    \
                                           int fin, int k, int j, double *gW) { \
    __m512d s[NK][NJ];                                                         \
    _Pragma("GCC unroll 4") for (int p = 0; p < NK; p++)                                               \
      _Pragma("GCC unroll 4") for (int q = 0; q < NJ; q++) s[p][q] = _mm512_setzero_pd();              \
    for (int i = 0; i < m; i += 8) {                                           \
      __mmask8 mk = tail_mask(m - i);                                          \
      __m512d x[NK], y[NJ];                                                    \
      _Pragma("GCC unroll 4") for (int p = 0; p < NK; p++)                                             \
        x[p] = _mm512_maskz_loadu_pd(mk, a + (size_t)(k + p) * lda + i);       \
      _Pragma("GCC unroll 4") for (int q = 0; q < NJ; q++)                                             \
        y[q] = _mm512_maskz_loadu_pd(mk, d + (size_t)(j + q) * ldd + i);       \
      _Pragma("GCC unroll 4") for (int p = 0; p < NK; p++)                                             \
        _Pragma("GCC unroll 4") for (int q = 0; q < NJ; q++)                                           \
          s[p][q] = _mm512_fmadd_pd(x[p], y[q], s[p][q]);                      \
    }                                                                          \
    _Pragma("GCC unroll 4") for (int p = 0; p < NK; p++)                                               \
      _Pragma("GCC unroll 4") for (int q = 0; q < NJ; q++)                                             \
        gW[k + p + (size_t)(j + q) * fin] += _mm512_reduce_add_pd(s[p][q]);    \
  }
GRAD_BLOCK(4, 4)
GRAD_BLOCK(1, 4)
GRAD_BLOCK(4, 1)
GRAD_BLOCK(1, 1)

static void grad_w_avx512(const double *a, int lda, const double *d, int ldd,
                          int m, int fin, int fout, double *gW, double *gb) {
  for (int j = 0; j < fout; j++) {
    const double *dj = d + (size_t)j * ldd;
    __m512d s = _mm512_setzero_pd();
    for (int i = 0; i < m; i += 8)
      s = _mm512_add_pd(s, _mm512_maskz_loadu_pd(tail_mask(m - i), dj + i));
    gb[j] += _mm512_reduce_add_pd(s);
  }
  int j = 0;
  for (; j + 4 <= fout; j += 4) {
    int k = 0;
    for (; k + 4 <= fin; k += 4) grad_block4x4(a, lda, d, ldd, m, fin, k, j, gW);
    for (; k < fin; k++) grad_block1x4(a, lda, d, ldd, m, fin, k, j, gW);
  }
  for (; j < fout; j++) {
    int k = 0;
    for (; k + 4 <= fin; k += 4) grad_block4x1(a, lda, d, ldd, m, fin, k, j, gW);
    for (; k < fin; k++) grad_block1x1(a, lda, d, ldd, m, fin, k, j, gW);
  }
}

/* ---- single precision: 16 float lanes, the same blocking as above on 32
 * rows (two registers) at a time ---- */
static inline __mmask16 tail_mask16(int left) {
  return left >= 16 ? (__mmask16)0xFFFF : left <= 0 ? (__mmask16)0
                                                    : (__mmask16)((1u << left) - 1u);
}

#define DENSE_BLOCK_F32(NJ)                                                    \
  static inline __attribute__((always_inline)) void dense_f32_block##NJ(       \
      const float *a, int lda, int i0, __mmask16 m0, __mmask16 m1, int fin,    \
      const float *W, int wk, int wj, const float *b, int j, float *z,         \
      int ldz) {                                                               \
    __m512 c0[NJ], c1[NJ];                                                     \
    _Pragma("GCC unroll 8") for (int q = 0; q < NJ; q++)                       \
      c0[q] = c1[q] = _mm512_set1_ps(b ? b[j + q] : 0.0f);                     \
    const float *w = W + (size_t)j * wj;                                       \
    for (int k = 0; k < fin; k++) {                                            \
      const float *ak = a + (size_t)k * lda + i0;                              \
      __m512 x0 = _mm512_maskz_loadu_ps(m0, ak);                               \
      __m512 x1 = _mm512_maskz_loadu_ps(m1, ak + 16);                          \
      const float *wkp = w + (size_t)k * wk;                                   \
      _Pragma("GCC unroll 8") for (int q = 0; q < NJ; q++) {                   \
        __m512 wq = _mm512_set1_ps(wkp[(size_t)q * wj]);                       \
        c0[q] = _mm512_fmadd_ps(wq, x0, c0[q]);                                \
        c1[q] = _mm512_fmadd_ps(wq, x1, c1[q]);                                \
      }                                                                        \
    }                                                                          \
    _Pragma("GCC unroll 8") for (int q = 0; q < NJ; q++) {                     \
      float *zq = z + (size_t)(j + q) * ldz + i0;                              \
      _mm512_mask_storeu_ps(zq, m0, c0[q]);                                    \
      _mm512_mask_storeu_ps(zq + 16, m1, c1[q]);                               \
    }                                                                          \
  }
DENSE_BLOCK_F32(8)
DENSE_BLOCK_F32(4)
DENSE_BLOCK_F32(2)
DENSE_BLOCK_F32(1)

static void dense_f32_avx512v(const float *a, int lda, int m, int fin, int fout,
                              const float *W, int wk, int wj, const float *b,
                              float *z, int ldz) {
  for (int i0 = 0; i0 < m; i0 += 32) {
    __mmask16 m0 = tail_mask16(m - i0), m1 = tail_mask16(m - i0 - 16);
    int j = 0;
    for (; j + 8 <= fout; j += 8) dense_f32_block8(a, lda, i0, m0, m1, fin, W, wk, wj, b, j, z, ldz);
    for (; j + 4 <= fout; j += 4) dense_f32_block4(a, lda, i0, m0, m1, fin, W, wk, wj, b, j, z, ldz);
    for (; j + 2 <= fout; j += 2) dense_f32_block2(a, lda, i0, m0, m1, fin, W, wk, wj, b, j, z, ldz);
    for (; j < fout; j++) dense_f32_block1(a, lda, i0, m0, m1, fin, W, wk, wj, b, j, z, ldz);
  }
}

#define GRAD_BLOCK_F32(NK, NJ)                                                 \
  static inline __attribute__((always_inline)) void grad_f32_block##NK##x##NJ( \
      const float *a, int lda, const float *d, int ldd, int m, int fin, int k, \
      int j, double *gW) {                                                     \
    __m512 s[NK][NJ];                                                          \
    _Pragma("GCC unroll 4") for (int p = 0; p < NK; p++)                       \
      _Pragma("GCC unroll 4") for (int q = 0; q < NJ; q++) s[p][q] = _mm512_setzero_ps(); \
    for (int i = 0; i < m; i += 16) {                                          \
      __mmask16 mk = tail_mask16(m - i);                                       \
      __m512 x[NK], y[NJ];                                                     \
      _Pragma("GCC unroll 4") for (int p = 0; p < NK; p++)                     \
        x[p] = _mm512_maskz_loadu_ps(mk, a + (size_t)(k + p) * lda + i);       \
      _Pragma("GCC unroll 4") for (int q = 0; q < NJ; q++)                     \
        y[q] = _mm512_maskz_loadu_ps(mk, d + (size_t)(j + q) * ldd + i);       \
      _Pragma("GCC unroll 4") for (int p = 0; p < NK; p++)                     \
        _Pragma("GCC unroll 4") for (int q = 0; q < NJ; q++)                   \
          s[p][q] = _mm512_fmadd_ps(x[p], y[q], s[p][q]);                      \
    }                                                                          \
    _Pragma("GCC unroll 4") for (int p = 0; p < NK; p++)                       \
      _Pragma("GCC unroll 4") for (int q = 0; q < NJ; q++)                     \
        gW[k + p + (size_t)(j + q) * fin] += (double)_mm512_reduce_add_ps(s[p][q]); \
  }
GRAD_BLOCK_F32(4, 4)
GRAD_BLOCK_F32(1, 4)
GRAD_BLOCK_F32(4, 1)
GRAD_BLOCK_F32(1, 1)

static void grad_w_f32_avx512v(const float *a, int lda, const float *d, int ldd,
                               int m, int fin, int fout, double *gW, double *gb) {
  for (int j = 0; j < fout; j++) {
    const float *dj = d + (size_t)j * ldd;
    __m512 s = _mm512_setzero_ps();
    for (int i = 0; i < m; i += 16)
      s = _mm512_add_ps(s, _mm512_maskz_loadu_ps(tail_mask16(m - i), dj + i));
    gb[j] += (double)_mm512_reduce_add_ps(s);
  }
  int j = 0;
  for (; j + 4 <= fout; j += 4) {
    int k = 0;
    for (; k + 4 <= fin; k += 4) grad_f32_block4x4(a, lda, d, ldd, m, fin, k, j, gW);
    for (; k < fin; k++) grad_f32_block1x4(a, lda, d, ldd, m, fin, k, j, gW);
  }
  for (; j < fout; j++) {
    int k = 0;
    for (; k + 4 <= fin; k += 4) grad_f32_block4x1(a, lda, d, ldd, m, fin, k, j, gW);
    for (; k < fin; k++) grad_f32_block1x1(a, lda, d, ldd, m, fin, k, j, gW);
  }
}

/* tanh in float, the rational approximation of simd_f32_impl.h at 16
 * lanes, with the division replaced by rcp14 and one Newton step (relative
 * error about 2^-23, like the division's); |x| < 4e-4 gives x, NaN stays
 * NaN (min/max return their second operand for NaN: the clamp keeps x's). */
static void tanh_f32_avx512v(const float *x, float *out, int n) {
  const __m512 lo = _mm512_set1_ps(-BNN_TANH_F32_CLAMP), hi = _mm512_set1_ps(BNN_TANH_F32_CLAMP);
  const __m512 small = _mm512_set1_ps(BNN_TANH_F32_SMALL), two = _mm512_set1_ps(2.0f);
  const __m512i absm = _mm512_set1_epi32(0x7fffffff);
  for (int i = 0; i < n; i += 16) {
    __mmask16 mk = tail_mask16(n - i);
    __m512 v = _mm512_maskz_loadu_ps(mk, x + i);
    __m512 c = _mm512_min_ps(hi, _mm512_max_ps(lo, v));
    __m512 x2 = _mm512_mul_ps(c, c);
    __m512 p = _mm512_set1_ps(BNN_TANH_F32_P6);
    p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(BNN_TANH_F32_P5));
    p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(BNN_TANH_F32_P4));
    p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(BNN_TANH_F32_P3));
    p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(BNN_TANH_F32_P2));
    p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(BNN_TANH_F32_P1));
    p = _mm512_fmadd_ps(p, x2, _mm512_set1_ps(BNN_TANH_F32_P0));
    p = _mm512_mul_ps(p, c);
    __m512 q = _mm512_set1_ps(BNN_TANH_F32_Q3);
    q = _mm512_fmadd_ps(q, x2, _mm512_set1_ps(BNN_TANH_F32_Q2));
    q = _mm512_fmadd_ps(q, x2, _mm512_set1_ps(BNN_TANH_F32_Q1));
    q = _mm512_fmadd_ps(q, x2, _mm512_set1_ps(BNN_TANH_F32_Q0));
    __m512 r = _mm512_rcp14_ps(q);
    r = _mm512_mul_ps(r, _mm512_fnmadd_ps(q, r, two));
    __m512 t = _mm512_mul_ps(p, r);
    __m512 av = _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(v), absm));
    __mmask16 tiny = _mm512_cmp_ps_mask(av, small, _CMP_LT_OQ);
    t = _mm512_mask_blend_ps(tiny, t, v);
    _mm512_mask_storeu_ps(out + i, mk, t);
  }
}

const bnn_simd_table bnn_simd_avx512 = {
  "avx512", vexp_avx512, vtanh_avx512, vsigmoid_avx512v, vlog1p_avx512v,
  act_forward_avx512, act_backward_avx512v, dense_avx512, grad_w_avx512, KSUF(prior_normal), KSUF(prior_normal_u),
  dense_f32_avx512v, grad_w_f32_avx512v, tanh_f32_avx512v,
  KSUF(relu_f32), KSUF(act_backward_f32)};

const bnn_sg_updates bnn_sg_updates_avx512 = {
  "avx512", KSUF(sgld_update), KSUF(sghmc_update)};

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#else
/* not x86-64: nothing to compile here */
typedef int bnnmc_no_avx512_routines;
#endif

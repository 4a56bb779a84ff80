/* AVX2 + FMA routines, compiled for that instruction set by a target pragma
 * and used only when the CPU reports both (see simd.c). */
#include <stddef.h>
#include "simd.h"
#include "sg_update.h"

#ifdef BNNMC_HAVE_AVX2_ROUTINES
#if defined(__clang__)
#pragma clang attribute push(__attribute__((target("avx2,fma"))), apply_to = function)
#else
#pragma GCC push_options
#pragma GCC target("avx2,fma")
#pragma GCC optimize("O3", "no-trapping-math")
#endif
#include <immintrin.h>

#define KSUF(name) name##_avx2
#include "vmath_impl.h"
#include "prior_impl.h"
#include "sg_update_impl.h"
#define KF32_DENSE_OWN 1   /* dense_f32, grad_w_f32, tanh_f32, act_backward_f32: */
#define KF32_TANH_OWN 1    /* intrinsics below */
#define KF32_ACT_BACKWARD_OWN 1
#include "simd_f32_impl.h"

/* Lanes q < r of a mask for _mm256_maskload_ps / _mm256_maskstore_ps (none
 * when r <= 0). */
static inline __m256i tail_mask_f32(int r) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(r), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* One block of the dense layer below: NR vectors of 8 rows (from row i0)
 * x NJ outputs j..j+NJ-1 (w = W + j wj, bj their biases) in NR NJ
 * accumulators, each z = b + A W fused in the order of k.  With MASKED,
 * vector r reads and writes only the lanes of mk[r]: a masked lane reads 0
 * and is never stored (a vector wholly past the rows has an empty mask).
 * Only the vector with the last row is stored masked (rem rows from i0):
 * a masked store is many times slower than a plain one on AMD's cores.
 * Inlined with constant NR, NJ and MASKED, the loops unroll and the
 * accumulators stay in registers. */
#define DENSE_F32_BLOCK(NR, NJ, MASKED)                                          \
  static inline __attribute__((always_inline)) void                              \
  dense_f32_block##NR##x##NJ##_##MASKED(const float *a, int lda, int i0, int fin, \
                                        const float *w, int wk, int wj,          \
                                        const float *bj, float *z, int ldz,      \
                                        const __m256i *mk, int rem) {            \
    __m256 c[NR][NJ];                                                            \
    _Pragma("GCC unroll 12") for (int q = 0; q < NJ; q++) {                      \
      __m256 bq = _mm256_set1_ps(bj[q]);                                         \
      _Pragma("GCC unroll 12") for (int r = 0; r < NR; r++) c[r][q] = bq;        \
    }                                                                            \
    for (int k = 0; k < fin; k++) {                                              \
      const float *ak = a + (size_t)k * lda + i0;                                \
      const float *wkp = w + (size_t)k * wk;                                     \
      __m256 x[NR];                                                              \
      _Pragma("GCC unroll 12") for (int r = 0; r < NR; r++)                      \
        x[r] = MASKED ? _mm256_maskload_ps(ak + 8 * r, mk[r])                    \
                      : _mm256_loadu_ps(ak + 8 * r);                             \
      _Pragma("GCC unroll 12") for (int q = 0; q < NJ; q++) {                    \
        __m256 wq = _mm256_broadcast_ss(wkp + (size_t)q * wj);                   \
        _Pragma("GCC unroll 12") for (int r = 0; r < NR; r++)                    \
          c[r][q] = _mm256_fmadd_ps(wq, x[r], c[r][q]);                          \
      }                                                                          \
    }                                                                            \
    _Pragma("GCC unroll 12") for (int q = 0; q < NJ; q++) {                      \
      float *zq = z + (size_t)q * ldz + i0;                                      \
      _Pragma("GCC unroll 12") for (int r = 0; r < NR; r++) {                    \
        if (!MASKED || rem >= 8 * r + 8) _mm256_storeu_ps(zq + 8 * r, c[r][q]);  \
        else if (rem > 8 * r) _mm256_maskstore_ps(zq + 8 * r, mk[r], c[r][q]);   \
      }                                                                          \
    }                                                                            \
  }
DENSE_F32_BLOCK(3, 4, 0)
DENSE_F32_BLOCK(3, 4, 1)
DENSE_F32_BLOCK(4, 3, 0)
DENSE_F32_BLOCK(4, 3, 1)
DENSE_F32_BLOCK(6, 2, 0)
DENSE_F32_BLOCK(6, 2, 1)
DENSE_F32_BLOCK(8, 1, 0)
DENSE_F32_BLOCK(8, 1, 1)

/* Outputs j..j+NJ-1 of the dense layer, all m rows: blocks of NR vectors,
 * then the rows left (fewer than 8 NR) in one masked block. */
#define DENSE_F32_COLS(NR, NJ)                                                   \
  static inline __attribute__((always_inline)) void                              \
  dense_f32_cols##NJ(const float *a, int lda, int m, int fin, const float *W,    \
                     int wk, int wj, const float *b, int j, float *z, int ldz) { \
    const float *w = W + (size_t)j * wj;                                         \
    float bj[NJ];                                                                \
    for (int q = 0; q < NJ; q++) bj[q] = b ? b[j + q] : 0.0f;                    \
    float *zj = z + (size_t)j * ldz;                                             \
    int mb = m - m % (8 * NR), i0 = 0;                                           \
    for (; i0 < mb; i0 += 8 * NR)                                                \
      dense_f32_block##NR##x##NJ##_0(a, lda, i0, fin, w, wk, wj, bj, zj, ldz, NULL, 0); \
    if (mb < m) {                                                                \
      __m256i mk[NR];                                                            \
      for (int r = 0; r < NR; r++) mk[r] = tail_mask_f32(m - mb - 8 * r);        \
      dense_f32_block##NR##x##NJ##_1(a, lda, mb, fin, w, wk, wj, bj, zj, ldz, mk, m - mb); \
    }                                                                            \
  }
DENSE_F32_COLS(3, 4)
DENSE_F32_COLS(4, 3)
DENSE_F32_COLS(6, 2)
DENSE_F32_COLS(8, 1)

/* Single-precision dense layer, z = b + A W, register-blocked: 24 rows
 * (three vectors of 8 floats) x 4 outputs in 12 accumulators, so each
 * load of A serves 4 outputs, each broadcast weight 3 vectors, z is
 * written once and the two FMA pipes always have an independent
 * accumulator ready (8 accumulators left them waiting on the FMA latency
 * part of the time); the outputs left over (fout mod 4) in blocks of as
 * many rows (4 x 3, 6 x 2, 8 x 1 vectors), not one accumulator at a time;
 * the last rows of each in one masked block.  Every z[i] is b + w_0 a_0 +
 * w_1 a_1 + ... fused in the order of k, exactly as the plain loop of
 * simd_f32_impl.h computes it: the blocking changes the speed, not the
 * numbers. */
static void dense_f32_avx2(const float *a, int lda, int m, int fin, int fout,
                           const float *W, int wk, int wj, const float *b,
                           float *z, int ldz) {
  int j = 0;
  for (; j + 4 <= fout; j += 4) dense_f32_cols4(a, lda, m, fin, W, wk, wj, b, j, z, ldz);
  switch (fout - j) {
  case 3: dense_f32_cols3(a, lda, m, fin, W, wk, wj, b, j, z, ldz); break;
  case 2: dense_f32_cols2(a, lda, m, fin, W, wk, wj, b, j, z, ldz); break;
  case 1: dense_f32_cols1(a, lda, m, fin, W, wk, wj, b, j, z, ldz); break;
  default: break;
  }
}

/* The fixed tree ((t0 + t1) + (t2 + t3)) + ((t4 + t5) + (t6 + t7)) of the
 * 8 lanes of each of v0..v3, the four sums at once: the first hadd gives
 * the pairs (t0 + t1, t2 + t3 | t4 + t5, t6 + t7) of v0 and v1, the second
 * the quarters t0..t3 and t4..t7 of all four, the last addition the two
 * halves.  Exactly the scalar tree of simd_f32_impl.h (a + b = b + a). */
static inline __m128 lane_tree4_f32(__m256 v0, __m256 v1, __m256 v2, __m256 v3) {
  __m256 h = _mm256_hadd_ps(_mm256_hadd_ps(v0, v1), _mm256_hadd_ps(v2, v3));
  return _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1));
}

/* g[0..n-1] += the n <= 4 floats of r, each widened to double */
static inline void add_sums_f32(double *g, __m128 r, int n) {
  if (n == 4) {
    _mm256_storeu_pd(g, _mm256_add_pd(_mm256_loadu_pd(g), _mm256_cvtps_pd(r)));
  } else {
    float t[4];
    _mm_storeu_ps(t, r);
    for (int q = 0; q < n; q++) g[q] += (double)t[q];
  }
}

/* One block of grad_w_f32 below: inputs k..k+NK-1 x outputs j..j+NJ-1 in
 * NK NJ accumulators; lane q of each takes the rows i = q mod 8 below m8
 * in order (fused multiply-add), the rows from m8 on are fused into lane
 * 0 in order (the blend keeps the other lanes), and the lanes are summed
 * in the fixed tree, four inputs at a time, each sum added to gW. */
#define GRAD_F32_BLOCK(NK, NJ)                                                   \
  static inline __attribute__((always_inline)) void                              \
  grad_f32_block##NK##x##NJ(const float *a, int lda, const float *d, int ldd,    \
                            int m8, int m, int fin, int k, int j, double *gW) {  \
    __m256 s[NK][NJ];                                                            \
    _Pragma("GCC unroll 12") for (int p = 0; p < NK; p++)                        \
      _Pragma("GCC unroll 12") for (int q = 0; q < NJ; q++)                      \
        s[p][q] = _mm256_setzero_ps();                                           \
    const float *ak = a + (size_t)k * lda, *dj = d + (size_t)j * ldd;            \
    for (int i = 0; i < m8; i += 8) {                                            \
      __m256 e[NJ];                                                              \
      _Pragma("GCC unroll 12") for (int q = 0; q < NJ; q++)                      \
        e[q] = _mm256_loadu_ps(dj + (size_t)q * ldd + i);                        \
      _Pragma("GCC unroll 12") for (int p = 0; p < NK; p++) {                    \
        __m256 x = _mm256_loadu_ps(ak + (size_t)p * lda + i);                    \
        _Pragma("GCC unroll 12") for (int q = 0; q < NJ; q++)                    \
          s[p][q] = _mm256_fmadd_ps(x, e[q], s[p][q]);                           \
      }                                                                          \
    }                                                                            \
    for (int i = m8; i < m; i++) {                                               \
      _Pragma("GCC unroll 12") for (int p = 0; p < NK; p++) {                    \
        __m256 x = _mm256_set1_ps(ak[(size_t)p * lda + i]);                      \
        _Pragma("GCC unroll 12") for (int q = 0; q < NJ; q++)                    \
          s[p][q] = _mm256_blend_ps(                                             \
            s[p][q],                                                             \
            _mm256_fmadd_ps(x, _mm256_set1_ps(dj[(size_t)q * ldd + i]), s[p][q]), \
            1);                                                                  \
      }                                                                          \
    }                                                                            \
    __m256 zero = _mm256_setzero_ps();                                           \
    _Pragma("GCC unroll 12") for (int q = 0; q < NJ; q++)                        \
      _Pragma("GCC unroll 12") for (int p = 0; p < NK; p += 4) {                 \
        __m128 r = lane_tree4_f32(s[p][q], p + 1 < NK ? s[p + 1][q] : zero,      \
                                  p + 2 < NK ? s[p + 2][q] : zero,               \
                                  p + 3 < NK ? s[p + 3][q] : zero);              \
        add_sums_f32(gW + k + p + (size_t)(j + q) * fin, r, NK - p < 4 ? NK - p : 4); \
      }                                                                          \
  }
GRAD_F32_BLOCK(4, 3)
GRAD_F32_BLOCK(3, 3)
GRAD_F32_BLOCK(2, 3)
GRAD_F32_BLOCK(1, 3)
GRAD_F32_BLOCK(4, 2)
GRAD_F32_BLOCK(3, 2)
GRAD_F32_BLOCK(2, 2)
GRAD_F32_BLOCK(1, 2)
GRAD_F32_BLOCK(12, 1)
GRAD_F32_BLOCK(8, 1)
GRAD_F32_BLOCK(4, 1)
GRAD_F32_BLOCK(3, 1)
GRAD_F32_BLOCK(2, 1)
GRAD_F32_BLOCK(1, 1)

/* All inputs k for outputs j..j+NJ-1: blocks of 4 inputs (12 for a single
 * output, whose blocks would otherwise have too few accumulators), then
 * the inputs left in one narrower block. */
#define GRAD_F32_COLS(NJ, KSTEP)                                                 \
  static inline __attribute__((always_inline)) void                              \
  grad_f32_cols##NJ(const float *a, int lda, const float *d, int ldd, int m8,    \
                    int m, int fin, int j, double *gW) {                         \
    int k = 0;                                                                   \
    for (; k + KSTEP <= fin; k += KSTEP)                                         \
      grad_f32_block##KSTEP##x##NJ(a, lda, d, ldd, m8, m, fin, k, j, gW);        \
    if (KSTEP > 4 && k + 8 <= fin) {                                             \
      grad_f32_block8x1(a, lda, d, ldd, m8, m, fin, k, j, gW);                   \
      k += 8;                                                                    \
    }                                                                            \
    if (KSTEP > 4 && k + 4 <= fin) {                                             \
      grad_f32_block4x1(a, lda, d, ldd, m8, m, fin, k, j, gW);                   \
      k += 4;                                                                    \
    }                                                                            \
    switch (fin - k) {                                                           \
    case 3: grad_f32_block3x##NJ(a, lda, d, ldd, m8, m, fin, k, j, gW); break;   \
    case 2: grad_f32_block2x##NJ(a, lda, d, ldd, m8, m, fin, k, j, gW); break;   \
    case 1: grad_f32_block1x##NJ(a, lda, d, ldd, m8, m, fin, k, j, gW); break;   \
    default: break;                                                              \
    }                                                                            \
  }
GRAD_F32_COLS(3, 4)
GRAD_F32_COLS(2, 4)
GRAD_F32_COLS(1, 12)

/* gb[j..j+NJ-1] += the sums of outputs j..j+NJ-1's deltas over the m
 * rows, lanes and tree as the dot products below (plain additions). */
#define GRAD_F32_BIAS(NJ)                                                        \
  static inline __attribute__((always_inline)) void                              \
  grad_f32_bias##NJ(const float *d, int ldd, int m8, int m, int j, double *gb) { \
    __m256 s[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(), \
                   _mm256_setzero_ps()};                                         \
    const float *dj = d + (size_t)j * ldd;                                       \
    for (int i = 0; i < m8; i += 8)                                              \
      _Pragma("GCC unroll 4") for (int q = 0; q < NJ; q++)                       \
        s[q] = _mm256_add_ps(s[q], _mm256_loadu_ps(dj + (size_t)q * ldd + i));   \
    for (int i = m8; i < m; i++)                                                 \
      _Pragma("GCC unroll 4") for (int q = 0; q < NJ; q++)                       \
        s[q] = _mm256_blend_ps(                                                  \
          s[q], _mm256_add_ps(s[q], _mm256_set1_ps(dj[(size_t)q * ldd + i])), 1); \
    add_sums_f32(gb + j, lane_tree4_f32(s[0], s[1], s[2], s[3]), NJ);            \
  }
GRAD_F32_BIAS(4)
GRAD_F32_BIAS(3)
GRAD_F32_BIAS(2)
GRAD_F32_BIAS(1)

/* gW[k, j] += sum_i a[i, k] d[i, j], gb[j] += sum_i d[i, j] over the m rows
 * of one chunk: lane q of a vector of 8 partial sums takes the rows
 * i = q mod 8 in order (fused multiply-add; plain addition for gb), the
 * rows after the last multiple of 8 are added to lane 0, and the lanes are
 * summed in a fixed tree, as in simd_f32_impl.h's plain loop.  Blocks of 4
 * inputs x 3 outputs (12 accumulators: each load serves several dot
 * products and the FMA pipes never wait on an accumulator), the sums of 4
 * dot products reduced together (lane_tree4_f32) and added to gW as 4
 * doubles; the bias sums 4 outputs at a time. */
static void grad_w_f32_avx2(const float *a, int lda, const float *d, int ldd,
                            int m, int fin, int fout, double *gW, double *gb) {
  int m8 = m - m % 8;
  int j = 0;
  for (; j + 4 <= fout; j += 4) grad_f32_bias4(d, ldd, m8, m, j, gb);
  switch (fout - j) {
  case 3: grad_f32_bias3(d, ldd, m8, m, j, gb); break;
  case 2: grad_f32_bias2(d, ldd, m8, m, j, gb); break;
  case 1: grad_f32_bias1(d, ldd, m8, m, j, gb); break;
  default: break;
  }
  for (j = 0; j + 3 <= fout; j += 3) grad_f32_cols3(a, lda, d, ldd, m8, m, fin, j, gW);
  switch (fout - j) {
  case 2: grad_f32_cols2(a, lda, d, ldd, m8, m, fin, j, gW); break;
  case 1: grad_f32_cols1(a, lda, d, ldd, m8, m, fin, j, gW); break;
  default: break;
  }
}

/* tanh in float: the rational approximation of simd_f32_impl.h, the same
 * operations in the same order (the compiler fuses each p * x2 + c there
 * into one multiply-add, as here), 8 lanes at a time and the last n mod 8
 * in one masked vector instead of one at a time.  The clamp to [-9, 9] by
 * min and max, which return their second operand (x) for NaN, as the
 * comparisons of the plain loop; |x| < 4e-4 gives x. */
static void tanh_f32_avx2(const float *x, float *out, int n) {
  const __m256 lo = _mm256_set1_ps(-BNN_TANH_F32_CLAMP), hi = _mm256_set1_ps(BNN_TANH_F32_CLAMP);
  const __m256 small = _mm256_set1_ps(BNN_TANH_F32_SMALL);
  const __m256 absm = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
  for (int i = 0; i < n; i += 8) {
    int full = n - i >= 8;
    __m256i mk = tail_mask_f32(n - i);
    __m256 v = full ? _mm256_loadu_ps(x + i) : _mm256_maskload_ps(x + i, mk);
    __m256 c = _mm256_max_ps(lo, _mm256_min_ps(hi, v));
    __m256 x2 = _mm256_mul_ps(c, c);
    __m256 p = _mm256_set1_ps(BNN_TANH_F32_P6);
    p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(BNN_TANH_F32_P5));
    p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(BNN_TANH_F32_P4));
    p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(BNN_TANH_F32_P3));
    p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(BNN_TANH_F32_P2));
    p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(BNN_TANH_F32_P1));
    p = _mm256_fmadd_ps(p, x2, _mm256_set1_ps(BNN_TANH_F32_P0));
    p = _mm256_mul_ps(p, c);
    __m256 q = _mm256_set1_ps(BNN_TANH_F32_Q3);
    q = _mm256_fmadd_ps(q, x2, _mm256_set1_ps(BNN_TANH_F32_Q2));
    q = _mm256_fmadd_ps(q, x2, _mm256_set1_ps(BNN_TANH_F32_Q1));
    q = _mm256_fmadd_ps(q, x2, _mm256_set1_ps(BNN_TANH_F32_Q0));
    __m256 r = _mm256_div_ps(p, q);
    __m256 tiny = _mm256_cmp_ps(_mm256_and_ps(v, absm), small, _CMP_LT_OQ);
    r = _mm256_blendv_ps(r, v, tiny);
    if (full) _mm256_storeu_ps(out + i, r);
    else _mm256_maskstore_ps(out + i, mk, r);
  }
}

/* act_backward_f32 of simd_f32_impl.h in intrinsics, the last n mod 8
 * rows in one masked vector: tanh d *= 1 - a a (one fused negated
 * multiply-add, as the compiler makes of the plain loop, then the
 * product), relu d = z > 0 ? d : 0. */
static void act_backward_f32_avx2(int act, const float *z, const float *a, float *d,
                                  int n) {
  if (act != 0 && act != 1) return;
  const __m256 one = _mm256_set1_ps(1.0f), zero = _mm256_setzero_ps();
  for (int i = 0; i < n; i += 8) {
    int full = n - i >= 8;
    __m256i mk = tail_mask_f32(n - i);
    __m256 dv = full ? _mm256_loadu_ps(d + i) : _mm256_maskload_ps(d + i, mk), r;
    if (act == 0) {
      __m256 av = full ? _mm256_loadu_ps(a + i) : _mm256_maskload_ps(a + i, mk);
      r = _mm256_mul_ps(dv, _mm256_fnmadd_ps(av, av, one));
    } else {
      __m256 zv = full ? _mm256_loadu_ps(z + i) : _mm256_maskload_ps(z + i, mk);
      r = _mm256_and_ps(_mm256_cmp_ps(zv, zero, _CMP_GT_OQ), dv);
    }
    if (full) _mm256_storeu_ps(d + i, r);
    else _mm256_maskstore_ps(d + i, mk, r);
  }
}

/* z = b + A W for a block of rows: 8 rows x 4 outputs in 8 accumulators */
static void dense_avx2(const double *a, int lda, int m, int fin, int fout,
                       const double *W, int wk, int wj, const double *b,
                       double *z, int ldz) {
  int i0 = 0;
  for (; i0 + 8 <= m; i0 += 8) {
    int j = 0;
    for (; j + 4 <= fout; j += 4) {
      __m256d c00, c01, c10, c11, c20, c21, c30, c31;
      c00 = c01 = _mm256_set1_pd(b ? b[j] : 0.0);
      c10 = c11 = _mm256_set1_pd(b ? b[j + 1] : 0.0);
      c20 = c21 = _mm256_set1_pd(b ? b[j + 2] : 0.0);
      c30 = c31 = _mm256_set1_pd(b ? b[j + 3] : 0.0);
      const double *w = W + (size_t)j * wj;
      for (int k = 0; k < fin; k++) {
        const double *ak = a + (size_t)k * lda + i0;
        __m256d x0 = _mm256_loadu_pd(ak), x1 = _mm256_loadu_pd(ak + 4);
        const double *wkp = w + (size_t)k * wk;
        __m256d w0 = _mm256_broadcast_sd(wkp);
        __m256d w1 = _mm256_broadcast_sd(wkp + wj);
        __m256d w2 = _mm256_broadcast_sd(wkp + 2 * (size_t)wj);
        __m256d w3 = _mm256_broadcast_sd(wkp + 3 * (size_t)wj);
        c00 = _mm256_fmadd_pd(w0, x0, c00);
        c01 = _mm256_fmadd_pd(w0, x1, c01);
        c10 = _mm256_fmadd_pd(w1, x0, c10);
        c11 = _mm256_fmadd_pd(w1, x1, c11);
        c20 = _mm256_fmadd_pd(w2, x0, c20);
        c21 = _mm256_fmadd_pd(w2, x1, c21);
        c30 = _mm256_fmadd_pd(w3, x0, c30);
        c31 = _mm256_fmadd_pd(w3, x1, c31);
      }
      double *zj = z + (size_t)j * ldz + i0;
      _mm256_storeu_pd(zj, c00);
      _mm256_storeu_pd(zj + 4, c01);
      _mm256_storeu_pd(zj + ldz, c10);
      _mm256_storeu_pd(zj + ldz + 4, c11);
      _mm256_storeu_pd(zj + 2 * (size_t)ldz, c20);
      _mm256_storeu_pd(zj + 2 * (size_t)ldz + 4, c21);
      _mm256_storeu_pd(zj + 3 * (size_t)ldz, c30);
      _mm256_storeu_pd(zj + 3 * (size_t)ldz + 4, c31);
    }
    for (; j < fout; j++) {
      __m256d c0 = _mm256_set1_pd(b ? b[j] : 0.0), c1 = c0;
      for (int k = 0; k < fin; k++) {
        const double *ak = a + (size_t)k * lda + i0;
        __m256d wv = _mm256_broadcast_sd(W + (size_t)k * wk + (size_t)j * wj);
        c0 = _mm256_fmadd_pd(wv, _mm256_loadu_pd(ak), c0);
        c1 = _mm256_fmadd_pd(wv, _mm256_loadu_pd(ak + 4), c1);
      }
      _mm256_storeu_pd(z + (size_t)j * ldz + i0, c0);
      _mm256_storeu_pd(z + (size_t)j * ldz + i0 + 4, c1);
    }
  }
  /* remaining rows */
  for (int j = 0; j < fout; j++) {
    double *zj = z + (size_t)j * ldz;
    for (int i = i0; i < m; i++) {
      double s = b ? b[j] : 0.0;
      for (int k = 0; k < fin; k++)
        s = __builtin_fma(W[(size_t)k * wk + (size_t)j * wj], a[(size_t)k * lda + i], s);
      zj[i] = s;
    }
  }
}

static inline double hsum(__m256d v) {
  __m128d lo = _mm256_castpd256_pd128(v), hi = _mm256_extractf128_pd(v, 1);
  lo = _mm_add_pd(lo, hi);
  return _mm_cvtsd_f64(_mm_add_sd(lo, _mm_unpackhi_pd(lo, lo)));
}

/* gW += A^T D: blocks of 2 inputs x 4 outputs, 8 vector accumulators.
 * Only the intrinsics are fused multiply-adds: the last m % 4 rows add
 * rounded products (fp-contract off), as the default -O2 build computed
 * them when the goldens were recorded.  Left to the compiler, whether
 * r += x * y is fused depends on its flags and on how it vectorises the
 * loop (e.g. fused under -O1 -fsanitize=undefined), which moved the last
 * bits of the CES golden with the AVX2 routines. */
__attribute__((optimize("fp-contract=off")))
static void grad_w_avx2(const double *a, int lda, const double *d, int ldd,
                        int m, int fin, int fout, double *gW, double *gb) {
  int m4 = m & ~3;
  for (int j = 0; j < fout; j++) {
    const double *dj = d + (size_t)j * ldd;
    __m256d s = _mm256_setzero_pd();
    for (int i = 0; i < m4; i += 4) s = _mm256_add_pd(s, _mm256_loadu_pd(dj + i));
    double t = hsum(s);
    for (int i = m4; i < m; i++) t += dj[i];
    gb[j] += t;
  }
  int j = 0;
  for (; j + 4 <= fout; j += 4) {
    const double *d0 = d + (size_t)j * ldd, *d1 = d0 + ldd, *d2 = d1 + ldd, *d3 = d2 + ldd;
    int k = 0;
    for (; k + 2 <= fin; k += 2) {
      const double *a0 = a + (size_t)k * lda, *a1 = a0 + lda;
      __m256d s00 = _mm256_setzero_pd(), s01 = s00, s02 = s00, s03 = s00;
      __m256d s10 = s00, s11 = s00, s12 = s00, s13 = s00;
      for (int i = 0; i < m4; i += 4) {
        __m256d x0 = _mm256_loadu_pd(a0 + i), x1 = _mm256_loadu_pd(a1 + i);
        __m256d y0 = _mm256_loadu_pd(d0 + i), y1 = _mm256_loadu_pd(d1 + i);
        __m256d y2 = _mm256_loadu_pd(d2 + i), y3 = _mm256_loadu_pd(d3 + i);
        s00 = _mm256_fmadd_pd(x0, y0, s00);
        s01 = _mm256_fmadd_pd(x0, y1, s01);
        s02 = _mm256_fmadd_pd(x0, y2, s02);
        s03 = _mm256_fmadd_pd(x0, y3, s03);
        s10 = _mm256_fmadd_pd(x1, y0, s10);
        s11 = _mm256_fmadd_pd(x1, y1, s11);
        s12 = _mm256_fmadd_pd(x1, y2, s12);
        s13 = _mm256_fmadd_pd(x1, y3, s13);
      }
      double r[8] = {hsum(s00), hsum(s01), hsum(s02), hsum(s03),
                     hsum(s10), hsum(s11), hsum(s12), hsum(s13)};
      for (int i = m4; i < m; i++) {
        r[0] += a0[i] * d0[i]; r[1] += a0[i] * d1[i];
        r[2] += a0[i] * d2[i]; r[3] += a0[i] * d3[i];
        r[4] += a1[i] * d0[i]; r[5] += a1[i] * d1[i];
        r[6] += a1[i] * d2[i]; r[7] += a1[i] * d3[i];
      }
      for (int q = 0; q < 4; q++) {
        gW[k + (size_t)(j + q) * fin] += r[q];
        gW[k + 1 + (size_t)(j + q) * fin] += r[4 + q];
      }
    }
    for (; k < fin; k++) {
      const double *a0 = a + (size_t)k * lda;
      __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
      for (int i = 0; i < m4; i += 4) {
        __m256d x0 = _mm256_loadu_pd(a0 + i);
        s0 = _mm256_fmadd_pd(x0, _mm256_loadu_pd(d0 + i), s0);
        s1 = _mm256_fmadd_pd(x0, _mm256_loadu_pd(d1 + i), s1);
        s2 = _mm256_fmadd_pd(x0, _mm256_loadu_pd(d2 + i), s2);
        s3 = _mm256_fmadd_pd(x0, _mm256_loadu_pd(d3 + i), s3);
      }
      double r[4] = {hsum(s0), hsum(s1), hsum(s2), hsum(s3)};
      for (int i = m4; i < m; i++) {
        r[0] += a0[i] * d0[i]; r[1] += a0[i] * d1[i];
        r[2] += a0[i] * d2[i]; r[3] += a0[i] * d3[i];
      }
      for (int q = 0; q < 4; q++) gW[k + (size_t)(j + q) * fin] += r[q];
    }
  }
  for (; j < fout; j++) {
    const double *d0 = d + (size_t)j * ldd;
    for (int k = 0; k < fin; k++) {
      const double *a0 = a + (size_t)k * lda;
      __m256d s0 = _mm256_setzero_pd();
      for (int i = 0; i < m4; i += 4)
        s0 = _mm256_fmadd_pd(_mm256_loadu_pd(a0 + i), _mm256_loadu_pd(d0 + i), s0);
      double r = hsum(s0);
      for (int i = m4; i < m; i++) r += a0[i] * d0[i];
      gW[k + (size_t)j * fin] += r;
    }
  }
}

const bnn_simd_table bnn_simd_avx2 = {
  "avx2+fma", vexp_avx2, vtanh_avx2, vsigmoid_avx2, vlog1p_avx2,
  act_forward_avx2, act_backward_avx2, dense_avx2, grad_w_avx2, KSUF(prior_normal), KSUF(prior_normal_u),
  KSUF(dense_f32), KSUF(grad_w_f32), KSUF(tanh_f32),
  KSUF(relu_f32), KSUF(act_backward_f32)};

const bnn_sg_updates bnn_sg_updates_avx2 = {
  "avx2+fma", KSUF(sgld_update), KSUF(sghmc_update)};

#if defined(__clang__)
#pragma clang attribute pop
#else
#pragma GCC pop_options
#endif
#else
/* not x86-64: nothing to compile here */
typedef int bnnmc_no_avx2_routines;
#endif

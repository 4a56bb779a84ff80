/* AVX2 + FMA kernels, compiled for that instruction set by a target pragma
 * and used only when the CPU reports both (see simd.c). */
#include <stddef.h>
#include "simd.h"
#include "sg_update.h"

#ifdef BNNMC_HAVE_AVX2_KERNELS
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
#define KF32_DENSE_OWN 1   /* dense_f32, grad_w_f32: intrinsics below */
#include "simd_f32_impl.h"

/* Lanes q < r of a mask for _mm256_maskload_ps / _mm256_maskstore_ps (none
 * when r <= 0). */
static inline __m256i tail_mask_f32(int r) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(r), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

/* One block of the dense layer below: rows i0..i0+15 of outputs j..j+3
 * (w = W + j wj, bj their biases), z = b + A W fused in the order of k in
 * 8 accumulators.  With `masked`, only the lanes of the masks k0 (rows
 * i0..i0+7) and k1 (i0+8..i0+15) are read and written: a masked lane reads
 * 0 and is never stored.  Inlined with a constant `masked`, the branch
 * goes. */
static inline __attribute__((always_inline)) void
dense_block16x4(const float *a, int lda, int i0, int fin, const float *w, int wk, int wj,
                const float *bj, float *z, int ldz, int masked, __m256i k0, __m256i k1) {
  __m256 c00 = _mm256_set1_ps(bj[0]), c01 = c00;
  __m256 c10 = _mm256_set1_ps(bj[1]), c11 = c10;
  __m256 c20 = _mm256_set1_ps(bj[2]), c21 = c20;
  __m256 c30 = _mm256_set1_ps(bj[3]), c31 = c30;
  for (int k = 0; k < fin; k++) {
    const float *ak = a + (size_t)k * lda + i0;
    __m256 x0 = masked ? _mm256_maskload_ps(ak, k0) : _mm256_loadu_ps(ak);
    __m256 x1 = masked ? _mm256_maskload_ps(ak + 8, k1) : _mm256_loadu_ps(ak + 8);
    const float *wkp = w + (size_t)k * wk;
    __m256 w0 = _mm256_broadcast_ss(wkp);
    __m256 w1 = _mm256_broadcast_ss(wkp + wj);
    __m256 w2 = _mm256_broadcast_ss(wkp + 2 * (size_t)wj);
    __m256 w3 = _mm256_broadcast_ss(wkp + 3 * (size_t)wj);
    c00 = _mm256_fmadd_ps(w0, x0, c00);
    c01 = _mm256_fmadd_ps(w0, x1, c01);
    c10 = _mm256_fmadd_ps(w1, x0, c10);
    c11 = _mm256_fmadd_ps(w1, x1, c11);
    c20 = _mm256_fmadd_ps(w2, x0, c20);
    c21 = _mm256_fmadd_ps(w2, x1, c21);
    c30 = _mm256_fmadd_ps(w3, x0, c30);
    c31 = _mm256_fmadd_ps(w3, x1, c31);
  }
  __m256 c[8] = {c00, c01, c10, c11, c20, c21, c30, c31};
  for (int q = 0; q < 4; q++) {
    float *zq = z + (size_t)q * ldz + i0;
    if (masked) {
      _mm256_maskstore_ps(zq, k0, c[2 * q]);
      _mm256_maskstore_ps(zq + 8, k1, c[2 * q + 1]);
    } else {
      _mm256_storeu_ps(zq, c[2 * q]);
      _mm256_storeu_ps(zq + 8, c[2 * q + 1]);
    }
  }
}

/* Single-precision dense layer, z = b + A W, register-blocked: 16 rows (two
 * vectors of 8 floats) x 4 outputs in 8 accumulators, so each load of A
 * serves 4 outputs and z is written once; the last rows (fewer than 16) in
 * one masked block.  Every z[i] is b + w_0 a_0 + w_1 a_1 + ... fused in
 * the order of k, exactly as the plain loop of simd_f32_impl.h computes it
 * (and as the outputs left over are computed below): the blocking changes
 * the speed, not the numbers. */
static void dense_f32_avx2(const float *a, int lda, int m, int fin, int fout,
                           const float *W, int wk, int wj, const float *b,
                           float *z, int ldz) {
  int mb = m - m % 16;
  __m256i none = _mm256_setzero_si256();
  __m256i k0 = tail_mask_f32(m - mb), k1 = tail_mask_f32(m - mb - 8);
  int j = 0;
  for (; j + 3 < fout; j += 4) {
    const float *w = W + (size_t)j * wj;
    float bj[4];
    for (int q = 0; q < 4; q++) bj[q] = b ? b[j + q] : 0.0f;
    float *zj = z + (size_t)j * ldz;
    for (int i0 = 0; i0 < mb; i0 += 16)
      dense_block16x4(a, lda, i0, fin, w, wk, wj, bj, zj, ldz, 0, none, none);
    if (mb < m) dense_block16x4(a, lda, mb, fin, w, wk, wj, bj, zj, ldz, 1, k0, k1);
  }
  for (; j < fout; j++) {
    const float *w = W + (size_t)j * wj;
    float b0 = b ? b[j] : 0.0f;
    float *zj = z + (size_t)j * ldz;
    int i0 = 0;
    for (; i0 + 8 <= m; i0 += 8) {
      __m256 c = _mm256_set1_ps(b0);
      for (int k = 0; k < fin; k++)
        c = _mm256_fmadd_ps(_mm256_broadcast_ss(w + (size_t)k * wk),
                            _mm256_loadu_ps(a + (size_t)k * lda + i0), c);
      _mm256_storeu_ps(zj + i0, c);
    }
    if (i0 < m) {
      __m256i kt = tail_mask_f32(m - i0);
      __m256 c = _mm256_set1_ps(b0);
      for (int k = 0; k < fin; k++)
        c = _mm256_fmadd_ps(_mm256_broadcast_ss(w + (size_t)k * wk),
                            _mm256_maskload_ps(a + (size_t)k * lda + i0, kt), c);
      _mm256_maskstore_ps(zj + i0, kt, c);
    }
  }
}

/* The sum of one dot product's 8 lane sums v, after the rows i >= m8 of
 * a . d are added to lane 0 (fused), in the fixed tree of the plain loop. */
static inline double lane_sum_f32(__m256 v, const float *a, const float *d, int m8, int m) {
  float t[8];
  _mm256_storeu_ps(t, v);
  for (int i = m8; i < m; i++) t[0] = fmaf(a[i], d[i], t[0]);
  return (double)(((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7])));
}

/* One dot product a . d over the m rows (lanes as above). */
static inline double dot_f32(const float *a, const float *d, int m8, int m) {
  __m256 v = _mm256_setzero_ps();
  for (int i = 0; i < m8; i += 8)
    v = _mm256_fmadd_ps(_mm256_loadu_ps(a + i), _mm256_loadu_ps(d + i), v);
  return lane_sum_f32(v, a, d, m8, m);
}

/* gW[k, j] += sum_i a[i, k] d[i, j], gb[j] += sum_i d[i, j] over the m rows
 * of one chunk: lane q of a vector of 8 partial sums takes the rows
 * i = q mod 8 in order (fused multiply-add), the rows after the last
 * multiple of 8 are added to lane 0, and the lanes are summed in a fixed
 * tree, as in simd_f32_impl.h's plain loop.  Inputs k are taken 4 at a
 * time and outputs j 2 at a time (8 accumulators), so each load serves
 * several dot products. */
static void grad_w_f32_avx2(const float *a, int lda, const float *d, int ldd,
                            int m, int fin, int fout, double *gW, double *gb) {
  int m8 = m - m % 8;
  for (int j = 0; j < fout; j++) {
    const float *dj = d + (size_t)j * ldd;
    __m256 s = _mm256_setzero_ps();
    for (int i = 0; i < m8; i += 8) s = _mm256_add_ps(s, _mm256_loadu_ps(dj + i));
    float t[8];
    _mm256_storeu_ps(t, s);
    for (int i = m8; i < m; i++) t[0] += dj[i];
    gb[j] += (double)(((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7])));
  }
  int j = 0;
  for (; j + 1 < fout; j += 2) {
    const float *d0 = d + (size_t)j * ldd, *d1 = d0 + ldd;
    int k = 0;
    for (; k + 3 < fin; k += 4) {
      const float *a0 = a + (size_t)k * lda, *a1 = a0 + lda, *a2 = a1 + lda, *a3 = a2 + lda;
      __m256 t00 = _mm256_setzero_ps(), t01 = t00, t02 = t00, t03 = t00;
      __m256 t10 = t00, t11 = t00, t12 = t00, t13 = t00;
      for (int i = 0; i < m8; i += 8) {
        __m256 e0 = _mm256_loadu_ps(d0 + i), e1 = _mm256_loadu_ps(d1 + i);
        __m256 x0 = _mm256_loadu_ps(a0 + i), x1 = _mm256_loadu_ps(a1 + i);
        __m256 x2 = _mm256_loadu_ps(a2 + i), x3 = _mm256_loadu_ps(a3 + i);
        t00 = _mm256_fmadd_ps(x0, e0, t00);
        t01 = _mm256_fmadd_ps(x1, e0, t01);
        t02 = _mm256_fmadd_ps(x2, e0, t02);
        t03 = _mm256_fmadd_ps(x3, e0, t03);
        t10 = _mm256_fmadd_ps(x0, e1, t10);
        t11 = _mm256_fmadd_ps(x1, e1, t11);
        t12 = _mm256_fmadd_ps(x2, e1, t12);
        t13 = _mm256_fmadd_ps(x3, e1, t13);
      }
      double *g0 = gW + k + (size_t)j * fin, *g1 = g0 + fin;
      g0[0] += lane_sum_f32(t00, a0, d0, m8, m);
      g0[1] += lane_sum_f32(t01, a1, d0, m8, m);
      g0[2] += lane_sum_f32(t02, a2, d0, m8, m);
      g0[3] += lane_sum_f32(t03, a3, d0, m8, m);
      g1[0] += lane_sum_f32(t10, a0, d1, m8, m);
      g1[1] += lane_sum_f32(t11, a1, d1, m8, m);
      g1[2] += lane_sum_f32(t12, a2, d1, m8, m);
      g1[3] += lane_sum_f32(t13, a3, d1, m8, m);
    }
    for (; k < fin; k++) {
      const float *ak = a + (size_t)k * lda;
      gW[k + (size_t)j * fin] += dot_f32(ak, d0, m8, m);
      gW[k + (size_t)(j + 1) * fin] += dot_f32(ak, d1, m8, m);
    }
  }
  for (; j < fout; j++)
    for (int k = 0; k < fin; k++)
      gW[k + (size_t)j * fin] += dot_f32(a + (size_t)k * lda, d + (size_t)j * ldd, m8, m);
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

/* gW += A^T D: blocks of 2 inputs x 4 outputs, 8 vector accumulators */
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
  act_forward_avx2, act_backward_avx2, dense_avx2, grad_w_avx2, KSUF(prior_normal),
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
typedef int bnnmc_no_avx2_kernels;
#endif

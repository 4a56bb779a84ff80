/* Single-precision network routines in plain C, included by each SIMD file
 * with its own KSUF suffix and target options (as vmath_impl.h): the
 * portable build compiles them for baseline x86-64 / any CPU, the AVX2 file
 * lets the compiler vectorise them at 8 float lanes, the AVX-512 file
 * replaces dense and grad_w by intrinsics at 16 lanes.
 *
 * Conventions are those of the double routines (simd.h), with float
 * activations, deltas and weights; grad_w sums the m rows of one chunk in
 * float and adds each sum to the double gradient (so rounding error grows
 * with the chunk, BNN_CHUNK rows, not with n). */
#include <math.h>

#ifndef KF32_DENSE_OWN
static void KSUF(dense_f32)(const float *a, int lda, int m, int fin, int fout,
                            const float *W, int wk, int wj, const float *b,
                            float *z, int ldz) {
  int j = 0;
  for (; j + 1 < fout; j += 2) {
    float *z0 = z + (size_t)j * ldz, *z1 = z0 + ldz;
    float b0 = b ? b[j] : 0.0f, b1 = b ? b[j + 1] : 0.0f;
    for (int i = 0; i < m; i++) { z0[i] = b0; z1[i] = b1; }
    for (int k = 0; k < fin; k++) {
      const float *ak = a + (size_t)k * lda;
      float w0 = W[(size_t)k * wk + (size_t)j * wj];
      float w1 = W[(size_t)k * wk + (size_t)(j + 1) * wj];
      for (int i = 0; i < m; i++) {
        z0[i] += w0 * ak[i];
        z1[i] += w1 * ak[i];
      }
    }
  }
  for (; j < fout; j++) {
    float *z0 = z + (size_t)j * ldz;
    float b0 = b ? b[j] : 0.0f;
    for (int i = 0; i < m; i++) z0[i] = b0;
    for (int k = 0; k < fin; k++) {
      const float *ak = a + (size_t)k * lda;
      float w0 = W[(size_t)k * wk + (size_t)j * wj];
      for (int i = 0; i < m; i++) z0[i] += w0 * ak[i];
    }
  }
}

static void KSUF(grad_w_f32)(const float *a, int lda, const float *d, int ldd,
                             int m, int fin, int fout, double *gW, double *gb) {
  for (int j = 0; j < fout; j++) {
    const float *dj = d + (size_t)j * ldd;
    float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int i = 0;
    for (; i + 7 < m; i += 8)
      for (int q = 0; q < 8; q++) s[q] += dj[i + q];
    for (; i < m; i++) s[0] += dj[i];
    gb[j] += (double)(((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7])));
    for (int k = 0; k < fin; k++) {
      const float *ak = a + (size_t)k * lda;
      float t[8] = {0, 0, 0, 0, 0, 0, 0, 0};
      i = 0;
      for (; i + 7 < m; i += 8)
        for (int q = 0; q < 8; q++) t[q] += ak[i + q] * dj[i + q];
      for (; i < m; i++) t[0] += ak[i] * dj[i];
      gW[k + (size_t)j * fin] +=
        (double)(((t[0] + t[1]) + (t[2] + t[3])) + ((t[4] + t[5]) + (t[6] + t[7])));
    }
  }
}
#endif

/* a[i] = relu(z[i]) = z[i] > 0 ? z[i] : 0 (NaN and -0 give +0, as the
 * double routines); branch free, so it vectorises (a branch on the sign of
 * z mispredicted half the time and cost 40% of a ReLU gradient) */
static void KSUF(relu_f32)(const float *z, float *a, int n) {
  for (int i = 0; i < n; i++) {
    float v = z[i];
    a[i] = v > 0.0f ? v : 0.0f;
  }
}

#ifndef KF32_ACT_BACKWARD_OWN
/* d[i] *= act'(z[i]) given a = act(z) for tanh (code 0), relu (1) and
 * identity (8); the model does the other activations in double. */
static void KSUF(act_backward_f32)(int act, const float *z, const float *a,
                                   float *d, int n) {
  int i;
  if (act == 0)
    for (i = 0; i < n; i++) d[i] *= 1.0f - a[i] * a[i];
  else if (act == 1)
    for (i = 0; i < n; i++) d[i] = z[i] > 0 ? d[i] : 0.0f;
}
#endif

/* tanh in float: a rational approximation (odd degree-13 numerator, even
 * degree-6 denominator; the one Eigen uses) on [-9, 9], where tanh reaches
 * 1 in float, and x itself for |x| < 4e-4; a few ulp from tanh.  Its
 * constants, shared by the intrinsic versions of the AVX2 and AVX-512
 * files: the numerator p(x) = x (P6 x^12 + P5 x^10 + ... + P0) and the
 * denominator Q3 x^6 + ... + Q0, each by Horner's rule in x^2. */
#define BNN_TANH_F32_CLAMP 9.0f
#define BNN_TANH_F32_SMALL 4e-4f
#define BNN_TANH_F32_P6 -2.76076847742355e-16f
#define BNN_TANH_F32_P5 2.00018790482477e-13f
#define BNN_TANH_F32_P4 -8.60467152213735e-11f
#define BNN_TANH_F32_P3 5.12229709037114e-08f
#define BNN_TANH_F32_P2 1.48572235717979e-05f
#define BNN_TANH_F32_P1 6.37261928875436e-04f
#define BNN_TANH_F32_P0 4.89352455891786e-03f
#define BNN_TANH_F32_Q3 1.19825839466702e-06f
#define BNN_TANH_F32_Q2 1.18534705686654e-04f
#define BNN_TANH_F32_Q1 2.26843463243900e-03f
#define BNN_TANH_F32_Q0 4.89352518554385e-03f

#ifndef KF32_TANH_OWN
/* Branch free, so it vectorises; NaN stays NaN (the comparisons are
 * false). */
static void KSUF(tanh_f32)(const float *x, float *out, int n) {
  for (int i = 0; i < n; i++) {
    float v = x[i];
    float c = v < -BNN_TANH_F32_CLAMP ? -BNN_TANH_F32_CLAMP
              : (v > BNN_TANH_F32_CLAMP ? BNN_TANH_F32_CLAMP : v);
    float x2 = c * c;
    float p = BNN_TANH_F32_P6;
    p = p * x2 + BNN_TANH_F32_P5;
    p = p * x2 + BNN_TANH_F32_P4;
    p = p * x2 + BNN_TANH_F32_P3;
    p = p * x2 + BNN_TANH_F32_P2;
    p = p * x2 + BNN_TANH_F32_P1;
    p = p * x2 + BNN_TANH_F32_P0;
    p = p * c;
    float q = BNN_TANH_F32_Q3;
    q = q * x2 + BNN_TANH_F32_Q2;
    q = q * x2 + BNN_TANH_F32_Q1;
    q = q * x2 + BNN_TANH_F32_Q0;
    float r = p / q;
    out[i] = (v < BNN_TANH_F32_SMALL && v > -BNN_TANH_F32_SMALL) ? v : r;
  }
}
#endif

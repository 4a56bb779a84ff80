/* Hot routines of the network: elementwise transcendental functions and the
 * dense-layer products.  Three implementations: portable C
 * (simd_generic.c), AVX2+FMA (simd_avx2.c) and AVX-512 F/DQ/VL
 * (simd_avx512.c), the last two compiled with target pragmas on x86-64
 * GCC/Clang.  bnn_simd_select() picks one once, when the package is
 * loaded, from what the CPU supports; after that the table is read-only.
 * They can differ in the last bits (fused multiply-add), so draws are
 * reproducible on one kind of CPU, not bit-identical across CPU kinds.
 *
 * Layouts: activations and deltas are stored neuron by neuron, rows
 * contiguous; a[k * lda + i] is row i of input k.  Weights W are
 * fin x fout column-major. */
#ifndef BNNMC_SIMD_H
#define BNNMC_SIMD_H

typedef struct {
  const char *name;
  void (*vexp)(const double *x, double *out, int n);
  void (*vtanh)(const double *x, double *out, int n);
  void (*vsigmoid)(const double *x, double *out, int n);
  /* log1p for x >= -1 (vmath_impl.h); used by the single-precision
   * likelihoods only, so the double path keeps the C library's log1p */
  void (*vlog1p)(const double *x, double *out, int n);
  void (*act_forward)(int act, const double *z, double *a, int n);
  void (*act_backward)(int act, const double *z, const double *a, double *d,
                       double *tmp, int n);
  /* z[j*ldz + i] = b[j] (0 if b NULL) + sum_k a[k*lda + i] W[k*wk + j*wj] */
  void (*dense)(const double *a, int lda, int m, int fin, int fout,
                const double *W, int wk, int wj, const double *b, double *z,
                int ldz);
  /* gW[k + j*fin] += sum_i a[k*lda + i] d[j*ldd + i];  gb[j] += sum_i d */
  void (*grad_w)(const double *a, int lda, const double *d, int ldd, int m,
                 int fin, int fout, double *gW, double *gb);
  /* grad[i] -= theta[i] / s[i]^2 (as (theta[i] / s[i]) / s[i]); returns
   * sum (theta[i] / s[i])^2 (prior_impl.h) */
  double (*prior_normal)(const double *theta, const double *s, double *grad,
                         int n);
  /* u[i] = theta[i] / s[i]; grad[i] -= u[i] / s[i] unless grad is NULL
   * (prior_impl.h): bnn_model_logprior's divisions, bit for bit */
  void (*prior_normal_u)(const double *theta, const double *s, double *u,
                         double *grad, int n);
  /* Single precision (bnn_fit(precision = "single"), simd_f32_impl.h):
   * dense and tanh as above on float; grad_w_f32 sums the m rows in float
   * and adds the sums to the double gW and gb. */
  void (*dense_f32)(const float *a, int lda, int m, int fin, int fout,
                    const float *W, int wk, int wj, const float *b, float *z,
                    int ldz);
  void (*grad_w_f32)(const float *a, int lda, const float *d, int ldd, int m,
                     int fin, int fout, double *gW, double *gb);
  void (*tanh_f32)(const float *x, float *out, int n);
  void (*relu_f32)(const float *z, float *a, int n);
  /* d[i] *= act'(z[i]) (a = act(z)) for tanh, relu and identity only */
  void (*act_backward_f32)(int act, const float *z, const float *a, float *d,
                           int n);
} bnn_simd_table;

extern const bnn_simd_table bnn_simd_generic;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define BNNMC_HAVE_AVX2_ROUTINES 1
extern const bnn_simd_table bnn_simd_avx2;
#define BNNMC_HAVE_AVX512_ROUTINES 1
extern const bnn_simd_table bnn_simd_avx512;
#endif

/* the selected table (set once at load time by bnn_simd_select) */
const bnn_simd_table *bnn_simd(void);
/* level 0: portable C; 1: at most AVX2+FMA; 2 or more: the best the CPU
 * and the operating system support.  Selects the stochastic-gradient
 * updates of the same instruction set too (sg_update.h). */
void bnn_simd_select(int level);
#endif

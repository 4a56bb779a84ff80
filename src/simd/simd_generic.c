/* Portable routines (plain C; what CRAN's -O2 builds everywhere). */
#include <stddef.h>
#include "simd.h"
#include "sg_update.h"

#define KSUF(name) name##_generic
#include "vmath_impl.h"
#include "prior_impl.h"
#include "sg_update_impl.h"
#include "simd_f32_impl.h"

static void dense_generic(const double *a, int lda, int m, int fin, int fout,
                          const double *W, int wk, int wj, const double *b,
                          double *z, int ldz) {
  int j = 0;
  for (; j + 1 < fout; j += 2) {
    double *z0 = z + (size_t)j * ldz, *z1 = z0 + ldz;
    double b0 = b ? b[j] : 0.0, b1 = b ? b[j + 1] : 0.0;
    for (int i = 0; i < m; i++) { z0[i] = b0; z1[i] = b1; }
    for (int k = 0; k < fin; k++) {
      const double *ak = a + (size_t)k * lda;
      double w0 = W[(size_t)k * wk + (size_t)j * wj];
      double w1 = W[(size_t)k * wk + (size_t)(j + 1) * wj];
      for (int i = 0; i < m; i++) {
        z0[i] += w0 * ak[i];
        z1[i] += w1 * ak[i];
      }
    }
  }
  for (; j < fout; j++) {
    double *z0 = z + (size_t)j * ldz;
    double b0 = b ? b[j] : 0.0;
    for (int i = 0; i < m; i++) z0[i] = b0;
    for (int k = 0; k < fin; k++) {
      const double *ak = a + (size_t)k * lda;
      double w0 = W[(size_t)k * wk + (size_t)j * wj];
      for (int i = 0; i < m; i++) z0[i] += w0 * ak[i];
    }
  }
}

static void grad_w_generic(const double *a, int lda, const double *d, int ldd,
                           int m, int fin, int fout, double *gW, double *gb) {
  for (int j = 0; j < fout; j++) {
    const double *dj = d + (size_t)j * ldd;
    double s0 = 0, s1 = 0;
    int i = 0;
    for (; i + 1 < m; i += 2) { s0 += dj[i]; s1 += dj[i + 1]; }
    if (i < m) s0 += dj[i];
    gb[j] += s0 + s1;
    for (int k = 0; k < fin; k++) {
      const double *ak = a + (size_t)k * lda;
      double t0 = 0, t1 = 0, t2 = 0, t3 = 0;
      i = 0;
      for (; i + 3 < m; i += 4) {
        t0 += ak[i] * dj[i];
        t1 += ak[i + 1] * dj[i + 1];
        t2 += ak[i + 2] * dj[i + 2];
        t3 += ak[i + 3] * dj[i + 3];
      }
      for (; i < m; i++) t0 += ak[i] * dj[i];
      gW[k + (size_t)j * fin] += (t0 + t1) + (t2 + t3);
    }
  }
}

const bnn_simd_table bnn_simd_generic = {
  "generic", vexp_generic, vtanh_generic, vsigmoid_generic, vlog1p_generic,
  act_forward_generic, act_backward_generic, dense_generic,
  grad_w_generic, KSUF(prior_normal), KSUF(prior_normal_u),
  KSUF(dense_f32), KSUF(grad_w_f32), KSUF(tanh_f32),
  KSUF(relu_f32), KSUF(act_backward_f32)};

const bnn_sg_updates bnn_sg_updates_generic = {
  "generic", KSUF(sgld_update), KSUF(sghmc_update)};

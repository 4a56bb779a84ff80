/* The position and momentum updates of the stochastic-gradient kernels
 * (sgld.c, sghmc.c; their table is sg_update.h), included by the SIMD
 * files with KSUF defined so that they are vectorised for each instruction
 * set.  Floating-point contraction
 * is switched off for them: each update is the same sequence of correctly
 * rounded multiplies and adds as the scalar loop it replaced, so the draws
 * do not depend on the instruction set.  Each returns 1 if any updated
 * value is Inf or NaN (its exponent bits all set), else 0. */
#include <stdint.h>

/* GCC: a pragma, not an optimize attribute, so that these functions keep
 * the SIMD file's other options (O3, its target) and inline each other */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC push_options
#pragma GCC optimize("fp-contract=off")
#endif
/* inside the pragma, so that bnn_nonfinite has these functions' options
 * and is inlined into them */
#include "nonfinite.h"


/* SGLD: q[j] += a g[j] + b z[j] */
static int KSUF(sgld_update)(double *restrict q,
                                             const double *restrict g,
                                             const double *restrict z,
                                             double a, double b, int n) {
#if defined(__clang__)
#pragma clang fp contract(off)
#endif
  uint64_t bad = 0;
  for (int j = 0; j < n; j++) {
    q[j] += a * g[j] + b * z[j];
    bad |= bnn_nonfinite(q[j]);
  }
  return bad != 0;
}

/* SGHMC: w[j] += v[j]; v[j] = c v[j] + a g[j] + b z[j] */
static int KSUF(sghmc_update)(double *restrict w,
                                              double *restrict v,
                                              const double *restrict g,
                                              const double *restrict z,
                                              double c, double a, double b,
                                              int n) {
#if defined(__clang__)
#pragma clang fp contract(off)
#endif
  uint64_t bad = 0;
  for (int j = 0; j < n; j++) {
    w[j] += v[j];
    v[j] = c * v[j] + a * g[j] + b * z[j];
    bad |= bnn_nonfinite(w[j]) | bnn_nonfinite(v[j]);
  }
  return bad != 0;
}

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC pop_options
#endif

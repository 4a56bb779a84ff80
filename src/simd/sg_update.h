/* The position and momentum updates of the stochastic-gradient kernels
 * (sgld.c, sghmc.c): one table per instruction set, compiled from
 * sg_update_impl.h in the SIMD files (simd_generic.c, simd_avx2.c,
 * simd_avx512.c) with their options, and selected together with the
 * network's SIMD routines (bnn_simd_select, simd.h).  Each update is the
 * same sequence of correctly rounded multiplies and adds whatever the
 * instruction set (no contraction), so the draws do not depend on it. */
#ifndef BNNMC_SG_UPDATE_H
#define BNNMC_SG_UPDATE_H

typedef struct {
  const char *name;
  /* SGLD: q[j] += a g[j] + b z[j]; 1 if any q[j] is non-finite */
  int (*sgld_update)(double *q, const double *g, const double *z, double a,
                     double b, int n);
  /* SGHMC: w[j] += v[j]; v[j] = c v[j] + a g[j] + b z[j]; 1 if any w[j] or
   * v[j] is non-finite */
  int (*sghmc_update)(double *w, double *v, const double *g, const double *z,
                      double c, double a, double b, int n);
} bnn_sg_updates;

extern const bnn_sg_updates bnn_sg_updates_generic;
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
extern const bnn_sg_updates bnn_sg_updates_avx2;
extern const bnn_sg_updates bnn_sg_updates_avx512;
#endif

/* the selected table (set with the network's SIMD level, simd.c) */
const bnn_sg_updates *bnn_sg_kern(void);
#endif

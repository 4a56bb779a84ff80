/* Elementwise exp, log1p, tanh and sigmoid through the selected SIMD level
 * table (simd.h); accurate to a few ulp (absolute error ~1e-16 for tanh). */
#ifndef BNNMC_VMATH_H
#define BNNMC_VMATH_H
void bnn_vexp(const double *x, double *out, int n);
void bnn_vlog1p(const double *x, double *out, int n);
void bnn_vtanh(const double *x, double *out, int n);
void bnn_vsigmoid(const double *x, double *out, int n);
#endif

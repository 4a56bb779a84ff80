/* Vectorisable elementwise transcendental functions for the network's hot
 * loops.  Branch-free loops the compiler can turn into SIMD code; accurate to
 * a few ulp (absolute error ~1e-16 for tanh near 0). */
#ifndef BNNMC_VMATH_H
#define BNNMC_VMATH_H
void bnn_vexp(const double *x, double *out, int n);
void bnn_vtanh(const double *x, double *out, int n);
void bnn_vsigmoid(const double *x, double *out, int n);
double bnn_exp1(double x);
#endif

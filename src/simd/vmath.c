#include "simd.h"
#include "vmath.h"

void bnn_vexp(const double *x, double *out, int n) { bnn_simd()->vexp(x, out, n); }
void bnn_vlog1p(const double *x, double *out, int n) { bnn_simd()->vlog1p(x, out, n); }
void bnn_vtanh(const double *x, double *out, int n) { bnn_simd()->vtanh(x, out, n); }
void bnn_vsigmoid(const double *x, double *out, int n) { bnn_simd()->vsigmoid(x, out, n); }

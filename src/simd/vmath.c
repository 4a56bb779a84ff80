#include "simd.h"
#include "vmath.h"

void bnn_vexp(const double *x, double *out, int n) { bnn_kern()->vexp(x, out, n); }
void bnn_vtanh(const double *x, double *out, int n) { bnn_kern()->vtanh(x, out, n); }
void bnn_vsigmoid(const double *x, double *out, int n) { bnn_kern()->vsigmoid(x, out, n); }

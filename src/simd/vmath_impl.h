/* Elementwise exp, log1p, tanh and sigmoid written so compilers vectorise them
 * (no branches, no calls).  Included by the SIMD files with KSUF defined
 * to name the copies.
 *
 * exp(x): x = k ln2 + r with |r| <= ln2/2; p = exp(r) - 1 by the Taylor
 * polynomial of degree 13 (truncation < 2e-17 relative), evaluated by
 * Estrin's scheme; s = 2^k built in the exponent bits; exp(x) = s + s p and
 * expm1(x) = s p + (s - 1), the latter accurate relative to the result
 * (s - 1 is exact, and k != 0 only when |x| >= ln2/2).  Inputs are clamped
 * to [-708, 709] (exp(-708) ~ 3e-308 stands in for underflow); NaN (R's NA
 * included) propagates through p.  Measured: max relative error 4.3e-16
 * for exp against glibc; tanh within a few ulp. */
#include <math.h>
#include <stdint.h>

#ifdef BNNMC_VMATH_LIBM
/* Benchmark builds only (inst/benchmarks/f32, the single-precision replay
 * of MCLMC): exp and expm1 from the C library, because the bit
 * manipulations below assume IEEE double (a 52-bit mantissa, exponent bias
 * 1023).  Never defined in the package build, so the package's routines are
 * unchanged; vexp, vlog1p, vtanh and vsigmoid below are shared. */
static inline double KSUF(exp_core)(double x) { return exp(x); }
static inline double KSUF(expm1_core)(double x) { return expm1(x); }
static inline double KSUF(log1p_core)(double x) { return log1p(x); }
#else
static inline void KSUF(exp_parts)(double x, double *s, double *p) {
  const double log2e = 1.4426950408889634074;
  const double ln2_hi = 6.93147180369123816490e-01;
  const double ln2_lo = 1.90821492927058770002e-10;
  const double shifter = 6755399441055744.0; /* 1.5 * 2^52 */
  x = x < -708.0 ? -708.0 : x;
  x = x > 709.0 ? 709.0 : x;
  double t = x * log2e + shifter;   /* low mantissa bits of t hold k */
  double k = t - shifter;
  double r = (x - k * ln2_hi) - k * ln2_lo;
  /* Estrin's scheme: a short dependency chain so SIMD lanes stay busy */
  double r2 = r * r, r4 = r2 * r2, r8 = r4 * r4;
  double p01 = r, p23 = 0.5 + r * (1.0 / 6.0);
  double p45 = 1.0 / 24.0 + r * (1.0 / 120.0);
  double p67 = 1.0 / 720.0 + r * (1.0 / 5040.0);
  double p89 = 1.0 / 40320.0 + r * (1.0 / 362880.0);
  double pab = 1.0 / 3628800.0 + r * (1.0 / 39916800.0);
  double pcd = 1.0 / 479001600.0 + r * (1.0 / 6227020800.0);
  double q0 = p01 + r2 * p23, q1 = p45 + r2 * p67, q2 = p89 + r2 * pab;
  *p = (q0 + r4 * q1) + r8 * (q2 + r4 * pcd);
  union { double d; uint64_t u; } tb = {t}, sb = {shifter}, one = {1.0};
  one.u += (tb.u - sb.u) << 52;
  *s = one.d;
}

static inline double KSUF(exp_core)(double x) {
  double s, p;
  KSUF(exp_parts)(x, &s, &p);
  return s + s * p;
}

static inline double KSUF(expm1_core)(double x) {
  double s, p;
  KSUF(exp_parts)(x, &s, &p);
  return s * p + (s - 1.0);
}

/* log1p(x), as fdlibm's log1p but branch free: u = 1 + x rounded, c the
 * rounding error (1 + x = u + c exactly, as u - x and u - 1 are exact);
 * u = 2^k m with m in [sqrt(2)/2, sqrt(2)), f = m - 1, s = f / (2 + f) and
 * log(1 + f) = f - (f^2/2 - s (f^2/2 + R)), R = sum_j 2 s^(2j) / (2j + 1)
 * for j = 1..10 (Taylor; |s| <= 0.1716, truncation below 1e-18 relative);
 * log1p(x) = k ln2 + log(1 + f) + c / u.  k is taken from u's exponent
 * bits with logical shifts and a double conversion through 2^52 (no 64-bit
 * integer conversion, which AVX2 lacks), so the loop vectorises.  u >= 2^-53
 * is a normal number for every x > -1; -1 gives -Inf, x < -1 NaN, +Inf
 * itself, NaN propagates.  Measured: within 1 ulp of the C library's log1p
 * (test-gradient.R). */
static inline double KSUF(log1p_core)(double x) {
  const double ln2_hi = 6.93147180369123816490e-01; /* trailing zero bits: k ln2_hi exact */
  const double ln2_lo = 1.90821492927058770002e-10;
  double u = 1.0 + x;
  double c = u > 2.0 ? 1.0 - (u - x) : x - (u - 1.0);
  union { double d; uint64_t i; } ub = {u}, kb;
  uint64_t t = ub.i - 0x3fe6a09e667f3bcdULL;        /* bits of sqrt(2)/2 */
  ub.i -= t & 0xfff0000000000000ULL;                 /* m = u / 2^k */
  kb.i = (t >> 52) | 0x4330000000000000ULL;          /* 2^52 + (k mod 4096) */
  double k = kb.d - 4503599627370496.0;
  k = k >= 2048.0 ? k - 4096.0 : k;
  double f = ub.d - 1.0;
  double hfsq = 0.5 * f * f;
  double s = f / (2.0 + f), z = s * s, z2 = z * z, z4 = z2 * z2, z8 = z4 * z4;
  /* R = z (2/3 + 2/5 z + ... + 2/21 z^9), Estrin's scheme */
  double p01 = 2.0 / 3.0 + z * (2.0 / 5.0), p23 = 2.0 / 7.0 + z * (2.0 / 9.0);
  double p45 = 2.0 / 11.0 + z * (2.0 / 13.0), p67 = 2.0 / 15.0 + z * (2.0 / 17.0);
  double p89 = 2.0 / 19.0 + z * (2.0 / 21.0);
  double R = z * (((p01 + z2 * p23) + z4 * (p45 + z2 * p67)) + z8 * p89);
  double r = k * ln2_hi + (f - (hfsq - (s * (hfsq + R) + (k * ln2_lo + c / u))));
  r = x < INFINITY ? r : x;            /* +Inf; NaN (the comparison is false) */
  r = x == -1.0 ? -INFINITY : r;
  return x < -1.0 ? NAN : r;
}
#endif /* BNNMC_VMATH_LIBM */

static void KSUF(vexp)(const double *x, double *out, int n) {
  for (int i = 0; i < n; i++) out[i] = KSUF(exp_core)(x[i]);
}

static void KSUF(vlog1p)(const double *x, double *out, int n) {
  for (int i = 0; i < n; i++) out[i] = KSUF(log1p_core)(x[i]);
}

/* tanh(x) = sign(x) (-e) / (2 + e), e = expm1(-2|x|) in (-1, 0]; 2|x| is
 * capped at 40 (tanh is 1 in double precision beyond |x| = 19.1) */
static void KSUF(vtanh)(const double *x, double *out, int n) {
  for (int i = 0; i < n; i++) {
    double xi = x[i];
    double ax2 = 2.0 * fabs(xi);
    ax2 = ax2 > 40.0 ? 40.0 : ax2;
    double e = KSUF(expm1_core)(-ax2);
    out[i] = copysign(-e / (2.0 + e), xi);
  }
}

/* logistic sigmoid, stable for both signs */
static void KSUF(vsigmoid)(const double *x, double *out, int n) {
  for (int i = 0; i < n; i++) {
    double xi = x[i];
    double ax = xi < 0 ? -xi : xi;
    double e = KSUF(exp_core)(-ax);
    double num = xi >= 0 ? 1.0 : e;
    out[i] = num / (1.0 + e);
  }
}

/* Activation of n values (codes as enum bnn_act in model.h). */
static void KSUF(act_forward)(int act, const double *z, double *a, int n) {
  int i;
  switch (act) {
  case 0: /* tanh */
    KSUF(vtanh)(z, a, n);
    break;
  case 1: /* relu */
    for (i = 0; i < n; i++) a[i] = z[i] > 0 ? z[i] : 0.0;
    break;
  case 2: /* leaky relu */
    for (i = 0; i < n; i++) a[i] = z[i] > 0 ? z[i] : 0.01 * z[i];
    break;
  case 3: /* silu */
    KSUF(vsigmoid)(z, a, n);
    for (i = 0; i < n; i++) a[i] *= z[i];
    break;
  case 4: /* sigmoid */
    KSUF(vsigmoid)(z, a, n);
    break;
  case 5: /* softplus = max(x, 0) + log1p(exp(-|x|)) */
    for (i = 0; i < n; i++) a[i] = z[i] < 0 ? z[i] : -z[i];
    KSUF(vexp)(a, a, n);
    for (i = 0; i < n; i++) a[i] = (z[i] > 0 ? z[i] : 0.0) + log1p(a[i]);
    break;
  case 6: /* gelu */
    for (i = 0; i < n; i++) a[i] = 0.5 * z[i] * (1.0 + erf(z[i] * M_SQRT1_2));
    break;
  case 7: /* truncated relu */
    for (i = 0; i < n; i++) a[i] = z[i] < 0 ? 0.0 : (z[i] > 1 ? 1.0 : z[i]);
    break;
  default:
    for (i = 0; i < n; i++) a[i] = z[i];
  }
}

/* d <- d * act'(z) given a = act(z); tmp has room for n values */
static void KSUF(act_backward)(int act, const double *z, const double *a,
                               double *d, double *tmp, int n) {
  int i;
  switch (act) {
  case 0:
    for (i = 0; i < n; i++) d[i] *= 1.0 - a[i] * a[i];
    break;
  case 1:
    for (i = 0; i < n; i++) d[i] = z[i] > 0 ? d[i] : 0.0;
    break;
  case 2:
    for (i = 0; i < n; i++) d[i] *= z[i] > 0 ? 1.0 : 0.01;
    break;
  case 3:
    KSUF(vsigmoid)(z, tmp, n);
    for (i = 0; i < n; i++) d[i] *= tmp[i] * (1.0 + z[i] * (1.0 - tmp[i]));
    break;
  case 4:
    for (i = 0; i < n; i++) d[i] *= a[i] * (1.0 - a[i]);
    break;
  case 5:
    KSUF(vsigmoid)(z, tmp, n);
    for (i = 0; i < n; i++) d[i] *= tmp[i];
    break;
  case 6: {
    const double inv_sqrt_2pi = 0.39894228040143267794;
    for (i = 0; i < n; i++)
      d[i] *= 0.5 * (1.0 + erf(z[i] * M_SQRT1_2)) +
              z[i] * inv_sqrt_2pi * exp(-0.5 * z[i] * z[i]);
    break;
  }
  case 7:
    for (i = 0; i < n; i++) d[i] = (z[i] > 0 && z[i] < 1) ? d[i] : 0.0;
    break;
  default:
    break;
  }
}

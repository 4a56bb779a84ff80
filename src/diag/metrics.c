/* Gaussian-mixture predictive metrics: mixture CDF, log density and
 * quantiles.  Pure C (C99 <math.h> only); see metrics.h for the conventions. */
#include <math.h>
#include <float.h>
#include "metrics.h"

#define BNN_SQRT1_2 0.70710678118654752440    /* 1/sqrt(2) */
#define BNN_LOG_SQRT_2PI 0.91893853320467274178 /* log(sqrt(2 pi)) */
#define BNN_INV_SQRT_2PI 0.39894228040143267794 /* 1/sqrt(2 pi) */

double bnn_gmix_cdf(const double *mu, const double *sd, int S, double q,
                    double *dens) {
  double F = 0.0, f = 0.0;
  if (dens) {
    for (int s = 0; s < S; s++) {
      double z = (q - mu[s]) / sd[s];
      F += 0.5 * erfc(-z * BNN_SQRT1_2);
      f += exp(-0.5 * z * z) / sd[s];
    }
    *dens = f * BNN_INV_SQRT_2PI / S;
  } else {
    for (int s = 0; s < S; s++)
      F += 0.5 * erfc(-(q - mu[s]) / sd[s] * BNN_SQRT1_2);
  }
  return F / S;
}

double bnn_gmix_logpdf(const double *mu, const double *sd, int S, double y) {
  /* One-pass log-sum-exp of l_s = -z_s^2 / 2 - log(sd_s). */
  double mx = -INFINITY, acc = 0.0;
  for (int s = 0; s < S; s++) {
    double z = (y - mu[s]) / sd[s];
    double l = -0.5 * z * z - log(sd[s]);
    if (l == -INFINITY) continue; /* adds exp(-Inf) = 0; exp(-Inf - -Inf) would be NaN */
    if (l > mx) {
      acc = acc * exp(mx - l) + 1.0; /* exp(-Inf) = 0 on the first term */
      mx = l;
    } else {
      acc += exp(l - mx);
    }
  }
  if (mx == -INFINITY) return -INFINITY; /* every component underflowed */
  return mx + log(acc) - log((double)S) - BNN_LOG_SQRT_2PI;
}

double bnn_gmix_mean(const double *mu, int S) {
  double m = 0.0;
  for (int s = 0; s < S; s++) m += mu[s];
  return m / S;
}

/* F(q), F'(q) and F''(q) of the mixture in one pass. */
static double gmix_cdf2(const double *mu, const double *sd, int S, double q,
                        double *d1, double *d2) {
  double F = 0.0, f1 = 0.0, f2 = 0.0;
  for (int s = 0; s < S; s++) {
    double is = 1.0 / sd[s];
    double z = (q - mu[s]) * is;
    double e = exp(-0.5 * z * z) * is;
    F += 0.5 * erfc(-z * BNN_SQRT1_2);
    f1 += e;
    f2 -= z * e * is;
  }
  *d1 = f1 * BNN_INV_SQRT_2PI / S;
  *d2 = f2 * BNN_INV_SQRT_2PI / S;
  return F / S;
}

/* Root of F(x) = p on the bracket [a, b] (F(a) <= p <= F(b)), started at x:
 * Halley steps (Newton's when the curvature term is large) safeguarded as in
 * Numerical Recipes' rtsafe, i.e. a bisection step whenever the step leaves
 * the bracket or fails to halve the step before last.  Stops when the step,
 * the bracket, or the local error estimate of a Newton step,
 * |F''| / (2 F') * step^2, is below tol * max(1, |x|) (the last with a
 * safety factor of 100; the Halley point is at least as accurate). */
static double gmix_root(const double *mu, const double *sd, int S, double p,
                        double a, double b, double x, double tol, int *iters) {
  double dx_old = b - a, dx = dx_old;
  for (int k = 1; k <= BNN_GMIX_MAXIT; k++) {
    double d1, d2;
    double f = gmix_cdf2(mu, sd, S, x, &d1, &d2) - p;
    *iters = k;
    if (f == 0.0) return x;
    if (f < 0.0) a = x; else b = x;
    double scale = fabs(x) > 1.0 ? fabs(x) : 1.0;
    double xn = 0.5 * (a + b);
    if (d1 > 0.0) {
      double sn = f / d1;                    /* Newton step */
      double h = 0.5 * f * d2 / (d1 * d1);
      double step = fabs(h) < 0.5 ? sn / (1.0 - h) : sn;
      /* Converged: test before the bracket check, since x - step may round
       * to x itself (an end of the bracket) and would then be rejected. */
      if (fabs(step) <= tol * scale ||
          (fabs(sn) <= 1e-3 * scale &&
           0.5 * fabs(d2) / d1 * sn * sn <= 0.01 * tol * scale))
        return x - step;
      if (fabs(2.0 * step) <= fabs(dx_old)) {
        double xt = x - step;
        if (xt > a && xt < b) xn = xt;
      }
    }
    dx_old = dx;
    dx = xn - x;
    x = xn;
    if (fabs(dx) <= tol * scale || b - a <= tol * scale) return x;
  }
  return x;
}

int bnn_gmix_quantiles(const double *mu, const double *sd, int S,
                       const double *p, const double *zp, int m, double tol,
                       double *q) {
  /* Starting value: the quantile of the moment-matched Gaussian. */
  double mean = bnn_gmix_mean(mu, S), var = 0.0;
  for (int s = 0; s < S; s++) {
    double d = mu[s] - mean;
    var += d * d + sd[s] * sd[s];
  }
  double sdm = sqrt(var / S);
  int maxit = 0;
  double prev = -INFINITY;
  for (int j = 0; j < m; j++) {
    double a = INFINITY, b = -INFINITY;
    for (int s = 0; s < S; s++) {
      double qs = mu[s] + sd[s] * zp[j];
      if (qs < a) a = qs;
      if (qs > b) b = qs;
    }
    if (!(b > a)) { /* all component quantiles coincide: F(a) = p exactly */
      q[j] = a;
      prev = a;
      continue;
    }
    /* p is sorted, so the previous quantile is a lower bound as well. */
    if (prev > a && prev < b) a = prev;
    double x0 = mean + sdm * zp[j];
    if (!(x0 > a && x0 < b)) x0 = 0.5 * (a + b);
    int it = 0;
    q[j] = gmix_root(mu, sd, S, p[j], a, b, x0, tol, &it);
    if (it > maxit) maxit = it;
    prev = q[j];
  }
  return maxit;
}

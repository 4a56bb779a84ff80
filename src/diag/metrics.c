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

/* Many quantiles of one mixture at once.  F is smooth (entire), so around
 * a centre c it is its Taylor series: with z_s = (c - mu_s) / sd_s, r the
 * smallest sd_s and t = (q - c) / r,
 *   F(c + r t) = sum_k A_k t^k,   A_0 = F(c),
 *   A_k = (1/S) sum_s (-1)^(k-1) g_{k-1}(z_s) rho_s^k / (k sqrt((k-1)!)),
 * where rho_s = r / sd_s <= 1 and g_j = He_j phi / sqrt(j!) (He the
 * probabilists' Hermite polynomials, phi the normal density), computed by
 * the stable recursion g_{j+1} = (z g_j - sqrt(j) g_{j-1}) / sqrt(j + 1),
 * |g_j| <= 0.44 (Cramer's bound).  By the same bound the remainder after
 * degree D for |t| <= T is at most 0.44 T^(D+1) / ((D+1) sqrt(D!)) per
 * component: below 2e-17 for T = 1.5 and D = 37, far below the rounding of
 * the sums.  Pieces of half-width T r around N centres cover the bracket of
 * all the quantiles; each costs one pass over the components (one erfc()
 * and one exp() per component, then the recursion), after which every
 * quantile in it is the root of a polynomial (Newton's method safeguarded
 * by bisection, to rounding).  Worth it when the quantiles outnumber the
 * pieces severalfold (bnn_gmix_quantiles() decides). */
#define GMIX_TAYLOR_DEG 37
#define GMIX_TAYLOR_T 1.5
#define GMIX_TAYLOR_MAXC 16

/* The polynomial A of degree GMIX_TAYLOR_DEG at t, and its derivative. */
static double taylor_eval(const double *A, double t, double *d1) {
  double P = A[GMIX_TAYLOR_DEG], D = 0.0;
  for (int k = GMIX_TAYLOR_DEG - 1; k >= 0; k--) {
    D = D * t + P;
    P = P * t + A[k];
  }
  *d1 = D;
  return P;
}

/* Root of A(t) = p for t in [lo, hi], A increasing, A(lo) <= p <= A(hi). */
static double taylor_root(const double *A, double p, double lo, double hi) {
  double flo, fhi, d;
  flo = taylor_eval(A, lo, &d) - p;
  fhi = taylor_eval(A, hi, &d) - p;
  if (!(flo < 0.0)) return lo;
  if (!(fhi > 0.0)) return hi;
  double t = lo - flo * (hi - lo) / (fhi - flo);  /* secant start */
  for (int it = 0; it < 100; it++) {
    double f = taylor_eval(A, t, &d) - p;
    if (f == 0.0) return t;
    if (f < 0.0) lo = t; else hi = t;
    double tn = (d > 0.0) ? t - f / d : 0.5 * (lo + hi);
    if (!(tn > lo && tn < hi)) tn = 0.5 * (lo + hi);
    if (fabs(tn - t) <= 4.0 * DBL_EPSILON * (1.0 + fabs(t)) || hi - lo <= 4.0 * DBL_EPSILON)
      return tn;
    t = tn;
  }
  return t;
}

/* The m quantiles (p sorted) of one mixture from N Taylor pieces of
 * half-width GMIX_TAYLOR_T * r, the first starting at qa. */
static void gmix_quantiles_taylor(const double *mu, const double *sd, int S,
                                  const double *p, int m, double qa, double r,
                                  int N, double *q) {
  double A[GMIX_TAYLOR_MAXC][GMIX_TAYLOR_DEG + 1], c[GMIX_TAYLOR_MAXC];
  double sq[GMIX_TAYLOR_DEG + 2], isq[GMIX_TAYLOR_DEG + 2];
  for (int k = 0; k <= GMIX_TAYLOR_DEG + 1; k++) {
    sq[k] = sqrt((double)k);
    isq[k] = k > 0 ? 1.0 / sq[k] : 0.0;
  }
  for (int i = 0; i < N; i++) {
    c[i] = qa + (2 * i + 1) * GMIX_TAYLOR_T * r;
    for (int k = 0; k <= GMIX_TAYLOR_DEG; k++) A[i][k] = 0.0;
  }
  /* Four components at a time: their recursions are independent chains,
   * which the processor then runs side by side. */
  for (int s0 = 0; s0 < S; s0 += 4) {
    int L = S - s0 < 4 ? S - s0 : 4;
    double is[4], rho[4];
    for (int l = 0; l < 4; l++) {
      is[l] = l < L ? 1.0 / sd[s0 + l] : 1.0;
      rho[l] = l < L ? r * is[l] : 0.0;
    }
    for (int i = 0; i < N; i++) {
      double *Ai = A[i], g[4], gm[4], z[4], rk[4];
      for (int l = 0; l < 4; l++) {
        z[l] = l < L ? (c[i] - mu[s0 + l]) * is[l] : 0.0;
        if (l < L) Ai[0] += 0.5 * erfc(-z[l] * BNN_SQRT1_2);
        /* a padding lane, or one whose density underflows (every
         * derivative term is then 0), adds nothing */
        g[l] = l < L ? exp(-0.5 * z[l] * z[l]) * BNN_INV_SQRT_2PI : 0.0;
        gm[l] = 0.0;
        rk[l] = rho[l];
      }
      /* term k uses g_{k-1}; g_j -> g_{j+1} after it */
      for (int k = 1; k <= GMIX_TAYLOR_DEG; k++) {
        Ai[k] += (g[0] * rk[0] + g[1] * rk[1]) + (g[2] * rk[2] + g[3] * rk[3]);
        for (int l = 0; l < 4; l++) {
          double gn = (z[l] * g[l] - sq[k - 1] * gm[l]) * isq[k];
          gm[l] = g[l];
          g[l] = gn;
          rk[l] *= rho[l];
        }
      }
    }
  }
  /* scale: (-1)^(k-1) / (k sqrt((k-1)!)) / S */
  double w[GMIX_TAYLOR_DEG + 1];
  w[0] = 1.0 / S;
  double sfact = 1.0;           /* sqrt((k-1)!) */
  for (int k = 1; k <= GMIX_TAYLOR_DEG; k++) {
    if (k > 1) sfact *= sq[k - 1];
    w[k] = ((k - 1) % 2 ? -1.0 : 1.0) / (k * sfact * S);
  }
  for (int i = 0; i < N; i++)
    for (int k = 0; k <= GMIX_TAYLOR_DEG; k++) A[i][k] *= w[k];
  int i = 0;
  for (int j = 0; j < m; j++) {
    double d;
    while (i < N - 1 && taylor_eval(A[i], GMIX_TAYLOR_T, &d) < p[j]) i++;
    q[j] = c[i] + r * taylor_root(A[i], p[j], -GMIX_TAYLOR_T, GMIX_TAYLOR_T);
  }
}

int bnn_gmix_quantiles(const double *mu, const double *sd, int S,
                       const double *p, const double *zp, int m, double tol,
                       double *q, int *passes) {
  /* Starting value: the quantile of the moment-matched Gaussian. */
  double mean = bnn_gmix_mean(mu, S), var = 0.0;
  for (int s = 0; s < S; s++) {
    double d = mu[s] - mean;
    var += d * d + sd[s] * sd[s];
  }
  double sdm = sqrt(var / S);
  int maxit = 0;
  double prev = -INFINITY;
  *passes = 0;
  if (m >= 8) {
    /* Taylor pieces when they are at most a quarter of the quantiles */
    double qa = INFINITY, qb = -INFINITY, r = INFINITY;
    for (int s = 0; s < S; s++) {
      double lo = mu[s] + sd[s] * zp[0], hi = mu[s] + sd[s] * zp[m - 1];
      if (lo < qa) qa = lo;
      if (hi > qb) qb = hi;
      if (sd[s] < r) r = sd[s];
    }
    double N = ceil((qb - qa) / (2.0 * GMIX_TAYLOR_T * r));
    if (qb > qa && N >= 1.0 && N <= GMIX_TAYLOR_MAXC && 4.0 * N <= m) {
      gmix_quantiles_taylor(mu, sd, S, p, m, qa, r, (int)N, q);
      *passes = (int)N;
      return 1;
    }
  }
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
    *passes += it;
    if (it > maxit) maxit = it;
    prev = q[j];
  }
  return maxit;
}

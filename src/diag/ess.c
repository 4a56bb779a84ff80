/* ESS and MCSE of the convergence diagnostics (posterior::ess_bulk,
 * ess_tail, ess_basic, ess_sd, ess_quantile, mcse_mean, mcse_quantile) and
 * PSIS-LOO's relative efficiency (loo::relative_eff, the same algorithm on
 * whole chains); see diagnostics.h.
 *
 * Autocovariances (acov.h): Geyer's truncation only reads the lags up to
 * the first negative pair of autocorrelations, usually a handful, so lags
 * are computed directly in blocks of eight, on demand; when the
 * autocorrelation decays slowly, the chains disagree, or more than
 * ws->direct_max lags are needed, all remaining lags are computed at once
 * by FFT (radix-2^2, zero padding to L >= 2n, two real chains per complex
 * transform, power spectra summed over chains, one transform back).  Both
 * give the biased estimator sum_i yc_i yc_{i+t} / n that posterior
 * computes with stats::fft, up to rounding.  The lag kernel and the FFT
 * stages have AVX2/FMA versions, used when the CPU has them (checked at run
 * time; portable C otherwise).  qbeta() comes from R's maths library
 * (Rmath.h), a pure function of its arguments as R's qbeta(). */
#include <float.h>
#include <math.h>
#include <string.h>
#include <Rmath.h> /* qbeta: a pure function (see above) */
#include "diagnostics.h"
#include "diag_stats.h"
#include "diag_ws.h"
#include "ranks.h"

/* ---------- autocovariance ---------- */

/* Makes acov[0..t] available (sums over chains, not yet normalised). */
static inline void need_lag(bnn_diag_ws *ws, int t, int n, int m) {
  if (t < ws->n_acov) return;
  if (t >= ws->direct_max && t >= 8) {
    bnn_acov_fft_sum(&ws->fft, ws->yc, n, m, ws->n_acov, ws->acov);
    ws->n_acov = n;
    return;
  }
  int t0 = ws->n_acov, t1 = t0 + 8;
  if (t1 > n) t1 = n;
  double o[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (int j = 0; j < m; j++) bnn_acov_lags8(ws->yc + (size_t) n * j, n, t0, o, ws->avx2);
  for (int k = t0; k < t1; k++) ws->acov[k] = o[k - t0];
  ws->n_acov = t1;
}

/* ---------- ESS of a matrix [n, m] (posterior:::.ess) ---------- */

/* kind of data given to ess_matrix() (0/1 indicators: ess_indicator()) */
enum {
  ESS_RAW,   /* anything: checked, centred with R's mean() */
  ESS_SCORES /* normal scores, known finite and not constant */
};

/* Centring: posterior's autocovariance() uses mean(x), var_plus uses
 * matrixStats::colMeans2 (a double sum).  For raw draws R's mean() is
 * reproduced exactly, because for nearly constant draws the last bit of the
 * centre matters.  For 0/1 indicators both means are k / n.  For normal
 * scores (spread ~1, never nearly constant) colMeans2 is used for both; the
 * difference to mean() is ~1e-16 and has no visible effect. */
static double ess_core(bnn_diag_ws *ws, int n, int m, double acov_mult);

/* Centres the columns cols[0..m) of n values (RAW or SCORES) into yc and
 * leaves their means in cm; spread (RAW only) is their range relative to
 * their magnitude. */
static void centre_cols(bnn_diag_ws *ws, const double *const *cols, int n, int m,
                        int kind, double spread) {
  double *cm = ws->cm, *rm = ws->cv;
  if (kind == ESS_RAW) {
    /* R's mean() exactly only where its last bit matters: draws whose
     * spread is tiny relative to their size */
    diag_col_means(cols, n, m, cm, spread < 1e-6 ? rm : NULL);
    if (spread >= 1e-6)
      for (int j = 0; j < m; j++) {
        const double *yj = cols[j];
        double c0 = 0, c1 = 0, c2 = 0, c3 = 0, mu = cm[j];
        int i = 0;
        for (; i + 4 <= n; i += 4) {
          c0 += yj[i] - mu;
          c1 += yj[i + 1] - mu;
          c2 += yj[i + 2] - mu;
          c3 += yj[i + 3] - mu;
        }
        for (; i < n; i++) c0 += yj[i] - mu;
        rm[j] = mu + ((c0 + c1) + (c2 + c3)) / n;
      }
  } else { /* sums in four lanes: rounding differences only */
    for (int j = 0; j < m; j++) {
      const double *yj = cols[j];
      double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      int i = 0;
      for (; i + 4 <= n; i += 4) {
        s0 += yj[i];
        s1 += yj[i + 1];
        s2 += yj[i + 2];
        s3 += yj[i + 3];
      }
      for (; i < n; i++) s0 += yj[i];
      cm[j] = ((s0 + s1) + (s2 + s3)) / n;
    }
    rm = cm;
  }
  for (int j = 0; j < m; j++) {
    const double *restrict yj = cols[j];
    double *restrict cj = ws->yc + (size_t) n * j, mu = rm[j];
    /* var(x) == 0 (a constant chain): zero autocovariances */
    int constant = 1;
    double y0 = yj[0];
    for (int i = 1; i < n && constant; i++) constant = yj[i] == y0;
    if (constant) memset(cj, 0, (size_t) n * sizeof(double));
    else
      for (int i = 0; i < n; i++) cj[i] = yj[i] - mu;
  }
}

/* ESS of the columns cols[0..m) of n values (RAW or SCORES). */
static double ess_matrix(bnn_diag_ws *ws, const double *const *cols, int n, int m,
                         int kind) {
  if (n < 3) return NAN;
  double spread = 1;
  if (kind == ESS_RAW && diag_should_na_cols(cols, n, m, &spread)) return NAN;
  centre_cols(ws, cols, n, m, kind, spread);
  return ess_core(ws, n, m, 1.0);
}

/* ESS of the split indicators x <= q, centred straight into yc; for 0/1
 * values mean(x) and colMeans2 are both k / n. */
static double ess_indicator(bnn_diag_ws *ws, double q) {
  int n = ws->h, m = ws->m2;
  if (n < 3) return NAN;
  const double *const *cols = split_cols_x(ws);
  double *cm = ws->cm;
  long tot = 0;
  for (int j = 0; j < m; j++) {
    const double *yj = cols[j];
    int k = 0;
    for (int i = 0; i < n; i++) k += yj[i] <= q;
    cm[j] = (double) k / n;
    tot += k;
  }
  if (tot == 0 || tot == (long) n * m) return NAN; /* constant */
  for (int j = 0; j < m; j++) {
    const double *restrict yj = cols[j];
    double *restrict cj = ws->yc + (size_t) n * j, mu = cm[j];
    if (mu == 0 || mu == 1) { /* a constant chain */
      memset(cj, 0, (size_t) n * sizeof(double));
    } else {
      double one = 1 - mu, zero = -mu;
      for (int i = 0; i < n; i++) cj[i] = yj[i] <= q ? one : zero;
    }
  }
  return ess_core(ws, n, m, 1.0);
}

/* Geyer's initial monotone sequence on the centred columns in yc, with
 * cm the column means (posterior:::.ess after the centring).  The
 * autocovariances are the biased estimates times acov_mult (1 for
 * posterior; see bnn_diag_relative_eff() for loo). */
static double ess_core(bnn_diag_ws *ws, int n, int m, double acov_mult) {
  double *cm = ws->cm;
  ws->n_acov = 0;
  double scale = acov_mult / ((double) n * m); /* acov sums -> acov_means */
#define ACOV(t) (need_lag(ws, (t), n, m), ws->acov[(t)] * scale)
  double mean_var = ACOV(0) * n / (n - 1);
  double var_plus = mean_var * (n - 1) / n;
  if (m > 1) var_plus += diag_r_var(cm, m);
  /* Speed only (the lags are the same either way): if Geyer's loop will
   * probably read more than direct_max lags, take the FFT at once.  The
   * pair sums of the combined autocorrelation decay from p0 towards
   * 2 rho_inf, rho_inf = 1 - mean_var / var_plus (the share of the
   * between-chain variance); the loop stops about where they fall below
   * their noise level, and never if 2 rho_inf is above it (chains that
   * disagree). */
  if (n > 8 && ws->direct_max < n) {
    double p0 = 1 + (1 - (mean_var - ACOV(1)) / var_plus);
    double p6 = (1 - (mean_var - ACOV(6)) / var_plus) + (1 - (mean_var - ACOV(7)) / var_plus);
    double level = 2 / sqrt((double) n * m), pinf = 2 * (1 - mean_var / var_plus);
    double e0 = p0 - pinf, e6 = p6 - pinf;
    if (pinf > 10 * level ||
        (e6 > level && (e6 >= e0 || 6 * log(level / e0) / log(e6 / e0) > 0.7 * ws->direct_max)))
      need_lag(ws, n - 1, n, m);
  }
  double *rho = ws->rho;
  for (int i = 0; i < n; i++) rho[i] = 0.0;
  int t = 0;
  double even = 1.0;
  rho[0] = even;
  double odd = 1 - (mean_var - ACOV(1)) / var_plus;
  rho[1] = odd;
  while (t < n - 5 && !isnan(even + odd) && even + odd > 0) {
    t += 2;
    even = 1 - (mean_var - ACOV(t)) / var_plus;
    odd = 1 - (mean_var - ACOV(t + 1)) / var_plus;
    if (even + odd >= 0) {
      rho[t] = even;
      rho[t + 1] = odd;
    }
  }
#undef ACOV
  int max_t = t;
  if (even > 0) rho[max_t] = even;
  t = 0;
  while (t <= max_t - 4) {
    t += 2;
    if (rho[t] + rho[t + 1] > rho[t - 2] + rho[t - 1]) {
      rho[t] = (rho[t - 2] + rho[t - 1]) / 2;
      rho[t + 1] = rho[t];
    }
  }
  double S = (double) m * n;
  /* R: sum(rho_hat_t[1:max_t]); for max_t == 0, 1:0 selects rho_hat_t[1] */
  long double sum = 0.0;
  if (max_t == 0) sum = rho[0];
  else
    for (int k = 0; k < max_t; k++) sum += rho[k];
  double tau = -1 + 2 * (double) sum + rho[max_t];
  double bound = 1 / log10(S);
  if (tau < bound) {
    ws->n_capped++;
    tau = bound;
  }
  return S / tau;
}

/* The split matrix [h, 2M] of (x - center)^2 in tmp (column c: first half
 * of chain c, column M + c: its second half; an odd chain's middle draw
 * dropped), as posterior:::.split_chains(). */
static void split_sq(bnn_diag_ws *ws, double center) {
  int h = ws->h, m = ws->m2;
  const double *const *cols = split_cols_x(ws);
  for (int j = 0; j < m; j++) {
    double *dst = ws->tmp + (size_t) h * j;
    for (int i = 0; i < h; i++) {
      double v = cols[j][i] - center;
      dst[i] = v * v;
    }
  }
}

/* ---------- ESS ---------- */

double bnn_diag_ess_bulk(bnn_diag_ws *ws) {
  diag_make_zb(ws);
  if (ws->zb_na) return NAN;
  return ess_matrix(ws, cols_of(ws, ws->zb, ws->h, ws->m2), ws->h, ws->m2, ESS_SCORES);
}

double bnn_diag_ess_quantile(bnn_diag_ws *ws, double prob) {
  diag_scan(ws);
  if (!(prob >= 0 && prob <= 1)) return NAN;
  if (ws->has_nan || ws->has_inf || ws->h < 1) return NAN;
  diag_sort_draws(ws);
  int S = ws->S;
  if (fabs(ws->sval[S - 1] - ws->sval[0]) < DBL_EPSILON) return NAN;
  if (prob == 1) prob = (S - 0.5) / S;
  return ess_indicator(ws, diag_quantile7(ws->sval, S, prob));
}

double bnn_diag_ess_tail(bnn_diag_ws *ws) {
  double a = bnn_diag_ess_quantile(ws, 0.05), b = bnn_diag_ess_quantile(ws, 0.95);
  if (isnan(a) || isnan(b)) return NAN;
  return a < b ? a : b;
}

double bnn_diag_ess_basic(bnn_diag_ws *ws) {
  if (!(ws->st & ST_EB)) {
    ws->st |= ST_EB;
    ws->ess_basic = NAN;
    if (ws->h >= 1) ws->ess_basic = ess_matrix(ws, split_cols_x(ws), ws->h, ws->m2, ESS_RAW);
  }
  return ws->ess_basic;
}

double bnn_diag_ess_sd(bnn_diag_ws *ws) {
  if (ws->h < 1) return NAN;
  split_sq(ws, bnn_diag_mean(ws));
  return ess_matrix(ws, cols_of(ws, ws->tmp, ws->h, ws->m2), ws->h, ws->m2, ESS_RAW);
}

/* ---------- MCSE ---------- */

double bnn_diag_mcse_mean(bnn_diag_ws *ws) {
  double e = bnn_diag_ess_basic(ws);
  if (isnan(e)) return NAN;
  return bnn_diag_sd(ws) / sqrt(e);
}

double bnn_diag_mcse_quantile(bnn_diag_ws *ws, double prob) {
  double e = bnn_diag_ess_quantile(ws, prob);
  if (isnan(e)) return NAN;
  /* posterior:::.mcse_quantile */
  double a1 = qbeta(0.1586553, e * prob + 1, e * (1 - prob) + 1, 1, 0);
  double a2 = qbeta(0.8413447, e * prob + 1, e * (1 - prob) + 1, 1, 0);
  if (isnan(a1) || isnan(a2)) return NAN;
  int S = ws->n_valid;
  double i1 = floor(a1 * S), i2 = ceil(a2 * S);
  if (i1 < 1) i1 = 1;
  if (i2 > S) i2 = S;
  return (ws->sval[(int) i2 - 1] - ws->sval[(int) i1 - 1]) / 2;
}

/* ---------- relative efficiency of PSIS-LOO ---------- */

/* loo:::fft_next_good_size(): the smallest n' >= n of the form
 * 2^a 3^b 5^c, and 2 for n <= 2. */
static int good_size(int n) {
  if (n <= 2) return 2;
  for (;; n++) {
    int k = n;
    while (k % 2 == 0) k /= 2;
    while (k % 3 == 0) k /= 3;
    while (k % 5 == 0) k /= 5;
    if (k == 1) return n;
  }
}

/* loo::relative_eff(exp(ll - max(ll)), chain_id) for one observation:
 * loo:::ess_rfun() on the draws [n, m] (the chains, not split), divided by
 * S = n m.  ess_rfun() is posterior's ESS algorithm (ess_core()) with two
 * differences:
 *  - its autocovariance() takes the FFT of length 2 n', n' =
 *    fft_next_good_size(n), and divides by 2 n^2: the biased estimates
 *    times n' / n, a factor var(chain means) does not get;
 *  - nothing is NA: for a constant ll, or NaN in exp(ll - max(ll)) (NaN in
 *    ll, +Inf, all -Inf), the autocorrelation of lag one is NaN, Geyer's
 *    loop never runs and tau = 2 (at least 1 / log10(S)); constant ll runs
 *    through ess_core() to that end, NaN is answered here.
 * Its chain means (colMeans, for var_plus) are long double sums, here
 * double sums (rounding only).  Its y - mean(y) is exactly 0 for a
 * constant chain, as the zeros of centre_cols().  The values exp(ll - max)
 * in (0, 1] go to tmp (S values, reused for every observation); their
 * maximum is exactly 1, so 1 - min is their relative spread (RAW). */
double bnn_diag_relative_eff(bnn_diag_ws *ws, const double *ll) {
  int n = ws->h, m = ws->m2;
  double S = (double) n * m;
  size_t len = (size_t) n * m;
  if (n < 2) return NAN; /* loo: an error */
  /* R's max(): NaN as soon as one value is NaN */
  double mx = -INFINITY;
  int nan = 0;
  for (size_t i = 0; i < len; i++) {
    double v = ll[i];
    if (isnan(v)) nan = 1;
    else if (v > mx) mx = v;
  }
  if (nan || !isfinite(mx)) {
    double tau = 2, bound = 1 / log10(S);
    return S / (tau < bound ? bound : tau) / S;
  }
  double *e = ws->tmp, lo = 1;
  for (size_t i = 0; i < len; i++) {
    double v = exp(ll[i] - mx);
    e[i] = v;
    if (v < lo) lo = v;
  }
  centre_cols(ws, cols_of(ws, e, n, m), n, m, ESS_RAW, 1 - lo);
  return ess_core(ws, n, m, (double) good_size(n) / n) / S;
}

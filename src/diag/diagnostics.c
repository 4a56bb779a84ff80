/* Convergence diagnostics: see diagnostics.h.  This file holds the
 * workspace and the summaries (mean, sd, quantiles, chain moments); the
 * helpers following R's arithmetic and the column statistics are in
 * diag_stats.c, the sorting and rank normalisation in ranks.c,
 * R-hat in rhat.c, ESS and MCSE in ess.c, the autocovariances in acov.c
 * (FFT in fft.c), the cumulative LPPD in lppd.c.
 *
 * Where the last bits of a result decide something for degenerate input
 * (nearly constant draws, chains constant within a half), R's arithmetic
 * is mirrored: mean() with long double and a correction pass for the
 * centre of raw draws, matrixStats' double sums for column means, var()
 * with long double, the type-7 quantile formula, median() of two values.
 * Elsewhere sums run in several lanes and differ from R by rounding only.
 *
 * posterior's split of 2 or 3 iterations loses the matrix dimension
 * (x[1:1, ] is a vector) and compares first and last draws across chains;
 * here split chains of one draw give NA. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "diagnostics.h"
#include "diag_stats.h"
#include "diag_ws.h"
#include "fft.h"
#include "ranks.h"

/* ---------- workspace ---------- */

static size_t align_up(size_t b) { return (b + 63) & ~(size_t) 63; }

typedef struct {
  char *base;
  size_t off;
} arena;

static void *take(arena *a, size_t bytes) {
  void *p = a->base ? a->base + a->off : NULL;
  a->off += align_up(bytes);
  return p;
}

/* Lays out the workspace in a (a->base NULL: only measures).  A workspace
 * of bnn_diag_reff_ws_init() (w->chains) holds the ESS buffers only. */
static void layout(arena *a, bnn_diag_ws *w) {
  size_t S = (size_t) w->S, Sp = (size_t) w->Sp, L = (size_t) w->L;
  size_t mcw = (size_t) w->n_chain * (w->kappa > 0 ? w->kappa : 1);
  size_t mx = (size_t) w->m2 > mcw ? (size_t) w->m2 : mcw;
  if (!w->chains) {
    w->key = take(a, S * sizeof(uint64_t));
    w->key2 = take(a, S * sizeof(uint64_t));
    w->key3 = take(a, S * sizeof(uint64_t));
    w->sidx = take(a, S * sizeof(uint32_t));
    w->hist = take(a, (size_t) (RADIX_MAX_PASSES + 4) * (1 << RADIX_MAX_BITS) * sizeof(uint32_t));
    w->sval = take(a, S * sizeof(double));
    w->fval = take(a, S * sizeof(double));
    w->fbuf = take(a, (S + 2) * sizeof(double));
    w->fidx = take(a, S * sizeof(uint32_t));
    w->zb = take(a, Sp * sizeof(double));
    w->tK = take(a, (size_t) w->m2 * sizeof(double));
    w->tS1 = take(a, (size_t) w->m2 * sizeof(double));
    w->tS2 = take(a, (size_t) w->m2 * sizeof(double));
    w->run = take(a, 2 * RUN_BUF * sizeof(uint32_t));
  }
  w->tmp = take(a, Sp * sizeof(double));
  w->yc = take(a, Sp * sizeof(double));
  if (!w->chains) {
    w->tsp_int = take(a, (Sp + 1) * sizeof(double));
    w->tsp_half = take(a, (Sp + 1) * sizeof(double));
    w->tcw_int = w->kappa ? take(a, ((size_t) w->Sc + 1) * sizeof(double)) : NULL;
    w->tcw_half = w->kappa ? take(a, ((size_t) w->Sc + 1) * sizeof(double)) : NULL;
    w->cK = take(a, mcw * sizeof(double));
    w->cS1 = take(a, mcw * sizeof(double));
    w->cS2 = take(a, mcw * sizeof(double));
    w->sub_of = take(a, (size_t) w->n_iter * sizeof(int32_t));
    w->cw_const = take(a, (size_t) w->n_chain * sizeof(int));
    w->cnt = take(a, (size_t) w->n_chain * sizeof(int));
    w->kcnt = take(a, (size_t) w->n_chain * sizeof(int));
    w->chain_nan = take(a, (size_t) w->n_chain * sizeof(int));
  }
  w->cm = take(a, mx * sizeof(double));
  w->colp = take(a, (size_t) w->m2 * sizeof(double *));
  w->cv = take(a, mx * sizeof(double));
  w->acov = take(a, ((size_t) w->h + 1) * sizeof(double));
  w->rho = take(a, ((size_t) w->h + 1) * sizeof(double));
  w->cbuf = take(a, 2 * L * sizeof(double));
  w->pw = take(a, L * sizeof(double));
  w->tw = take(a, 2 * L * sizeof(double));
  w->tw3 = take(a, 2 * L * sizeof(double));
  w->rev = take(a, L * sizeof(uint32_t));
}

/* the lags computed directly before Geyer's loop switches to the FFT: the
 * FFT route costs (m2 / 2 + 1) transforms of about L log2(L) butterflies,
 * a direct lag m2 * h multiply-adds; measured, a butterfly costs ~2.8
 * multiply-adds of lags8(), and with AVX2 ~8 of lags8_avx2() */
static int direct_lags(const bnn_diag_ws *w) {
  return w->h > 0 ? (int) ((w->avx2 ? 8.0 : 2.8) * (w->m2 / 2 + 1) * (double) w->L *
                           w->log2L / ((double) w->m2 * w->h)) : 0;
}

/* The sizes of a workspace for draws n_iter x n_chain: split chains
 * (h = n_iter / 2 draws, m2 = 2 n_chain columns) or, with chains = 1, the
 * whole chains as the columns of the ESS (h = n_iter, m2 = n_chain, no
 * chain-wise R-hat).  0 if the sizes are invalid or too large. */
static int dims(bnn_diag_ws *w, int n_iter, int n_chain, int kappa, int chains) {
  if (n_iter < 1 || n_chain < 1 || kappa < 0 || kappa == 1) return 0;
  if ((double) n_iter * n_chain > 1073741823.0) return 0; /* 2S + 2 fits int */
  /* draw codes (chain << ib | iteration) must fit 31 bits */
  if ((double) n_iter * n_chain * 4 > 2147483647.0) return 0;
  memset(w, 0, sizeof *w);
  w->chains = chains;
  w->n_iter = n_iter;
  w->n_chain = n_chain;
  w->kappa = chains ? 0 : kappa;
  w->S = n_iter * n_chain;
  w->h = chains ? n_iter : n_iter / 2;
  w->m2 = chains ? n_chain : 2 * n_chain;
  w->Sp = w->m2 * w->h;
  w->Lc = w->kappa ? n_iter / w->kappa : 0;
  w->Sc = w->kappa * w->Lc;
  w->L = bnn_fft_len(w->h, &w->log2L);
  return 1;
}

static size_t ws_size(int n_iter, int n_chain, int kappa, int chains) {
  bnn_diag_ws w;
  if (!dims(&w, n_iter, n_chain, kappa, chains)) return 0;
  arena a = {NULL, align_up(sizeof(bnn_diag_ws))};
  layout(&a, &w);
  return a.off + 64;
}

static bnn_diag_ws *ws_init(void *mem, int n_iter, int n_chain, int kappa, int chains) {
  if (!ws_size(n_iter, n_chain, kappa, chains)) return NULL;
  char *base = (char *) (((uintptr_t) mem + 63) & ~(uintptr_t) 63);
  bnn_diag_ws *w = (bnn_diag_ws *) base;
  dims(w, n_iter, n_chain, kappa, chains);
  while ((1L << w->ib) < n_iter) w->ib++;
  w->imask = (uint32_t) ((1L << w->ib) - 1);
  int cb = 0;
  while ((1L << cb) < n_chain) cb++;
  w->id_bits = w->ib + cb;
  w->r0 = w->kappa ? n_iter - w->Sc : 0;
  w->avx2 = bnn_cpu_has_avx2_fma();
  w->direct_max = direct_lags(w);
  arena a = {base, align_up(sizeof(bnn_diag_ws))};
  layout(&a, w);

  if (!chains) {
    for (size_t k = 0; k <= (size_t) w->Sp; k++) w->tsp_int[k] = w->tsp_half[k] = NAN;
    for (int i = 0; i < n_iter; i++)
      w->sub_of[i] = (w->Lc > 0 && i >= w->r0) ? (i - w->r0) / w->Lc : -1;
    if (w->kappa)
      for (size_t k = 0; k <= (size_t) w->Sc; k++) w->tcw_int[k] = w->tcw_half[k] = NAN;
  }
  /* FFT twiddles per stage and, in bit-reversed order, the position of
   * frequency L - k for the position of frequency k */
  bnn_fft_twiddles(w->L, w->tw, w->tw3);
  bnn_fft_partners(w->L, w->log2L, w->rev);
  w->fft.L = w->L;
  w->fft.log2L = w->log2L;
  w->fft.avx2 = w->avx2;
  w->fft.tw = w->tw;
  w->fft.tw3 = w->tw3;
  w->fft.partner = w->rev;
  w->fft.z = w->cbuf;
  w->fft.pw = w->pw;
  return w;
}

size_t bnn_diag_ws_size(int n_iter, int n_chain, int kappa) {
  return ws_size(n_iter, n_chain, kappa, 0);
}

bnn_diag_ws *bnn_diag_ws_init(void *mem, int n_iter, int n_chain, int kappa) {
  return ws_init(mem, n_iter, n_chain, kappa, 0);
}

size_t bnn_diag_reff_ws_size(int n_iter, int n_chain) {
  return ws_size(n_iter, n_chain, 0, 1);
}

bnn_diag_ws *bnn_diag_reff_ws_init(void *mem, int n_iter, int n_chain) {
  return ws_init(mem, n_iter, n_chain, 0, 1);
}

int bnn_diag_n_capped(const bnn_diag_ws *ws) { return ws->n_capped; }

void bnn_diag_no_simd(bnn_diag_ws *ws) {
  if (!ws->avx2) return;
  ws->avx2 = 0;
  ws->fft.avx2 = 0;
  ws->direct_max = direct_lags(ws);
}

void bnn_diag_load(bnn_diag_ws *ws, const double *x) {
  ws->x = x;
  ws->st = 0;
}

/* ---------- summaries ---------- */

/* Mean of all draws.  R's mean() sums sequentially in long double, which is
 * slow for long vectors; here a double sum in four lanes gives m0 and a
 * correction pass m0 + sum(x - m0) / n.  The deviations x - m0 of nearly
 * constant draws are exact, so the result is then the correctly rounded
 * mean, as R's; otherwise it is within an ulp or so of R's value.
 * Non-finite input uses R's algorithm. */
double bnn_diag_mean(bnn_diag_ws *ws) {
  if (!(ws->st & ST_MEAN)) {
    const double *x = ws->x;
    int n = ws->S, i = 0;
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (; i + 4 <= n; i += 4) {
      s0 += x[i];
      s1 += x[i + 1];
      s2 += x[i + 2];
      s3 += x[i + 3];
    }
    for (; i < n; i++) s0 += x[i];
    double m0 = ((s0 + s1) + (s2 + s3)) / n;
    if (!isfinite(m0)) {
      ws->mean = diag_r_mean(x, n);
    } else {
      double c0 = 0, c1 = 0, c2 = 0, c3 = 0;
      for (i = 0; i + 4 <= n; i += 4) {
        c0 += x[i] - m0;
        c1 += x[i + 1] - m0;
        c2 += x[i + 2] - m0;
        c3 += x[i + 3] - m0;
      }
      for (; i < n; i++) c0 += x[i] - m0;
      ws->mean = m0 + ((c0 + c1) + (c2 + c3)) / n;
    }
    ws->st |= ST_MEAN;
  }
  return ws->mean;
}

/* sd of all draws as R's sd(): squared deviations from the mean (summed in
 * four lanes; R uses long double, the difference is rounding), denominator
 * n - 1. */
double bnn_diag_sd(bnn_diag_ws *ws) {
  if (!(ws->st & ST_SD)) {
    const double *x = ws->x;
    int n = ws->S, i = 0;
    double m = bnn_diag_mean(ws), c0 = 0, c1 = 0, c2 = 0, c3 = 0;
    for (; i + 4 <= n; i += 4) {
      double d0 = x[i] - m, d1 = x[i + 1] - m, d2 = x[i + 2] - m, d3 = x[i + 3] - m;
      c0 += d0 * d0;
      c1 += d1 * d1;
      c2 += d2 * d2;
      c3 += d3 * d3;
    }
    for (; i < n; i++) c0 += (x[i] - m) * (x[i] - m);
    ws->sd = n < 2 ? NAN : sqrt(((c0 + c1) + (c2 + c3)) / (n - 1));
    ws->st |= ST_SD;
  }
  return ws->sd;
}

double bnn_diag_quantile(bnn_diag_ws *ws, double prob) {
  diag_scan(ws);
  if (ws->has_nan || !(prob >= 0 && prob <= 1)) return NAN;
  diag_sort_draws(ws);
  return diag_quantile7(ws->sval, ws->n_valid, prob);
}

/* ---------- chain moments ---------- */

void bnn_diag_moments(bnn_diag_ws *ws, double *within, double *between,
                      double *slope) {
  int N = ws->n_iter, M = ws->n_chain;
  double *cm = ws->cm;
  long double wsum = 0.0;
  double c0 = (N + 1) / 2.0; /* centre of s = 1..N */
  double suu = (double) N * ((double) N * N - 1) / 12.0; /* sum (s - c0)^2 */
  for (int c = 0; c < M; c++) {
    const double *xc = ws->x + (size_t) N * c;
    long double s = 0.0, sux = 0.0;
    for (int i = 0; i < N; i++) {
      s += xc[i];
      sux += (long double) (i + 1 - c0) * xc[i];
    }
    double mu = (double) (s / N);
    long double ss = 0.0;
    for (int i = 0; i < N; i++) {
      double d = xc[i] - mu;
      ss += (long double) d * d;
    }
    cm[c] = mu;
    wsum += ss / N;
    /* regressor t = (s - 1) / N: slope = N * sum (s - c0) x / sum (s - c0)^2 */
    slope[c] = N < 2 ? NAN : fabs((double) (sux / suu) * N);
  }
  *within = (double) (wsum / M);
  long double s = 0.0;
  for (int c = 0; c < M; c++) s += cm[c];
  double mu = (double) (s / M);
  long double ss = 0.0;
  for (int c = 0; c < M; c++) ss += (long double) (cm[c] - mu) * (cm[c] - mu);
  *between = (double) (ss / M);
}

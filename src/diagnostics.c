/* Convergence diagnostics: see diagnostics.h.
 *
 * Implementation notes
 * - Ranks: the draws of a variable are sorted once per variable, with an
 *   LSD radix sort of 64-bit words (top 36 bits of an order-preserving key
 *   above the draw's code; runs that agree in those bits are then ordered by
 *   the remaining bits).  The folded draws |x - median| are ranked by
 *   merging the two monotone halves of the sorted draws (from both ends at
 *   once, branch-free), and the within-chain ranks of the chain-wise R-hat
 *   are read off the same global order.  Ties get average ranks, as
 *   rank(ties.method = "average").  The normal scores
 *   qnorm((r - 3/8) / (S + 1/4)) depend only on (2r, S) and are tabulated
 *   lazily per call.
 * - qnorm5() and qbeta() come from R's maths library (Rmath.h).  They are
 *   pure functions of their arguments (no R state, no allocation) and give
 *   the same values as R's qnorm()/qbeta(), which posterior uses.
 * - Autocovariances: Geyer's truncation only reads the lags up to the first
 *   negative pair of autocorrelations, usually a handful, so lags are
 *   computed directly in blocks of eight, on demand; when the
 *   autocorrelation decays slowly, the chains disagree, or more than
 *   ws->direct_max lags are needed, all remaining lags are computed at once
 *   by FFT (radix-2^2, zero padding to L >= 2n, two real chains per complex
 *   transform, power spectra summed over chains, one transform back).  Both
 *   give the biased estimator sum_i yc_i yc_{i+t} / n that posterior
 *   computes with stats::fft, up to rounding.  The lag kernel and the FFT
 *   stages have AVX2/FMA versions, used when the CPU has them (checked at
 *   run time; portable C otherwise).
 * - Where the last bits of a result decide something for degenerate input
 *   (nearly constant draws, chains constant within a half), R's arithmetic
 *   is mirrored: mean() with long double and a correction pass for the
 *   centre of raw draws, matrixStats' double sums for column means, var()
 *   with long double, the type-7 quantile formula, median() of two values.
 *   Elsewhere sums run in several lanes and differ from R by rounding only.
 * - posterior's split of 2 or 3 iterations loses the matrix dimension
 *   (x[1:1, ] is a vector) and compares first and last draws across
 *   chains; here split chains of one draw give NA. */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <Rmath.h> /* qnorm5, qbeta: pure functions (see above) */
#include "diagnostics.h"

#define RADIX_MAX_BITS 12 /* digit width of the radix sort */
#define RUN_BUF 1024      /* longest tie run of the fast folded ranking */
#define RADIX_MAX_PASSES 6

/* cached per-variable state */
enum {
  ST_SCAN = 1u << 0,   /* has_nan, has_inf */
  ST_SORT = 1u << 1,   /* sval, sidx */
  ST_ZB = 1u << 2,     /* zb: rank-normalised split draws */
  ST_ZT = 1u << 3,     /* zt: rank-normalised split folded draws */
  ST_MEAN = 1u << 4,
  ST_SD = 1u << 5,
  ST_RB = 1u << 6,     /* rhat_bulk */
  ST_RT = 1u << 7,     /* rhat_tail */
  ST_EB = 1u << 8,     /* ess_basic */
  ST_MED = 1u << 9
};

struct bnn_diag_ws {
  int n_iter, n_chain, kappa;
  int S;      /* draws per variable */
  int h;      /* length of a split half: floor(n_iter / 2) */
  int m2;     /* number of split chains: 2 * n_chain */
  int Sp;     /* split draws: m2 * h */
  int Lc, Sc; /* chain-wise: sub-chain length and kept draws per chain */
  int L, log2L;
  int direct_max; /* lags computed directly before switching to the FFT */
  int avx2;       /* the CPU has AVX2 and FMA */
  int n_capped;

  /* current variable */
  const double *x;
  unsigned st;
  int has_nan, has_inf, n_valid;
  int split_nan; /* NaN among the draws kept by splitting */
  int zb_na, zt_na; /* rank-normalised draws unusable (NA in posterior) */
  double mean, sd, med, rhat_bulk, rhat_tail, ess_basic;

  /* a draw is coded as (chain << ib) | iteration */
  int ib, r0; /* r0: first iteration kept by the chain-wise R-hat */
  uint32_t imask;

  /* sorting */
  uint64_t *key, *key2, *key3;
  uint32_t *hist;
  int id_bits; /* bits of a draw code in a composite sort key */
  double *sval;   /* sorted non-NaN draws */
  uint32_t *sidx; /* their codes */
  double *fval;   /* folded draws, sorted */
  double *fbuf;   /* folded draws in the order of sval */
  uint32_t *fidx;

  /* split matrices [h, m2] */
  double *zb, *tmp, *yc;
  /* Scores used only for R-hat need column moments only: they are added to
   * per-column accumulators (acc_add) instead of being stored.  tacc: the
   * folded scores (m2 columns); cacc: the within-chain scores (column
   * chain * kappa + sub-chain). */
  double *tK, *tS1, *tS2, *cK, *cS1, *cS2;
  uint32_t *run; /* columns of a pending tie run (RUN_BUF) */
  int32_t *sub_of; /* iteration -> sub-chain of the chain-wise R-hat */
  int *cw_const;   /* chain-wise: all kept draws of the chain are tied */
  /* normal scores for integer ranks r and for ranks r + 1/2 (ties), for
   * S = Sp (split draws) and S = Sc (chain-wise); filled lazily */
  double *tsp_int, *tsp_half, *tcw_int, *tcw_half;
  int *cnt, *kcnt, *chain_nan;
  double *cm, *cv; /* column means / variances (max(m2, M * kappa) each) */
  const double **colp; /* column pointers of a split matrix (m2) */

  /* ESS */
  double *acov, *rho; /* length h */
  int n_acov;
  double *cbuf, *pw, *tw, *tw3; /* FFT: 2L, L, 2L, 2L (twiddles of all stages) */
  uint32_t *rev;          /* bit-reversed position of frequency L - k */
};

static int cpu_has_avx2_fma(void);

/* ---------- small numerical helpers following R ---------- */

/* R's mean(): long double sum, then a correction pass. */
static double r_mean(const double *x, int n) {
  long double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i];
  if (isfinite((double) s)) {
    s /= n;
  } else {
    long double t = 0.0;
    for (int i = 0; i < n; i++) t += x[i] / n;
    s = t;
  }
  if (isfinite((double) s)) {
    long double t = 0.0;
    for (int i = 0; i < n; i++) t += (x[i] - s);
    s += t / n;
  }
  return (double) s;
}

/* R's var() of a vector (cov.c): long double mean with a correction pass,
 * rounded to double, then long double sum of squared deviations / (n - 1). */
static double r_var(const double *x, int n) {
  if (n < 2) return NAN;
  long double s = 0.0;
  for (int i = 0; i < n; i++) s += x[i];
  long double m = s / n;
  if (isfinite((double) m)) {
    s = 0.0;
    for (int i = 0; i < n; i++) s += (x[i] - m);
    m = m + s / n;
  }
  long double xm = (double) m;
  long double ss = 0.0;
  for (int i = 0; i < n; i++) ss += (x[i] - xm) * (x[i] - xm);
  return (double) (ss / (n - 1));
}

/* Type-7 quantile of a sorted vector, computed as stats::quantile(). */
static double quantile7(const double *s, int n, double prob) {
  if (n < 1) return NAN;
  if (prob < 0) prob = 0;
  if (prob > 1) prob = 1;
  double index = 1 + (n - 1) * prob;
  double lo = floor(index), hi = ceil(index);
  double qs = s[(int) lo - 1];
  double xh = s[(int) hi - 1];
  if (index > lo && xh != qs) {
    double hh = index - lo;
    qs = (1 - hh) * qs + hh * xh;
  }
  return qs;
}

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

static int fft_len(int h, int *log2L) {
  int L = 1, k = 0;
  while (L < 2 * h) {
    L <<= 1;
    k++;
  }
  if (L < 4) {
    L = 4;
    k = 2;
  }
  *log2L = k;
  return L;
}

/* Lays out the workspace in a (a->base NULL: only measures). */
static void layout(arena *a, bnn_diag_ws *w) {
  size_t S = (size_t) w->S, Sp = (size_t) w->Sp, L = (size_t) w->L;
  size_t mcw = (size_t) w->n_chain * (w->kappa > 0 ? w->kappa : 1);
  size_t mx = (size_t) w->m2 > mcw ? (size_t) w->m2 : mcw;
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
  w->tmp = take(a, Sp * sizeof(double));
  w->yc = take(a, Sp * sizeof(double));
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

size_t bnn_diag_ws_size(int n_iter, int n_chain, int kappa) {
  if (n_iter < 1 || n_chain < 1 || kappa < 0 || kappa == 1) return 0;
  if ((double) n_iter * n_chain > 1073741823.0) return 0; /* 2S + 2 fits int */
  /* draw codes (chain << ib | iteration) must fit 31 bits */
  if ((double) n_iter * n_chain * 4 > 2147483647.0) return 0;
  bnn_diag_ws w;
  memset(&w, 0, sizeof w);
  w.n_iter = n_iter;
  w.n_chain = n_chain;
  w.kappa = kappa;
  w.S = n_iter * n_chain;
  w.h = n_iter / 2;
  w.m2 = 2 * n_chain;
  w.Sp = w.m2 * w.h;
  w.Lc = kappa ? n_iter / kappa : 0;
  w.Sc = kappa * w.Lc;
  w.L = fft_len(w.h, &w.log2L);
  arena a = {NULL, align_up(sizeof(bnn_diag_ws))};
  layout(&a, &w);
  return a.off + 64;
}

bnn_diag_ws *bnn_diag_ws_init(void *mem, int n_iter, int n_chain, int kappa) {
  if (!bnn_diag_ws_size(n_iter, n_chain, kappa)) return NULL;
  char *base = (char *) (((uintptr_t) mem + 63) & ~(uintptr_t) 63);
  bnn_diag_ws *w = (bnn_diag_ws *) base;
  memset(w, 0, sizeof *w);
  w->n_iter = n_iter;
  w->n_chain = n_chain;
  w->kappa = kappa;
  w->S = n_iter * n_chain;
  w->h = n_iter / 2;
  w->m2 = 2 * n_chain;
  w->Sp = w->m2 * w->h;
  w->Lc = kappa ? n_iter / kappa : 0;
  w->Sc = kappa * w->Lc;
  w->L = fft_len(w->h, &w->log2L);
  while ((1L << w->ib) < n_iter) w->ib++;
  w->imask = (uint32_t) ((1L << w->ib) - 1);
  int cb = 0;
  while ((1L << cb) < n_chain) cb++;
  w->id_bits = w->ib + cb;
  w->r0 = kappa ? n_iter - w->Sc : 0;
  /* the FFT route costs (m2 / 2 + 1) transforms of about L log2(L)
   * butterflies, a direct lag m2 * h multiply-adds; measured, a butterfly
   * costs ~2.8 multiply-adds of lags8(), and with AVX2 ~8 of lags8_avx2() */
  w->avx2 = cpu_has_avx2_fma();
  w->direct_max = w->h > 0 ? (int) ((w->avx2 ? 8.0 : 2.8) * (w->m2 / 2 + 1) *
                                    (double) w->L * w->log2L / ((double) w->m2 * w->h)) : 0;
  arena a = {base, align_up(sizeof(bnn_diag_ws))};
  layout(&a, w);

  for (size_t k = 0; k <= (size_t) w->Sp; k++) w->tsp_int[k] = w->tsp_half[k] = NAN;
  for (int i = 0; i < n_iter; i++)
    w->sub_of[i] = (w->Lc > 0 && i >= w->r0) ? (i - w->r0) / w->Lc : -1;
  if (kappa)
    for (size_t k = 0; k <= (size_t) w->Sc; k++) w->tcw_int[k] = w->tcw_half[k] = NAN;
  /* FFT twiddles per stage and, in bit-reversed order, the position of
   * frequency L - k for the position of frequency k */
  int L = w->L;
  for (int hh = 1; hh < L; hh <<= 1)
    for (int k = 0; k < hh; k++) {
      double ang = -M_PI * (double) k / (double) hh;
      w->tw[2 * (hh - 1 + k)] = cos(ang);
      w->tw[2 * (hh - 1 + k) + 1] = sin(ang);
      /* w1 * w2 of a fused radix-2^2 stage: exp(-3 pi i k / hh) */
      w->tw3[2 * (hh - 1 + k)] = cos(3 * ang);
      w->tw3[2 * (hh - 1 + k) + 1] = sin(3 * ang);
    }
  for (int i = 0; i < L; i++) {
    uint32_t r = 0, v = (uint32_t) i;
    for (int b = 0; b < w->log2L; b++) {
      r = (r << 1) | (v & 1u);
      v >>= 1;
    }
    w->rev[i] = r; /* frequency held at position i */
  }
  for (int i = 0; i < L; i++) {
    uint32_t k = w->rev[i], k2 = (uint32_t) ((L - (int) k) & (L - 1)), r = 0;
    for (int b = 0; b < w->log2L; b++) {
      r = (r << 1) | (k2 & 1u);
      k2 >>= 1;
    }
    w->cbuf[i] = (double) r; /* temporary */
  }
  for (int i = 0; i < L; i++) w->rev[i] = (uint32_t) w->cbuf[i];
  return w;
}

int bnn_diag_n_capped(const bnn_diag_ws *ws) { return ws->n_capped; }

void bnn_diag_no_simd(bnn_diag_ws *ws) {
  if (!ws->avx2) return;
  ws->avx2 = 0;
  ws->direct_max = ws->h > 0 ? (int) (2.8 * (ws->m2 / 2 + 1) * (double) ws->L * ws->log2L /
                                      ((double) ws->m2 * ws->h)) : 0;
}

void bnn_diag_load(bnn_diag_ws *ws, const double *x) {
  ws->x = x;
  ws->st = 0;
}

static void scan(bnn_diag_ws *ws) {
  if (ws->st & ST_SCAN) return;
  int has_nan = 0, has_inf = 0, split_nan = 0, N = ws->n_iter, h = ws->h;
  int r0 = ws->r0;
  for (int c = 0; c < ws->n_chain; c++) {
    int cn = 0;
    const double *xc = ws->x + (size_t) N * c;
    for (int i = 0; i < N; i++) {
      double v = xc[i];
      if (isnan(v)) {
        has_nan = 1;
        if (i >= r0) cn = 1;
        if (i < h || i >= N - h) split_nan = 1;
      } else if (isinf(v)) {
        has_inf = 1;
      }
    }
    ws->chain_nan[c] = cn;
  }
  ws->has_nan = has_nan;
  ws->split_nan = split_nan;
  ws->has_inf = has_inf;
  ws->st |= ST_SCAN;
}

/* ---------- sorting ---------- */

/* Order-preserving key of a double (not NaN): negative values have all
 * bits flipped, others the sign bit set; branch-free, as signs come in
 * random order. */
static inline uint64_t dkey(double v) {
  uint64_t u;
  v += 0.0; /* -0 + 0 = +0: -0 ties with +0, as in R */
  memcpy(&u, &v, sizeof u);
  uint64_t neg = (uint64_t) 0 - (u >> 63); /* all ones if negative */
  return u ^ (neg | ((uint64_t) 1 << 63));
}


/* LSD radix sort of a[0..n) by bits [lo, hi) (stable; the order of equal
 * digits is kept).  tmp has room for n values.  Returns the sorted array (a
 * or tmp). */
/* digit layout of radix_sort() for bits [lo, hi) */
static void radix_digits(int lo, int hi, int *npass, int *db) {
  int nbits = hi - lo;
  *npass = nbits > 0 ? (nbits + RADIX_MAX_BITS - 1) / RADIX_MAX_BITS : 0;
  *db = *npass ? (nbits + *npass - 1) / *npass : 0;
}

/* have_hist: hist already holds the digit counts (see radix_digits) */
static uint64_t *radix_sort(uint64_t *a, uint64_t *tmp, int n, int lo, int hi,
                            uint32_t *hist, int have_hist) {
  int npass, db;
  radix_digits(lo, hi, &npass, &db);
  if (npass == 0 || n < 2) return a;
  int R = 1 << db;
  uint64_t dmask = (uint64_t) R - 1;
  if (!have_hist) {
    memset(hist, 0, (size_t) npass * R * sizeof(uint32_t));
    for (int i = 0; i < n; i++) {
      uint64_t k = a[i] >> lo;
      for (int p = 0; p < npass; p++) hist[p * R + ((k >> (p * db)) & dmask)]++;
    }
  }
  for (int p = 0; p < npass; p++) {
    uint32_t *h = hist + p * R;
    int sh = lo + p * db;
    if (h[(a[0] >> sh) & dmask] == (uint32_t) n) continue; /* one digit */
    uint32_t sum = 0;
    for (int d = 0; d < R; d++) {
      uint32_t c = h[d];
      h[d] = sum;
      sum += c;
    }
    for (int i = 0; i < n; i++) {
      uint64_t k = a[i];
      tmp[h[(k >> sh) & dmask]++] = k;
    }
    uint64_t *t = a;
    a = tmp;
    tmp = t;
  }
  return a;
}

/* Draw codes: (chain << ib) | iteration. */
static inline double code_val(const bnn_diag_ws *w, uint32_t code) {
  return w->x[(size_t) (code >> w->ib) * w->n_iter + (code & w->imask)];
}

/* Position of a draw in the split matrix [h, 2M] (first halves, then second
 * halves), -1 for the middle draw of an odd chain; without branches, as the
 * halves come in random order. */
static inline int split_pos(const bnn_diag_ws *w, uint32_t code) {
  int c = (int) (code >> w->ib), i = (int) (code & w->imask);
  int second = i >= w->h;
  int row = i - second * (w->n_iter - w->h);
  return row >= 0 ? (c + second * w->n_chain) * w->h + row : -1;
}

/* Column of a draw in the split matrix, -1 for the middle draw of an odd
 * chain. */
static inline int split_col(const bnn_diag_ws *w, uint32_t code) {
  int c = (int) (code >> w->ib), i = (int) (code & w->imask);
  int second = i >= w->h;
  int row = i - second * (w->n_iter - w->h);
  return row >= 0 ? c + second * w->n_chain : -1;
}

/* Sorts the non-NaN draws; fills sval/sidx and n_valid.
 * Each draw becomes one 64-bit word: the top T bits of its order-preserving
 * key above its code (B bits).  Sorting these words (3 radix passes for
 * T = 36) orders the draws except among draws whose keys agree in the top
 * T bits, i.e. that are equal or within ~2^(12 - T) relative of each other;
 * such runs are then ordered by the remaining key bits. */
static void sort_draws(bnn_diag_ws *ws) {
  if (ws->st & ST_SORT) return;
  scan(ws);
  int n = 0, N = ws->n_iter, B = ws->id_bits;
  int T = 64 - B < 36 ? 64 - B : 36;
  if (T < B) T = B;
  int lb = 64 - T; /* key bits left for the runs */
  uint64_t lowmask = ((uint64_t) 1 << B) - 1, lkmask = ((uint64_t) 1 << lb) - 1;
  uint64_t *a = ws->key;
  /* build the words and count the radix digits in one pass; the highest
   * digit (sign, exponent) takes few values, so it is counted in four
   * interleaved histograms to avoid chains of increments of one counter */
  int npass, db;
  radix_digits(B, B + T, &npass, &db);
  uint32_t *hist = ws->hist, R = 1u << db;
  uint32_t *h4 = hist + (size_t) RADIX_MAX_PASSES * (1 << RADIX_MAX_BITS);
  uint64_t dmask = (uint64_t) R - 1;
  int ptop = npass - 1, shtop = ptop * db;
  memset(hist, 0, (size_t) npass * R * sizeof(uint32_t));
  memset(h4, 0, (size_t) 4 * R * sizeof(uint32_t));
  for (int c = 0; c < ws->n_chain; c++) {
    const double *xc = ws->x + (size_t) N * c;
    uint64_t base = (uint64_t) c << ws->ib;
    for (int i = 0; i < N; i++) {
      double v = xc[i];
      if (isnan(v)) continue;
      uint64_t top = dkey(v) >> lb;
      a[n] = (top << B) | base | (uint64_t) i;
      for (int p = 0; p < ptop; p++) hist[p * R + ((top >> (p * db)) & dmask)]++;
      h4[(n & 3) * R + ((top >> shtop) & dmask)]++;
      n++;
    }
  }
  for (uint32_t d = 0; d < R; d++)
    hist[ptop * R + d] = h4[d] + h4[R + d] + h4[2 * R + d] + h4[3 * R + d];
  a = radix_sort(a, ws->key2, n, B, B + T, hist, 1);
  uint64_t *fr = a == ws->key ? ws->key2 : ws->key; /* free buffers */
  uint64_t *fr2 = ws->key3;
  int i = 0;
  while (i < n) {
    uint64_t top = a[i] >> B;
    int j = i + 1;
    while (j < n && (a[j] >> B) == top) j++;
    if (j - i > 1) {
      /* order the run by the remaining key bits, unless it already is
       * (e.g. tied values) */
      int g = j - i, sorted = 1;
      uint64_t prev = 0;
      for (int k = 0; k < g; k++) {
        uint32_t code = (uint32_t) (a[i + k] & lowmask);
        uint64_t lk = dkey(code_val(ws, code)) & lkmask;
        fr[k] = (lk << B) | (uint64_t) k;
        if (k && lk < prev) sorted = 0;
        prev = lk;
      }
      if (!sorted) {
        uint64_t *srt = fr;
        if (g <= 32) {
          for (int k = 1; k < g; k++) {
            uint64_t v = fr[k];
            int q = k - 1;
            while (q >= 0 && fr[q] > v) {
              fr[q + 1] = fr[q];
              q--;
            }
            fr[q + 1] = v;
          }
        } else {
          srt = radix_sort(fr, fr2, g, B, B + lb, ws->hist, 0);
        }
        uint64_t *orig = srt == fr ? fr2 : fr;
        for (int k = 0; k < g; k++) orig[k] = a[i + k];
        for (int k = 0; k < g; k++) a[i + k] = orig[srt[k] & lowmask];
      }
    }
    i = j;
  }
  for (int k = 0; k < n; k++) {
    uint32_t code = (uint32_t) (a[k] & lowmask);
    ws->sidx[k] = code;
    ws->sval[k] = code_val(ws, code);
  }
  ws->n_valid = n;
  ws->st |= ST_SORT;
}

/* ---------- rank normalisation ---------- */

/* Normal score of the (average) rank r2 / 2 among S values:
 * qnorm((r - 3/8) / (S - 2 * 3/8 + 1)) as posterior::backtransform_ranks(),
 * from the lazily filled tables of integer and half-integer ranks. */
static inline double zscore(double *ti, double *th, long r2, int S) {
  double *t = (r2 & 1) ? th : ti;
  long r = r2 >> 1;
  double z = t[r];
  if (isnan(z)) {
    double p = ((double) r2 * 0.5 - 0.375) / (((double) S - 0.75) + 1.0);
    z = qnorm5(p, 0.0, 1.0, 1, 0);
    t[r] = z;
  }
  return z;
}

/* Column accumulators for R-hat: the first value K of a column, and the
 * sums of d = z - K and d^2 over its other values.  Shifting by a value of
 * the column keeps the one-pass variance accurate, and a constant column
 * gives s2 == 0 exactly. */
static void acc_init(double *K, double *s1, double *s2, int m) {
  for (int j = 0; j < m; j++) {
    K[j] = NAN;
    s1[j] = s2[j] = 0.0;
  }
}

static inline void acc_add(double *K, double *s1, double *s2, int col, double z) {
  double k = K[col];
  if (isnan(k)) {
    K[col] = z;
  } else {
    double d = z - k;
    s1[col] += d;
    s2[col] += d * d;
  }
}

/* Column means and variances (denominator n - 1) of m columns of n values.
 * A constant column gets matrixStats' values, colMeans2 as a sequential
 * double sum and colVars(center = ) from it, so that chains constant within
 * a half give posterior's (nearly infinite) R-hat; otherwise the moments
 * differ from R's by rounding only. */
static void acc_moments(const double *K, const double *s1, const double *s2, int n, int m,
                        double *cm, double *cv) {
  for (int j = 0; j < m; j++) {
    if (s2[j] == 0) {
      double sum = 0.0;
      for (int i = 0; i < n; i++) sum += K[j];
      double mu = sum / n, d = K[j] - mu;
      cm[j] = mu;
      cv[j] = (d * d) * ((double) n / (n - 1));
    } else {
      cm[j] = K[j] + s1[j] / n;
      cv[j] = (s2[j] - s1[j] * (s1[j] / n)) / (n - 1);
    }
  }
}

/* Average ranks of the kept split draws of a sorted sequence (values v,
 * codes id), as normal scores added to the column accumulators of the
 * folded draws.  Returns 1 if all kept values are tied (constant: NA in
 * posterior). */
static int rank_scores(bnn_diag_ws *ws, const double *v, const uint32_t *id, int n) {
  int Stot = ws->Sp;
  double *ti = ws->tsp_int, *th = ws->tsp_half;
  long pos = 0;
  int groups = 0;
  int a = 0;
  acc_init(ws->tK, ws->tS1, ws->tS2, ws->m2);
  while (a < n) {
    int b = a + 1;
    while (b < n && v[b] == v[a]) b++;
    int k = 0;
    for (int j = a; j < b; j++) k += split_col(ws, id[j]) >= 0;
    if (k) {
      double z = zscore(ti, th, 2 * pos + k + 1, Stot);
      for (int j = a; j < b; j++) {
        int cl = split_col(ws, id[j]);
        if (cl >= 0) acc_add(ws->tK, ws->tS1, ws->tS2, cl, z);
      }
      pos += k;
      groups++;
    }
    a = b;
  }
  return groups < 2;
}

/* Passes over the sorted draws giving the normal scores of the split
 * draws (zb, ranks among all kept split draws; rank_pass_bulk) and the
 * within-chain normal scores of the chain-wise R-hat (ranks among the kept
 * draws of the same chain, added to the accumulators cK/cS1/cS2;
 * rank_pass_cw).  Ties get average ranks. */
static void rank_pass_bulk(bnn_diag_ws *ws) {
  int n = ws->n_valid, Sp = ws->Sp;
  const double *v = ws->sval;
  const uint32_t *id = ws->sidx;
  double *zb = ws->zb, *ti = ws->tsp_int, *th = ws->tsp_half;
  long pos = 0;
  int a = 0, first = -1, last = -1; /* first and last kept draw */
  while (a < n) {
    if (a + 1 == n || v[a + 1] != v[a]) { /* no tie */
      int d = split_pos(ws, id[a]);
      if (d >= 0) {
        pos++;
        zb[d] = zscore(ti, th, 2 * pos, Sp);
        if (first < 0) first = a;
        last = a;
      }
      a++;
      continue;
    }
    int b = a + 1;
    while (b < n && v[b] == v[a]) b++;
    int k = 0;
    for (int j = a; j < b; j++) k += split_pos(ws, id[j]) >= 0;
    if (k) {
      double z = zscore(ti, th, 2 * pos + k + 1, Sp);
      for (int j = a; j < b; j++) {
        int d = split_pos(ws, id[j]);
        if (d >= 0) zb[d] = z;
      }
      pos += k;
      if (first < 0) first = a;
      last = a;
    }
    a = b;
  }
  /* all kept draws tied: constant, NA */
  ws->zb_na = first < 0 || v[first] == v[last];
}

static void rank_pass_cw(bnn_diag_ws *ws) {
  int n = ws->n_valid, M = ws->n_chain, Sc = ws->Sc, ib = ws->ib;
  int kappa = ws->kappa, r0 = ws->r0;
  uint32_t imask = ws->imask;
  const double *v = ws->sval;
  const uint32_t *id = ws->sidx;
  const int32_t *sub = ws->sub_of;
  int *cnt = ws->cnt, *kc = ws->kcnt, *cst = ws->cw_const;
  double *cK = ws->cK, *cS1 = ws->cS1, *cS2 = ws->cS2, *ti = ws->tcw_int, *th = ws->tcw_half;
  for (int c = 0; c < M; c++) cnt[c] = kc[c] = cst[c] = 0;
  acc_init(cK, cS1, cS2, M * kappa);
  int a = 0;
  while (a < n) {
    if (a + 1 == n || v[a + 1] != v[a]) { /* no tie */
      uint32_t code = id[a];
      int i = (int) (code & imask);
      if (i >= r0) {
        int c = (int) (code >> ib);
        int r = ++cnt[c];
        acc_add(cK, cS1, cS2, c * kappa + sub[i], zscore(ti, th, 2 * (long) r, Sc));
      }
      a++;
      continue;
    }
    int b = a + 1;
    while (b < n && v[b] == v[a]) b++;
    for (int j = a; j < b; j++)
      if ((int) (id[j] & imask) >= r0) kc[id[j] >> ib]++;
    /* a chain is constant iff all its kept draws are in one tie run */
    for (int j = a; j < b; j++)
      if (kc[id[j] >> ib] == Sc) cst[id[j] >> ib] = 1;
    for (int j = a; j < b; j++) {
      int i = (int) (id[j] & imask);
      if (i >= r0) {
        int c = (int) (id[j] >> ib);
        double z = zscore(ti, th, 2 * (long) cnt[c] + kc[c] + 1, Sc);
        acc_add(cK, cS1, cS2, c * kappa + sub[i], z);
      }
    }
    for (int j = a; j < b; j++) {
      int c = (int) (id[j] >> ib);
      cnt[c] += kc[c];
      kc[c] = 0;
    }
    a = b;
  }
}

/* Normal scores zb (and the chain-wise ones when the workspace has kappa) */
static void make_zb(bnn_diag_ws *ws) {
  if (ws->st & ST_ZB) return;
  ws->st |= ST_ZB;
  scan(ws);
  ws->zb_na = 1;
  int do_bulk = !ws->split_nan && ws->h >= 1, do_cw = ws->kappa && ws->Lc >= 2;
  if (!do_bulk && !do_cw) return;
  sort_draws(ws);
  if (do_bulk) rank_pass_bulk(ws);
  if (do_cw) rank_pass_cw(ws);
}

/* Median of all draws as R's median() (assumes no NaN; sorted). */
static double median_sorted(bnn_diag_ws *ws) {
  if (ws->st & ST_MED) return ws->med;
  int n = ws->n_valid;
  const double *s = ws->sval;
  double med;
  if (n % 2 == 1) {
    med = s[(n - 1) / 2];
  } else {
    double ab[2] = {s[n / 2 - 1], s[n / 2]};
    med = r_mean(ab, 2);
  }
  ws->med = med;
  ws->st |= ST_MED;
  return med;
}

static void make_zt(bnn_diag_ws *ws) {
  if (ws->st & ST_ZT) return;
  ws->st |= ST_ZT;
  scan(ws);
  ws->zt_na = 1;
  if (ws->has_nan || ws->h < 1) return;
  sort_draws(ws);
  double med = median_sorted(ws);
  if (!isfinite(med)) return; /* Inf - Inf = NaN in the folded draws */
  int n = ws->n_valid;
  const double *s = ws->sval;
  const uint32_t *si = ws->sidx;
  /* |s - med| decreases on s < med and increases on s >= med: merge the
   * runs L = (f[p-1], f[p-2], ...) and R = (f[p], f[p+1], ...).  Two
   * independent merges run at once, one from the small end (ties: L first)
   * and one from the large end (ties: R first); they split the draws
   * exactly because both follow the same total order. */
  double *f = ws->fbuf + 1; /* f[-1] and f[n] are padding */
  for (int k = 0; k < n; k++) f[k] = fabs(s[k] - med);
  f[-1] = f[n] = 0.0;
  int p = 0, hi_ = n; /* p: first sorted draw >= med (binary search) */
  while (p < hi_) {
    int mid = p + (hi_ - p) / 2;
    if (s[mid] < med) p = mid + 1;
    else hi_ = mid;
  }
  int nl = p, nr = n - p;
  int il = 0, ir = 0, jl = nl - 1, jr = nr - 1, half = n / 2;
  /* Only the selected position depends on the comparison, so that the
   * compiler can use conditional moves instead of unpredictable branches.
   * Ranks are read off the merge directly: the front lane counts kept draws
   * upwards, the back lane downwards from Sp.  The draws of a lane wait in
   * a tie run until a different value comes; the run then gets its average
   * rank and is added to the column accumulators.  A tie across the lanes,
   * or a run longer than RUN_BUF, sends us to the general path below. */
  int Sp = ws->Sp, m2 = ws->m2, bad = 0, fk = 0, bk = 0;
  long up = 0, down = 0;
  double prevf = 0, prevb = 0, *ti = ws->tsp_int, *th = ws->tsp_half;
  double *K = ws->tK, *S1 = ws->tS1, *S2 = ws->tS2;
  uint32_t *frun = ws->run, *brun = ws->run + RUN_BUF;
  acc_init(K, S1, S2, m2);
  /* front run: kept ranks up - fk + 1 .. up; back run: Sp - down + 1 ..
   * Sp - down + bk */
#define FLUSH_FRONT()                                                         \
  if (fk) {                                                                   \
    double z_ = zscore(ti, th, 2 * (up - fk) + fk + 1, Sp);                   \
    for (int q_ = 0; q_ < fk; q_++) acc_add(K, S1, S2, (int) frun[q_], z_);    \
    fk = 0;                                                                   \
  }
#define FLUSH_BACK()                                                          \
  if (bk) {                                                                   \
    double z_ = zscore(ti, th, 2 * (Sp - down + bk) - bk + 1, Sp);            \
    for (int q_ = 0; q_ < bk; q_++) acc_add(K, S1, S2, (int) brun[q_], z_);    \
    bk = 0;                                                                   \
  }
  for (int o = 0; o < half && !bad; o++) {
    int pa = p - 1 - il, pb = p + ir;
    int tl = (il < nl) & ((ir >= nr) | (f[pa] <= f[pb]));
    int pos = pb ^ ((pa ^ pb) & -tl);
    il += tl;
    ir += 1 - tl;
    double v = f[pos];
    if (!(o > 0 && v == prevf)) FLUSH_FRONT();
    prevf = v;
    int cl = split_col(ws, si[pos]);
    if (cl >= 0) {
      if (fk == RUN_BUF) bad = 1;
      else frun[fk++] = (uint32_t) cl;
      up++;
    }
    int qa = p - 1 - jl, qb = p + jr;
    int tr = (jr >= 0) & ((jl < 0) | (f[qb] >= f[qa]));
    int qos = qa ^ ((qb ^ qa) & -tr);
    jr -= tr;
    jl -= 1 - tr;
    double w = f[qos];
    if (!(o > 0 && w == prevb)) FLUSH_BACK();
    prevb = w;
    int ce = split_col(ws, si[qos]);
    if (ce >= 0) {
      if (bk == RUN_BUF) bad = 1;
      else brun[bk++] = (uint32_t) ce;
      down++;
    }
  }
  if (!bad) {
    FLUSH_FRONT();
    FLUSH_BACK();
    if (n % 2) { /* the middle element: the one left over */
      int pos = il <= jl ? p - 1 - il : p + ir;
      double v = f[pos];
      bad |= (half > 0) & ((v == prevf) | (v == prevb));
      int cl = split_col(ws, si[pos]);
      if (cl >= 0) {
        up++;
        acc_add(K, S1, S2, cl, zscore(ti, th, 2 * up, Sp));
      }
    } else if (half > 0) {
      bad |= prevf == prevb;
    }
  }
#undef FLUSH_FRONT
#undef FLUSH_BACK
  if (!bad) {
    /* no tie across the lanes: at least two distinct values, so the kept
     * folded draws are constant only if there are fewer than two */
    ws->zt_na = Sp < 2;
    return;
  }
  /* general path: the merged sequence, then average ranks over ties */
  double *fv = ws->fval;
  uint32_t *fi = ws->fidx;
  il = 0, ir = 0, jl = nl - 1, jr = nr - 1;
  for (int o = 0; o < half; o++) {
    int pa = p - 1 - il, pb = p + ir;
    int tl = (il < nl) & ((ir >= nr) | (f[pa] <= f[pb]));
    int pos = pb ^ ((pa ^ pb) & -tl);
    fv[o] = f[pos];
    fi[o] = si[pos];
    il += tl;
    ir += 1 - tl;
    int qa = p - 1 - jl, qb = p + jr;
    int tr = (jr >= 0) & ((jl < 0) | (f[qb] >= f[qa]));
    int qos = qa ^ ((qb ^ qa) & -tr);
    fv[n - 1 - o] = f[qos];
    fi[n - 1 - o] = si[qos];
    jr -= tr;
    jl -= 1 - tr;
  }
  if (n % 2) {
    int pos = il <= jl ? p - 1 - il : p + ir;
    fv[half] = f[pos];
    fi[half] = si[pos];
  }
  ws->zt_na = rank_scores(ws, ws->fval, ws->fidx, n);
}

/* ---------- column statistics of a matrix [n, m] ---------- */

/* Columns are processed four at a time (the last group repeats a column):
 * each column's sums keep R's sequential order, so the results are those of
 * R, while the independent sums of different columns overlap in the
 * pipeline. */
#define COL_GROUP(cols, m, j, c)                                              \
  const double *c[4];                                                         \
  for (int q_ = 0; q_ < 4; q_++) c[q_] = (cols)[(j) + q_ < (m) ? (j) + q_ : (j)];

/* dmean: matrixStats::colMeans2 (double sum / n); rmean (may be NULL): R's
 * mean() of each column (long double sum, then a correction pass). */
static void col_means(const double *const *cols, int n, int m, double *dmean,
                      double *rmean) {
  for (int j = 0; j < m; j += 4) {
    COL_GROUP(cols, m, j, c);
    long double l0 = 0, l1 = 0, l2 = 0, l3 = 0;
    double d0 = 0, d1 = 0, d2 = 0, d3 = 0;
    for (int i = 0; i < n; i++) {
      double v0 = c[0][i], v1 = c[1][i], v2 = c[2][i], v3 = c[3][i];
      d0 += v0;
      d1 += v1;
      d2 += v2;
      d3 += v3;
      if (rmean) {
        l0 += v0;
        l1 += v1;
        l2 += v2;
        l3 += v3;
      }
    }
    double D[4] = {d0, d1, d2, d3};
    int g = m - j < 4 ? m - j : 4;
    for (int q = 0; q < g; q++) dmean[j + q] = D[q] / n;
    if (!rmean) continue;
    long double s0 = l0 / n, s1 = l1 / n, s2 = l2 / n, s3 = l3 / n;
    long double t0 = 0, t1 = 0, t2 = 0, t3 = 0;
    for (int i = 0; i < n; i++) {
      t0 += (c[0][i] - s0);
      t1 += (c[1][i] - s1);
      t2 += (c[2][i] - s2);
      t3 += (c[3][i] - s3);
    }
    long double S[4] = {s0, s1, s2, s3}, T[4] = {t0, t1, t2, t3};
    for (int q = 0; q < g; q++)
      rmean[j + q] = isfinite((double) S[q]) ? (double) (S[q] + T[q] / n) : (double) S[q];
  }
}

/* cv: matrixStats::colVars(y, center = cm) = base::colMeans((y - cm)^2) *
 * (n / (n - 1)).  R sums the squares in long double; a double sum in four
 * lanes differs by rounding only (relative ~1e-16), also for columns that
 * are constant up to the last bit of cm. */
static void col_vars(const double *const *cols, int n, int m, const double *cm,
                     double *cv) {
  for (int j = 0; j < m; j++) {
    const double *yj = cols[j];
    double mu = cm[j], s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    int i = 0;
    for (; i + 4 <= n; i += 4) {
      double e0 = yj[i] - mu, e1 = yj[i + 1] - mu, e2 = yj[i + 2] - mu, e3 = yj[i + 3] - mu;
      s0 += e0 * e0;
      s1 += e1 * e1;
      s2 += e2 * e2;
      s3 += e3 * e3;
    }
    for (; i < n; i++) s0 += (yj[i] - mu) * (yj[i] - mu);
    cv[j] = n > 1 ? (((s0 + s1) + (s2 + s3)) / n) * ((double) n / (n - 1)) : NAN;
  }
}

/* ---------- R-hat of a matrix [n, m] (posterior:::.rhat) ---------- */

/* With matrixStats' arithmetic mirrored, degenerate inputs (chains constant
 * within a half) give the same values as posterior. */
static double rhat_matrix(const double *const *cols, int n, int m, double *cm,
                          double *cv) {
  if (n < 2 || m < 2) return NAN; /* colVars / var of one value: NA */
  col_means(cols, n, m, cm, NULL);
  col_vars(cols, n, m, cm, cv);
  double B = n * r_var(cm, m);
  double W = r_mean(cv, m);
  return sqrt((B / W + n - 1) / n);
}

/* R-hat from column means and variances (posterior:::.rhat) */
static double rhat_from_moments(const double *cm, const double *cv, int n, int m) {
  double B = n * r_var(cm, m);
  double W = r_mean(cv, m);
  return sqrt((B / W + n - 1) / n);
}

/* 1 if the m columns of n values have non-finite values or
 * abs(max - min) < eps (posterior's should_return_NA) */
static int should_na_cols(const double *const *cols, int n, int m, double *range) {
  if (n == 0 || m == 0) return 1;
  double lo = cols[0][0], hi = lo;
  for (int j = 0; j < m; j++) {
    const double *y = cols[j];
    for (int i = 0; i < n; i++) {
      double v = y[i];
      if (!isfinite(v)) return 1;
      if (v < lo) lo = v;
      if (v > hi) hi = v;
    }
  }
  if (range) { /* spread relative to the magnitude */
    double mag = fabs(lo) > fabs(hi) ? fabs(lo) : fabs(hi);
    *range = (hi - lo) / mag;
  }
  return fabs(hi - lo) < DBL_EPSILON;
}

/* Column pointers of the split matrix [h, 2M] of the draws themselves
 * (first halves, then second halves; an odd chain's middle draw dropped),
 * or of a contiguous matrix y [n, m]. */
static const double *const *split_cols_x(bnn_diag_ws *ws) {
  int N = ws->n_iter, h = ws->h, M = ws->n_chain;
  for (int c = 0; c < M; c++) {
    ws->colp[c] = ws->x + (size_t) N * c;
    ws->colp[M + c] = ws->x + (size_t) N * c + (N - h);
  }
  return ws->colp;
}

static const double *const *cols_of(bnn_diag_ws *ws, const double *y, int n, int m) {
  for (int j = 0; j < m; j++) ws->colp[j] = y + (size_t) n * j;
  return ws->colp;
}

/* ---------- autocovariance ---------- */

/* out[k] += sum_{i=0}^{n-1-t-k} a[i] a[i+t+k], k = 0..7 (lags >= n add 0).
 * The main loop needs all eight lags in range; the ends are done after. */
static void lags8(const double *a, int n, int t, double *out) {
  const double *b = a + t;
  int lim = n - t - 7, i = 0;
  double s[8] = {0, 0, 0, 0, 0, 0, 0, 0}, u[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  for (; i + 1 < lim; i += 2) {
    double a0 = a[i], a1 = a[i + 1];
    const double *bi = b + i;
    for (int k = 0; k < 8; k++) {
      s[k] += a0 * bi[k];
      u[k] += a1 * bi[k + 1];
    }
  }
  for (int k = 0; k < 8; k++) {
    double sk = s[k] + u[k];
    int e = n - t - k;
    for (int j = i; j < e; j++) sk += a[j] * b[j + k];
    out[k] += sk;
  }
}

/* The same with AVX2 and FMA, used when the CPU has them (checked at run
 * time in bnn_diag_ws_init): about five times faster.  Results differ from
 * lags8() by rounding only. */
#if defined(__GNUC__) && defined(__x86_64__)
#define BNN_HAVE_AVX2_KERNEL 1
#include <immintrin.h>
__attribute__((target("avx2,fma"))) static void lags8_avx2(const double *a, int n,
                                                           int t, double *out) {
  const double *b = a + t;
  int lim = n - t - 7, i = 0;
  __m256d s0 = _mm256_setzero_pd(), s1 = s0, s2 = s0, s3 = s0;
  __m256d s4 = s0, s5 = s0, s6 = s0, s7 = s0;
  for (; i + 3 < lim; i += 4) {
    __m256d ai = _mm256_loadu_pd(a + i);
    const double *bi = b + i;
    s0 = _mm256_fmadd_pd(ai, _mm256_loadu_pd(bi), s0);
    s1 = _mm256_fmadd_pd(ai, _mm256_loadu_pd(bi + 1), s1);
    s2 = _mm256_fmadd_pd(ai, _mm256_loadu_pd(bi + 2), s2);
    s3 = _mm256_fmadd_pd(ai, _mm256_loadu_pd(bi + 3), s3);
    s4 = _mm256_fmadd_pd(ai, _mm256_loadu_pd(bi + 4), s4);
    s5 = _mm256_fmadd_pd(ai, _mm256_loadu_pd(bi + 5), s5);
    s6 = _mm256_fmadd_pd(ai, _mm256_loadu_pd(bi + 6), s6);
    s7 = _mm256_fmadd_pd(ai, _mm256_loadu_pd(bi + 7), s7);
  }
  double v[32];
  _mm256_storeu_pd(v, s0);
  _mm256_storeu_pd(v + 4, s1);
  _mm256_storeu_pd(v + 8, s2);
  _mm256_storeu_pd(v + 12, s3);
  _mm256_storeu_pd(v + 16, s4);
  _mm256_storeu_pd(v + 20, s5);
  _mm256_storeu_pd(v + 24, s6);
  _mm256_storeu_pd(v + 28, s7);
  for (int k = 0; k < 8; k++) {
    double sk = (v[4 * k] + v[4 * k + 1]) + (v[4 * k + 2] + v[4 * k + 3]);
    int e = n - t - k;
    for (int j = i; j < e; j++) sk += a[j] * b[j + k];
    out[k] += sk;
  }
}

static int cpu_has_avx2_fma(void) {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}
#else
static int cpu_has_avx2_fma(void) { return 0; }
#endif

/* Radix-2 FFTs without bit reversal: a decimation-in-frequency transform
 * takes natural order to bit-reversed order, a decimation-in-time transform
 * takes bit-reversed order back to natural order.  tw holds, for each stage
 * with half-length hh, the twiddles exp(-2 pi i k / (2 hh)), k < hh, at
 * complex offset hh - 1.  z: interleaved complex, length L. */

/* DIF forward transform of data whose upper half is zero; only the first
 * n <= L/2 values are read from a (real part) and b (imaginary part, may be
 * NULL).  Pairs of radix-2 stages are fused into radix-2^2 butterflies
 * (three complex multiplications per four points, half the memory passes);
 * the output order is still bit-reversed.  tw3 holds tw[k] * tw2[k] of the
 * next stage at the same offsets as tw. */
#define CMUL(xr, xi, wr, wi, outr, outi)                                      \
  do {                                                                        \
    double xr_ = (xr), xi_ = (xi), wr_ = (wr), wi_ = (wi);                    \
    outr = xr_ * wr_ - xi_ * wi_;                                             \
    outi = xr_ * wi_ + xi_ * wr_;                                             \
  } while (0)

#ifdef BNN_HAVE_AVX2_KERNEL
/* x * w for two interleaved complex numbers per vector */
__attribute__((target("avx2,fma"))) static inline __m256d cmul2(__m256d x, __m256d w) {
  __m256d wr = _mm256_movedup_pd(w), wi = _mm256_permute_pd(w, 0xF);
  return _mm256_fmaddsub_pd(x, wr, _mm256_mul_pd(_mm256_permute_pd(x, 0x5), wi));
}

/* one fused radix-2^2 DIF stage (hh, hh / 2), two k per vector (q >= 2) */
__attribute__((target("avx2,fma"))) static void dif_pair_avx2(double *z, int L, int hh,
                                                              const double *tw,
                                                              const double *tw3) {
  int q = hh >> 1;
  const double *w1 = tw + 2 * (hh - 1), *w2 = tw + 2 * (q - 1), *w3 = tw3 + 2 * (hh - 1);
  const __m256d neg_odd = _mm256_set_pd(-0.0, 0.0, -0.0, 0.0);
  for (int i = 0; i < L; i += 2 * hh) {
    double *p0 = z + 2 * i, *p1 = p0 + 2 * q, *p2 = p0 + 2 * hh, *p3 = p2 + 2 * q;
    for (int k = 0; k < q; k += 2) {
      __m256d x0 = _mm256_loadu_pd(p0 + 2 * k), x1 = _mm256_loadu_pd(p1 + 2 * k);
      __m256d x2 = _mm256_loadu_pd(p2 + 2 * k), x3 = _mm256_loadu_pd(p3 + 2 * k);
      __m256d y0 = _mm256_add_pd(x0, x2), y1 = _mm256_add_pd(x1, x3);
      __m256d d0 = _mm256_sub_pd(x0, x2);
      /* -i (x1 - x3): (re, im) -> (im, -re) */
      __m256d d1 = _mm256_xor_pd(_mm256_permute_pd(_mm256_sub_pd(x1, x3), 0x5), neg_odd);
      _mm256_storeu_pd(p0 + 2 * k, _mm256_add_pd(y0, y1));
      _mm256_storeu_pd(p1 + 2 * k, cmul2(_mm256_sub_pd(y0, y1), _mm256_loadu_pd(w2 + 2 * k)));
      _mm256_storeu_pd(p2 + 2 * k, cmul2(_mm256_add_pd(d0, d1), _mm256_loadu_pd(w1 + 2 * k)));
      _mm256_storeu_pd(p3 + 2 * k, cmul2(_mm256_sub_pd(d0, d1), _mm256_loadu_pd(w3 + 2 * k)));
    }
  }
}
#endif

static void fft_dif_padded(double *z, int L, const double *tw, const double *tw3,
                           const double *a, const double *b, int n, int avx2) {
  int hh = L >> 1, q = hh >> 1;
  const double *w1 = tw + 2 * (hh - 1), *w2 = tw + 2 * (q - 1), *w3 = tw3 + 2 * (hh - 1);
  /* first two stages: x2 = x3 = 0; x0 = (a, b)[k] for k < n, x1 = (a,
   * b)[k + q] for k + q < n (n <= L / 2 = 2q) */
  for (int k = 0; k < q; k++) {
    int v0 = k < n, v1 = k + q < n;
    double x0r = v0 ? a[k] : 0.0, x0i = (b && v0) ? b[k] : 0.0;
    double x1r = v1 ? a[k + q] : 0.0, x1i = (b && v1) ? b[k + q] : 0.0;
    z[2 * k] = x0r + x1r;
    z[2 * k + 1] = x0i + x1i;
    CMUL(x0r - x1r, x0i - x1i, w2[2 * k], w2[2 * k + 1], z[2 * (k + q)], z[2 * (k + q) + 1]);
    /* (x0 - i x1) w1 and (x0 + i x1) w3 */
    CMUL(x0r + x1i, x0i - x1r, w1[2 * k], w1[2 * k + 1], z[2 * (k + hh)], z[2 * (k + hh) + 1]);
    CMUL(x0r - x1i, x0i + x1r, w3[2 * k], w3[2 * k + 1], z[2 * (k + hh + q)],
         z[2 * (k + hh + q) + 1]);
  }
  for (hh = L >> 3; hh >= 2; hh >>= 2) {
#ifdef BNN_HAVE_AVX2_KERNEL
    if (avx2 && hh >= 4) {
      dif_pair_avx2(z, L, hh, tw, tw3);
      continue;
    }
#endif
    q = hh >> 1;
    w1 = tw + 2 * (hh - 1);
    w2 = tw + 2 * (q - 1);
    w3 = tw3 + 2 * (hh - 1);
    for (int i = 0; i < L; i += 2 * hh) {
      double *p0 = z + 2 * i, *p1 = p0 + 2 * q, *p2 = p0 + 2 * hh, *p3 = p2 + 2 * q;
      for (int k = 0; k < q; k++) {
        double x0r = p0[2 * k], x0i = p0[2 * k + 1], x1r = p1[2 * k], x1i = p1[2 * k + 1];
        double x2r = p2[2 * k], x2i = p2[2 * k + 1], x3r = p3[2 * k], x3i = p3[2 * k + 1];
        double y0r = x0r + x2r, y0i = x0i + x2i, y1r = x1r + x3r, y1i = x1i + x3i;
        double d0r = x0r - x2r, d0i = x0i - x2i;
        double d1r = x1i - x3i, d1i = x3r - x1r; /* -i (x1 - x3) */
        p0[2 * k] = y0r + y1r;
        p0[2 * k + 1] = y0i + y1i;
        CMUL(y0r - y1r, y0i - y1i, w2[2 * k], w2[2 * k + 1], p1[2 * k], p1[2 * k + 1]);
        CMUL(d0r + d1r, d0i + d1i, w1[2 * k], w1[2 * k + 1], p2[2 * k], p2[2 * k + 1]);
        CMUL(d0r - d1r, d0i - d1i, w3[2 * k], w3[2 * k + 1], p3[2 * k], p3[2 * k + 1]);
      }
    }
  }
  if (hh == 1) /* last radix-2 stage, twiddle 1 */
    for (int i = 0; i < 2 * L; i += 4) {
      double ar = z[i], ai = z[i + 1], br = z[i + 2], bi = z[i + 3];
      z[i] = ar + br;
      z[i + 1] = ai + bi;
      z[i + 2] = ar - br;
      z[i + 3] = ai - bi;
    }
}

/* DIT transform of a real sequence given in bit-reversed order (z[2p] =
 * value, imaginary parts ignored and set to 0), output in natural order. */
#ifdef BNN_HAVE_AVX2_KERNEL
/* one DIT stage (half-length hh >= 2), two k per vector */
__attribute__((target("avx2,fma"))) static void dit_stage_avx2(double *z, int L, int hh,
                                                               const double *tw) {
  const double *w = tw + 2 * (hh - 1);
  for (int i = 0; i < L; i += 2 * hh) {
    double *p = z + 2 * i, *q = p + 2 * hh;
    for (int k = 0; k < hh; k += 2) {
      __m256d b = cmul2(_mm256_loadu_pd(q + 2 * k), _mm256_loadu_pd(w + 2 * k));
      __m256d a = _mm256_loadu_pd(p + 2 * k);
      _mm256_storeu_pd(p + 2 * k, _mm256_add_pd(a, b));
      _mm256_storeu_pd(q + 2 * k, _mm256_sub_pd(a, b));
    }
  }
}
#endif

static void fft_dit_real_in(double *z, int L, const double *tw, int avx2) {
  for (int p = 0; p < L; p++) z[2 * p + 1] = 0.0;
  for (int hh = 1; hh < L; hh <<= 1) {
#ifdef BNN_HAVE_AVX2_KERNEL
    if (avx2 && hh >= 2) {
      dit_stage_avx2(z, L, hh, tw);
      continue;
    }
#endif
    const double *w = tw + 2 * (hh - 1);
    int len = 2 * hh;
    for (int i = 0; i < L; i += len) {
      double *p = z + 2 * i, *q = p + 2 * hh;
      for (int k = 0; k < hh; k++) {
        double br = q[2 * k] * w[2 * k] - q[2 * k + 1] * w[2 * k + 1];
        double bi = q[2 * k] * w[2 * k + 1] + q[2 * k + 1] * w[2 * k];
        double ar = p[2 * k], ai = p[2 * k + 1];
        p[2 * k] = ar + br;
        p[2 * k + 1] = ai + bi;
        q[2 * k] = ar - br;
        q[2 * k + 1] = ai - bi;
      }
    }
  }
}

/* acov[t] (t = from..n-1) = sum_j sum_i yc_j[i] yc_j[i+t], by FFT: two real
 * chains per complex transform, |A_k|^2 + |B_k|^2 = (|Z_k|^2 +
 * |Z_{L-k}|^2) / 2 summed over chains, then one transform back (the power
 * spectrum is real and symmetric, so forward and inverse agree). */
static void acov_fft(bnn_diag_ws *ws, int n, int m, int from) {
  int L = ws->L;
  double *z = ws->cbuf, *pw = ws->pw;
  const uint32_t *partner = ws->rev;
  memset(pw, 0, (size_t) L * sizeof(double));
  for (int j = 0; j < m; j += 2) {
    const double *a = ws->yc + (size_t) n * j;
    const double *b = j + 1 < m ? ws->yc + (size_t) n * (j + 1) : NULL;
    fft_dif_padded(z, L, ws->tw, ws->tw3, a, b, n, ws->avx2);
    for (int p = 0; p < L; p++) pw[p] += z[2 * p] * z[2 * p] + z[2 * p + 1] * z[2 * p + 1];
  }
  /* symmetrise once: (|Z_k|^2 + |Z_{L-k}|^2) / 2 */
  for (int p = 0; p < L; p++) z[2 * p] = 0.5 * (pw[p] + pw[partner[p]]);
  fft_dit_real_in(z, L, ws->tw, ws->avx2);
  for (int t = from; t < n; t++) ws->acov[t] = z[2 * t] / L;
}

/* Makes acov[0..t] available (sums over chains, not yet normalised). */
static inline void need_lag(bnn_diag_ws *ws, int t, int n, int m) {
  if (t < ws->n_acov) return;
  if (t >= ws->direct_max && t >= 8) {
    acov_fft(ws, n, m, ws->n_acov);
    ws->n_acov = n;
    return;
  }
  int t0 = ws->n_acov, t1 = t0 + 8;
  if (t1 > n) t1 = n;
  double o[8] = {0, 0, 0, 0, 0, 0, 0, 0};
#ifdef BNN_HAVE_AVX2_KERNEL
  if (ws->avx2)
    for (int j = 0; j < m; j++) lags8_avx2(ws->yc + (size_t) n * j, n, t0, o);
  else
#endif
    for (int j = 0; j < m; j++) lags8(ws->yc + (size_t) n * j, n, t0, o);
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
static double ess_core(bnn_diag_ws *ws, int n, int m);

/* ESS of the columns cols[0..m) of n values (RAW or SCORES); centres them
 * into yc. */
static double ess_matrix(bnn_diag_ws *ws, const double *const *cols, int n, int m,
                         int kind) {
  if (n < 3) return NAN;
  double spread = 1;
  if (kind == ESS_RAW && should_na_cols(cols, n, m, &spread)) return NAN;
  double *cm = ws->cm, *rm = ws->cv;
  if (kind == ESS_RAW) {
    /* R's mean() exactly only where its last bit matters: draws whose
     * spread is tiny relative to their size */
    col_means(cols, n, m, cm, spread < 1e-6 ? rm : NULL);
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
  return ess_core(ws, n, m);
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
  return ess_core(ws, n, m);
}

/* Geyer's initial monotone sequence on the centred columns in yc, with
 * cm the column means (posterior:::.ess after the centring). */
static double ess_core(bnn_diag_ws *ws, int n, int m) {
  double *cm = ws->cm;
  ws->n_acov = 0;
  double scale = 1.0 / ((double) n * m); /* acov sums -> acov_means */
#define ACOV(t) (need_lag(ws, (t), n, m), ws->acov[(t)] * scale)
  double mean_var = ACOV(0) * n / (n - 1);
  double var_plus = mean_var * (n - 1) / n;
  if (m > 1) var_plus += r_var(cm, m);
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
      ws->mean = r_mean(x, n);
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
  scan(ws);
  if (ws->has_nan || !(prob >= 0 && prob <= 1)) return NAN;
  sort_draws(ws);
  return quantile7(ws->sval, ws->n_valid, prob);
}

/* ---------- R-hat ---------- */

double bnn_diag_rhat_bulk(bnn_diag_ws *ws) {
  if (!(ws->st & ST_RB)) {
    make_zb(ws);
    ws->rhat_bulk = ws->zb_na ? NAN
                              : rhat_matrix(cols_of(ws, ws->zb, ws->h, ws->m2), ws->h,
                                            ws->m2, ws->cm, ws->cv);
    ws->st |= ST_RB;
  }
  return ws->rhat_bulk;
}

double bnn_diag_rhat_tail(bnn_diag_ws *ws) {
  if (!(ws->st & ST_RT)) {
    make_zt(ws);
    if (ws->zt_na || ws->h < 2) {
      ws->rhat_tail = NAN;
    } else {
      acc_moments(ws->tK, ws->tS1, ws->tS2, ws->h, ws->m2, ws->cm, ws->cv);
      ws->rhat_tail = rhat_from_moments(ws->cm, ws->cv, ws->h, ws->m2);
    }
    ws->st |= ST_RT;
  }
  return ws->rhat_tail;
}

double bnn_diag_rhat(bnn_diag_ws *ws) {
  double b = bnn_diag_rhat_bulk(ws), t = bnn_diag_rhat_tail(ws);
  if (isnan(b) || isnan(t)) return NAN;
  return b > t ? b : t;
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

double bnn_diag_rhat_basic(bnn_diag_ws *ws) {
  if (ws->h < 1) return NAN;
  const double *const *cols = split_cols_x(ws);
  if (should_na_cols(cols, ws->h, ws->m2, NULL)) return NAN;
  return rhat_matrix(cols, ws->h, ws->m2, ws->cm, ws->cv);
}

/* ---------- ESS ---------- */

double bnn_diag_ess_bulk(bnn_diag_ws *ws) {
  make_zb(ws);
  if (ws->zb_na) return NAN;
  return ess_matrix(ws, cols_of(ws, ws->zb, ws->h, ws->m2), ws->h, ws->m2, ESS_SCORES);
}

double bnn_diag_ess_quantile(bnn_diag_ws *ws, double prob) {
  scan(ws);
  if (!(prob >= 0 && prob <= 1)) return NAN;
  if (ws->has_nan || ws->has_inf || ws->h < 1) return NAN;
  sort_draws(ws);
  int S = ws->S;
  if (fabs(ws->sval[S - 1] - ws->sval[0]) < DBL_EPSILON) return NAN;
  if (prob == 1) prob = (S - 0.5) / S;
  return ess_indicator(ws, quantile7(ws->sval, S, prob));
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

/* ---------- chain-wise R-hat and moments ---------- */

void bnn_diag_chainwise_rhat(bnn_diag_ws *ws, double *out) {
  int M = ws->n_chain, K = ws->kappa;
  if (!K || ws->Lc < 2) {
    for (int c = 0; c < M; c++) out[c] = NAN;
    return;
  }
  make_zb(ws);
  /* chains with NaN have fewer scores; their columns are not used */
  acc_moments(ws->cK, ws->cS1, ws->cS2, ws->Lc, M * K, ws->cm, ws->cv);
  for (int c = 0; c < M; c++) {
    if (ws->chain_nan[c] || ws->cw_const[c]) out[c] = NAN;
    else out[c] = rhat_from_moments(ws->cm + (size_t) c * K, ws->cv + (size_t) c * K, ws->Lc, K);
  }
}

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

/* ---------- cumulative LPPD ---------- */

void bnn_cumulative_lppd(const double *ll, int n_iter, int n_chain, int n_obs,
                         double *out) {
  size_t S = (size_t) n_iter;
  for (size_t k = 0; k < S * n_chain; k++) out[k] = 0.0;
  for (int c = 0; c < n_chain; c++) {
    double *oc = out + S * c;
    for (int i = 0; i < n_obs; i++) {
      const double *l = ll + S * ((size_t) c + (size_t) n_chain * i);
      double mx = -INFINITY, sum = 0.0; /* sum exp(l - mx) */
      for (size_t s = 0; s < S; s++) {
        double v = l[s];
        if (isnan(v) || isnan(sum)) {
          sum = NAN;
        } else if (v == INFINITY) {
          mx = INFINITY;
          sum = 1.0;
        } else if (v > mx) {
          sum = sum * exp(mx - v) + 1.0;
          mx = v;
        } else if (v > -INFINITY && mx < INFINITY) {
          sum += exp(v - mx);
        }
        double lse = mx == -INFINITY ? -INFINITY : mx + log(sum);
        oc[s] += lse - log((double) (s + 1));
      }
    }
    for (size_t s = 0; s < S; s++) oc[s] /= n_obs;
  }
}

void bnn_lppd_stop(const double *lppd, int n_iter, int n_chain, double eps,
                   int window, int *out) {
  for (int c = 0; c < n_chain; c++) {
    const double *v = lppd + (size_t) n_iter * c;
    out[c] = 0;
    if (window < 1) continue;
    long double s = 0.0;
    int n_nan = 0;
    /* non-finite values are counted, not summed: a window holding one
     * gives a non-finite mean, and the rule cannot fire */
    for (int l = 0; l < window && l < n_iter; l++) {
      if (!isfinite(v[l])) n_nan++;
      else s += v[l];
    }
    /* 0-based l: window = v[l - window .. l - 1] */
    for (int l = window; l < n_iter; l++) {
      if (!n_nan && isfinite(v[l])) {
        double mean = (double) (s / window);
        if (fabs(mean - v[l]) < eps) {
          out[c] = l + 1;
          break;
        }
      }
      if (!isfinite(v[l - window])) n_nan--;
      else s -= v[l - window];
      if (!isfinite(v[l])) n_nan++;
      else s += v[l];
    }
  }
}

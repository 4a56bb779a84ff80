/* Sorting and rank normalisation of the draws for the convergence
 * diagnostics (see diag_ws.h, diagnostics.h).
 *
 * The draws of a variable are sorted once per variable, with an LSD radix
 * sort of 64-bit words (top 36 bits of an order-preserving key above the
 * draw's code; runs that agree in those bits are then ordered by the
 * remaining bits).  The folded draws |x - median| are ranked by merging the
 * two monotone halves of the sorted draws (from both ends at once,
 * branch-free), and the within-chain ranks of the chain-wise R-hat are read
 * off the same global order.  Ties get average ranks, as
 * rank(ties.method = "average").  The normal scores
 * qnorm((r - 3/8) / (S + 1/4)) depend only on (2r, S) and are tabulated
 * lazily per call; qnorm5() comes from R's maths library (Rmath.h), a pure
 * function of its arguments (no R state, no allocation) giving the same
 * values as R's qnorm(), which posterior uses. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include <Rmath.h> /* qnorm5: a pure function (see above) */
#include "diag_stats.h"
#include "diag_ws.h"
#include "ranks.h"

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
void diag_sort_draws(bnn_diag_ws *ws) {
  if (ws->st & ST_SORT) return;
  diag_scan(ws);
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
void diag_make_zb(bnn_diag_ws *ws) {
  if (ws->st & ST_ZB) return;
  ws->st |= ST_ZB;
  diag_scan(ws);
  ws->zb_na = 1;
  int do_bulk = !ws->split_nan && ws->h >= 1, do_cw = ws->kappa && ws->Lc >= 2;
  if (!do_bulk && !do_cw) return;
  diag_sort_draws(ws);
  if (do_bulk) rank_pass_bulk(ws);
  if (do_cw) rank_pass_cw(ws);
}

/* Median of all draws as R's median() (assumes no NaN; sorted). */
double diag_median_sorted(bnn_diag_ws *ws) {
  if (ws->st & ST_MED) return ws->med;
  int n = ws->n_valid;
  const double *s = ws->sval;
  double med;
  if (n % 2 == 1) {
    med = s[(n - 1) / 2];
  } else {
    double ab[2] = {s[n / 2 - 1], s[n / 2]};
    med = diag_r_mean(ab, 2);
  }
  ws->med = med;
  ws->st |= ST_MED;
  return med;
}

void diag_make_zt(bnn_diag_ws *ws) {
  if (ws->st & ST_ZT) return;
  ws->st |= ST_ZT;
  diag_scan(ws);
  ws->zt_na = 1;
  if (ws->has_nan || ws->h < 1) return;
  diag_sort_draws(ws);
  double med = diag_median_sorted(ws);
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

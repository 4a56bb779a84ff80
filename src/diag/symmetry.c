/* Deterministic canonicalisation of MLP parameters modulo the network's
 * equioutput transformations (an extension of Wiese et al. 2023, whose own
 * removal method is data-driven).
 *
 * Hidden layer h (0-based) is the output of weight layer h: M = sizes[h+1]
 * neurons, fin = sizes[h] inputs, fout = sizes[h+2] outputs.  Its neuron i
 * owns column i of W_h (fin x M, column-major), b_h[i], and row i of W_{h+1}
 * (M x fout, column-major).
 *
 * Odd activations and permutation-only activations: layers are processed
 * from the output side back, as the paper does.  Each neuron is flipped so
 * that the sum of its outgoing weights is positive (its bias when that sum
 * is exactly 0), then the neurons are sorted by (bias, outgoing weights)
 * lexicographically.  Bias and outgoing weights of layer h change only under
 * the transformations of layer h itself once the layers above are fixed, so
 * every equioutput copy reaches the same vector.
 *
 * Positively homogeneous activations: each neuron's incoming weights and
 * bias are scaled to unit Euclidean norm, the scale moving to its outgoing
 * weights, and neurons are sorted by (bias, incoming weights).  Incoming
 * weights of layer h depend on the scales and order of layer h-1, so these
 * layers are processed from the input side forward. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "symmetry.h"

static int max_width(int n_layers, const int *sizes) {
  int w = 0;
  for (int l = 0; l <= n_layers; l++) if (sizes[l] > w) w = sizes[l];
  return w;
}

size_t bnn_sym_work_doubles(int n_layers, const int *sizes) {
  size_t w = (size_t)max_width(n_layers, sizes);
  /* copy of the layer's parameters + key matrix */
  return w * w * 2 + w + w * (w + 1);
}

size_t bnn_sym_work_ints(int n_layers, const int *sizes) {
  return (size_t)max_width(n_layers, sizes) * 2 + (size_t)n_layers;
}

/* lexicographic comparison of key rows a and b (klen entries each) */
static int key_cmp(const double *key, int klen, int a, int b) {
  const double *ka = key + (size_t)a * klen, *kb = key + (size_t)b * klen;
  for (int t = 0; t < klen; t++) {
    if (ka[t] < kb[t]) return -1;
    if (ka[t] > kb[t]) return 1;
  }
  return 0;
}

/* stable bottom-up merge sort of idx[0..n) = 0..n-1 by cmp(ctx, a, b);
 * tmp holds n ints.  One sort for the key rows of canonical_layer() and the
 * wide layers of perm_sort(). */
typedef int (*idx_cmp)(const void *ctx, int a, int b);
static void merge_sort_idx(int *idx, int *tmp, int n, idx_cmp cmp, const void *ctx) {
  for (int i = 0; i < n; i++) idx[i] = i;
  for (int width = 1; width < n; width *= 2) {
    for (int lo = 0; lo < n; lo += 2 * width) {
      int mid = lo + width < n ? lo + width : n;
      int hi = lo + 2 * width < n ? lo + 2 * width : n;
      int i = lo, j = mid, k = lo;
      while (i < mid && j < hi)
        tmp[k++] = cmp(ctx, idx[j], idx[i]) < 0 ? idx[j++] : idx[i++];
      while (i < mid) tmp[k++] = idx[i++];
      while (j < hi) tmp[k++] = idx[j++];
    }
    memcpy(idx, tmp, (size_t)n * sizeof(int));
  }
}

typedef struct {
  const double *key;
  int klen;
} key_rows;

static int key_rows_cmp(const void *ctx, int a, int b) {
  const key_rows *k = ctx;
  return key_cmp(k->key, k->klen, a, b);
}

/* stable sort of idx[0..n) by key rows */
static void sort_by_key(int *idx, int *tmp, int n, const double *key, int klen) {
  key_rows k = {key, klen};
  merge_sort_idx(idx, tmp, n, key_rows_cmp, &k);
}

static void canonical_layer(int h, const int *sizes, const int *w_off, int mode,
                            double *theta, double *work, int *iwork) {
  int fin = sizes[h], M = sizes[h + 1], fout = sizes[h + 2];
  double *Win = theta + w_off[h];
  double *b = Win + (size_t)fin * M;
  double *Wout = theta + w_off[h + 1];
  /* 1. sign or scale of each neuron */
  for (int i = 0; i < M; i++) {
    double *col = Win + (size_t)i * fin;
    if (mode == BNN_SYM_ODD) {
      double s = 0.0;
      for (int k = 0; k < fout; k++) s += Wout[i + (size_t)k * M];
      if (s == 0.0) s = b[i];
      if (s < 0.0) {
        for (int j = 0; j < fin; j++) col[j] = -col[j];
        b[i] = -b[i];
        for (int k = 0; k < fout; k++) Wout[i + (size_t)k * M] = -Wout[i + (size_t)k * M];
      }
    } else if (mode == BNN_SYM_HOMOGENEOUS) {
      double nrm = b[i] * b[i];
      for (int j = 0; j < fin; j++) nrm += col[j] * col[j];
      nrm = sqrt(nrm);
      if (nrm > 0.0) {
        for (int j = 0; j < fin; j++) col[j] /= nrm;
        b[i] /= nrm;
        for (int k = 0; k < fout; k++) Wout[i + (size_t)k * M] *= nrm;
      }
    }
  }
  /* 2. order: key = (bias, outgoing) or, for rescaling, (bias, incoming) */
  int klen = 1 + (mode == BNN_SYM_HOMOGENEOUS ? fin : fout);
  double *key = work;
  double *copy = work + (size_t)M * klen;
  for (int i = 0; i < M; i++) {
    double *k = key + (size_t)i * klen;
    k[0] = b[i];
    if (mode == BNN_SYM_HOMOGENEOUS)
      for (int j = 0; j < fin; j++) k[1 + j] = Win[j + (size_t)i * fin];
    else
      for (int t = 0; t < fout; t++) k[1 + t] = Wout[i + (size_t)t * M];
  }
  int *ord = iwork, *tmp = iwork + M;
  sort_by_key(ord, tmp, M, key, klen);
  int same = 1;
  for (int i = 0; i < M; i++) if (ord[i] != i) { same = 0; break; }
  if (same) return;
  /* new neuron i = old neuron ord[i] */
  size_t n_in = (size_t)fin * M;
  memcpy(copy, Win, (n_in + M) * sizeof(double));   /* W_h and b_h are adjacent */
  for (int i = 0; i < M; i++) {
    memcpy(Win + (size_t)i * fin, copy + (size_t)ord[i] * fin, (size_t)fin * sizeof(double));
    b[i] = copy[n_in + ord[i]];
  }
  memcpy(copy, Wout, (size_t)M * fout * sizeof(double));
  for (int k = 0; k < fout; k++)
    for (int i = 0; i < M; i++)
      Wout[i + (size_t)k * M] = copy[ord[i] + (size_t)k * M];
}

int bnn_sym_canonical(int n_layers, const int *sizes, int mode, double *theta,
                      double *work, int *iwork) {
  int n_net = 0;
  int *w_off = iwork;   /* n_layers offsets, then the sort's 2 x width */
  iwork += n_layers;
  for (int l = 0; l < n_layers; l++) {
    w_off[l] = n_net;
    n_net += sizes[l] * sizes[l + 1] + sizes[l + 1];
  }
  for (int j = 0; j < n_net; j++) if (!isfinite(theta[j])) return 1;
  int H = n_layers - 1;
  if (mode == BNN_SYM_HOMOGENEOUS) {
    for (int h = 0; h < H; h++) canonical_layer(h, sizes, w_off, mode, theta, work, iwork);
  } else {
    for (int h = H - 1; h >= 0; h--) canonical_layer(h, sizes, w_off, mode, theta, work, iwork);
  }
  return 0;
}

/* ---- the signed-permutation form (modes BNN_SYM_PERMUTE, BNN_SYM_ODD) ----
 *
 * For these modes the canonical map only moves and negates entries, and the
 * decisions of hidden layer h read only its biases and its outgoing weights
 * W_{h+1}, whose columns the (earlier processed) layer h+1 has permuted and
 * negated.  So each layer's flips and order are decided through index maps
 * on the untouched input, and the output is written once.  Every value
 * compared or summed is the one bnn_sym_canonical() computes (negation is
 * exact and the sums run in the same order), and both sorts are stable with
 * the same strict comparison, so the results are identical. */

size_t bnn_sym_perm_work_ints(int n_layers, const int *sizes) {
  size_t n = 2 * (size_t)n_layers + 2 * (size_t)max_width(n_layers, sizes);
  for (int h = 1; h < n_layers; h++) n += (size_t)sizes[h];
  return n;
}

size_t bnn_sym_perm_work_doubles(int n_layers, const int *sizes) {
  size_t n = 2 * (size_t)max_width(n_layers, sizes);
  for (int h = 1; h < n_layers; h++) n += (size_t)sizes[h];
  return n;
}

/* Hidden layer h's neurons while it is processed: its outgoing weight (i, t)
 * stands, after layer h + 1, at Wout[i + src[t] * M] times nsg[t] (the next
 * layer's order and signs; src = NULL for the output layer, whose order and
 * signs are fixed), and after layer h's own flips times sg[i].  Signs are
 * +1.0 or -1.0, so multiplying by them is exact negation or nothing, without
 * a branch.  bk[i] is neuron i's bias after its flip. */
typedef struct {
  const double *Wout, *bk, *sg, *nsg;
  const int *src;
  int M, fout;
  size_t S;   /* stride of the parameters in memory */
} perm_view;

static inline double out_w(const perm_view *v, int i, int t) {
  double x = v->src ? v->Wout[(i + (size_t)v->src[t] * v->M) * v->S] * v->nsg[t]
                    : v->Wout[(i + (size_t)t * v->M) * v->S];
  return x * v->sg[i];
}

/* -1, 0, 1 as neuron a's key (bias, outgoing weights) is <, ==, > b's */
static int perm_cmp(const perm_view *v, int a, int b) {
  if (v->bk[a] < v->bk[b]) return -1;
  if (v->bk[a] > v->bk[b]) return 1;
  for (int t = 0; t < v->fout; t++) {
    double xa = out_w(v, a, t), xb = out_w(v, b, t);
    if (xa < xb) return -1;
    if (xa > xb) return 1;
  }
  return 0;
}

static int perm_cmp_ctx(const void *ctx, int a, int b) {
  return perm_cmp(ctx, a, b);
}

/* stable sort of idx[0..n) = 0..n-1 by perm_cmp.  Biases almost never tie,
 * so narrow layers first rank the neurons by bias alone, counting without
 * branches; only if two biases are equal (then their counts collide: with
 * distinct biases the counts are a permutation of 0..n-1) does the
 * insertion sort with the full comparison run.  Wide layers use
 * merge_sort_idx(). */
static void perm_sort(const perm_view *v, int *idx, int *tmp, int n) {
  if (n <= 64) {
    const double *bk = v->bk;
    int tie = 0;
    for (int i = 0; i < n; i++) idx[i] = -1;
    for (int i = 0; i < n; i++) {
      int lt = 0;
      double ki = bk[i];
      for (int j = 0; j < n; j++) lt += bk[j] < ki;
      tie |= idx[lt] >= 0;      /* equal biases get equal counts */
      idx[lt] = i;
    }
    if (!tie) return;
    for (int i = 0; i < n; i++) idx[i] = i;
    for (int i = 1; i < n; i++) {
      int x = idx[i], j = i;
      while (j > 0 && perm_cmp(v, idx[j - 1], x) > 0) {
        idx[j] = idx[j - 1];
        j--;
      }
      idx[j] = x;
    }
    return;
  }
  merge_sort_idx(idx, tmp, n, perm_cmp_ctx, v);
}

int bnn_sym_canonical_perm(int n_layers, const int *sizes, int mode, const double *theta,
                           double *out, size_t S, double *work, int *iwork) {
  int n_net = 0, H = n_layers - 1, sum_m = 0, maxw = max_width(n_layers, sizes);
  int *w_off = iwork, *h_off = iwork + n_layers;
  for (int l = 0; l < n_layers; l++) {
    w_off[l] = n_net;
    n_net += sizes[l] * sizes[l + 1] + sizes[l + 1];
    if (l < H) {
      h_off[l] = sum_m;
      sum_m += sizes[l + 1];
    }
  }
  /* non-finite: all exponent bits set; four independent chains */
  const uint64_t EXP = 0x7ff0000000000000ULL;
  int bad[4] = {0, 0, 0, 0}, j = 0;
  for (; j + 4 <= n_net; j += 4) {
    for (int k = 0; k < 4; k++) {
      uint64_t u;
      memcpy(&u, theta + (size_t)(j + k) * S, sizeof u);
      bad[k] |= (u & EXP) == EXP;
    }
  }
  for (; j < n_net; j++) {
    uint64_t u;
    memcpy(&u, theta + (size_t)j * S, sizeof u);
    bad[0] |= (u & EXP) == EXP;
  }
  if (bad[0] | bad[1] | bad[2] | bad[3]) {
    for (int q = 0; q < n_net; q++) out[(size_t)q * S] = theta[(size_t)q * S];
    return 1;
  }
  /* hidden layer h: ord + h_off[h] (new neuron i = old ord[i]) and
   * nsg + h_off[h] (its sign, by new neuron); sg and bk: the layer in
   * hand's signs (by old neuron) and bias keys */
  int *ord = iwork + 2 * (size_t)n_layers, *tmp = ord + sum_m;
  double *bk = work, *sg = work + maxw, *nsg = work + 2 * (size_t)maxw;
  for (int h = H - 1; h >= 0; h--) {
    int fin = sizes[h], M = sizes[h + 1], fout = sizes[h + 2];
    const double *b = theta + (w_off[h] + (size_t)fin * M) * S;
    const double *Wout = theta + (size_t)w_off[h + 1] * S;
    int *o = ord + h_off[h];
    const int *src = h + 1 < H ? ord + h_off[h + 1] : NULL;
    const double *ns = h + 1 < H ? nsg + h_off[h + 1] : NULL;
    /* 1. sign of each neuron (odd activations): that of the sum of its
     *    outgoing weights as they stand after layer h + 1, else of its bias;
     *    the sums run over t in order, as in bnn_sym_canonical() */
    if (mode == BNN_SYM_ODD) {
      for (int i = 0; i < M; i++) sg[i] = 0.0;
      for (int t = 0; t < fout; t++) {
        if (src) {
          const double *col = Wout + (size_t)src[t] * M * S;
          double st = ns[t];
          for (int i = 0; i < M; i++) sg[i] += col[i * S] * st;
        } else {
          const double *col = Wout + (size_t)t * M * S;
          for (int i = 0; i < M; i++) sg[i] += col[i * S];
        }
      }
      for (int i = 0; i < M; i++) {
        double s = sg[i] == 0.0 ? b[i * S] : sg[i];
        sg[i] = s < 0.0 ? -1.0 : 1.0;
      }
    } else {
      for (int i = 0; i < M; i++) sg[i] = 1.0;
    }
    /* 2. order by (bias, outgoing weights) after the flips */
    for (int i = 0; i < M; i++) bk[i] = b[i * S] * sg[i];
    perm_view v = {Wout, bk, sg, ns, src, M, fout, S};
    perm_sort(&v, o, tmp, M);
    double *nsh = nsg + h_off[h];
    for (int i = 0; i < M; i++) nsh[i] = sg[o[i]];
  }
  /* 3. write: entry (j, i) of W_l is old entry (ord_{l-1}[j], ord_l[i])
   *    times the signs of both neurons */
  for (int l = 0; l < n_layers; l++) {
    int rows = sizes[l], cols = sizes[l + 1];
    const int *ro = l > 0 ? ord + h_off[l - 1] : NULL;
    const double *rs = l > 0 ? nsg + h_off[l - 1] : NULL;
    const int *co = l < H ? ord + h_off[l] : NULL;
    const double *cs = l < H ? nsg + h_off[l] : NULL;
    const double *W = theta + (size_t)w_off[l] * S, *b = W + (size_t)rows * cols * S;
    double *oW = out + (size_t)w_off[l] * S, *ob = oW + (size_t)rows * cols * S;
    for (int i = 0; i < cols; i++) {
      int ci = co ? co[i] : i;
      double si = cs ? cs[i] : 1.0;
      const double *src = W + (size_t)ci * rows * S;
      double *dst = oW + (size_t)i * rows * S;
      if (ro) {
        for (int j = 0; j < rows; j++) dst[j * S] = src[ro[j] * S] * (rs[j] * si);
      } else {
        for (int j = 0; j < rows; j++) dst[j * S] = src[j * S] * si;
      }
      ob[i * S] = b[ci * S] * si;
    }
  }
  return 0;
}

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

/* stable bottom-up merge sort of idx[0..n) by key rows */
static void sort_by_key(int *idx, int *tmp, int n, const double *key, int klen) {
  for (int i = 0; i < n; i++) idx[i] = i;
  for (int width = 1; width < n; width *= 2) {
    for (int lo = 0; lo < n; lo += 2 * width) {
      int mid = lo + width < n ? lo + width : n;
      int hi = lo + 2 * width < n ? lo + 2 * width : n;
      int i = lo, j = mid, k = lo;
      while (i < mid && j < hi)
        tmp[k++] = key_cmp(key, klen, idx[j], idx[i]) < 0 ? idx[j++] : idx[i++];
      while (i < mid) tmp[k++] = idx[i++];
      while (j < hi) tmp[k++] = idx[j++];
    }
    memcpy(idx, tmp, (size_t)n * sizeof(int));
  }
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

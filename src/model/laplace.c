#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "laplace.h"

/* the leading n x n block of S (ld lds) += sum over rows of x x^T, x the
 * n columns of v (rows contiguous, ld ldv); upper triangle only */
static void add_gram(double *S, int lds, int n, const double *v, int ldv, int rows) {
  for (int k2 = 0; k2 < n; k2++) {
    const double *b = v + (size_t)k2 * ldv;
    for (int k1 = 0; k1 <= k2; k1++) {
      const double *a = v + (size_t)k1 * ldv;
      double s = 0.0;
      for (int i = 0; i < rows; i++) s += a[i] * b[i];
      S[k1 + (size_t)k2 * lds] += s;
    }
  }
}

static void symmetrise(double *S, int n) {
  for (int k2 = 0; k2 < n; k2++)
    for (int k1 = 0; k1 < k2; k1++) S[k2 + (size_t)k1 * n] = S[k1 + (size_t)k2 * n];
}

/* The pass's hooks: A_l += [a, 1] [a, 1]^T from each layer's input, G_l +=
 * g g^T from the delta of its pre-activations; no gradient. */
typedef struct {
  bnn_pass pass;   /* first member: the hooks get the struct */
  double **A, **G;
} kfac_pass;

static const double *kfac_input(bnn_pass *p, bnn_model *m, int l, const double *ain,
                                int *lda, int r0, int mrows) {
  kfac_pass *kp = (kfac_pass *)p;
  (void)r0;
  int fin = m->sizes[l], na = fin + 1, ld = *lda;
  double *Al = kp->A[l];
  add_gram(Al, na, fin, ain, ld, mrows);   /* top-left fin x fin block */
  for (int k = 0; k < fin; k++) {
    const double *a = ain + (size_t)k * ld;
    double s = 0.0;
    for (int i = 0; i < mrows; i++) s += a[i];
    Al[k + (size_t)fin * na] += s;
  }
  Al[fin + (size_t)fin * na] += mrows;
  return ain;
}

static void kfac_delta(bnn_pass *p, bnn_model *m, int l, const double *ain, int lda,
                       const double *dcur, int mrows) {
  kfac_pass *kp = (kfac_pass *)p;
  (void)ain;
  (void)lda;
  int fout = m->sizes[l + 1];
  add_gram(kp->G[l], fout, fout, dcur, BNN_CHUNK, mrows);
}

int bnn_kfac_factors(bnn_model *m, const double *theta, double **A, double **G) {
  int L = m->n_layers;
  if (bnn_model_n_out(m) != 1 ||
      (m->lik != BNN_LIK_GAUSS_FIXED && m->lik != BNN_LIK_BERNOULLI))
    return -1;
  for (int l = 0; l < L; l++) {
    int fin = m->sizes[l], fout = m->sizes[l + 1];
    memset(A[l], 0, sizeof(double) * (size_t)(fin + 1) * (size_t)(fin + 1));
    memset(G[l], 0, sizeof(double) * (size_t)fout * (size_t)fout);
  }
  kfac_pass kp;
  memset(&kp, 0, sizeof kp);
  kp.A = A;
  kp.G = G;
  kp.pass.input = kfac_input;
  kp.pass.layer_delta = kfac_delta;
  kp.pass.in = malloc(sizeof(const double *) * (size_t)(L > 0 ? L : 1));
  kp.pass.ld = malloc(sizeof(int) * (size_t)(L > 0 ? L : 1));
  if (!kp.pass.in || !kp.pass.ld) {
    free(kp.pass.in);
    free(kp.pass.ld);
    return -2;
  }
  double lam_gauss = 1.0 / (m->sigma_fixed * m->sigma_fixed);
  for (int r0 = 0; r0 < m->n; r0 += BNN_CHUNK) {
    int mrows = m->n - r0 < BNN_CHUNK ? m->n - r0 : BNN_CHUNK;
    /* forward (A_l from each layer's input), keeping z and a of every layer */
    const double *z = bnn_model_forward_chunk(m, theta, r0, mrows, &kp.pass);
    /* backward of sqrt(lambda_i) through the pre-activations (G_l) */
    double *dcur = m->delta;
    for (int i = 0; i < mrows; i++) {
      double lam = lam_gauss;
      if (m->lik == BNN_LIK_BERNOULLI) {
        double eta = z[i];
        double p = eta >= 0 ? 1.0 / (1.0 + exp(-eta)) : exp(eta) / (1.0 + exp(eta));
        lam = p * (1.0 - p);
      }
      dcur[i] = sqrt(lam);
    }
    bnn_model_backward_chunk(m, theta, r0, mrows, NULL, &kp.pass);
  }
  for (int l = 0; l < L; l++) {
    symmetrise(A[l], m->sizes[l] + 1);
    symmetrise(G[l], m->sizes[l + 1]);
  }
  free(kp.pass.in);
  free(kp.pass.ld);
  return 0;
}

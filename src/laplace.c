#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "laplace.h"
#include "kernels.h"

static inline int layer_off(const bnn_model *m, int l) {
  int off = 0;
  for (int k = 0; k < l; k++) off += BNN_CHUNK * m->sizes[k + 1];
  return off;
}

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
  double *tmp = malloc(sizeof(double) * BNN_CHUNK);
  if (!tmp) return -2;
  double lam_gauss = 1.0 / (m->sigma_fixed * m->sigma_fixed);
  for (int r0 = 0; r0 < m->n; r0 += BNN_CHUNK) {
    int mrows = m->n - r0 < BNN_CHUNK ? m->n - r0 : BNN_CHUNK;
    /* forward, keeping z and a of every layer */
    const double *ain = m->X + r0;
    int lda = m->n, off = 0;
    double *z = m->z;
    for (int l = 0; l < L; l++) {
      int fin = m->sizes[l], fout = m->sizes[l + 1];
      /* input factor: [a, 1] */
      double *Al = A[l];
      int na = fin + 1;
      add_gram(Al, na, fin, ain, lda, mrows);   /* top-left fin x fin block */
      for (int k = 0; k < fin; k++) {
        const double *a = ain + (size_t)k * lda;
        double s = 0.0;
        for (int i = 0; i < mrows; i++) s += a[i];
        Al[k + (size_t)fin * na] += s;
      }
      Al[fin + (size_t)fin * na] += mrows;
      z = m->z + off;
      bnn_kern()->dense(ain, lda, mrows, fin, fout, theta + m->w_off[l], 1, fin,
                        theta + m->b_off[l], z, BNN_CHUNK);
      if (l < L - 1) {
        double *a = m->a + off;
        for (int j = 0; j < fout; j++)
          bnn_kern()->act_forward(m->act, z + (size_t)j * BNN_CHUNK,
                                  a + (size_t)j * BNN_CHUNK, mrows);
        ain = a;
        lda = BNN_CHUNK;
      }
      off += BNN_CHUNK * fout;
    }
    /* backward of sqrt(lambda_i) through the pre-activations */
    double *dcur = m->delta, *dnext = m->delta2;
    for (int i = 0; i < mrows; i++) {
      double lam = lam_gauss;
      if (m->lik == BNN_LIK_BERNOULLI) {
        double eta = z[i];
        double p = eta >= 0 ? 1.0 / (1.0 + exp(-eta)) : exp(eta) / (1.0 + exp(eta));
        lam = p * (1.0 - p);
      }
      dcur[i] = sqrt(lam);
    }
    for (int l = L - 1; l >= 0; l--) {
      int fin = m->sizes[l], fout = m->sizes[l + 1];
      add_gram(G[l], fout, fout, dcur, BNN_CHUNK, mrows);
      if (l > 0) {
        bnn_kern()->dense(dcur, BNN_CHUNK, mrows, fout, fin, theta + m->w_off[l],
                          fin, 1, NULL, dnext, BNN_CHUNK);
        int zo = layer_off(m, l - 1);
        for (int k = 0; k < fin; k++)
          bnn_kern()->act_backward(m->act, m->z + zo + k * BNN_CHUNK,
                                   m->a + zo + k * BNN_CHUNK, dnext + (size_t)k * BNN_CHUNK,
                                   tmp, mrows);
        double *t = dcur;
        dcur = dnext;
        dnext = t;
      }
    }
  }
  for (int l = 0; l < L; l++) {
    symmetrise(A[l], m->sizes[l] + 1);
    symmetrise(G[l], m->sizes[l + 1]);
  }
  free(tmp);
  return 0;
}

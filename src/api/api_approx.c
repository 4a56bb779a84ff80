/* .Call entry points of the approximate posteriors: the dropout
 * log-likelihood with fixed masks (for tests) and the KFAC factors of the
 * Laplace approximation. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "api_util.h"
#include "dropout.h"
#include "laplace.h"

static void dropout_finalizer(SEXP xp) {
  bnn_dropout *dw = R_ExternalPtrAddr(xp);
  bnn_dropout_free(dw);
  R_ClearExternalPtr(xp);
}

/* theta: dim x np matrix; input_dropout: rate; dropout: one rate per hidden
 * layer; seed: the masks of every point are drawn from the RNG seeded by
 * (seed, 0), so the same seed gives the same masks at every theta.
 * Returns list(ll = numeric np, grad = dim x np). */
SEXP C_dropout_loglik(SEXP spec, SEXP theta, SEXP input_dropout, SEXP dropout,
                      SEXP seed) {
  if (TYPEOF(theta) != REALSXP) Rf_error("'theta' must be a double vector or matrix");
  bnn_model *m;
  bnn_model_protect(spec, 1, 0, &m);
  int d = m->dim, nh = m->n_layers - 1;
  if (Rf_xlength(theta) % d != 0) Rf_error("'theta' must have a multiple of %d entries", d);
  int np = (int)(Rf_xlength(theta) / d);
  double rin = Rf_asReal(input_dropout);
  if (!(rin >= 0 && rin < 1)) Rf_error("'input_dropout' must be in [0, 1)");
  if (TYPEOF(dropout) != REALSXP || Rf_length(dropout) != nh)
    Rf_error("'dropout' must be a double vector with one rate per hidden layer (%d)", nh);
  for (int l = 0; l < nh; l++)
    if (!(REAL(dropout)[l] >= 0 && REAL(dropout)[l] < 1))
      Rf_error("'dropout' rates must be in [0, 1)");
  double sd = Rf_asReal(seed);
  if (!(sd >= 0 && sd < 9007199254740992.0)) Rf_error("'seed' must be a whole number >= 0");
  SEXP xp = PROTECT(R_MakeExternalPtr(NULL, R_NilValue, R_NilValue));
  R_RegisterCFinalizerEx(xp, dropout_finalizer, TRUE);
  bnn_dropout *dw = bnn_dropout_new(m, rin, REAL(dropout));
  if (!dw) Rf_error("cannot allocate the dropout workspace");
  R_SetExternalPtrAddr(xp, dw);
  SEXP ll = PROTECT(Rf_allocVector(REALSXP, np));
  SEXP grad = PROTECT(Rf_allocMatrix(REALSXP, d, np));
  for (int j = 0; j < np; j++) {
    bnn_rng rng;
    bnn_rng_seed(&rng, (uint64_t)sd, 0);
    REAL(ll)[j] = bnn_dropout_loglik(dw, m, REAL(theta) + (size_t)j * d,
                                     REAL(grad) + (size_t)j * d, 0, m->n, &rng);
  }
  const char *nm[] = {"ll", "grad"};
  SEXP out = PROTECT(bnn_named_list(2, nm));
  SET_VECTOR_ELT(out, 0, ll);
  SET_VECTOR_ELT(out, 1, grad);
  UNPROTECT(5);
  return out;
}

/* theta: the parameters (dim).  Returns list(A = list of (fin + 1) x
 * (fin + 1) matrices, G = list of fout x fout matrices), one per weight
 * layer, sums over the training rows (see laplace.h). */
SEXP C_laplace_kfac(SEXP spec, SEXP theta) {
  if (TYPEOF(theta) != REALSXP) Rf_error("'theta' must be a double vector");
  bnn_model *m;
  bnn_model_protect(spec, 1, 0, &m);
  if (Rf_length(theta) != m->dim) Rf_error("'theta' must have length %d", m->dim);
  int L = m->n_layers;
  SEXP As = PROTECT(Rf_allocVector(VECSXP, L));
  SEXP Gs = PROTECT(Rf_allocVector(VECSXP, L));
  double **A = (double **)R_alloc((size_t)L, sizeof(double *));
  double **G = (double **)R_alloc((size_t)L, sizeof(double *));
  for (int l = 0; l < L; l++) {
    int fin = m->sizes[l], fout = m->sizes[l + 1];
    SET_VECTOR_ELT(As, l, Rf_allocMatrix(REALSXP, fin + 1, fin + 1));
    SET_VECTOR_ELT(Gs, l, Rf_allocMatrix(REALSXP, fout, fout));
    A[l] = REAL(VECTOR_ELT(As, l));
    G[l] = REAL(VECTOR_ELT(Gs, l));
  }
  int rc = bnn_kfac_factors(m, REAL(theta), A, G);
  if (rc == -1)
    Rf_error("KFAC needs one network output and a Gaussian likelihood with fixed sigma or a Bernoulli likelihood");
  if (rc != 0) Rf_error("cannot allocate the KFAC workspace");
  const char *nm[] = {"A", "G"};
  SEXP out = PROTECT(bnn_named_list(2, nm));
  SET_VECTOR_ELT(out, 0, As);
  SET_VECTOR_ELT(out, 1, Gs);
  UNPROTECT(4);
  return out;
}

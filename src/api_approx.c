/* .Call entry points of the approximate posteriors: the dropout
 * log-likelihood with fixed masks (for tests) and the KFAC factors of the
 * Laplace approximation. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "api_util.h"
#include "dropout.h"

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

/* .Call entry points of calibration-emulation-sampling: emulated targets
 * for the generic chain driver (the "emulated" entry of api_kernel.c's
 * target_registry), and the emulator's outputs, log-likelihood and
 * gradient at given parameters. */
#include <math.h>
#include <string.h>
#include <time.h>
#include "api_ces.h"
#include "emulator.h"

int bnn_spec_is_emulated(SEXP spec) {
  if (TYPEOF(spec) != VECSXP) return 0;
  SEXP type = bnn_list_get(spec, "type");
  return Rf_isString(type) && strcmp(CHAR(STRING_ELT(type, 0)), "emulated") == 0;
}

static SEXP emul_model_spec(SEXP spec) {
  SEXP ms = bnn_list_get(spec, "model");
  if (TYPEOF(ms) != VECSXP) Rf_error("'spec$model' must be the network's spec list");
  return ms;
}

/* Validates spec$emulator against a network with n_net parameters and
 * n x K outputs, then builds it (NULL when spec$emulator is NULL: the exact
 * forward map). */
static bnn_emulator *emulator_from_spec(SEXP spec, int n_net, int nk) {
  SEXP es = bnn_list_get(spec, "emulator");
  if (Rf_isNull(es)) return NULL;
  if (TYPEOF(es) != VECSXP) Rf_error("'spec$emulator' must be a list or NULL");
  SEXP sizes = bnn_list_get(es, "sizes"), w = bnn_list_get(es, "weights");
  SEXP ic = bnn_list_get(es, "in_center"), is = bnn_list_get(es, "in_scale");
  SEXP oc = bnn_list_get(es, "out_center"), os = bnn_list_get(es, "out_scale");
  if (TYPEOF(sizes) != INTSXP || Rf_length(sizes) < 2)
    Rf_error("'emulator$sizes' must be an integer vector of length >= 2");
  int L = Rf_length(sizes) - 1, *sz = INTEGER(sizes);
  for (int l = 0; l <= L; l++)
    if (sz[l] < 1) Rf_error("'emulator$sizes' must be positive");
  if (sz[0] != n_net)
    Rf_error("the emulator has %d inputs but the network %d parameters", sz[0], n_net);
  if (sz[L] != nk)
    Rf_error("the emulator has %d outputs but the network %d on the training data",
             sz[L], nk);
  R_xlen_t nw = 0;
  for (int l = 0; l < L; l++) nw += (R_xlen_t)sz[l] * sz[l + 1] + sz[l + 1];
  if (TYPEOF(w) != REALSXP || Rf_xlength(w) != nw)
    Rf_error("'emulator$weights' must be a double vector of length %ld", (long)nw);
  if (TYPEOF(ic) != REALSXP || Rf_length(ic) != n_net || TYPEOF(is) != REALSXP ||
      Rf_length(is) != n_net)
    Rf_error("'emulator$in_center' and 'in_scale' must have length %d", n_net);
  if (TYPEOF(oc) != REALSXP || Rf_length(oc) != nk || TYPEOF(os) != REALSXP ||
      Rf_length(os) != nk)
    Rf_error("'emulator$out_center' and 'out_scale' must have length %d", nk);
  for (int i = 0; i < n_net; i++)
    if (!(REAL(is)[i] > 0) || !isfinite(REAL(is)[i]))
      Rf_error("'emulator$in_scale' must be positive and finite");
  int act = bnn_get_int(es, "act", BNN_ACT_RELU);
  if (act != BNN_ACT_RELU && act != BNN_ACT_TANH && act != BNN_ACT_IDENTITY)
    Rf_error("the emulator's activation must be relu, tanh or identity");
  bnn_emulator *e = bnn_emulator_new(L, sz, act, REAL(w), REAL(ic), REAL(is),
                                     REAL(oc), REAL(os));
  if (!e) Rf_error("cannot allocate the emulator");
  return e;
}

int bnn_ces_spec_dim(SEXP spec) {
  bnn_model *probe;
  bnn_model_protect(emul_model_spec(spec), 1, 0, &probe);
  int dim = probe->dim;
  UNPROTECT(1);
  return dim;
}

static void free_emul_target(void *ctx) { bnn_emul_target_free(ctx); }

/* Everything is validated (Rf_error) before the target's memory exists, so
 * an error cannot leak it. */
bnn_target bnn_ces_build_target(SEXP spec, void (**free_fn)(void *)) {
  bnn_model *m;   /* data copied: the chain is independent of R's objects */
  SEXP mxp = bnn_model_protect(emul_model_spec(spec), 1, 1, &m);
  bnn_emulator *e = emulator_from_spec(spec, m->n_net, m->n * bnn_model_n_out(m));
  R_SetExternalPtrAddr(mxp, NULL);          /* the target owns m from here */
  bnn_emul_target *et = bnn_emul_target_new(m, e);   /* frees m, e on failure */
  UNPROTECT(1);
  if (!et) Rf_error("cannot allocate the emulated target");
  bnn_target t;
  memset(&t, 0, sizeof t);
  bnn_emul_target_bind(&t, et);
  *free_fn = free_emul_target;
  return t;
}

/* holder so that an R error cannot leak the target */
static void target_finalizer(SEXP xp) {
  bnn_emul_target *t = R_ExternalPtrAddr(xp);
  if (t) bnn_emul_target_free(t);
  R_ClearExternalPtr(xp);
}

static bnn_emul_target *protect_target(SEXP spec, SEXP *xp_out) {
  SEXP xp = PROTECT(R_MakeExternalPtr(NULL, R_NilValue, R_NilValue));
  R_RegisterCFinalizerEx(xp, target_finalizer, TRUE);
  void (*fr)(void *) = NULL;
  bnn_target t = bnn_ces_build_target(spec, &fr);
  R_SetExternalPtrAddr(xp, t.ctx);
  *xp_out = xp;
  return t.ctx;
}

/* Emulated log-likelihood (with the likelihood parameter's prior, as the
 * pCN kernel sees it), log posterior and gradient of the log posterior at
 * each column of theta.  spec: list(type = "emulated", model, emulator). */
SEXP C_ces_loglik(SEXP spec, SEXP theta, SEXP want_grad) {
  if (!bnn_spec_is_emulated(spec)) Rf_error("'spec' must be an emulated spec");
  if (TYPEOF(theta) != REALSXP) Rf_error("'theta' must be a double matrix");
  SEXP xp;
  bnn_emul_target *t = protect_target(spec, &xp);
  int d = t->model->dim, wg = Rf_asLogical(want_grad) == 1;
  if (Rf_xlength(theta) % d != 0) Rf_error("'theta' must have %d rows", d);
  int S = (int)(Rf_xlength(theta) / d);
  const char *nm[] = {"loglik", "lp", "grad"};
  SEXP out = PROTECT(bnn_named_list(3, nm));
  SEXP ll = Rf_allocVector(REALSXP, S);
  SET_VECTOR_ELT(out, 0, ll);
  SEXP lp = Rf_allocVector(REALSXP, S);
  SET_VECTOR_ELT(out, 1, lp);
  SEXP g = wg ? Rf_allocMatrix(REALSXP, d, S) : R_NilValue;
  SET_VECTOR_ELT(out, 2, g);
  const double *TH = REAL(theta);
  double *LL = REAL(ll), *LP = REAL(lp), *G = wg ? REAL(g) : NULL;
  for (int s = 0; s < S; s++) {
    const double *th = TH + (size_t)s * d;
    /* one likelihood evaluation per draw, with or without the gradient */
    LL[s] = bnn_emul_loglik_logpost(t, th, LP + s, wg ? G + (size_t)s * d : NULL);
    if (s % 64 == 63) R_CheckUserInterrupt();
  }
  UNPROTECT(2);
  return out;
}

/* The emulator's outputs G_e(theta) (n x K per column of theta, as
 * C_model_forward lays out the network's), one column per draw. */
SEXP C_ces_emulate(SEXP spec, SEXP theta) {
  if (!bnn_spec_is_emulated(spec)) Rf_error("'spec' must be an emulated spec");
  if (TYPEOF(theta) != REALSXP) Rf_error("'theta' must be a double matrix");
  SEXP xp;
  bnn_emul_target *t = protect_target(spec, &xp);
  bnn_model *m = t->model;
  int d = m->dim, nk = m->n * bnn_model_n_out(m);
  if (Rf_xlength(theta) % d != 0) Rf_error("'theta' must have %d rows", d);
  int S = (int)(Rf_xlength(theta) / d);
  SEXP out = PROTECT(Rf_allocMatrix(REALSXP, nk, S));
  const double *TH = REAL(theta);
  double *O = REAL(out);
  for (int s = 0; s < S; s++) {
    const double *th = TH + (size_t)s * d;
    double *o = O + (size_t)s * nk;
    if (t->emul) bnn_emulator_forward(t->emul, th, o);
    else bnn_model_forward(m, th, m->X, m->n, o);
    if (s % 64 == 63) R_CheckUserInterrupt();
  }
  UNPROTECT(2);
  return out;
}

/* Benchmark helper: mean microseconds of processor time per evaluation of
 * the log-likelihood alone (what pCN evaluates), cycling n_rep times over
 * the columns of theta. */
SEXP C_ces_time(SEXP spec, SEXP theta, SEXP n_rep) {
  if (!bnn_spec_is_emulated(spec)) Rf_error("'spec' must be an emulated spec");
  if (TYPEOF(theta) != REALSXP) Rf_error("'theta' must be a double matrix");
  int reps = Rf_asInteger(n_rep);
  if (reps == NA_INTEGER || reps < 1) Rf_error("'n_rep' must be a positive integer");
  SEXP xp;
  bnn_emul_target *t = protect_target(spec, &xp);
  int d = t->model->dim;
  if (Rf_xlength(theta) % d != 0 || Rf_xlength(theta) == 0)
    Rf_error("'theta' must have %d rows", d);
  int S = (int)(Rf_xlength(theta) / d);
  const double *TH = REAL(theta);
  volatile double sink = 0.0;
  clock_t c0 = clock();
  for (int r = 0; r < reps; r++)
    for (int s = 0; s < S; s++) sink += bnn_emul_loglik(t, TH + (size_t)s * d, NULL);
  double us = (double)(clock() - c0) / CLOCKS_PER_SEC * 1e6 / ((double)reps * S);
  (void)sink;
  UNPROTECT(1);
  return Rf_ScalarReal(us);
}

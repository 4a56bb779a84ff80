/* .Call entry point of the optimiser (deep-ensemble member training). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "api_util.h"
#include "optim.h"

/* owns whatever has been built so far, so an R error cannot leak it */
typedef struct {
  bnn_model *train, *valid;
  bnn_optim *opt;
} optim_holder;

static void optim_finalizer(SEXP xp) {
  optim_holder *h = R_ExternalPtrAddr(xp);
  if (h) {
    bnn_model_free(h->train);
    bnn_model_free(h->valid);
    bnn_optim_free(h->opt);
    free(h);
  }
  R_ClearExternalPtr(xp);
}

/* The name R knows a training's status by (optim.h's enum). */
static const char *optim_status_name(int status) {
  switch (status) {
  case BNN_OPTIM_OK: return "ok";
  case BNN_OPTIM_EARLY_STOP: return "early_stop";
  case BNN_OPTIM_NONFINITE: return "nonfinite";
  default: return "failed";
  }
}

/* spec: model spec with the training data; valid_spec: the same model with
 * the validation data, or NULL; init: NULL (Glorot) or double of length dim;
 * settings: list(optimizer = 0 adam / 1 adamw, loss = 0 nll / 1 posterior,
 * epochs, batch_size (0 = full), patience (0 = none), restore_best,
 * stopping (0 = best, 1 = window), lr,
 * weight_decay, beta1, beta2, eps; optional: momentum (sgd = 2),
 * dropout (one rate per hidden layer) and input_dropout (MC dropout; off
 * when absent or all 0), snapshot_every (keep the parameters after every
 * that many epochs; 0 = none)).
 * Returns list(par, train_loss, valid_loss, best_epoch, epochs, n_grad,
 * status ("ok", "early_stop", "nonfinite"), init, snapshots (dim x kept
 * matrix, or NULL)). */
SEXP C_optimize(SEXP spec, SEXP valid_spec, SEXP init, SEXP seed,
                SEXP member, SEXP settings) {
  double sd = Rf_asReal(seed);
  if (!(sd >= 0 && sd < 9007199254740992.0))
    Rf_error("'seed' must be a whole number >= 0");
  int mem = Rf_asInteger(member);
  if (mem == NA_INTEGER || mem < 0) Rf_error("'member' must be a non-negative integer");
  if (TYPEOF(settings) != VECSXP) Rf_error("'settings' must be a list");
  bnn_optim_settings s;
  s.optimizer = bnn_get_int(settings, "optimizer", BNN_OPT_ADAMW);
  s.loss = bnn_get_int(settings, "loss", BNN_LOSS_NLL);
  s.epochs = bnn_get_int(settings, "epochs", 5000);
  s.batch_size = bnn_get_int(settings, "batch_size", 0);
  s.patience = bnn_get_int(settings, "patience", 0);
  s.restore_best = bnn_get_int(settings, "restore_best", 1);
  s.stopping = bnn_get_int(settings, "stopping", BNN_STOP_BEST);
  s.lr = bnn_get_double(settings, "lr", 1e-2);
  s.weight_decay = bnn_get_double(settings, "weight_decay", 1e-2);
  s.beta1 = bnn_get_double(settings, "beta1", 0.9);
  s.beta2 = bnn_get_double(settings, "beta2", 0.999);
  s.eps = bnn_get_double(settings, "eps", 1e-8);
  s.lr_decay = bnn_get_double(settings, "lr_decay", 1.0);
  s.momentum = bnn_get_double(settings, "momentum", 0.0);
  int snap_every = bnn_get_int(settings, "snapshot_every", 0);
  double rate_in = bnn_get_double(settings, "input_dropout", 0.0);
  SEXP rates = bnn_list_get(settings, "dropout");
  if (s.optimizer != BNN_OPT_ADAM && s.optimizer != BNN_OPT_ADAMW &&
      s.optimizer != BNN_OPT_SGD && s.optimizer != BNN_OPT_RMSPROP)
    Rf_error("'optimizer' code must be 0 (adam), 1 (adamw), 2 (sgd) or 3 (rmsprop)");
  if (!(s.momentum >= 0 && s.momentum < 1)) Rf_error("'momentum' must be in [0, 1)");
  if (snap_every == NA_INTEGER || snap_every < 0)
    Rf_error("'snapshot_every' must be a non-negative integer");
  if (!(rate_in >= 0 && rate_in < 1)) Rf_error("'input_dropout' must be in [0, 1)");
  if (!Rf_isNull(rates) && TYPEOF(rates) != REALSXP)
    Rf_error("'dropout' must be a double vector");
  if (s.loss != BNN_LOSS_NLL && s.loss != BNN_LOSS_POSTERIOR)
    Rf_error("'loss' code must be 0 (nll) or 1 (posterior)");
  if (s.epochs == NA_INTEGER || s.epochs < 0) Rf_error("'epochs' must be a non-negative integer");
  if (s.batch_size == NA_INTEGER || s.batch_size < 0) Rf_error("'batch_size' must be a non-negative integer");
  if (s.patience == NA_INTEGER || s.patience < 0) Rf_error("'patience' must be a non-negative integer");
  if (s.restore_best == NA_INTEGER) Rf_error("'restore_best' must be TRUE or FALSE");
  if (s.stopping != BNN_STOP_BEST && s.stopping != BNN_STOP_WINDOW)
    Rf_error("'stopping' code must be 0 (best) or 1 (window)");
  if (!(s.lr > 0) || !isfinite(s.lr)) Rf_error("'lr' must be a positive number");
  if (!(s.weight_decay >= 0) || !isfinite(s.weight_decay)) Rf_error("'weight_decay' must be >= 0");
  if (!(s.beta1 >= 0 && s.beta1 < 1)) Rf_error("'beta1' must be in [0, 1)");
  if (!(s.beta2 >= 0 && s.beta2 < 1)) Rf_error("'beta2' must be in [0, 1)");
  if (!(s.eps > 0) || !isfinite(s.eps)) Rf_error("'eps' must be a positive number");
  if (!(s.lr_decay > 0 && s.lr_decay <= 1)) Rf_error("'lr_decay' must be in (0, 1]");

  SEXP xp = PROTECT(R_MakeExternalPtr(NULL, R_NilValue, R_NilValue));
  R_RegisterCFinalizerEx(xp, optim_finalizer, TRUE);
  optim_holder *h = calloc(1, sizeof *h);
  if (!h) Rf_error("cannot allocate the optimiser");
  R_SetExternalPtrAddr(xp, h);

  /* the training model gets its own copy of the rows (they are shuffled) */
  h->train = bnn_model_from_spec(spec, 1, 1);
  int d = h->train->dim;
  if (h->train->n < 1) Rf_error("'spec' has no training rows");
  if (!Rf_isNull(valid_spec)) {
    h->valid = bnn_model_from_spec(valid_spec, 1, 0);
    if (h->valid->dim != d || h->valid->p != h->train->p)
      Rf_error("'valid' does not match the model's architecture");
    if (h->valid->n < 1) Rf_error("'valid' has no rows");
  }
  const double *ini = NULL;
  if (!Rf_isNull(init)) {
    if (TYPEOF(init) != REALSXP || Rf_length(init) != d)
      Rf_error("'init' must be a double vector of length %d", d);
    ini = REAL(init);
  }
  const double *X0 = REAL(bnn_list_get(spec, "X"));
  const double *y0 = REAL(bnn_list_get(spec, "y"));
  h->opt = bnn_optim_new(h->train, h->valid, X0, y0, ini, (uint64_t)sd,
                         (uint64_t)mem, &s);
  h->train = h->valid = NULL;   /* owned by the optimiser (or freed) */
  if (!h->opt) Rf_error("cannot allocate the optimiser workspace");
  bnn_optim *o = h->opt;
  int n_hidden = o->train->n_layers - 1;
  int use_drop = rate_in > 0;
  if (!Rf_isNull(rates)) {
    if (Rf_length(rates) != n_hidden)
      Rf_error("'dropout' must have one rate per hidden layer (%d)", n_hidden);
    for (int l = 0; l < n_hidden; l++) {
      double r = REAL(rates)[l];
      if (!(r >= 0 && r < 1)) Rf_error("'dropout' rates must be in [0, 1)");
      if (r > 0) use_drop = 1;
    }
  }
  if (use_drop) {
    double *rv = (double *)R_alloc((size_t)(n_hidden > 0 ? n_hidden : 1), sizeof(double));
    for (int l = 0; l < n_hidden; l++) rv[l] = Rf_isNull(rates) ? 0.0 : REAL(rates)[l];
    if (!bnn_optim_set_dropout(o, rate_in, rv))
      Rf_error("cannot allocate the dropout workspace");
  }
  int n_snap = snap_every > 0 ? s.epochs / snap_every : 0;
  SEXP snaps = PROTECT(snap_every > 0 ? Rf_allocMatrix(REALSXP, d, n_snap) : R_NilValue);
  int kept = 0;

  SEXP init_used = PROTECT(Rf_allocVector(REALSXP, d));
  memcpy(REAL(init_used), o->theta, sizeof(double) * (size_t)d);
  SEXP tl = PROTECT(Rf_allocVector(REALSXP, s.epochs));
  SEXP vl = PROTECT(Rf_allocVector(REALSXP, s.epochs));
  for (int e = 0; e < s.epochs; e++) {
    if (bnn_optim_epoch(o, REAL(tl) + e, REAL(vl) + e)) break;
    if (snap_every > 0 && (e + 1) % snap_every == 0 && kept < n_snap)
      memcpy(REAL(snaps) + (size_t)(kept++) * d, o->theta, sizeof(double) * (size_t)d);
    R_CheckUserInterrupt();
  }
  int ran = o->epoch;   /* completed epochs (a non-finite one is not) */

  const char *nm[] = {"par", "train_loss", "valid_loss", "best_epoch",
                      "epochs", "n_grad", "status", "init", "snapshots"};
  SEXP out = PROTECT(bnn_named_list(9, nm));
  SEXP par = Rf_allocVector(REALSXP, d);
  SET_VECTOR_ELT(out, 0, par);
  memcpy(REAL(par), bnn_optim_result(o), sizeof(double) * (size_t)d);
  SEXP tl2 = Rf_allocVector(REALSXP, ran);
  SET_VECTOR_ELT(out, 1, tl2);
  memcpy(REAL(tl2), REAL(tl), sizeof(double) * (size_t)ran);
  if (o->valid) {
    SEXP vl2 = Rf_allocVector(REALSXP, ran);
    SET_VECTOR_ELT(out, 2, vl2);
    memcpy(REAL(vl2), REAL(vl), sizeof(double) * (size_t)ran);
  }
  SET_VECTOR_ELT(out, 3, Rf_ScalarInteger(o->best_epoch > 0 ? o->best_epoch : NA_INTEGER));
  SET_VECTOR_ELT(out, 4, Rf_ScalarInteger(ran));
  SET_VECTOR_ELT(out, 5, Rf_ScalarReal(o->n_grad));
  SET_VECTOR_ELT(out, 6, Rf_mkString(optim_status_name(o->status)));
  SET_VECTOR_ELT(out, 7, init_used);
  if (snap_every > 0) {
    /* only the snapshots actually taken (training may stop early) */
    SEXP sn = Rf_allocMatrix(REALSXP, d, kept);
    SET_VECTOR_ELT(out, 8, sn);
    memcpy(REAL(sn), REAL(snaps), sizeof(double) * (size_t)d * (size_t)kept);
  }
  UNPROTECT(6);
  return out;
}

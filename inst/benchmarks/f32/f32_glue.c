/* .Call entry of the MCLMC replay (inst/benchmarks/f32): R data in, one
 * chain run by f32_core.c in its precision (see f32_iface.h), results out.
 * Compiled normally (double, R headers); converts R's double vectors to the
 * core's real type and back.  Benchmark code only; not part of the
 * package.  Floating constants are avoided here: the single-precision
 * build compiles this file with -fsingle-precision-constant too. */
#include <stdint.h>
#include <string.h>
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>
#include "f32_iface.h"

static SEXP list_get(SEXP list, const char *name) {
  SEXP nm = Rf_getAttrib(list, R_NamesSymbol);
  if (Rf_isNull(nm)) return R_NilValue;
  for (R_xlen_t i = 0; i < Rf_xlength(list); i++)
    if (strcmp(CHAR(STRING_ELT(nm, i)), name) == 0) return VECTOR_ELT(list, i);
  return R_NilValue;
}

static int get_int(SEXP list, const char *name) {
  SEXP v = list_get(list, name);
  if (Rf_isNull(v) || Rf_length(v) < 1) Rf_error("settings$%s is missing", name);
  int k = Rf_asInteger(v);
  if (k == NA_INTEGER) Rf_error("settings$%s is NA", name);
  return k;
}

static double get_real(SEXP list, const char *name, int i) {
  SEXP v = list_get(list, name);
  if (Rf_isNull(v) || Rf_length(v) <= i) Rf_error("settings$%s is missing", name);
  SEXP w = PROTECT(Rf_coerceVector(v, REALSXP));
  double x = REAL(w)[i];
  UNPROTECT(1);
  if (ISNAN(x)) Rf_error("settings$%s is NA", name);
  return x;
}

static bnnf_real *to_real(SEXP x, R_xlen_t len, const char *what) {
  if (TYPEOF(x) != REALSXP || Rf_xlength(x) != len)
    Rf_error("'%s' must be a double vector of length %ld", what, (long)len);
  bnnf_real *out = (bnnf_real *)R_alloc((size_t)(len > 0 ? len : 1), sizeof(bnnf_real));
  for (R_xlen_t i = 0; i < len; i++) out[i] = (bnnf_real)REAL(x)[i];
  return out;
}

/* X: n x p double matrix; y: length n; sizes: integer layer sizes; model:
 * integer c(act, lik, prior, sigma_prior); sigma: double c(sigma_fixed,
 * sigma_prior_scale); prior_scale; init; seed (whole number); chain;
 * settings: the list of bnnmc:::.mclmc_c_settings() (no sqrt_diag_cov);
 * n_samples, thin; want_draws (logical); n_trace: tuning steps traced.
 * Returns list(res = named double vector (see f32_iface.h), lp, draws,
 * trace). */
SEXP f32_run_chain(SEXP X, SEXP y, SEXP sizes, SEXP model, SEXP sigma,
                   SEXP prior_scale, SEXP init, SEXP seed, SEXP chain,
                   SEXP settings, SEXP n_samples, SEXP thin, SEXP want_draws,
                   SEXP n_trace) {
  if (bnnf_real_size() != (int)sizeof(bnnf_real))
    Rf_error("the two units were compiled with different BNNMC_F32");
  if (TYPEOF(sizes) != INTSXP || Rf_length(sizes) < 2) Rf_error("'sizes' must be integer");
  if (TYPEOF(model) != INTSXP || Rf_length(model) != 4) Rf_error("'model' must be 4 integers");
  if (TYPEOF(sigma) != REALSXP || Rf_length(sigma) != 2) Rf_error("'sigma' must be 2 doubles");
  if (TYPEOF(settings) != VECSXP) Rf_error("'settings' must be a list");
  if (!Rf_isNull(list_get(settings, "sqrt_diag_cov")))
    Rf_error("sqrt_diag_cov is not supported by the replay");
  int L = Rf_length(sizes) - 1, p = INTEGER(sizes)[0];
  int n = Rf_length(y);
  int n_net = 0;
  for (int l = 0; l < L; l++)
    n_net += INTEGER(sizes)[l] * INTEGER(sizes)[l + 1] + INTEGER(sizes)[l + 1];
  int lik = INTEGER(model)[1];
  int dim = n_net + (lik == 1 ? 1 : 0); /* BNN_LIK_GAUSS samples log sigma */
  bnnf_real *fX = to_real(X, (R_xlen_t)n * p, "X");
  bnnf_real *fy = to_real(y, n, "y");
  bnnf_real *fps = to_real(prior_scale, n_net, "prior_scale");
  bnnf_real *finit = to_real(init, dim, "init");
  double sd = Rf_asReal(seed);
  if (!(sd >= 0 && sd < 9007199254740992.0)) Rf_error("'seed' must be a whole number >= 0");
  int ch = Rf_asInteger(chain);
  if (ch == NA_INTEGER || ch < 0) Rf_error("'chain' must be a non-negative integer");
  int ns = Rf_asInteger(n_samples), th = Rf_asInteger(thin);
  if (ns == NA_INTEGER || ns < 0 || th == NA_INTEGER || th < 1)
    Rf_error("'n_samples' must be >= 0 and 'thin' >= 1");
  int iset[BNNF_N_ISET];
  double dset[BNNF_N_DSET];
  iset[BNNF_I_INTEGRATOR] = get_int(settings, "integrator");
  for (int i = 0; i < 3; i++) {
    double v = get_real(settings, "n_tune", i);
    if (!(v >= 0 && v <= 2147483647)) Rf_error("bad n_tune");
    iset[BNNF_I_N1 + i] = (int)v;
  }
  iset[BNNF_I_DIAG_PRECOND] = get_int(settings, "diag_precond");
  iset[BNNF_I_FFT_PARAMS] = get_int(settings, "fft_params");
  iset[BNNF_I_FFT_SAMPLES] = get_int(settings, "fft_samples");
  iset[BNNF_I_SAFEGUARD] = get_int(settings, "safeguard");
  dset[BNNF_D_STEPSIZE] = get_real(settings, "stepsize", 0);
  dset[BNNF_D_L] = get_real(settings, "L", 0);
  dset[BNNF_D_EV_START] = get_real(settings, "energy_var", 0);
  dset[BNNF_D_EV_END] = get_real(settings, "energy_var", 1);
  dset[BNNF_D_N_EFF] = get_real(settings, "n_eff", 0);
  dset[BNNF_D_TRUST] = get_real(settings, "trust", 0);
  dset[BNNF_D_LFACTOR] = get_real(settings, "Lfactor", 0);
  dset[BNNF_D_SHRINK] = get_real(settings, "shrink", 0);

  int kept = ns == 0 ? 0 : (ns - 1) / th + 1;
  int wd = Rf_asLogical(want_draws) == 1;
  int nt = Rf_asInteger(n_trace);
  if (nt == NA_INTEGER || nt < 0) Rf_error("'n_trace' must be >= 0");
  const char *nm[] = {"res", "lp", "draws", "trace"};
  SEXP out = PROTECT(Rf_allocVector(VECSXP, 4));
  SEXP names = PROTECT(Rf_allocVector(STRSXP, 4));
  for (int i = 0; i < 4; i++) SET_STRING_ELT(names, i, Rf_mkChar(nm[i]));
  Rf_setAttrib(out, R_NamesSymbol, names);
  SEXP res = Rf_allocVector(REALSXP, BNNF_N_RES);
  SET_VECTOR_ELT(out, 0, res);
  const char *rn[] = {"status", "fail_phase", "fail_step", "fail_reason", "stepsize",
                      "L", "tuned_stepsize", "tuned_L", "n_grad", "n_reverted",
                      "sample_steps", "kept", "last_stage", "last_energy_change",
                      "last_stepsize", "last_L", "last_logdens", "last_reverted"};
  SEXP rnames = PROTECT(Rf_allocVector(STRSXP, BNNF_N_RES));
  for (int i = 0; i < BNNF_N_RES; i++) SET_STRING_ELT(rnames, i, Rf_mkChar(rn[i]));
  Rf_setAttrib(res, R_NamesSymbol, rnames);
  UNPROTECT(1);
  SEXP lp = Rf_allocVector(REALSXP, kept);
  SET_VECTOR_ELT(out, 1, lp);
  for (int i = 0; i < kept; i++) REAL(lp)[i] = NA_REAL;
  SEXP tr = Rf_allocMatrix(REALSXP, nt, 6);
  SET_VECTOR_ELT(out, 3, tr);
  const char *tn[] = {"stage", "energy_change", "stepsize", "L", "logdens", "reverted"};
  SEXP dn = PROTECT(Rf_allocVector(VECSXP, 2));
  SEXP cn = Rf_allocVector(STRSXP, 6);
  SET_VECTOR_ELT(dn, 1, cn);
  for (int i = 0; i < 6; i++) SET_STRING_ELT(cn, i, Rf_mkChar(tn[i]));
  Rf_setAttrib(tr, R_DimNamesSymbol, dn);
  UNPROTECT(1);
  bnnf_real *fdraws = NULL;
  if (wd) fdraws = (bnnf_real *)R_alloc((size_t)kept * (size_t)dim + 1, sizeof(bnnf_real));
  int rc = bnnf_run_chain(L, INTEGER(sizes), INTEGER(model)[0], lik, REAL(sigma)[0],
                          INTEGER(model)[3], REAL(sigma)[1], INTEGER(model)[2], fps,
                          n, p, fX, fy, finit, (uint64_t)sd, (uint64_t)ch, iset, dset,
                          ns, th, REAL(res), REAL(lp), fdraws, nt, REAL(tr));
  if (rc) Rf_error("the replay could not allocate its workspace");
  if (wd) {
    SEXP dr = Rf_allocMatrix(REALSXP, kept, dim);
    SET_VECTOR_ELT(out, 2, dr);
    int k = (int)REAL(res)[BNNF_R_KEPT];
    for (int j = 0; j < dim; j++)
      for (int i = 0; i < kept; i++)
        REAL(dr)[i + (size_t)j * kept] =
            i < k ? (double)fdraws[i + (size_t)j * kept] : NA_REAL;
  }
  UNPROTECT(2);
  return out;
}

static const R_CallMethodDef calls[] = {
  {"f32_run_chain", (DL_FUNC)(void (*)(void))f32_run_chain, 14},
  {NULL, NULL, 0}};

void R_init_f32(DllInfo *dll) {
  R_registerRoutines(dll, NULL, calls, NULL, NULL);
  R_useDynamicSymbols(dll, FALSE);
}

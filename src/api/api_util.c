#ifdef _OPENMP
#include <omp.h>
#endif
#ifndef _WIN32
#include <sys/types.h>
#include <unistd.h>
#endif
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#ifdef __linux__
#include <sys/mman.h>
#endif
#include "api_util.h"

SEXP bnn_list_get(SEXP list, const char *name) {
  SEXP names = Rf_getAttrib(list, R_NamesSymbol);
  if (Rf_isNull(names)) return R_NilValue;
  for (R_xlen_t i = 0; i < Rf_xlength(list); i++)
    if (strcmp(CHAR(STRING_ELT(names, i)), name) == 0) return VECTOR_ELT(list, i);
  return R_NilValue;
}

SEXP bnn_named_list(int n, const char **names) {
  SEXP out = PROTECT(Rf_allocVector(VECSXP, n));
  SEXP nms = PROTECT(Rf_allocVector(STRSXP, n));
  for (int i = 0; i < n; i++) SET_STRING_ELT(nms, i, Rf_mkChar(names[i]));
  Rf_setAttrib(out, R_NamesSymbol, nms);
  UNPROTECT(2);
  return out;
}

int bnn_get_int(SEXP list, const char *name, int dflt) {
  SEXP x = bnn_list_get(list, name);
  if (Rf_isNull(x) || Rf_length(x) < 1) return dflt;
  return Rf_asInteger(x);
}

double bnn_get_double(SEXP list, const char *name, double dflt) {
  SEXP x = bnn_list_get(list, name);
  if (Rf_isNull(x) || Rf_length(x) < 1) return dflt;
  return Rf_asReal(x);
}

bnn_model *bnn_model_from_spec(SEXP spec, int with_data, int copy) {
  if (TYPEOF(spec) != VECSXP) Rf_error("'spec' must be a list");
  SEXP sizes = bnn_list_get(spec, "sizes");
  if (TYPEOF(sizes) != INTSXP || Rf_length(sizes) < 2)
    Rf_error("'spec$sizes' must be an integer vector of length >= 2");
  int L = Rf_length(sizes) - 1;
  for (int l = 0; l <= L; l++)
    if (INTEGER(sizes)[l] < 1) Rf_error("'spec$sizes' must be positive");
  int act = bnn_get_int(spec, "act", 0);
  int lik = bnn_get_int(spec, "lik", 0);
  int prior = bnn_get_int(spec, "prior", 0);
  int sprior = bnn_get_int(spec, "sigma_prior", 0);
  if (act < 0 || act >= BNN_ACT_COUNT) Rf_error("unknown activation code %d", act);
  if (lik < 0 || lik >= BNN_LIK_COUNT) Rf_error("unknown likelihood code %d", lik);
  if (prior < 0 || prior >= BNN_PRIOR_COUNT) Rf_error("unknown prior code %d", prior);
  if (sprior < 0 || sprior >= BNN_SIGMA_PRIOR_COUNT) Rf_error("unknown sigma prior code %d", sprior);
  double sigma_fixed = bnn_get_double(spec, "sigma_fixed", 1.0);
  double sigma_scale = bnn_get_double(spec, "sigma_prior_scale", 1.0);
  SEXP ps = bnn_list_get(spec, "prior_scale");
  /* the flat layout indexes parameters with int: refuse sizes whose count
   * (plus the likelihood's own parameter) would overflow it */
  double n_net_d = 0.0;
  for (int l = 0; l < L; l++)
    n_net_d += (double)INTEGER(sizes)[l] * INTEGER(sizes)[l + 1] + INTEGER(sizes)[l + 1];
  if (n_net_d > 2147483646.0)
    Rf_error("the network has %.0f parameters, more than the supported 2147483646", n_net_d);
  int n_net = (int)n_net_d;
  if (TYPEOF(ps) != REALSXP || Rf_length(ps) != n_net)
    Rf_error("'spec$prior_scale' must be a double vector of length %d", n_net);
  for (int i = 0; i < n_net; i++)
    if (!(REAL(ps)[i] > 0)) Rf_error("'spec$prior_scale' must be positive");
  int n = 0, p = INTEGER(sizes)[0];
  const double *X = NULL, *y = NULL;
  if (with_data) {
    SEXP sX = bnn_list_get(spec, "X"), sy = bnn_list_get(spec, "y");
    if (TYPEOF(sX) != REALSXP || TYPEOF(sy) != REALSXP)
      Rf_error("'spec$X' and 'spec$y' must be double");
    n = Rf_length(sy);
    int yc = bnn_lik_y_cols(lik, INTEGER(sizes)[L]);
    if (yc > 1) {   /* y is n x K (MGAUSS) or the count likelihoods' columns */
      if (n % yc != 0) Rf_error("'spec$y' must be a matrix with %d columns", yc);
      n /= yc;
    }
    if ((R_xlen_t)n * p != Rf_xlength(sX))
      Rf_error("'spec$X' must have %d columns and as many rows as 'spec$y'", p);
    X = REAL(sX);
    y = REAL(sy);
  }
  /* optional observation weights (weighted likelihood), checked before
   * anything is allocated */
  SEXP sw = with_data ? bnn_list_get(spec, "weights") : R_NilValue;
  if (!Rf_isNull(sw)) {
    if (TYPEOF(sw) != REALSXP || Rf_length(sw) != n)
      Rf_error("'spec$weights' must be a double vector with one weight per observation (%d)", n);
    for (int i = 0; i < n; i++)
      if (!(isfinite(REAL(sw)[i]) && REAL(sw)[i] >= 0))
        Rf_error("'spec$weights' must be finite and non-negative");
  }
  bnn_model *m = bnn_model_new(L, INTEGER(sizes), act, lik, sigma_fixed, sprior,
                               sigma_scale, prior, REAL(ps), n, p, X, y,
                               with_data && copy);
  if (!m) Rf_error("cannot allocate the model workspace");
  /* the Student-t's fixed nu (0: sampled) and the gamma prior of nu or phi */
  if (lik == BNN_LIK_STUDENT || lik == BNN_LIK_NEGBIN) {
    double nu = bnn_get_double(spec, "nu_fixed", 0.0);
    double a = bnn_get_double(spec, "aux_prior_shape", m->aux_shape);
    double b = bnn_get_double(spec, "aux_prior_rate", m->aux_rate);
    if (!(nu >= 0 && isfinite(nu)) || !(a > 0 && isfinite(a)) || !(b > 0 && isfinite(b))) {
      bnn_model_free(m);
      Rf_error("'spec$nu_fixed' must be >= 0 and the gamma prior's shape and rate positive");
    }
    bnn_model_set_lik_par(m, nu, a, b);
  }
  /* spec$precision: 1 = single (bnn_fit(precision = "single")), else double */
  if (bnn_get_int(spec, "precision", 0) == 1 && bnn_model_set_single(m, 1)) {
    bnn_model_free(m);
    Rf_error("cannot allocate the model workspace");
  }
  if (!Rf_isNull(sw)) {
    if (copy) {
      m->w = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
      if (!m->w) {
        bnn_model_free(m);
        Rf_error("cannot allocate the model workspace");
      }
      memcpy(m->w, REAL(sw), sizeof(double) * (size_t)n);
      m->owns_w = 1;
    } else {
      m->w = REAL(sw);
    }
  }
  return m;
}

static void model_finalizer(SEXP xp) {
  bnn_model *m = R_ExternalPtrAddr(xp);
  if (m) bnn_model_free(m);
  R_ClearExternalPtr(xp);
}

SEXP bnn_model_protect(SEXP spec, int with_data, int copy, bnn_model **out) {
  SEXP xp = PROTECT(R_MakeExternalPtr(NULL, R_NilValue, R_NilValue));
  R_RegisterCFinalizerEx(xp, model_finalizer, TRUE);
  bnn_model *m = bnn_model_from_spec(spec, with_data, copy);
  R_SetExternalPtrAddr(xp, m);
  *out = m;
  return xp;
}

/* The process that loaded the package.  Any other process running this
 * code is a child made by fork() (parallel::mclapply(), future's multicore
 * workers, ...): the OpenMP runtime is not fork-safe, and a parallel region
 * in a child of a process that had started OpenMP threads waits for
 * threads that do not exist in the child.  Written once, when the package
 * is loaded (no fork handler, which would outlive an unloaded library). */
#ifndef _WIN32
static pid_t loading_pid = 0;
#endif

void bnn_record_loading_process(void) {
#ifndef _WIN32
  loading_pid = getpid();
#endif
}

static int fork_child(void) {
#ifndef _WIN32
  return loading_pid != 0 && getpid() != loading_pid;
#else
  return 0;
#endif
}

int bnn_loop_threads(SEXP threads, int n_items) {
  int nth = Rf_asInteger(threads);
  if (nth == NA_INTEGER || nth < 1) Rf_error("'threads' must be a whole number >= 1");
#ifndef _OPENMP
  nth = 1;
#endif
  if (fork_child()) nth = 1;   /* the OpenMP runtime is not fork-safe */
  if (nth > n_items) nth = n_items > 0 ? n_items : 1;
  return nth;
}

int bnn_thread_num(void) {
#ifdef _OPENMP
  return omp_get_thread_num();
#else
  return 0;
#endif
}

double bnn_interrupt_period(void) {
  SEXP o = Rf_GetOption1(Rf_install("bnnmc.interrupt_period"));
  double v = (Rf_isNull(o) || Rf_length(o) < 1) ? 0.2 : Rf_asReal(o);
  return (v >= 0 && v <= 3600) ? v : 0.2;
}

double bnn_arg_seed(SEXP seed) {
  double sd = Rf_asReal(seed);
  if (!(sd >= 0 && sd < 9007199254740992.0) || sd != floor(sd))
    Rf_error("'seed' must be a whole number in [0, 2^53)");
  return sd;
}

int bnn_arg_chain_id(SEXP chain_id) {
  int id = Rf_asInteger(chain_id);
  if (id == NA_INTEGER || id < 0) Rf_error("'chain_id' must be a non-negative integer");
  return id;
}

void bnn_hint_huge_pages(double *x, R_xlen_t len) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  if (len >= (R_xlen_t)(1 << 22)) {   /* 32 MB and more */
    uintptr_t lo = ((uintptr_t)x + 4095) & ~(uintptr_t)4095;
    uintptr_t hi = ((uintptr_t)(x + len)) & ~(uintptr_t)4095;
    if (hi > lo) madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
  }
#else
  (void)x;
  (void)len;
#endif
}

/* ---- settings readers of the kernels' parsers ---------------------- */

double bnn_kset_real(SEXP settings, const char *name, double dflt,
                     double lower, double upper, int open_lower) {
  SEXP v = bnn_list_get(settings, name);
  if (Rf_isNull(v)) return dflt;
  if ((TYPEOF(v) != REALSXP && TYPEOF(v) != INTSXP) || Rf_length(v) != 1)
    Rf_error("'%s' must be a single number", name);
  double x = Rf_asReal(v);
  if (ISNAN(x) || (open_lower ? !(x > lower) : !(x >= lower)) || !(x <= upper))
    Rf_error("'%s' must be a number in %s%g, %g], not %g", name,
             open_lower ? "(" : "[", lower, upper, x);
  return x;
}

int bnn_kset_flag(SEXP settings, const char *name, int dflt) {
  SEXP v = bnn_list_get(settings, name);
  if (Rf_isNull(v)) return dflt;
  int x = Rf_asLogical(v);
  if (Rf_length(v) != 1 || x == NA_LOGICAL) Rf_error("'%s' must be TRUE or FALSE", name);
  return x;
}

const double *bnn_kset_inv_metric(SEXP settings, int dim) {
  SEXP m = bnn_list_get(settings, "inv_metric");
  if (Rf_isNull(m)) return NULL;
  if (TYPEOF(m) != REALSXP || Rf_length(m) != dim)
    Rf_error("'inv_metric' must be a double vector of length %d", dim);
  for (int j = 0; j < dim; j++)
    if (!(REAL(m)[j] > 0) || !isfinite(REAL(m)[j]))
      Rf_error("'inv_metric' must have positive finite entries; entry %d is %g",
               j + 1, REAL(m)[j]);
  return REAL(m);
}

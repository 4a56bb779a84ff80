/* The package's numerical core (src/: the MLP log posterior with the
 * generic kernels, the MCLMC kernel, the three-stage tuning with its ESS
 * and the BlackJAX 1.2.2 safeguard) as one translation unit, for the benchmark
 * inst/benchmarks/mclmc_failures.R (--precision single): with
 * BNNMC_F32 = 1 every `double` of the core becomes `float`, so the replay
 * runs the package's own algorithm in single precision, as MILE's JAX code
 * ran (JAX computes in float32 unless x64 is switched on).  With
 * BNNMC_F32 = 0 nothing is changed and the replay must reproduce the
 * package's draws with the generic kernels (the script checks this).
 *
 * Compiled by the script with R CMD SHLIB, include path -I<repo>/src; not
 * part of the package build.  Single-precision builds also need
 * -fsingle-precision-constant (unsuffixed constants such as 0.5 are float,
 * as Python scalars are weakly typed in JAX), and <tgmath.h> maps sqrt,
 * exp, log, pow ... to sqrtf, expf, logf, powf.  The random numbers are
 * the package's: rng.c is compiled in double precision and its uniforms
 * and normals are rounded to float, so both precisions consume the same
 * random stream (the polar method's accept/reject decisions are the
 * double ones).  src/vmath_impl.h's exp/tanh use double bit tricks, so
 * the float build takes exp and expm1 from the C library (expf and
 * expm1f through tgmath.h; BNNMC_VMATH_LIBM). */
#include <float.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "f32_iface.h"
#if BNNMC_F32
#include <tgmath.h>
#endif

#pragma GCC visibility push(hidden)

/* the random number generator, in double precision in both builds */
#include "rng.c"

#if BNNMC_F32
static inline float bnnf_rng_unif(bnn_rng *r) { return (float)bnn_rng_unif(r); }
static inline float bnnf_rng_norm(bnn_rng *r) { return (float)bnn_rng_norm(r); }
#define bnn_rng_unif bnnf_rng_unif
#define bnn_rng_norm bnnf_rng_norm
#define BNNMC_VMATH_LIBM 1
#undef DBL_MAX
#define DBL_MAX FLT_MAX
#define double float
#endif

#include "model.c"
#include "vmath.c"
#include "gauss_target.c"
#include "kernels_generic.c"
#include "mclmc.c"
/* its stage-3 ESS and the shared FFT autocovariances, portable kernels
 * only (the AVX2 ones take vectors of double) */
#define BNNMC_PORTABLE_ONLY 1
#include "fft.c"
#include "acov.c"
#include "ess_blackjax.c"

/* the kernel table: always the generic one (replaces src/kernels.c) */
const bnn_kernels *bnn_kern(void) { return &bnn_kernels_generic; }

#if BNNMC_F32
#undef double
#undef bnn_rng_unif
#undef bnn_rng_norm
#endif

#pragma GCC visibility pop

/* From here on `double` is double again; the core's types (bnnf_real in
 * the interface) are float in the single-precision build. */

#if BNNMC_F32
_Static_assert(sizeof(bnnf_real) == 4, "float build");
_Static_assert(sizeof(((bnn_mclmc *)0)->eps) == 4, "core not in float");
#else
_Static_assert(sizeof(bnnf_real) == 8, "double build");
_Static_assert(sizeof(((bnn_mclmc *)0)->eps) == 8, "core not in double");
#endif

int bnnf_real_size(void) { return (int)sizeof(bnnf_real); }

int bnnf_run_chain(int n_layers, const int *sizes, int act, int lik,
                   double sigma_fixed, int sigma_prior, double sigma_prior_scale,
                   int prior, const bnnf_real *prior_scale, int n, int p,
                   const bnnf_real *X, const bnnf_real *y, const bnnf_real *init,
                   uint64_t seed, uint64_t chain, const int *iset,
                   const double *dset, int n_samples, int thin, double *res,
                   double *lp, bnnf_real *draws, int n_trace, double *trace) {
  for (int j = 0; j < BNNF_N_RES; j++) res[j] = 0;
  res[BNNF_R_TUNED_STEPSIZE] = res[BNNF_R_TUNED_L] = NAN;
  for (int j = BNNF_R_LAST_STAGE; j <= BNNF_R_LAST_REVERTED; j++) res[j] = NAN;
  for (size_t j = 0; trace && j < (size_t)n_trace * 6; j++) trace[j] = NAN;
  res[BNNF_R_STATUS] = -1;
  bnn_model *m = bnn_model_new(n_layers, sizes, act, lik, (bnnf_real)sigma_fixed,
                               sigma_prior, (bnnf_real)sigma_prior_scale, prior,
                               prior_scale, n, p, X, y, 1);
  if (!m) return -1;
  /* the settings as C_mclmc_new fills them (src/api_mclmc.c) */
  bnn_mclmc_settings s;
  memset(&s, 0, sizeof s);
  s.integrator = iset[BNNF_I_INTEGRATOR];
  s.n1 = iset[BNNF_I_N1];
  s.n2 = iset[BNNF_I_N2];
  s.n3 = iset[BNNF_I_N3];
  s.diag_precond = iset[BNNF_I_DIAG_PRECOND];
  s.fft_params = iset[BNNF_I_FFT_PARAMS];
  s.fft_samples = iset[BNNF_I_FFT_SAMPLES];
  s.safeguard = iset[BNNF_I_SAFEGUARD];
  s.stepsize = (bnnf_real)dset[BNNF_D_STEPSIZE];
  s.L = (bnnf_real)dset[BNNF_D_L];
  s.ev_start = (bnnf_real)dset[BNNF_D_EV_START];
  s.ev_end = (bnnf_real)dset[BNNF_D_EV_END];
  s.n_eff = (bnnf_real)dset[BNNF_D_N_EFF];
  s.trust = (bnnf_real)dset[BNNF_D_TRUST];
  s.Lfactor = (bnnf_real)dset[BNNF_D_LFACTOR];
  s.shrink = (bnnf_real)dset[BNNF_D_SHRINK];
  s.sqrt_diag_cov = NULL;
  s.upper = NULL;
  bnn_mclmc_chain *c = bnn_mclmc_chain_new(m, NULL, init, seed, chain, &s);
  if (!c) return -1; /* bnn_mclmc_chain_new freed the model */
  int rc = 0;
  if (c->status != BNN_MCLMC_BAD_INIT) {
    /* tuning: C_mclmc_tune's loop, all stages at once */
    bnnf_real row[6];
    int t = 0;
    while (c->stage != BNN_STAGE_DONE && c->status != BNN_MCLMC_NONFINITE) {
      if (bnn_mclmc_tune_step(c, row)) {
        rc = -1;
        break;
      }
      for (int j = 0; j < 6; j++) res[BNNF_R_LAST_STAGE + j] = row[j];
      if (trace && t < n_trace)
        for (int j = 0; j < 6; j++) trace[t + (size_t)j * n_trace] = row[j];
      t++;
    }
    if (c->stage == BNN_STAGE_DONE) {
      res[BNNF_R_TUNED_STEPSIZE] = c->k.eps;
      res[BNNF_R_TUNED_L] = c->k.L;
    }
    /* sampling: C_mclmc_run's loop (status 0 only, as .mclmc_chain) */
    if (rc == 0 && c->status == BNN_MCLMC_OK) {
      int d = c->dim, kept = (n_samples + thin - 1) / thin, r = 0;
      bnn_mclmc_info info;
      for (int it = 0; it < n_samples; it++) {
        if (c->status == BNN_MCLMC_NONFINITE) break;
        int keep = (long)c->n_sample_steps % thin == 0;
        bnn_mclmc_sample_step(c, &info);
        if (keep && c->status != BNN_MCLMC_NONFINITE && r < kept) {
          lp[r] = info.logdens;
          if (draws)
            for (int j = 0; j < d; j++) draws[r + (size_t)j * kept] = c->k.x[j];
          r++;
        }
      }
      res[BNNF_R_KEPT] = r;
    }
  }
  res[BNNF_R_STATUS] = rc ? -1 : c->status;
  res[BNNF_R_FAIL_PHASE] = c->fail_stage;
  res[BNNF_R_FAIL_STEP] = c->fail_step;
  res[BNNF_R_FAIL_REASON] = c->fail_reason;
  res[BNNF_R_STEPSIZE] = c->k.eps;
  res[BNNF_R_L] = c->k.L;
  res[BNNF_R_N_GRAD] = c->target.n_grad;
  res[BNNF_R_N_REVERTED] = c->n_reverted;
  res[BNNF_R_SAMPLE_STEPS] = c->n_sample_steps;
  bnn_mclmc_chain_free(c);
  return rc;
}

/* The package's numerical core (src/: the MLP log posterior with the
 * generic kernels, the MCLMC kernel (mclmc.c), the three-stage tuning
 * (mclmc_adapt.c) with its ESS
 * and the BlackJAX 1.2.2 safeguard) as one translation unit, for the benchmark
 * inst/benchmarks/papers/mile/mclmc_failures.R (--precision single): with
 * BNNMC_F32 = 1 every `double` of the core becomes `float`, so the replay
 * runs the package's own algorithm in single precision, as MILE's JAX code
 * ran (JAX computes in float32 unless x64 is switched on).  With
 * BNNMC_F32 = 0 nothing is changed and the replay must reproduce the
 * package's draws with the generic kernels (the script checks this).
 *
 * Compiled by the script with R CMD SHLIB, include paths
 * -I<repo>/src/<folder>; not part of the package build.  Single-precision
 * builds also need -fsingle-precision-constant (unsuffixed constants such as 0.5 are float,
 * as Python scalars are weakly typed in JAX), and <tgmath.h> maps sqrt,
 * exp, log, pow ... to sqrtf, expf, logf, powf.  The random numbers are
 * the package's: rng.c is compiled in double precision and its uniforms
 * and normals are rounded to float, so both precisions consume the same
 * random stream (the polar method's accept/reject decisions are the
 * double ones).  src/simd/vmath_impl.h's exp/tanh use double bit tricks, so
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
#include "simd_generic.c"
#include "mclmc.c"
/* its stage-3 ESS and the shared FFT autocovariances, portable kernels
 * only (the AVX2 ones take vectors of double) */
#define BNNMC_PORTABLE_ONLY 1
#include "fft.c"
#include "acov.c"
#include "ess_blackjax.c"
/* the three-stage tuning */
#include "mclmc_adapt.c"

/* the kernel table: always the generic one (replaces src/simd/simd.c) */
const bnn_simd_table *bnn_simd(void) { return &bnn_simd_generic; }

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
  /* the settings as the "mclmc" kernel's parser fills them (src/api/api_mclmc.c) */
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
  /* one chain as the driver runs the "mclmc" kernel (src/mcmc/mclmc_kernel.c):
   * the RNG seeded from (seed, chain), the kernel started at init, the
   * tuning's steps, then the sampling steps */
  bnn_target target;
  bnn_target_bind(&target, m, NULL);
  bnn_rng rng;
  bnn_rng_seed(&rng, seed, chain);
  int d = target.dim;
  bnn_mclmc k;
  bnn_mclmc_tuner tu;
  memset(&tu, 0, sizeof tu);
  if (bnn_mclmc_alloc(&k, d) || bnn_mclmc_tuner_alloc(&tu, d, &s)) {
    bnn_mclmc_free(&k);
    bnn_mclmc_tuner_free(&tu);
    bnn_model_free(m);
    return -1;
  }
  k.integrator = s.integrator;
  k.check = BNN_CHECK_ALL;
  k.target = &target;
  k.rng = &rng;
  k.eps = s.stepsize;
  k.L = s.L;
  int status = 0, fail_phase = 0, fail_reason = 0;
  double fail_step = 0, n_reverted = 0, n_sample_steps = 0;
  int bj = s.safeguard == BNN_SAFEGUARD_BLACKJAX;
  if (bnn_mclmc_init(&k, init)) {
    status = 1;
  } else {
    int n_tune = bnn_mclmc_tuner_steps(&tu);
    for (int t = 0; t < n_tune; t++) {
      int stage = tu.stage, bad = 0;
      bnn_mclmc_info info;
      int failed = bnn_mclmc_tune_step(&tu, &k, &rng, &info, &bad);
      if (!info.ok) n_reverted += 1.0;
      double row[6] = {stage, info.energy_change, info.stepsize, info.L,
                       info.logdens, info.ok ? 0.0 : 1.0};
      for (int j = 0; j < 6; j++) res[BNNF_R_LAST_STAGE + j] = row[j];
      if (trace && t < n_trace)
        for (int j = 0; j < 6; j++) trace[t + (size_t)j * n_trace] = row[j];
      if (failed) {
        status = 3;
        fail_phase = stage;
        fail_step = stage == 1 ? tu.done1 : stage == 2 ? tu.done2 : tu.done3;
        fail_reason = failed;
        break;
      }
      if (bad) {
        status = 2;
        break;
      }
    }
    if (status == 0 && tu.stage == BNN_STAGE_DONE) {
      res[BNNF_R_TUNED_STEPSIZE] = k.eps;
      res[BNNF_R_TUNED_L] = k.L;
    }
    /* sampling (status 0 only, as the driver) */
    if (status == 0) {
      int kept = (n_samples + thin - 1) / thin, r = 0;
      bnn_mclmc_info info;
      for (int it = 0; it < n_samples; it++) {
        int keep = (long)n_sample_steps % thin == 0;
        k.check = bj ? BNN_CHECK_NONE : BNN_CHECK_ALL;
        bnn_mclmc_step(&k, &info);
        n_sample_steps += 1.0;
        if (!info.ok) {
          n_reverted += 1.0;
          k.eps *= s.shrink;
        } else if (info.nonfinite) {
          status = 3;
          fail_phase = 4;
          fail_step = n_sample_steps;
          fail_reason = BNN_FAIL_STATE;
          break;
        }
        if (keep && r < kept) {
          lp[r] = info.logdens;
          if (draws)
            for (int j = 0; j < d; j++) draws[r + (size_t)j * kept] = k.x[j];
          r++;
        }
      }
      res[BNNF_R_KEPT] = r;
    }
  }
  res[BNNF_R_STATUS] = status;
  res[BNNF_R_FAIL_PHASE] = fail_phase;
  res[BNNF_R_FAIL_STEP] = fail_step;
  res[BNNF_R_FAIL_REASON] = fail_reason;
  res[BNNF_R_STEPSIZE] = k.eps;
  res[BNNF_R_L] = k.L;
  res[BNNF_R_N_GRAD] = target.n_grad;
  res[BNNF_R_N_REVERTED] = n_reverted;
  res[BNNF_R_SAMPLE_STEPS] = n_sample_steps;
  bnn_mclmc_free(&k);
  bnn_mclmc_tuner_free(&tu);
  bnn_model_free(m);
  return 0;
}

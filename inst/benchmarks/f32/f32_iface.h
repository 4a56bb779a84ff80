/* Plain-C interface between the two translation units of the MCLMC replay
 * (inst/benchmarks/f32): f32_core.c (the package's numerical core compiled
 * with `double` meaning `float` when BNNMC_F32 is 1) and f32_glue.c (the
 * .Call entry, compiled normally with R's headers).  No struct crosses the
 * boundary, since the core's structs have a different layout in each
 * precision: only ints, 64-bit integers, doubles and arrays of bnnf_real,
 * the core's real type.  Benchmark code only; not part of the package. */
#ifndef BNNF_IFACE_H
#define BNNF_IFACE_H
#include <stdint.h>

#ifndef BNNMC_F32
#error "compile with -DBNNMC_F32=1 (float) or -DBNNMC_F32=0 (double)"
#endif
#if BNNMC_F32
typedef float bnnf_real;
#else
typedef double bnnf_real;
#endif

/* integer settings, in this order (as the "mclmc" kernel's parser reads them, src/api/api_mclmc.c) */
enum { BNNF_I_INTEGRATOR, BNNF_I_N1, BNNF_I_N2, BNNF_I_N3, BNNF_I_DIAG_PRECOND,
       BNNF_I_FFT_PARAMS, BNNF_I_FFT_SAMPLES, BNNF_I_SAFEGUARD, BNNF_N_ISET };
/* real settings */
enum { BNNF_D_STEPSIZE, BNNF_D_L, BNNF_D_EV_START, BNNF_D_EV_END, BNNF_D_N_EFF,
       BNNF_D_TRUST, BNNF_D_LFACTOR, BNNF_D_SHRINK, BNNF_N_DSET };
/* results */
enum { BNNF_R_STATUS,       /* enum bnn_mclmc_status; -1 allocation failure */
       BNNF_R_FAIL_PHASE,   /* 1-3 tuning stage, 4 sampling, 0 none */
       BNNF_R_FAIL_STEP,    /* step of that phase, from 1 */
       BNNF_R_FAIL_REASON,  /* 1 state, 2 step size */
       BNNF_R_STEPSIZE,     /* after tuning (the value the chain ended with) */
       BNNF_R_L,
       BNNF_R_TUNED_STEPSIZE, /* at the end of tuning (NaN if not reached) */
       BNNF_R_TUNED_L,
       BNNF_R_N_GRAD, BNNF_R_N_REVERTED, BNNF_R_SAMPLE_STEPS,
       BNNF_R_KEPT,         /* kept draws written to lp (and draws) */
       /* the last tuning step taken (the failing one if the chain failed
        * in tuning): stage, energy_change, stepsize, L, logdens, reverted */
       BNNF_R_LAST_STAGE, BNNF_R_LAST_DE, BNNF_R_LAST_STEPSIZE, BNNF_R_LAST_L,
       BNNF_R_LAST_LOGDENS, BNNF_R_LAST_REVERTED,
       BNNF_N_RES };

/* Runs one chain exactly as the package's .mclmc_chain() does (tuning
 * stages 1-3, then n_samples sampling steps keeping step i when
 * i %% thin == 0) with the package's algorithm in the core's precision.
 * X is n x p column-major; lp gets the log density of each kept draw (the
 * package's lp__), draws (kept x dim, column-major, may be NULL) the
 * positions.  The caller fills lp and draws with NA first: rows after a
 * failure are not written.  trace (n_trace x 6, column-major, may be NULL)
 * gets the first n_trace tuning steps (as .mclmc_chain()'s trace; NaN rows
 * after a failure).  Returns 0, or -1 on allocation failure. */
int bnnf_run_chain(int n_layers, const int *sizes, int act, int lik,
                   double sigma_fixed, int sigma_prior, double sigma_prior_scale,
                   int prior, const bnnf_real *prior_scale, int n, int p,
                   const bnnf_real *X, const bnnf_real *y, const bnnf_real *init,
                   uint64_t seed, uint64_t chain, const int *iset,
                   const double *dset, int n_samples, int thin, double *res,
                   double *lp, bnnf_real *draws, int n_trace, double *trace);

/* sizeof the core's real type (4 or 8), to check both units agree */
int bnnf_real_size(void);
#endif

/* MCLMC's tuning (mclmc_adapt.c): BlackJAX's mclmc_find_L_and_step_size
 * (adaptation/mclmc_adaptation.py at a4408d3) in three stages, with MILE's
 * changes (src/training/warmup.py) available through the settings; the
 * presets "mile", "blackjax" and "naive" of R/sampler-mclmc.R are settings
 * of this one tuner.
 *
 *   stage 1: n1 steps adapting the step size (energy-error predictor);
 *   stage 2: n2 more, also accumulating eps-weighted moments of x, after
 *            which L = sqrt(sum Var) (with diagonal preconditioning:
 *            sigma = sqrt(Var), L = sqrt(d) and floor(n2 / 3) more
 *            step-size steps);
 *   stage 3: n3 steps at fixed (eps, L) storing (a subsample of) the
 *            positions, after which L = Lfactor * eps * mean(n3 / ESS).
 *
 * The tuner acts on a kernel (mclmc.h) between its steps: it sets the
 * kernel's check, step size, L and sigma.  All memory (the stage-3 store
 * and the ESS workspace included) is allocated by bnn_mclmc_tuner_alloc. */
#ifndef BNNMC_MCLMC_ADAPT_H
#define BNNMC_MCLMC_ADAPT_H
#include "ess_blackjax.h"
#include "mclmc.h"

enum bnn_mclmc_safeguard { BNN_SAFEGUARD_REVERT = 0, BNN_SAFEGUARD_BLACKJAX = 1 };

/* Why a "blackjax" chain failed */
enum {
  BNN_FAIL_STATE = 1,    /* position, momentum or gradient not finite */
  BNN_FAIL_STEPSIZE = 2  /* stages 1-2: the step size became NaN, which
                            blackjax never recovers from */
};

typedef struct {
  int integrator;
  int n1, n2, n3;          /* tuning stage lengths */
  int diag_precond;        /* BlackJAX: sigma = sqrt(Var), L = sqrt(d), then
                              floor(n2 / 3) more step-size steps */
  double stepsize, L;      /* initial values */
  double ev_start, ev_end; /* desired energy variance per dimension */
  double n_eff;            /* num_effective_samples (EMA window) */
  double trust;            /* trust_in_estimate */
  double Lfactor;          /* stage 3: L = Lfactor * eps * mean(n3 / ESS) */
  int fft_params;          /* max coordinates entering the ESS (<= 0: all) */
  int fft_samples;         /* max stage-3 rows entering the ESS (<= 0: all) */
  double shrink;           /* failed step: eps_max (tuning) / eps *= shrink */
  int safeguard;           /* BNN_SAFEGUARD_* */
  int ziggurat;            /* 1: the momentum's normal deviates by the
                              ziggurat (ziggurat.h), 0: polar method */
  const double *sqrt_diag_cov; /* NULL: ones (copied by the kernel) */
} bnn_mclmc_settings;

enum { BNN_STAGE_1 = 1, BNN_STAGE_2 = 2, BNN_STAGE_3 = 3, BNN_STAGE_DONE = 4 };

typedef struct {
  int dim;
  bnn_mclmc_settings s;
  int n2b;                    /* extra stage-2 steps after preconditioning */
  int stage;
  int done1, done2, done3;    /* steps done per stage (done2 includes n2b) */
  double X, W, eps_max, decay;
  double w_tot, *m1, *m2;     /* streaming weighted moments (stage 2) */
  /* stage-3 store: allocated with the tuner, filled in stage 3, freed
   * when stage 3 ends */
  int s3_rows, s3_cols;       /* kept rows / coordinates */
  int s3_next;                /* rows stored so far */
  int s3_started;             /* the coordinates were chosen */
  int *s3_idx;                /* kept coordinates */
  double *s3;                 /* s3_rows x s3_cols, column-major */
  bnn_ess_work ess;           /* for s3_rows >= 2 */
} bnn_mclmc_tuner;

/* Allocates everything; returns nonzero on allocation failure (then call
 * bnn_mclmc_tuner_free). */
int bnn_mclmc_tuner_alloc(bnn_mclmc_tuner *t, int dim, const bnn_mclmc_settings *s);
void bnn_mclmc_tuner_free(bnn_mclmc_tuner *t);
/* Steps of a tuning stage (1, 2 including the preconditioning steps, 3),
 * and of all three. */
int bnn_mclmc_stage_total(const bnn_mclmc_tuner *t, int stage);
int bnn_mclmc_tuner_steps(const bnn_mclmc_tuner *t);
/* One tuning step of the current stage: sets the kernel's check, steps it
 * (info) and adapts; finishes the stage (L, sigma) when its last step is
 * done.  Returns 0, or (safeguard "blackjax") BNN_FAIL_STATE /
 * BNN_FAIL_STEPSIZE when the chain failed at this step.  *bad_stepsize is
 * set to 1 (safeguard "revert") when the step size or L became non-finite
 * or not positive: tuning failed. */
int bnn_mclmc_tune_step(bnn_mclmc_tuner *t, bnn_mclmc *k, bnn_rng *rng,
                        bnn_mclmc_info *info, int *bad_stepsize);
#endif

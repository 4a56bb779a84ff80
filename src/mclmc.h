/* Microcanonical Langevin Monte Carlo (MCLMC), unadjusted, as in BlackJAX
 * at commit a4408d3 (June 2024), the state MILE ran through blackjax 1.2.2:
 *
 *   one step = O(eps/2) . [isokinetic integrator step of size eps] . O(eps/2)
 *
 * with the exact ESH momentum map (B), the position drift (A) and the
 * partial momentum refresh (O).  Integrators: velocity Verlet ("leapfrog",
 * B A B, 1 gradient per step) and McLachlan's minimal-norm integrator
 * (B A B A B, 2 gradients per step).
 *
 * The tuning is BlackJAX's mclmc_find_L_and_step_size (three stages) with
 * MILE's changes available through its settings (energy-variance schedule,
 * initial values, effective-sample-size window, ESS subsampling); see
 * R/mclmc.R for the two named presets.
 *
 * Two safeguards against non-finite values (see R/mclmc.R, `safeguard`):
 * "revert" (bnnmc's default) reverts every step with a non-finite position,
 * momentum, gradient, log density or energy error, in tuning and sampling;
 * "blackjax" reproduces blackjax 1.2.2 as MILE ran it: in tuning stages 1
 * and 2 only a non-finite position is caught (handle_nans), every other
 * proposal is accepted through nan_to_num, and stage 3 and sampling check
 * nothing, so a chain can turn non-finite.  Such a chain is stopped and
 * marked failed (BNN_MCLMC_NONFINITE).
 *
 * The numerical core takes pointers only; api_mclmc.c is the SEXP boundary.
 * All workspace is allocated when a chain is created, except the stage-3
 * sample store, which is allocated once when stage 3 starts and freed when
 * it ends.  Nothing allocates inside a step. */
#ifndef BNNMC_MCLMC_H
#define BNNMC_MCLMC_H
#include <stdint.h>
#include "gauss_target.h"
#include "interrupt.h"
#include "model.h"
#include "rng.h"
#include "target.h"

enum bnn_mclmc_integrator { BNN_MCLMC_LEAPFROG = 0, BNN_MCLMC_MCLACHLAN = 1 };

enum bnn_mclmc_status {
  BNN_MCLMC_OK = 0,
  BNN_MCLMC_BAD_INIT = 1,   /* log density or gradient not finite at start */
  BNN_MCLMC_STEPSIZE = 2,   /* tuned step size or L not finite / not > 0 */
  BNN_MCLMC_NONFINITE = 3   /* safeguard "blackjax": the chain diverged */
};

enum bnn_mclmc_safeguard { BNN_SAFEGUARD_REVERT = 0, BNN_SAFEGUARD_BLACKJAX = 1 };

/* Why a "blackjax" chain failed (bnn_mclmc_chain.fail_reason) */
enum {
  BNN_FAIL_STATE = 1,    /* position, momentum or gradient not finite */
  BNN_FAIL_STEPSIZE = 2  /* stages 1-2: the step size became NaN, which
                            blackjax never recovers from */
};

/* What the kernel checks after a step (bnn_mclmc.check) */
enum {
  BNN_CHECK_ALL = 0,      /* revert on any non-finite value (bnnmc) */
  BNN_CHECK_POSITION = 1, /* blackjax handle_nans: revert on a non-finite
                             position only, else accept nan_to_num(state) */
  BNN_CHECK_NONE = 2      /* blackjax kernel: accept whatever comes out */
};

/* statistics columns returned per kept draw */
#define BNN_MCLMC_N_STATS 6  /* energy_change, kinetic_change, logdens,
                                stepsize, L, reverted */

/* ------------------------------------------------------------ kernel -- */

typedef struct {
  int dim;
  int integrator;
  bnn_target *target;
  bnn_rng *rng;
  double eps, L;
  int check;             /* BNN_CHECK_* */
  double *sigma;         /* sqrt_diag_cov (all 1: no preconditioning) */
  /* current state */
  double *x, *u, *g;
  double logp;
  /* proposal (swapped with the state when a step succeeds) */
  double *x1, *u1, *g1;
  double logp1;
} bnn_mclmc;

typedef struct {
  double energy_change;  /* kinetic_change - logdens_new + logdens_old */
  double kinetic_change; /* sum over the B sub-steps */
  double logdens;        /* log density after the step (old one if reverted) */
  double stepsize, L;    /* values used by this step */
  int ok;                /* 0: non-finite result, the state was kept */
  int nonfinite;         /* BNN_CHECK_NONE: the new position, momentum or
                            gradient is not finite */
} bnn_mclmc_info;

int bnn_mclmc_alloc(bnn_mclmc *k, int dim);
void bnn_mclmc_free(bnn_mclmc *k);
/* Position x0, momentum uniform on the sphere; returns 0 when the log
 * density and gradient at x0 are finite. */
int bnn_mclmc_init(bnn_mclmc *k, const double *x0);
/* One step.  With check BNN_CHECK_ALL, on a non-finite position, momentum,
 * gradient, log density or energy change the proposal is discarded
 * (info->ok = 0): the position is kept and the momentum redrawn uniformly
 * on the sphere.  With BNN_CHECK_POSITION only a non-finite position
 * discards the proposal (the whole state, momentum included, is kept);
 * otherwise momentum, gradient and log density pass through nan_to_num
 * (NaN -> 0, +-Inf -> +-DBL_MAX).  With BNN_CHECK_NONE the proposal is
 * always accepted as it is and info->nonfinite flags a non-finite one. */
void bnn_mclmc_step(bnn_mclmc *k, bnn_mclmc_info *info);
/* gradient evaluations per step: number of position updates */
int bnn_mclmc_grads_per_step(int integrator);

/* ----------------------------------------------------- chain + tuning -- */

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
  const double *sqrt_diag_cov; /* NULL: ones */
  /* optional test-target support: log density -Inf where x > upper */
  const double *upper;
} bnn_mclmc_settings;

enum { BNN_STAGE_1 = 1, BNN_STAGE_2 = 2, BNN_STAGE_3 = 3, BNN_STAGE_DONE = 4 };

typedef struct {
  int dim;
  bnn_target target;
  bnn_model *model;           /* owned, or NULL */
  bnn_gauss_target *gauss;    /* owned, or NULL */
  double *upper;              /* owned, or NULL (test target wall) */
  bnn_rng rng;
  bnn_mclmc k;
  bnn_mclmc_settings s;
  int n2b;                    /* extra stage-2 steps after preconditioning */
  /* tuning state */
  int stage;
  int done1, done2, done3;    /* steps done per stage (done2 includes n2b) */
  double X, W, eps_max, decay;
  double w_tot, *m1, *m2;     /* streaming weighted moments (stage 2) */
  /* stage-3 store (allocated at stage-3 start) */
  int s3_rows, s3_cols;       /* kept rows / coordinates */
  int s3_next;                /* rows stored so far */
  int *s3_idx;                /* kept coordinates */
  double *s3;                 /* s3_rows x s3_cols, column-major */
  /* counters */
  double n_reverted;
  double n_sample_steps;      /* sampling steps taken (thinning phase) */
  double n_sample_ok;         /* sampling steps that were not reverted */
  double sum_de2;             /* sum of energy_change^2 over those */
  int status;
  /* safeguard "blackjax": where the chain failed (status NONFINITE) */
  int fail_stage;             /* 1-3: tuning stage, 4: sampling, 0: none */
  double fail_step;           /* step of that phase, from 1 */
  int fail_reason;            /* BNN_FAIL_* */
  bnn_itimer itimer;          /* interrupt timer, kept across run calls */
} bnn_mclmc_chain;

/* Takes ownership of model/gauss (exactly one non-NULL; freed also when
 * NULL is returned).  Returns NULL on allocation failure; otherwise check
 * ->status. */
bnn_mclmc_chain *bnn_mclmc_chain_new(bnn_model *model, bnn_gauss_target *gauss,
                                     const double *init, uint64_t seed,
                                     uint64_t stream,
                                     const bnn_mclmc_settings *s);
void bnn_mclmc_chain_free(bnn_mclmc_chain *c);
/* Steps remaining in a tuning stage (1, 2 including the preconditioning
 * steps, 3). */
int bnn_mclmc_stage_total(const bnn_mclmc_chain *c, int stage);
/* One tuning step of the current stage; finishes the stage (L, sigma) when
 * its last step is done.  A chain that has failed (status NONFINITE) does
 * nothing (and evaluates no gradient); trace then gets NaN.  Returns nonzero on allocation failure when stage 3
 * starts (its store), 0 otherwise.  trace (if not NULL) gets stage,
 * energy_change, stepsize, L, logdens, reverted. */
int bnn_mclmc_tune_step(bnn_mclmc_chain *c, double *trace);
/* One sampling step at fixed (eps, L); with safeguard "revert" a failed
 * step keeps the state and multiplies eps by `shrink`; with "blackjax" a
 * non-finite state ends the chain (status NONFINITE).  A failed chain does
 * nothing. */
void bnn_mclmc_sample_step(bnn_mclmc_chain *c, bnn_mclmc_info *info);
#endif

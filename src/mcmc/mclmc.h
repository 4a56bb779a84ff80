/* The MCLMC kernel (mclmc.c).
 *
 * Microcanonical Langevin Monte Carlo (MCLMC), unadjusted, as in BlackJAX
 * at commit a4408d3 (June 2024), the state MILE ran through blackjax 1.2.2:
 *
 *   one step = O(eps/2) . [isokinetic integrator step of size eps] . O(eps/2)
 *
 * with the exact ESH momentum map (B), the position drift (A) and the
 * partial momentum refresh (O).  Integrators: velocity Verlet ("leapfrog",
 * B A B, 1 gradient per step) and McLachlan's minimal-norm integrator
 * (B A B A B, 2 gradients per step).
 *
 * The tuning (mclmc_adapt.c) is BlackJAX's mclmc_find_L_and_step_size
 * (three stages) with MILE's changes available through its settings
 * (energy-variance schedule, initial values, effective-sample-size window,
 * ESS subsampling); see R/sampler-mclmc.R for the named presets.  mclmc_kernel.c
 * makes tuning and sampling one kernel of the chain driver (kernel.h).
 *
 * Two safeguards against non-finite values (see R/sampler-mclmc.R, `safeguard`):
 * "revert" (bnnmc's default) reverts every step with a non-finite position,
 * momentum, gradient, log density or energy error, in tuning and sampling;
 * "blackjax" reproduces blackjax 1.2.2 as MILE ran it: in tuning stages 1
 * and 2 only a non-finite position is caught (handle_nans), every other
 * proposal is accepted through nan_to_num, and stage 3 and sampling check
 * nothing, so a chain can turn non-finite.  Such a chain is stopped and
 * marked failed (BNN_K_NONFINITE).
 *
 * The numerical core takes pointers only.  All workspace is allocated when
 * a chain is created; nothing allocates inside a step. */
#ifndef BNNMC_MCLMC_H
#define BNNMC_MCLMC_H
#include <float.h>
#include <math.h>
#include "rng.h"
#include "target.h"
#include "ziggurat.h"

enum bnn_mclmc_integrator { BNN_MCLMC_LEAPFROG = 0, BNN_MCLMC_MCLACHLAN = 1 };

/* What the kernel checks after a step (bnn_mclmc.check) */
enum {
  BNN_CHECK_ALL = 0,      /* revert on any non-finite value (bnnmc) */
  BNN_CHECK_POSITION = 1, /* blackjax handle_nans: revert on a non-finite
                             position only, else accept nan_to_num(state) */
  BNN_CHECK_NONE = 2      /* blackjax kernel: accept whatever comes out */
};

/* ------------------------------------------------------------ kernel -- */

typedef struct {
  int dim;
  int integrator;
  bnn_target *target;
  bnn_rng *rng;
  const bnn_zig *zig;    /* the momentum's normal deviates: the ziggurat's
                            tables, or NULL for the polar method
                            (bnn_rng_norm) */
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

/* numpy/jax nan_to_num: NaN -> 0, +-Inf -> +-DBL_MAX */
static inline double bnn_nan_to_num(double v) {
  if (isnan(v)) return 0.0;
  if (isinf(v)) return v > 0 ? DBL_MAX : -DBL_MAX;
  return v;
}
#endif

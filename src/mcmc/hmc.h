/* Hamiltonian Monte Carlo kernels with a diagonal metric: Stan's NUTS
 * (multinomial, generalised U-turn criterion with the extra subtree checks)
 * and static HMC with a fixed integration time.  One transition at a time;
 * hmc_kernel.c makes them kernels of the chain driver (kernel.h), with
 * Stan's warm-up adaptation (adapt.c). */
#ifndef BNNMC_HMC_H
#define BNNMC_HMC_H
#include "kernel.h"
#include "rng.h"
#include "target.h"

typedef struct {
  double *q, *p, *g;   /* position, momentum, gradient of log density */
  double lp;           /* log density at q */
} bnn_phase_point;

typedef struct {
  double stepsize, treedepth, n_leapfrog, divergent, energy, accept_stat, lp;
} bnn_hmc_stats;

typedef struct {
  int dim;
  bnn_target *target;
  bnn_rng *rng;
  double eps;            /* nominal step size */
  double *inv_metric;    /* diagonal inverse mass */
  int max_depth;         /* NUTS */
  double max_delta_h;    /* divergence threshold (1000) */
  double int_time;       /* static HMC integration time */
  bnn_phase_point z;     /* current state (q, g, lp valid between calls) */
  /* NUTS workspace */
  bnn_phase_point zf, zb, zprop;
  double *rho, *rho_f, *rho_b;
  double *p_ff, *p_fb, *p_bf, *p_bb, *ps_ff, *ps_fb, *ps_bf, *ps_bb;
  double *lvl;           /* per-depth buffers: 10 vectors of dim per level */
  /* The driver's abort hook (kernel.h), checked after every leapfrog step
   * (NULL, or fn NULL: none).  When it returns nonzero the transition sets
   * `interrupted` and ends the trajectory at once (its result is then
   * meaningless and the chain must not be continued).  It reads no random
   * numbers and changes no state, so when no interrupt comes the draws are
   * the same with or without it. */
  const bnn_abort_hook *abort;
  int interrupted;
  /* per-transition counters */
  int n_leapfrog;
  int divergent;
  double sum_metro_prob;
} bnn_hmc;

/* Allocate workspace; returns nonzero on allocation failure. */
int bnn_hmc_alloc(bnn_hmc *h, int dim, int max_depth);
void bnn_hmc_free(bnn_hmc *h);

/* Evaluate the target at h->z.q, filling lp and g; a non-finite gradient
 * makes lp = -Inf.  Returns lp. */
double bnn_hmc_eval(bnn_hmc *h, bnn_phase_point *z);

void bnn_nuts_transition(bnn_hmc *h, bnn_hmc_stats *st);
void bnn_static_hmc_transition(bnn_hmc *h, bnn_hmc_stats *st);

/* Stan's step-size initialisation heuristic.  Returns 0 on success, 1 if the
 * step size grew beyond 1e7 (improper posterior), 2 if it reached zero. */
int bnn_hmc_init_stepsize(bnn_hmc *h);
#endif

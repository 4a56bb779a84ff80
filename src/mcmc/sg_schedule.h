/* Step-size schedules of the stochastic-gradient kernels (sgld.c, sghmc.c).
 *
 * Constant: eps_k = eps0.  Cyclical (Zhang et al. 2020, "cSG-MCMC"), with M
 * the NUMBER of cycles over the run of K transitions (warm-up included), so
 * each cycle has ceil(K / M) transitions:
 *   eps_k = eps0 / 2 * (cos(pi * mod(k, c) / c) + 1),  c = ceil(K / M),
 * k = 0, 1, ... (the paper's k - 1).  This is the formula of Staber & Da
 * Veiga (2022) and of Zhang et al.; the paper's text calls M the "cycle
 * length", which the formula contradicts (see the research notes). */
#ifndef BNNMC_SG_SCHEDULE_H
#define BNNMC_SG_SCHEDULE_H
#include <math.h>

typedef struct {
  double eps0;     /* constant or initial (maximum) step size */
  int cycles;      /* M; 0: constant step size */
  int n_total;     /* K: transitions in the run (warm-up + sampling) */
} bnn_sg_schedule;

static inline double bnn_sg_stepsize(const bnn_sg_schedule *s, int k) {
  if (s->cycles <= 0) return s->eps0;
  /* ceil(K / M) in 64 bits: K + M - 1 may exceed INT_MAX */
  int c = (int)(((long long)s->n_total + s->cycles - 1) / s->cycles);
  return 0.5 * s->eps0 * (cos(M_PI * (double)(k % c) / (double)c) + 1.0);
}
#endif

/* MCLMC's three-stage tuning; see mclmc_adapt.h.
 *
 * Reference: BlackJAX blackjax/adaptation/mclmc_adaptation.py at a4408d3
 * (the code behind blackjax 1.2.2, which MILE pins), and MILE's modified
 * copy of the tuning (src/training/warmup.py).  Formulas were re-derived
 * from the description in the package's research notes; no code was
 * copied. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "mclmc_adapt.h"

static double *tuner_vec(int n) {
  return calloc((size_t)(n > 0 ? n : 1), sizeof(double));
}

int bnn_mclmc_stage_total(const bnn_mclmc_tuner *t, int stage) {
  switch (stage) {
  case BNN_STAGE_1: return t->s.n1;
  case BNN_STAGE_2: return t->s.n2 + t->n2b;
  case BNN_STAGE_3: return t->s.n3;
  default: return 0;
  }
}

int bnn_mclmc_tuner_steps(const bnn_mclmc_tuner *t) {
  return t->s.n1 + t->s.n2 + t->n2b + t->s.n3;
}

static int stage_done(const bnn_mclmc_tuner *t, int stage) {
  switch (stage) {
  case BNN_STAGE_1: return t->done1;
  case BNN_STAGE_2: return t->done2;
  case BNN_STAGE_3: return t->done3;
  default: return 0;
  }
}

static void advance_stage(bnn_mclmc_tuner *t) {
  while (t->stage < BNN_STAGE_DONE &&
         stage_done(t, t->stage) >= bnn_mclmc_stage_total(t, t->stage))
    t->stage++;
}

static void stage3_free(bnn_mclmc_tuner *t) {
  free(t->s3);
  free(t->s3_idx);
  t->s3 = NULL;
  t->s3_idx = NULL;
  bnn_ess_free(&t->ess);
}

int bnn_mclmc_tuner_alloc(bnn_mclmc_tuner *t, int dim, const bnn_mclmc_settings *s) {
  memset(t, 0, sizeof *t);
  t->dim = dim;
  t->s = *s;
  t->s.sqrt_diag_cov = NULL;
  t->m1 = tuner_vec(dim);
  t->m2 = tuner_vec(dim);
  if (!t->m1 || !t->m2) return 1;
  t->n2b = s->diag_precond ? s->n2 / 3 : 0;
  t->decay = (s->n_eff - 1.0) / (s->n_eff + 1.0);
  t->eps_max = INFINITY;
  /* the stage-3 store: rows and coordinates entering the ESS */
  if (s->n3 > 0) {
    int rows = s->n3, cols = dim;
    if (s->fft_samples > 0 && rows > s->fft_samples) rows = s->fft_samples;
    if (s->fft_params > 0 && cols > s->fft_params) cols = s->fft_params;
    t->s3_idx = malloc(sizeof(int) * (size_t)dim);
    t->s3 = malloc(sizeof(double) * (size_t)rows * (size_t)cols);
    if (!t->s3_idx || !t->s3) return 1;
    if (rows >= 2 && bnn_ess_alloc(&t->ess, rows)) return 1;
    t->s3_rows = rows;
    t->s3_cols = cols;
  }
  t->stage = BNN_STAGE_1;
  advance_stage(t);
  return 0;
}

void bnn_mclmc_tuner_free(bnn_mclmc_tuner *t) {
  stage3_free(t);
  free(t->m1);
  free(t->m2);
  t->m1 = t->m2 = NULL;
}

static int check_params(const bnn_mclmc *k) {
  return isfinite(k->eps) && k->eps > 0 && k->L > 0 && !isnan(k->L);
}

/* End of the first n2 steps of stage 2: L = sqrt(sum Var) from the
 * eps-weighted moments; with diagonal preconditioning sigma = sqrt(Var),
 * L = sqrt(d) and the step-size estimator restarts (BlackJAX).  Guards (not
 * in BlackJAX, safeguard "revert" only): coordinates with a non-positive or
 * non-finite variance are left out of L and keep sigma = 1; without any
 * weight L is unchanged.  With safeguard "blackjax" the formulas are
 * applied as they are (a NaN L then turns the next step non-finite). */
static void stage2_moments(bnn_mclmc_tuner *t, bnn_mclmc *k) {
  int d = t->dim;
  if (t->s.safeguard == BNN_SAFEGUARD_BLACKJAX) {
    double sum = 0.0;
    for (int i = 0; i < d; i++) sum += t->m2[i] - t->m1[i] * t->m1[i];
    k->L = sqrt(sum);
    if (t->s.diag_precond) {
      for (int i = 0; i < d; i++)
        k->sigma[i] = sqrt(t->m2[i] - t->m1[i] * t->m1[i]);
      k->L = sqrt((double)d);
    }
  } else if (t->w_tot > 0) {
    double sum = 0.0;
    for (int i = 0; i < d; i++) {
      double v = t->m2[i] - t->m1[i] * t->m1[i];
      if (v > 0 && isfinite(v)) sum += v;
    }
    if (sum > 0) k->L = sqrt(sum);
    if (t->s.diag_precond) {
      for (int i = 0; i < d; i++) {
        double v = t->m2[i] - t->m1[i] * t->m1[i];
        k->sigma[i] = (v > 0 && isfinite(v)) ? sqrt(v) : 1.0;
      }
      k->L = sqrt((double)d);
    }
  }
  if (t->n2b > 0) {
    t->X = 0.0;
    t->W = 0.0;
    t->eps_max = INFINITY;
  }
}

/* Rows of the stage-3 store: floor(linspace(0, n3 - 1, rows)) as in MILE. */
static int s3_row_index(const bnn_mclmc_tuner *t, int j) {
  if (t->s3_rows <= 1) return 0;
  if (t->s3_rows == t->s.n3) return j;
  return (int)floor((double)j * (double)(t->s.n3 - 1) /
                    (double)(t->s3_rows - 1));
}

/* The first step of stage 3 chooses the coordinates (random numbers drawn
 * there, between the kernel's steps, as MILE). */
static void stage3_begin(bnn_mclmc_tuner *t, bnn_rng *rng) {
  int d = t->dim, cols = t->s3_cols;
  for (int i = 0; i < d; i++) t->s3_idx[i] = i;
  if (cols < d) {
    /* MILE keeps a random subset of the coordinates: partial Fisher-Yates */
    for (int i = 0; i < cols; i++) {
      int j = i + (int)floor(bnn_rng_unif(rng) * (double)(d - i));
      if (j >= d) j = d - 1;
      int tmp = t->s3_idx[i];
      t->s3_idx[i] = t->s3_idx[j];
      t->s3_idx[j] = tmp;
    }
  }
  t->s3_next = 0;
  t->s3_started = 1;
}

/* L = Lfactor * eps * mean_i(n3 / ESS_i) over the stored coordinates.
 * Guard (not in BlackJAX, safeguard "revert" only): coordinates with a
 * non-finite ESS (constant series) are left out; if none remains L is
 * unchanged.  Every row is stored by the end of stage 3 (s3_row_index of
 * the last row is n3 - 1), so the workspace fits. */
static void stage3_finish(bnn_mclmc_tuner *t, bnn_mclmc *k) {
  int rows = t->s3_next, cols = t->s3_cols;
  int literal = t->s.safeguard == BNN_SAFEGUARD_BLACKJAX;
  if (rows >= 2 && rows == t->ess.n) {
    double acc = 0.0, ess[2];
    int cnt = 0;
    for (int j = 0; j < cols; j += 2) {
      const double *a = t->s3 + (size_t)j * rows;
      const double *b = j + 1 < cols ? a + rows : NULL;
      bnn_ess_pair(&t->ess, a, b, ess);
      for (int q = 0; q < (b ? 2 : 1); q++)
        if (literal || (isfinite(ess[q]) && ess[q] > 0)) {
          acc += (double)t->s.n3 / ess[q];
          cnt++;
        }
    }
    if (cnt > 0) k->L = t->s.Lfactor * k->eps * acc / cnt;
  }
  stage3_free(t);
}

/* desired energy variance per dimension at tuning step i of stages 1+2
 * (MILE: linear from start to end over n1 + n2 + 1 steps, exponential with
 * tau = T/4 when start > 2; start == end gives BlackJAX's constant). */
static double desired_var(const bnn_mclmc_tuner *t, int i) {
  double a = t->s.ev_start, b = t->s.ev_end;
  double T = (double)(t->s.n1 + t->s.n2 + 1);
  if (a > 2.0) {
    double e = exp(-(double)i / (T / 4.0));
    return a * e + b * (1.0 - e);
  }
  double p = (double)i / T;
  if (p > 1.0) p = 1.0;
  return a - (a - b) * p;
}

/* The step-size predictor of stages 1 and 2: weighted exponential moving
 * average of xi / eps^6 with xi = dE^2 / (d v) + 1e-8 and weight
 * exp(-(log xi / (6 trust))^2 / 2), then eps = (X / W)^(-1/6), capped at
 * eps_max.  Deviations (documented): min() for the cap (BlackJAX's
 * (eps < max) eps + (eps > max) max gives 0 when equal), and a zero weight
 * (xi overflow) adds nothing instead of 0 * Inf = NaN.  Returns 0 when
 * the new step size is not finite or not positive (tuning failed). */
static int adapt_stepsize(bnn_mclmc_tuner *t, bnn_mclmc *k,
                          const bnn_mclmc_info *info, double v) {
  double eps = info->stepsize;
  double de = info->ok ? info->energy_change : 0.0;
  if (!info->ok) t->eps_max = t->s.shrink * eps;
  double xi = de * de / ((double)t->dim * v) + 1e-8;
  double lx = log(xi) / (6.0 * t->s.trust);
  double w = exp(-0.5 * lx * lx);
  double e2 = eps * eps, e6 = e2 * e2 * e2;
  t->X = t->decay * t->X + (w > 0 ? w * xi / e6 : 0.0);
  t->W = t->decay * t->W + w;
  if (t->W > 0) {
    double e_new = pow(t->X / t->W, -1.0 / 6.0);
    if (e_new > t->eps_max) e_new = t->eps_max;
    if (isfinite(e_new) && e_new > 0)
      k->eps = e_new;
    else
      return 0;
  }
  return 1;
}

/* The same predictor as blackjax 1.2.2 / MILE compute it (safeguard
 * "blackjax"), without the guards: after handle_nans (a caught step sets
 * eps_max = shrink * eps and dE = 0, an accepted one passes eps_max and dE
 * through nan_to_num), xi = dE^2 / (d v) + 1e-8, w = exp(-(log xi /
 * (6 trust))^2 / 2), X <- decay X + w (xi / eps^6), W <- decay W + w,
 * eps <- (X / W)^(-1/6), then eps <- (eps < eps_max) eps + (eps > eps_max)
 * eps_max with IEEE arithmetic (0 * Inf = NaN).  An infinite energy error
 * thus gives w = 0, X = NaN and a NaN step size, from which blackjax never
 * recovers: X stays NaN, every later tuning step has a NaN position and is
 * caught, and the first step of stage 3 or of sampling (which check
 * nothing) turns the position NaN.  Such a chain is stopped at once and
 * marked failed (reason BNN_FAIL_STEPSIZE). */
static void adapt_stepsize_blackjax(bnn_mclmc_tuner *t, bnn_mclmc *k,
                                    const bnn_mclmc_info *info, double v) {
  double eps = info->stepsize, de;
  if (info->ok) {
    t->eps_max = bnn_nan_to_num(t->eps_max);
    de = bnn_nan_to_num(info->energy_change);
  } else {
    t->eps_max = t->s.shrink * eps;
    de = 0.0;
  }
  double xi = de * de / ((double)t->dim * v) + 1e-8;
  double lx = log(xi) / (6.0 * t->s.trust);
  double w = exp(-0.5 * lx * lx);
  t->X = t->decay * t->X + w * (xi / pow(eps, 6.0));
  t->W = t->decay * t->W + w;
  double e_new = pow(t->X / t->W, -1.0 / 6.0);
  double m = t->eps_max;
  k->eps = (double)(e_new < m) * e_new + (double)(e_new > m) * m;
}

int bnn_mclmc_tune_step(bnn_mclmc_tuner *t, bnn_mclmc *k, bnn_rng *rng,
                        bnn_mclmc_info *info, int *bad_stepsize) {
  int stage = t->stage, d = t->dim;
  int bj = t->s.safeguard == BNN_SAFEGUARD_BLACKJAX;
  *bad_stepsize = 0;
  if (stage == BNN_STAGE_3 && !t->s3_started) stage3_begin(t, rng);
  k->check = !bj ? BNN_CHECK_ALL
             : stage == BNN_STAGE_3 ? BNN_CHECK_NONE : BNN_CHECK_POSITION;
  bnn_mclmc_step(k, info);
  int failed = 0;

  if (stage == BNN_STAGE_1 || stage == BNN_STAGE_2) {
    int in_precond = stage == BNN_STAGE_2 && t->done2 >= t->s.n2;
    /* the preconditioning steps continue at the schedule's end value */
    double v = in_precond ? t->s.ev_end : desired_var(t, t->done1 + t->done2);
    if (bj)
      adapt_stepsize_blackjax(t, k, info, v);
    else if (!adapt_stepsize(t, k, info, v))
      *bad_stepsize = 1;
    if (stage == BNN_STAGE_2 && !in_precond && (info->ok || bj)) {
      /* streaming eps-weighted mean of x and x^2 (new eps, as BlackJAX);
       * blackjax weighs a caught step with 0, and divides by a zero total
       * weight (NaN moments) when the first steps of stage 2 are caught */
      double wt = info->ok ? k->eps : 0.0, wn = t->w_tot + wt;
      const double *x = k->x;
      for (int i = 0; i < d; i++) {
        t->m1[i] = (t->w_tot * t->m1[i] + wt * x[i]) / wn;
        t->m2[i] = (t->w_tot * t->m2[i] + wt * x[i] * x[i]) / wn;
      }
      t->w_tot = wn;
    }
    if (bj && isnan(k->eps)) failed = BNN_FAIL_STEPSIZE;
  } else {
    if (bj) {
      /* stage 3 of blackjax: no check; a non-finite state ends the chain */
      if (info->nonfinite) failed = BNN_FAIL_STATE;
    } else if (!info->ok) {
      /* stage 3: fixed (eps, L); a failed step shrinks eps as in sampling */
      k->eps *= t->s.shrink;
    }
    if (!failed && t->s3_next < t->s3_rows &&
        t->done3 == s3_row_index(t, t->s3_next)) {
      double *dst = t->s3 + t->s3_next;
      for (int j = 0; j < t->s3_cols; j++)
        dst[(size_t)j * t->s3_rows] = k->x[t->s3_idx[j]];
      t->s3_next++;
    }
  }

  if (stage == BNN_STAGE_1) {
    t->done1++;
  } else if (stage == BNN_STAGE_2) {
    t->done2++;
    if (!failed && t->done2 == t->s.n2) stage2_moments(t, k);
  } else {
    t->done3++;
    if (!failed && t->done3 == t->s.n3) stage3_finish(t, k);
  }
  if (failed) {
    stage3_free(t);
    return failed;
  }
  advance_stage(t);
  /* blackjax samples with whatever tuning gave (a NaN L or step size turns
   * the first sampling step non-finite) */
  if (t->stage == BNN_STAGE_DONE && !bj && !check_params(k)) *bad_stepsize = 1;
  return 0;
}

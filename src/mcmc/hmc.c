#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "hmc.h"

#define N_LVL_VEC 10

static double *alloc_vec(int n) { return calloc((size_t)(n > 0 ? n : 1), sizeof(double)); }

static int point_alloc(bnn_phase_point *z, int dim) {
  z->q = alloc_vec(dim);
  z->p = alloc_vec(dim);
  z->g = alloc_vec(dim);
  z->lp = -INFINITY;
  return !(z->q && z->p && z->g);
}

static void point_free(bnn_phase_point *z) {
  free(z->q);
  free(z->p);
  free(z->g);
  z->q = z->p = z->g = NULL;
}

static void point_copy(bnn_phase_point *dst, const bnn_phase_point *src, int dim) {
  size_t b = sizeof(double) * (size_t)dim;
  memcpy(dst->q, src->q, b);
  memcpy(dst->p, src->p, b);
  memcpy(dst->g, src->g, b);
  dst->lp = src->lp;
}

int bnn_hmc_alloc(bnn_hmc *h, int dim, int max_depth) {
  memset(h, 0, sizeof *h);
  h->dim = dim;
  h->max_depth = max_depth;
  h->max_delta_h = 1000.0;
  h->eps = 1.0;
  int bad = 0;
  bad |= point_alloc(&h->z, dim);
  bad |= point_alloc(&h->zf, dim);
  bad |= point_alloc(&h->zb, dim);
  bad |= point_alloc(&h->zprop, dim);
  double **v[] = {&h->inv_metric, &h->rho, &h->rho_f, &h->rho_b,
                  &h->p_ff, &h->p_fb, &h->p_bf, &h->p_bb,
                  &h->ps_ff, &h->ps_fb, &h->ps_bf, &h->ps_bb};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
    *v[i] = alloc_vec(dim);
    bad |= *v[i] == NULL;
  }
  h->lvl = alloc_vec(N_LVL_VEC * dim * (max_depth + 1));
  bad |= h->lvl == NULL;
  if (!bad)
    for (int i = 0; i < dim; i++) h->inv_metric[i] = 1.0;
  return bad;
}

void bnn_hmc_free(bnn_hmc *h) {
  point_free(&h->z);
  point_free(&h->zf);
  point_free(&h->zb);
  point_free(&h->zprop);
  double *v[] = {h->inv_metric, h->rho, h->rho_f, h->rho_b,
                 h->p_ff, h->p_fb, h->p_bf, h->p_bb,
                 h->ps_ff, h->ps_fb, h->ps_bf, h->ps_bb, h->lvl};
  for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) free(v[i]);
  memset(h, 0, sizeof *h);
}

double bnn_hmc_eval(bnn_hmc *h, bnn_phase_point *z) {
  double lp = bnn_target_eval(h->target, z->q, z->g);
  if (isfinite(lp)) {
    double s = 0.0;
    for (int i = 0; i < h->dim; i++) s += z->g[i];
    if (!isfinite(s)) lp = -INFINITY;
  } else {
    lp = -INFINITY;
  }
  z->lp = lp;
  return lp;
}

static inline double kinetic(const bnn_hmc *h, const double *p) {
  double k = 0.0;
  for (int i = 0; i < h->dim; i++) k += p[i] * p[i] * h->inv_metric[i];
  return 0.5 * k;
}

static inline double hamiltonian(const bnn_hmc *h, const bnn_phase_point *z) {
  double H = -z->lp + kinetic(h, z->p);
  return isnan(H) ? INFINITY : H;
}

static void sample_momentum(bnn_hmc *h, double *p) {
  for (int i = 0; i < h->dim; i++)
    p[i] = bnn_rng_norm(h->rng) / sqrt(h->inv_metric[i]);
}

static void leapfrog(bnn_hmc *h, bnn_phase_point *z, double eps) {
  int d = h->dim;
  double he = 0.5 * eps;
  for (int i = 0; i < d; i++) z->p[i] += he * z->g[i];
  for (int i = 0; i < d; i++) z->q[i] += eps * h->inv_metric[i] * z->p[i];
  bnn_hmc_eval(h, z);
  for (int i = 0; i < d; i++) z->p[i] += he * z->g[i];
}

static inline double log_sum_exp(double a, double b) {
  if (a == -INFINITY) return b;
  if (b == -INFINITY) return a;
  double m = a > b ? a : b;
  return m + log(exp(a - m) + exp(b - m));
}

/* generalised no-U-turn criterion: both dot products in one pass (each
 * sum in the same order as two separate passes, so the same bits) */
static inline int criterion(const double *ps_minus, const double *ps_plus,
                            const double *rho, int n) {
  double sp = 0.0, sm = 0.0;
  for (int i = 0; i < n; i++) {
    sp += ps_plus[i] * rho[i];
    sm += ps_minus[i] * rho[i];
  }
  return sp > 0 && sm > 0;
}

/* the criterion at rho = a + b without storing rho in a scratch vector
 * (a[i] + b[i] is rounded to double before the products, as when stored) */
static inline int criterion_sum(const double *ps_minus, const double *ps_plus,
                                const double *a, const double *b, int n) {
  double sp = 0.0, sm = 0.0;
  for (int i = 0; i < n; i++) {
    double r = a[i] + b[i];
    sp += ps_plus[i] * r;
    sm += ps_minus[i] * r;
  }
  return sp > 0 && sm > 0;
}

/* Stan's build_tree: z is the moving integrator state. */
static int build_tree(bnn_hmc *h, int depth, bnn_phase_point *z,
                      bnn_phase_point *z_propose, double *ps_beg, double *ps_end,
                      double *rho, double *p_beg, double *p_end, double H0,
                      double sign, double *log_sum_weight) {
  int d = h->dim;
  size_t bytes = sizeof(double) * (size_t)d;
  if (depth == 0) {
    leapfrog(h, z, sign * h->eps);
    h->n_leapfrog++;
    if (h->abort && h->abort->fn && h->abort->fn(h->abort->ctx)) {
      h->interrupted = 1;
      return 0;   /* ends the trajectory: nothing is built on this step */
    }
    double hz = hamiltonian(h, z);
    if (hz - H0 > h->max_delta_h) h->divergent = 1;
    *log_sum_weight = log_sum_exp(*log_sum_weight, H0 - hz);
    h->sum_metro_prob += H0 - hz > 0 ? 1.0 : exp(H0 - hz);
    point_copy(z_propose, z, d);
    for (int i = 0; i < d; i++) ps_beg[i] = h->inv_metric[i] * z->p[i];
    memcpy(ps_end, ps_beg, bytes);
    for (int i = 0; i < d; i++) rho[i] += z->p[i];
    memcpy(p_beg, z->p, bytes);
    memcpy(p_end, z->p, bytes);
    return !h->divergent;
  }
  double *L = h->lvl + (size_t)N_LVL_VEC * d * depth;
  double *rho_init = L, *rho_final = L + d, *ps_init_end = L + 2 * d,
         *p_init_end = L + 3 * d, *ps_final_beg = L + 4 * d,
         *p_final_beg = L + 5 * d;
  bnn_phase_point zpf = {L + 6 * d, L + 7 * d, L + 8 * d, -INFINITY};
  double *rho_subtree = L + 9 * d;

  double lsw_init = -INFINITY;
  memset(rho_init, 0, bytes);
  if (!build_tree(h, depth - 1, z, z_propose, ps_beg, ps_init_end, rho_init,
                  p_beg, p_init_end, H0, sign, &lsw_init))
    return 0;
  double lsw_final = -INFINITY;
  memset(rho_final, 0, bytes);
  if (!build_tree(h, depth - 1, z, &zpf, ps_final_beg, ps_end, rho_final,
                  p_final_beg, p_end, H0, sign, &lsw_final))
    return 0;

  double lsw_subtree = log_sum_exp(lsw_init, lsw_final);
  *log_sum_weight = log_sum_exp(*log_sum_weight, lsw_subtree);
  if (lsw_final > lsw_subtree) {
    point_copy(z_propose, &zpf, d);
  } else {
    double accept_prob = exp(lsw_final - lsw_subtree);
    if (bnn_rng_unif(h->rng) < accept_prob) point_copy(z_propose, &zpf, d);
  }
  for (int i = 0; i < d; i++) {
    rho_subtree[i] = rho_init[i] + rho_final[i];
    rho[i] += rho_subtree[i];
  }
  int persist = criterion(ps_beg, ps_end, rho_subtree, d);
  persist = persist && criterion_sum(ps_beg, ps_final_beg, rho_init, p_final_beg, d);
  persist = persist && criterion_sum(ps_init_end, ps_end, rho_final, p_init_end, d);
  return persist;
}

static void fill_stats(bnn_hmc *h, bnn_hmc_stats *st, int depth, double eps) {
  st->stepsize = eps;
  st->treedepth = depth;
  st->n_leapfrog = h->n_leapfrog;
  st->divergent = h->divergent;
  st->accept_stat = h->n_leapfrog > 0 ? h->sum_metro_prob / h->n_leapfrog : 0.0;
  st->energy = hamiltonian(h, &h->z);
  st->lp = h->z.lp;
}

void bnn_nuts_transition(bnn_hmc *h, bnn_hmc_stats *st) {
  int d = h->dim;
  size_t bytes = sizeof(double) * (size_t)d;
  sample_momentum(h, h->z.p);
  /* h->z holds q, g, lp of the current state */
  point_copy(&h->zf, &h->z, d);
  point_copy(&h->zb, &h->z, d);
  point_copy(&h->zprop, &h->z, d);
  bnn_phase_point *zsample = &h->z; /* z itself is the sample until replaced */

  for (int i = 0; i < d; i++) h->ps_ff[i] = h->inv_metric[i] * h->z.p[i];
  memcpy(h->ps_fb, h->ps_ff, bytes);
  memcpy(h->ps_bf, h->ps_ff, bytes);
  memcpy(h->ps_bb, h->ps_ff, bytes);
  memcpy(h->p_ff, h->z.p, bytes);
  memcpy(h->p_fb, h->z.p, bytes);
  memcpy(h->p_bf, h->z.p, bytes);
  memcpy(h->p_bb, h->z.p, bytes);
  memcpy(h->rho, h->z.p, bytes);

  double log_sum_weight = 0.0;
  double H0 = hamiltonian(h, &h->z);
  h->n_leapfrog = 0;
  h->sum_metro_prob = 0.0;
  h->divergent = 0;
  int depth = 0;

  while (depth < h->max_depth) {
    double lsw_subtree = -INFINITY;
    int valid;
    memset(h->rho_f, 0, bytes);
    memset(h->rho_b, 0, bytes);
    if (bnn_rng_unif(h->rng) > 0.5) {
      memcpy(h->rho_b, h->rho, bytes);
      memcpy(h->p_bf, h->p_ff, bytes);
      memcpy(h->ps_bf, h->ps_ff, bytes);
      valid = build_tree(h, depth, &h->zf, &h->zprop, h->ps_fb, h->ps_ff,
                         h->rho_f, h->p_fb, h->p_ff, H0, 1.0, &lsw_subtree);
    } else {
      memcpy(h->rho_f, h->rho, bytes);
      memcpy(h->p_fb, h->p_bb, bytes);
      memcpy(h->ps_fb, h->ps_bb, bytes);
      valid = build_tree(h, depth, &h->zb, &h->zprop, h->ps_bf, h->ps_bb,
                         h->rho_b, h->p_bf, h->p_bb, H0, -1.0, &lsw_subtree);
    }
    if (!valid) break;
    ++depth;
    if (lsw_subtree > log_sum_weight) {
      point_copy(zsample, &h->zprop, d);
    } else {
      double accept_prob = exp(lsw_subtree - log_sum_weight);
      if (bnn_rng_unif(h->rng) < accept_prob) point_copy(zsample, &h->zprop, d);
    }
    log_sum_weight = log_sum_exp(log_sum_weight, lsw_subtree);
    for (int i = 0; i < d; i++) h->rho[i] = h->rho_b[i] + h->rho_f[i];
    int persist = criterion(h->ps_bb, h->ps_ff, h->rho, d);
    persist = persist && criterion_sum(h->ps_bb, h->ps_fb, h->rho_b, h->p_fb, d);
    persist = persist && criterion_sum(h->ps_bf, h->ps_ff, h->rho_f, h->p_bf, d);
    if (!persist) break;
  }
  fill_stats(h, st, depth, h->eps);
}

void bnn_static_hmc_transition(bnn_hmc *h, bnn_hmc_stats *st) {
  int d = h->dim;
  /* a float-to-int cast of a ratio at or above INT_MAX is undefined (it ran
   * one step); the R and .Call boundaries refuse such settings, and a step
   * size adapted that small is capped here rather than wrapped */
  double n_steps = h->int_time / h->eps;
  int L = n_steps < (double)INT_MAX ? (int)n_steps : INT_MAX;
  if (L < 1) L = 1;
  sample_momentum(h, h->z.p);
  bnn_phase_point *zn = &h->zprop;
  point_copy(zn, &h->z, d);
  double H0 = hamiltonian(h, &h->z);
  h->n_leapfrog = 0;
  h->divergent = 0;
  double hz = H0;
  for (int s = 0; s < L; s++) {
    leapfrog(h, zn, h->eps);
    h->n_leapfrog++;
    if (h->abort && h->abort->fn && h->abort->fn(h->abort->ctx)) {
      h->interrupted = 1;
      break;
    }
    hz = hamiltonian(h, zn);
    if (hz - H0 > h->max_delta_h) {
      h->divergent = 1;
      break;
    }
  }
  double acc = h->divergent ? 0.0 : (H0 - hz > 0 ? 1.0 : exp(H0 - hz));
  h->sum_metro_prob = acc * h->n_leapfrog;
  if (!h->divergent && bnn_rng_unif(h->rng) < acc) point_copy(&h->z, zn, d);
  fill_stats(h, st, 0, h->eps);
}

int bnn_hmc_init_stepsize(bnn_hmc *h) {
  int d = h->dim;
  if (h->eps == 0 || h->eps > 1e7 || isnan(h->eps)) return 0;
  bnn_phase_point *zt = &h->zprop;
  /* first step from the current state with fresh momentum */
  point_copy(zt, &h->z, d);
  sample_momentum(h, zt->p);
  double H0 = hamiltonian(h, zt);
  leapfrog(h, zt, h->eps);
  double dH = H0 - hamiltonian(h, zt);
  if (isnan(dH)) dH = -INFINITY;
  int direction = dH > log(0.8) ? 1 : -1;
  for (;;) {
    point_copy(zt, &h->z, d);
    sample_momentum(h, zt->p);
    H0 = hamiltonian(h, zt);
    leapfrog(h, zt, h->eps);
    dH = H0 - hamiltonian(h, zt);
    if (isnan(dH)) dH = -INFINITY;
    if (direction == 1 && !(dH > log(0.8))) break;
    if (direction == -1 && !(dH < log(0.8))) break;
    h->eps = direction == 1 ? 2.0 * h->eps : 0.5 * h->eps;
    if (h->eps > 1e7) return 1;
    if (h->eps == 0) return 2;
  }
  return 0;
}

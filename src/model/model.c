#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "model.h"
#include "simd.h"
#include "vmath.h"

#define LOG_SD_MIN (-13.815510557964274)   /* log(1e-6) */
#define LOG_SD_MAX (13.815510557964274)    /* log(1e6)  */
#define HALF_LOG_2PI 0.91893853320467274178

/* ---------------------------------------------------------------- setup -- */

bnn_model *bnn_model_new(int n_layers, const int *sizes, int act, int lik,
                         double sigma_fixed, int sigma_prior,
                         double sigma_prior_scale, int prior,
                         const double *prior_scale, int n, int p,
                         const double *X, const double *y, int copy_data) {
  bnn_model *m = calloc(1, sizeof *m);
  if (!m) return NULL;
  m->n_layers = n_layers;
  m->sizes = malloc(sizeof(int) * (size_t)(n_layers + 1));
  m->w_off = malloc(sizeof(int) * (size_t)n_layers);
  m->b_off = malloc(sizeof(int) * (size_t)n_layers);
  if (!m->sizes || !m->w_off || !m->b_off) goto fail;
  memcpy(m->sizes, sizes, sizeof(int) * (size_t)(n_layers + 1));
  int off = 0, maxw = 0, zsize = 0;
  for (int l = 0; l < n_layers; l++) {
    m->w_off[l] = off;
    off += sizes[l] * sizes[l + 1];
    m->b_off[l] = off;
    off += sizes[l + 1];
    if (sizes[l + 1] > maxw) maxw = sizes[l + 1];
    if (sizes[l] > maxw) maxw = sizes[l];
    zsize += sizes[l + 1];
  }
  m->n_net = off;
  m->act = act;
  m->lik = lik;
  m->dim = off + bnn_lik_n_par(lik, 0.0);
  m->max_width = maxw;
  m->sigma_fixed = sigma_fixed;
  m->sigma_prior = sigma_prior;
  m->sigma_prior_scale = sigma_prior_scale;
  /* brms's defaults: nu ~ gamma(2, 0.1), shape ~ gamma(0.01, 0.01) */
  m->aux_shape = lik == BNN_LIK_STUDENT ? 2.0 : 0.01;
  m->aux_rate = lik == BNN_LIK_STUDENT ? 0.1 : 0.01;
  m->prior = prior;
  m->prior_scale = malloc(sizeof(double) * (size_t)(off > 0 ? off : 1));
  if (!m->prior_scale) goto fail;
  memcpy(m->prior_scale, prior_scale, sizeof(double) * (size_t)off);
  m->prior_logc = malloc(sizeof(double) * (size_t)(off > 0 ? off : 1));
  if (!m->prior_logc) goto fail;
  for (int i = 0; i < off; i++)
    m->prior_logc[i] = prior == BNN_PRIOR_NORMAL ? log(prior_scale[i]) : log(2.0 * prior_scale[i]);
  m->n = n;
  m->p = p;
  m->lik_scale = 1.0;
  m->y_cols = bnn_lik_y_cols(lik, sizes[n_layers]);
  /* owned only when copied: with no rows nothing is copied and X, y keep
   * the caller's pointers (R's REAL() of empty vectors), which must never
   * reach free() (that would abort R at the next gc) */
  m->owns_data = copy_data && n > 0;
  if (m->owns_data) {
    m->X = malloc(sizeof(double) * (size_t)n * (size_t)(p > 0 ? p : 1));
    m->y = malloc(sizeof(double) * (size_t)n * (size_t)m->y_cols);
    if (!m->X || !m->y) goto fail;
    memcpy(m->X, X, sizeof(double) * (size_t)n * (size_t)p);
    memcpy(m->y, y, sizeof(double) * (size_t)n * (size_t)m->y_cols);
  } else {
    m->X = (double *)X;
    m->y = (double *)y;
  }
  m->z = malloc(sizeof(double) * (size_t)BNN_CHUNK * (size_t)zsize);
  m->a = malloc(sizeof(double) * (size_t)BNN_CHUNK * (size_t)zsize);
  m->delta = malloc(sizeof(double) * (size_t)BNN_CHUNK * (size_t)maxw);
  m->delta2 = malloc(sizeof(double) * (size_t)BNN_CHUNK * (size_t)maxw);
  m->out_tmp = malloc(sizeof(double) * (size_t)BNN_CHUNK * (size_t)maxw);
  if (!m->z || !m->a || !m->delta || !m->delta2 || !m->out_tmp) goto fail;
  return m;
fail:
  bnn_model_free(m);
  return NULL;
}

int bnn_lik_y_cols(int lik, int n_out) {
  switch (lik) {
  case BNN_LIK_MGAUSS: return n_out;
  case BNN_LIK_POISSON:
  case BNN_LIK_NEGBIN: return 3;
  case BNN_LIK_BINOMIAL: return 4;
  default: return 1;
  }
}

int bnn_lik_n_par(int lik, double nu_fixed) {
  switch (lik) {
  case BNN_LIK_GAUSS:
  case BNN_LIK_NEGBIN: return 1;
  case BNN_LIK_STUDENT: return nu_fixed > 0 ? 1 : 2;
  default: return 0;
  }
}

void bnn_model_set_lik_par(bnn_model *m, double nu_fixed, double aux_shape,
                           double aux_rate) {
  m->nu_fixed = nu_fixed > 0 ? nu_fixed : 0.0;
  m->aux_shape = aux_shape;
  m->aux_rate = aux_rate;
  m->dim = m->n_net + bnn_lik_n_par(m->lik, m->nu_fixed);
}

void bnn_model_free(bnn_model *m) {
  if (!m) return;
  free(m->sizes);
  free(m->w_off);
  free(m->b_off);
  free(m->prior_scale);
  free(m->prior_logc);
  if (m->owns_data) {
    free(m->X);
    free(m->y);
  }
  free(m->z);
  free(m->a);
  free(m->delta);
  free(m->delta2);
  free(m->out_tmp);
  if (m->owns_w) free(m->w);
  free(m->f_X);
  free(m->f_x);
  free(m->f_z);
  free(m->f_a);
  free(m->f_d);
  free(m->f_d2);
  free(m->f_theta);
  free(m->f_tmp);
  free(m);
}

void bnn_model_sync_single(bnn_model *m) {
  if (!m->f_X) return;
  size_t len = (size_t)m->n * (size_t)m->p;
  for (size_t i = 0; i < len; i++) m->f_X[i] = (float)m->X[i];
}

int bnn_model_set_single(bnn_model *m, int copy_x) {
  if (m->single) return 0;
  if (copy_x && m->X && m->n > 0 && m->p > 0) {
    /* half the memory traffic of reading the double X per evaluation (for
     * protein's 32,000 x 9 the X stream is a fifth of the float pass) */
    m->f_X = malloc(sizeof(float) * (size_t)m->n * (size_t)m->p);
    if (!m->f_X) return -1;
    bnn_model_sync_single(m);
  }
  size_t zsize = 0;
  for (int l = 0; l < m->n_layers; l++) zsize += (size_t)m->sizes[l + 1];
  size_t wide = (size_t)BNN_CHUNK * (size_t)m->max_width;
  m->f_x = malloc(sizeof(float) * wide);
  m->f_z = malloc(sizeof(float) * (size_t)BNN_CHUNK * zsize);
  m->f_a = malloc(sizeof(float) * (size_t)BNN_CHUNK * zsize);
  m->f_d = malloc(sizeof(float) * wide);
  m->f_d2 = malloc(sizeof(float) * wide);
  m->f_theta = malloc(sizeof(float) * (size_t)(m->n_net > 0 ? m->n_net : 1));
  m->f_tmp = malloc(sizeof(double) * 3 * (size_t)BNN_CHUNK);
  if (!m->f_x || !m->f_z || !m->f_a || !m->f_d || !m->f_d2 || !m->f_theta || !m->f_tmp)
    return -1;
  m->single = 1;
  return 0;
}

int bnn_model_n_out(const bnn_model *m) { return m->sizes[m->n_layers]; }

/* ---------------------------------------------------------- activations -- */

double bnn_act_apply1(int act, double x) {
  switch (act) {
  case BNN_ACT_TANH: return tanh(x);
  case BNN_ACT_RELU: return x > 0 ? x : 0.0;
  case BNN_ACT_LEAKY_RELU: return x > 0 ? x : 0.01 * x;
  case BNN_ACT_SILU: return x / (1.0 + exp(-x));
  case BNN_ACT_SIGMOID: return 1.0 / (1.0 + exp(-x));
  case BNN_ACT_SOFTPLUS: return x > 0 ? x + log1p(exp(-x)) : log1p(exp(x));
  case BNN_ACT_GELU: return 0.5 * x * (1.0 + erf(x * M_SQRT1_2));
  case BNN_ACT_TRUNC_RELU: return x < 0 ? 0.0 : (x > 1 ? 1.0 : x);
  default: return x;
  }
}

/* ---------------------------------------------------------- likelihood -- */

/* The homoscedastic Gaussian's log sd (sampled or fixed), and its
 * log-likelihood of mrows rows from their sum of squared residuals ss
 * (adding the gradient in log sd to *g_extra when sigma is sampled). */
static inline double gauss_log_sd(const bnn_model *m, const double *theta) {
  return m->lik == BNN_LIK_GAUSS ? theta[m->n_net] : log(m->sigma_fixed);
}
static inline double gauss_ll(const bnn_model *m, int mrows, double ls, double prec,
                              double ss, double *g_extra) {
  if (g_extra && m->lik == BNN_LIK_GAUSS) *g_extra += -mrows + ss * prec;
  return -mrows * (HALF_LOG_2PI + ls) - 0.5 * ss * prec;
}

/* The digamma function for x > 0: the recurrence up to x >= 6, then the
 * asymptotic series (absolute error below 1e-13). */
static double digamma_pos(double x) {
  double r = 0.0;
  while (x < 6.0) {
    r -= 1.0 / x;
    x += 1.0;
  }
  double f = 1.0 / (x * x);
  return r + log(x) - 0.5 / x -
         f * (1.0 / 12 - f * (1.0 / 120 - f * (1.0 / 252 - f * (1.0 / 240 - f * (1.0 / 132)))));
}

/* log(exp(a) + exp(b)), stably */
static inline double log_add_exp(double a, double b) {
  return a > b ? a + log1p(exp(b - a)) : b + log1p(exp(a - b));
}

/* Rows of the count and Student-t likelihoods (lik_switch's cases): each
 * returns the row's log density and writes its output gradient to *d
 * unless d is NULL.
 * The transcendental parts come in as arguments (exp from bnn_vexp, log1p
 * from the C library in double, from bnn_vlog1p in single precision). */

/* Poisson: eta the log mean (output plus offset), mu = exp(eta) */
static inline double poisson_row(double eta, double yi, double mu, double lfact, double *d) {
  if (d) *d = yi - mu;
  return yi * eta - mu - lfact;
}

/* Counts below NEGBIN_SMALL take lgamma(y + phi) - lgamma(phi) and
 * digamma(y + phi) - digamma(phi) by the recurrence (negbin_lgd) */
#define NEGBIN_SMALL 16

/* The negative binomial's lgamma(y + phi) - lgamma(phi), and with grad its
 * digamma(y + phi) - digamma(phi) in *dgd (u = log phi; lg_phi, dg_phi =
 * lgamma(phi), digamma(phi)): small counts by the recurrence (a product and
 * a sum over k < y of phi + k, cheaper than lgamma and digamma per row), a
 * large phi by the difference of the asymptotic series, else directly. */
static inline double negbin_lgd(double yi, double phi, double u, double lg_phi,
                                double dg_phi, int grad, double *dgd) {
  double lgd;
  *dgd = 0.0;
  if (yi < NEGBIN_SMALL && phi < 1e15) {
    double pr = 1.0;
    for (int k = 0; k < (int)yi; k++) {
      pr *= phi + k;
      if (grad) *dgd += 1.0 / (phi + k);
    }
    lgd = log(pr);
  } else if (phi > 1e7) {
    double t = yi / phi, a = 1.0 / (phi + yi), b = 1.0 / phi;
    lgd = yi * u + (phi + yi - 0.5) * log1p(t) - yi + (a - b) / 12.0 -
          (a * a * a - b * b * b) / 360.0;
    if (grad) *dgd = log1p(t) - 0.5 * (a - b) - (a * a - b * b) / 12.0;
  } else {
    lgd = lgamma(yi + phi) - lg_phi;
    if (grad) *dgd = digamma_pos(yi + phi) - dg_phi;
  }
  return lgd;
}

/* The negative binomial's numbers that are one per evaluation (phi is the
 * same for every row): lgamma(phi), digamma(phi) (when grad) and, with
 * table and phi < 1e15, the small counts' lgamma and digamma differences as
 * tables, lgd[y] and dgd[y] for y < NEGBIN_SMALL, built by negbin_lgd's
 * recurrence in its order of multiplications and additions, so that a row
 * reads the very numbers negbin_lgd would compute for it (without a loop
 * over k < y and a log per row).  The single-precision pass builds the
 * tables once per evaluation; the double pass (per chunk, or per row when
 * weighted) goes without them. */
typedef struct {
  double u, phi, lg_phi, dg_phi;
  int table;
  double lgd[NEGBIN_SMALL], dgd[NEGBIN_SMALL];
} negbin_consts;

static void negbin_consts_set(negbin_consts *nb, double u, int grad, int table) {
  nb->u = u;
  nb->phi = exp(u);
  nb->lg_phi = lgamma(nb->phi);
  nb->dg_phi = grad ? digamma_pos(nb->phi) : 0.0;
  nb->table = table && nb->phi < 1e15;
  if (!nb->table) return;
  double pr = 1.0, dg = 0.0;
  for (int k = 0; k < NEGBIN_SMALL; k++) {
    nb->lgd[k] = log(pr);
    nb->dgd[k] = dg;
    pr *= nb->phi + k;
    if (grad) dg += 1.0 / (nb->phi + k);
  }
}

/* The lgamma and digamma differences of a row with count yi (negbin_lgd):
 * from the tables of nb when it has them, else by negbin_lgd */
static inline double negbin_row_lgd(const negbin_consts *nb, double yi, int grad, double *dgd) {
  if (nb->table && yi >= 0.0 && yi < NEGBIN_SMALL) {
    int k = (int)yi;   /* negbin_lgd's trip count */
    *dgd = grad ? nb->dgd[k] : 0.0;
    return nb->lgd[k];
  }
  return negbin_lgd(yi, nb->phi, nb->u, nb->lg_phi, nb->dg_phi, grad, dgd);
}

/* The negative binomial in r = mu / phi, so that a large phi (the Poisson
 * limit) loses no digits: q = mu / (mu + phi) = r / (1 + r) and
 * c = (mu - y) / (mu + phi), both finite for r = Inf (q = c = 1). */
static inline void negbin_qc(double r, double yi, double phi, double *q, double *c) {
  if (r > 1.0) {
    *q = 1.0 / (1.0 + 1.0 / r);
    *c = (1.0 - yi / (phi * r)) * *q;
  } else {
    *q = r / (1.0 + r);
    *c = (r - yi / phi) / (1.0 + r);
  }
}

/* A row of the negative binomial from q and c (negbin_qc), l1 = log1p(r)
 * (log(mu + phi) = u + l1) and lgd, dgd (negbin_lgd).  Unless ge is NULL,
 * *ge gets the row's term of the gradient in log phi (before the factor
 * phi). */
static inline double negbin_row(double eta, double yi, double lfact, double q, double c,
                                double l1, double phi, double u, double lgd, double dgd,
                                double *d, double *ge) {
  if (d) *d = yi - (yi + phi) * q;
  if (ge) *ge = dgd + c - l1;
  return lgd - lfact - phi * l1 + yi * (eta - u - l1);
}

/* Binomial with trials tr: eta the logit (output plus offset),
 * e = exp(-|eta|) (one exp per row), l1e = log1p(e); lch = log choose */
static inline double binom_row(double eta, double e, double l1e, double yi, double tr,
                               double lch, double *d) {
  double sp = (eta > 0 ? eta : 0.0) + l1e;   /* log(1 + exp(eta)) */
  if (d) {
    double s = eta >= 0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
    *d = yi - tr * s;
  }
  return lch + yi * eta - tr * sp;
}

/* Student-t: a row's z / (1 + z) (a term of s2 below), z = r^2 inv with
 * r the residual and inv = 1 / (nu sigma^2) */
static inline double student_row(double r, double z, double nu, double inv, double *d) {
  if (d) *d = (nu + 1.0) * r * inv / (1.0 + z);
  return z / (1.0 + z);
}

/* Student-t: the log density of mrows rows from s1 = sum log1p(z) and
 * s2 = sum z / (1 + z), z = r^2 / (nu sigma^2), and the gradients in
 * log sigma and (when sampled) log nu added to g_extra (ls = log sigma) */
static inline double student_ll(const bnn_model *m, double ls, double nu, int mrows,
                                double s1, double s2, double *g_extra) {
  double c = lgamma(0.5 * (nu + 1.0)) - lgamma(0.5 * nu) - 0.5 * log(nu) -
             0.5 * 1.14472988584940017414 - ls;   /* log(pi) */
  double ll = mrows * c - 0.5 * (nu + 1.0) * s1;
  if (g_extra) {
    g_extra[0] += -mrows + (nu + 1.0) * s2;
    if (!(m->nu_fixed > 0))
      g_extra[1] += nu * (mrows * 0.5 * (digamma_pos(0.5 * (nu + 1.0)) -
                                         digamma_pos(0.5 * nu) - 1.0 / nu) -
                          0.5 * s1 + 0.5 * (nu + 1.0) / nu * s2);
  }
  return ll;
}

/* A chunk's network outputs and their deltas as the likelihoods read and
 * write them: in double (the double pass, and the single-precision pass's
 * weighted rows) or in float (the single-precision pass, which reads its
 * float outputs and writes float deltas straight, with no pass converting
 * the chunk to double and back).  Outputs and deltas are BNN_CHUNK x n_out,
 * column k at k * BNN_CHUNK; either way the rows are computed in double by
 * the same formulas. */
typedef struct {
  int single;        /* 1: float (of, df), 0: double (o, d) */
  const double *o;   /* outputs in double */
  const float *of;   /* outputs in float */
  double *d;         /* deltas dll/do in double, or NULL (no gradient) */
  float *df;         /* deltas in float, or NULL */
  double *t0, *t1;   /* scratch of BNN_CHUNK doubles each (t1: float only) */
} lik_io;

static inline double lik_out(const lik_io *io, size_t j) {
  return io->single ? (double)io->of[j] : io->o[j];
}
static inline void lik_delta(const lik_io *io, size_t j, double v) {
  if (io->single)
    io->df[j] = (float)v;
  else
    io->d[j] = v;
}

/* log1p of the scratch t0's rows: in float all at once into t1 by
 * bnn_vlog1p (within an ulp of the C library's; what the rows cost in the
 * single-precision pass was the C library's log1p), in double row by row
 * from the C library, as the double pass has always taken it */
static inline void lik_log1p_all(const lik_io *io, int mrows) {
  if (io->single) bnn_vlog1p(io->t0, io->t1, mrows);
}
static inline double lik_log1p(const lik_io *io, int i) {
  return io->single ? io->t1[i] : log1p(io->t0[i]);
}

/* lik_switch is compiled into each of its two callers (lik_chunk and
 * lik_chunk_f32), where io->single is a constant: each copy reads and
 * writes its own type with no test of it per row */
#if defined(__GNUC__)
#define LIK_SWITCH_INLINE static inline __attribute__((always_inline))
#else
#define LIK_SWITCH_INLINE static inline
#endif

/* The one switch over the likelihoods: the log-likelihood of a chunk's
 * mrows rows from their outputs (io), y pointing at the chunk's first row
 * of the response's first column; with deltas in io, they get dll/do and
 * g_extra[j] accumulates the gradient of the likelihood's own parameter j
 * (log sigma, log phi, log nu; at most two).  nb: the negative binomial's
 * per-evaluation numbers, or NULL to compute them here (without tables). */
LIK_SWITCH_INLINE double lik_switch(bnn_model *m, const double *theta, const lik_io *io,
                                    const double *y, int mrows, double *g_extra,
                                    const negbin_consts *nb) {
  double ll = 0.0, di;
  double *t0 = io->t0;
  int grad = io->single ? io->df != NULL : io->d != NULL, i;
  switch (m->lik) {
  case BNN_LIK_HETERO: {
    double *prec = t0;
    for (i = 0; i < mrows; i++) {
      double ls = lik_out(io, i + BNN_CHUNK);
      ls = ls < LOG_SD_MIN ? LOG_SD_MIN : (ls > LOG_SD_MAX ? LOG_SD_MAX : ls);
      prec[i] = -2.0 * ls;
    }
    bnn_vexp(prec, prec, mrows);
    for (i = 0; i < mrows; i++) {
      double lsd = lik_out(io, i + BNN_CHUNK), ls = lsd;
      int clipped = !(ls > LOG_SD_MIN && ls < LOG_SD_MAX);
      ls = ls < LOG_SD_MIN ? LOG_SD_MIN : (ls > LOG_SD_MAX ? LOG_SD_MAX : ls);
      if (lsd != lsd) ls = lsd; /* keep NaN visible */
      double r = y[i] - lik_out(io, i);
      double r2p = r * r * prec[i];
      ll += -HALF_LOG_2PI - ls - 0.5 * r2p;
      if (grad) {
        lik_delta(io, i, r * prec[i]);
        lik_delta(io, i + BNN_CHUNK, clipped ? 0.0 : (r2p - 1.0));
      }
    }
    break;
  }
  case BNN_LIK_GAUSS:
  case BNN_LIK_GAUSS_FIXED: {
    double ls = gauss_log_sd(m, theta);
    double prec = exp(-2.0 * ls);
    double ss;
    if (io->single) {
      /* in float the sum of squares in four partial sums: one serial sum
       * of 120 rows was a fifth of a gradient of the symmetry paper's
       * 1-3-1 network, waiting on the latency of each addition.  Still
       * accumulated in double. */
      const float *z = io->of;
      float *d = io->df;
      double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
      for (i = 0; i + 4 <= mrows; i += 4) {
        double e0 = y[i] - (double)z[i], e1 = y[i + 1] - (double)z[i + 1];
        double e2 = y[i + 2] - (double)z[i + 2], e3 = y[i + 3] - (double)z[i + 3];
        s0 += e0 * e0;
        s1 += e1 * e1;
        s2 += e2 * e2;
        s3 += e3 * e3;
        if (d) {
          d[i] = (float)(e0 * prec);
          d[i + 1] = (float)(e1 * prec);
          d[i + 2] = (float)(e2 * prec);
          d[i + 3] = (float)(e3 * prec);
        }
      }
      for (; i < mrows; i++) {
        double e = y[i] - (double)z[i];
        s0 += e * e;
        if (d) d[i] = (float)(e * prec);
      }
      ss = (s0 + s1) + (s2 + s3);
    } else {
      const double *o = io->o;
      double *d = io->d;
      ss = 0.0;
      for (i = 0; i < mrows; i++) {
        double r = y[i] - o[i];
        ss += r * r;
        if (d) d[i] = r * prec;
      }
    }
    ll = gauss_ll(m, mrows, ls, prec, ss, g_extra);
    break;
  }
  case BNN_LIK_BERNOULLI:
    for (i = 0; i < mrows; i++) {
      double eta = lik_out(io, i);
      /* log(1 + exp(eta)) computed stably */
      double sp = eta > 0 ? eta + log1p(exp(-eta)) : log1p(exp(eta));
      ll += y[i] * eta - sp;
      if (grad) {
        double s = eta >= 0 ? 1.0 / (1.0 + exp(-eta))
                            : exp(eta) / (1.0 + exp(eta));
        lik_delta(io, i, y[i] - s);
      }
    }
    break;
  case BNN_LIK_CATEGORICAL: {
    int K = bnn_model_n_out(m);
    for (i = 0; i < mrows; i++) {
      double mx = lik_out(io, i);
      for (int k = 1; k < K; k++) {
        double ok = lik_out(io, i + (size_t)k * BNN_CHUNK);
        if (ok > mx) mx = ok;
      }
      double se = 0.0;
      for (int k = 0; k < K; k++) se += exp(lik_out(io, i + (size_t)k * BNN_CHUNK) - mx);
      double lse = mx + log(se);
      int yi = (int)y[i];
      ll += lik_out(io, i + (size_t)yi * BNN_CHUNK) - lse;
      if (grad) {
        for (int k = 0; k < K; k++)
          lik_delta(io, i + (size_t)k * BNN_CHUNK,
                    (k == yi ? 1.0 : 0.0) - exp(lik_out(io, i + (size_t)k * BNN_CHUNK) - lse));
      }
    }
    break;
  }
  case BNN_LIK_POISSON: {
    /* y points at row r0 of the count column; the offset and
     * lgamma(count + 1) are m->n and 2 m->n further on */
    const double *off = y + m->n, *lfact = y + 2 * (size_t)m->n;
    double *mu = t0;
    for (i = 0; i < mrows; i++) mu[i] = lik_out(io, i) + off[i];
    bnn_vexp(mu, mu, mrows);
    for (i = 0; i < mrows; i++) {
      ll += poisson_row(lik_out(io, i) + off[i], y[i], mu[i], lfact[i], grad ? &di : NULL);
      if (grad) lik_delta(io, i, di);
    }
    break;
  }
  case BNN_LIK_NEGBIN: {
    const double *off = y + m->n, *lfact = y + 2 * (size_t)m->n;
    negbin_consts own;
    if (!nb) {
      negbin_consts_set(&own, theta[m->n_net], g_extra != NULL, 0);
      nb = &own;
    }
    double u = nb->u, phi = nb->phi, ge = 0.0, gi;
    double *rr = t0;   /* r = mu / phi */
    for (i = 0; i < mrows; i++) rr[i] = lik_out(io, i) + off[i] - u;
    bnn_vexp(rr, rr, mrows);
    lik_log1p_all(io, mrows);
    for (i = 0; i < mrows; i++) {
      double yi = y[i], dgd, q, c;
      double lgd = negbin_row_lgd(nb, yi, g_extra != NULL, &dgd);
      negbin_qc(rr[i], yi, phi, &q, &c);
      ll += negbin_row(lik_out(io, i) + off[i], yi, lfact[i], q, c, lik_log1p(io, i), phi, u,
                       lgd, dgd, grad ? &di : NULL, g_extra ? &gi : NULL);
      if (grad) lik_delta(io, i, di);
      if (g_extra) ge += gi;
    }
    if (g_extra) g_extra[0] += phi * ge;
    break;
  }
  case BNN_LIK_STUDENT: {
    double ls = theta[m->n_net];
    double nu = m->nu_fixed > 0 ? m->nu_fixed : exp(theta[m->n_net + 1]);
    double inv = exp(-2.0 * ls) / nu;             /* 1 / (nu sigma^2) */
    double s1 = 0.0, s2 = 0.0;
    double *z = t0;
    for (i = 0; i < mrows; i++) {
      double r = y[i] - lik_out(io, i);
      z[i] = r * r * inv;
    }
    lik_log1p_all(io, mrows);
    for (i = 0; i < mrows; i++) {
      s1 += lik_log1p(io, i);
      s2 += student_row(y[i] - lik_out(io, i), z[i], nu, inv, grad ? &di : NULL);
      if (grad) lik_delta(io, i, di);
    }
    ll = student_ll(m, ls, nu, mrows, s1, s2, g_extra);
    break;
  }
  case BNN_LIK_BINOMIAL: {
    const double *tr = y + m->n, *off = y + 2 * (size_t)m->n, *lch = y + 3 * (size_t)m->n;
    double *e = t0;                              /* exp(-|eta|), one exp per row */
    for (i = 0; i < mrows; i++) e[i] = -fabs(lik_out(io, i) + off[i]);
    bnn_vexp(e, e, mrows);
    lik_log1p_all(io, mrows);
    for (i = 0; i < mrows; i++) {
      ll += binom_row(lik_out(io, i) + off[i], e[i], lik_log1p(io, i), y[i], tr[i], lch[i],
                      grad ? &di : NULL);
      if (grad) lik_delta(io, i, di);
    }
    break;
  }
  case BNN_LIK_MGAUSS: {
    /* y points at row r0 of column 0; column k is m->n further on */
    int K = bnn_model_n_out(m);
    double ls = log(m->sigma_fixed), prec = exp(-2.0 * ls), ss = 0.0;
    for (int k = 0; k < K; k++) {
      const double *yk = y + (size_t)k * m->n;
      for (i = 0; i < mrows; i++) {
        double r = yk[i] - lik_out(io, i + (size_t)k * BNN_CHUNK);
        ss += r * r;
        if (grad) lik_delta(io, i + (size_t)k * BNN_CHUNK, r * prec);
      }
    }
    ll = -(double)mrows * K * (HALF_LOG_2PI + ls) - 0.5 * ss * prec;
    break;
  }
  default:
    ll = NAN;
  }
  return ll;
}

/* Log-likelihood of rows [r0, r0 + m) from outputs o (BNN_CHUNK x n_out)
 * in double; d (or NULL) and g_extra as lik_switch.  Scratch: m->out_tmp. */
static double lik_chunk(bnn_model *m, const double *theta,
                        const double *o, const double *y, int mrows,
                        double *d, double *g_extra) {
  lik_io io = {.single = 0, .o = o, .d = d, .t0 = m->out_tmp};
  return lik_switch(m, theta, &io, y, mrows, g_extra, NULL);
}
/* The weighted likelihood (a separate path, so unweighted models run the
 * code above unchanged): row i contributes w_i * log p(y_i | theta), and its
 * output gradients are scaled by w_i.  Rows go one at a time through
 * lik_chunk (its outputs and gradients are strided by BNN_CHUNK, so o + i
 * and d + i address row i). */
static double lik_chunk_weighted(bnn_model *m, const double *theta,
                                 const double *o, const double *y,
                                 const double *w, int mrows, double *d,
                                 double *g_extra) {
  int K = bnn_model_n_out(m);
  double ll = 0.0;
  for (int i = 0; i < mrows; i++) {
    if (w[i] == 0.0) {
      if (d)
        for (int k = 0; k < K; k++) d[i + k * BNN_CHUNK] = 0.0;
      continue;
    }
    double ge[2] = {0.0, 0.0};
    double li = lik_chunk(m, theta, o + i, y + i, 1, d ? d + i : NULL, g_extra ? ge : NULL);
    ll += w[i] * li;
    if (d)
      for (int k = 0; k < K; k++) d[i + k * BNN_CHUNK] *= w[i];
    if (g_extra) {
      g_extra[0] += w[i] * ge[0];
      g_extra[1] += w[i] * ge[1];
    }
  }
  return ll;
}

/* The log-likelihood of the chunk's rows [r0, r0 + mrows) from its outputs
 * o, weighted or not (d, g_extra as lik_chunk). */
static inline double lik_rows(bnn_model *m, const double *theta, const double *o, int r0,
                              int mrows, int weighted, double *d, double *g_extra) {
  return weighted ? lik_chunk_weighted(m, theta, o, m->y + r0, m->w + r0, mrows, d, g_extra)
                  : lik_chunk(m, theta, o, m->y + r0, mrows, d, g_extra);
}

/* -------------------------------------------------- forward / backward -- */

static inline int layer_off(const bnn_model *m, int l) {
  int off = 0;
  for (int k = 0; k < l; k++) off += BNN_CHUNK * m->sizes[k + 1];
  return off;
}

/* Forward pass of one chunk; returns the pointer to the outputs.  With a
 * pass, its input hook may replace each layer's input; the inputs used are
 * recorded for the backward pass. */
static double *forward_chunk(bnn_model *m, const double *theta,
                             const double *X, int ldx, int r0, int mrows,
                             bnn_pass *pass) {
  const double *ain = X + r0;
  int lda = ldx;
  int L = m->n_layers, off = 0;
  double *z = m->z;
  for (int l = 0; l < L; l++) {
    int fin = m->sizes[l], fout = m->sizes[l + 1];
    if (pass) {
      if (pass->input) ain = pass->input(pass, m, l, ain, &lda, r0, mrows);
      pass->in[l] = ain;
      pass->ld[l] = lda;
    }
    z = m->z + off;
    bnn_simd()->dense(ain, lda, mrows, fin, fout, theta + m->w_off[l], 1, fin,
                      theta + m->b_off[l], z, BNN_CHUNK);
    if (l < L - 1) {
      double *a = m->a + off;
      for (int j = 0; j < fout; j++)
        bnn_simd()->act_forward(m->act, z + (size_t)j * BNN_CHUNK, a + (size_t)j * BNN_CHUNK, mrows);
      ain = a;
      lda = BNN_CHUNK;
    }
    off += BNN_CHUNK * fout;
  }
  return z;
}

/* Backward pass of one chunk from the outputs' delta in m->delta. */
static void backward_chunk(bnn_model *m, const double *theta, const double *X,
                           int ldx, int r0, int mrows, double *grad,
                           bnn_pass *pass) {
  int L = m->n_layers;
  double *dcur = m->delta, *dnext = m->delta2;
  for (int l = L - 1; l >= 0; l--) {
    int fin = m->sizes[l], fout = m->sizes[l + 1];
    const double *ain;
    int lda;
    if (pass) {
      ain = pass->in[l];
      lda = pass->ld[l];
    } else if (l == 0) {
      ain = X + r0;
      lda = ldx;
    } else {
      ain = m->a + layer_off(m, l - 1);
      lda = BNN_CHUNK;
    }
    if (pass && pass->layer_delta) {
      pass->layer_delta(pass, m, l, ain, lda, dcur, mrows);
    } else {
      double *gW = grad + m->w_off[l], *gb = grad + m->b_off[l];
      bnn_simd()->grad_w(ain, lda, dcur, BNN_CHUNK, mrows, fin, fout, gW, gb);
    }
    if (l > 0) {
      /* delta of the layer below: D W^T, times the activation's slope */
      bnn_simd()->dense(dcur, BNN_CHUNK, mrows, fout, fin, theta + m->w_off[l],
                        fin, 1, NULL, dnext, BNN_CHUNK);
      int zo = layer_off(m, l - 1);
      for (int k = 0; k < fin; k++) {
        double *dk = dnext + (size_t)k * BNN_CHUNK;
        if (pass && pass->unit_delta) pass->unit_delta(pass, m, l - 1, k, dk, mrows);
        bnn_simd()->act_backward(m->act, m->z + zo + k * BNN_CHUNK, m->a + zo + k * BNN_CHUNK,
                                 dk, m->out_tmp, mrows);
      }
      double *t = dcur;
      dcur = dnext;
      dnext = t;
    }
  }
}

double *bnn_model_forward_chunk(bnn_model *m, const double *theta, int r0,
                                int mrows, bnn_pass *pass) {
  return forward_chunk(m, theta, m->X, m->n, r0, mrows, pass);
}

void bnn_model_backward_chunk(bnn_model *m, const double *theta, int r0,
                              int mrows, double *grad, bnn_pass *pass) {
  backward_chunk(m, theta, m->X, m->n, r0, mrows, grad, pass);
}

static double loglik_rows(bnn_model *m, const double *theta, double *grad,
                          int row_begin, int row_end, bnn_pass *pass,
                          int weighted) {
  double ll = 0.0, g_extra[2] = {0.0, 0.0};
  if (grad) memset(grad, 0, sizeof(double) * (size_t)m->dim);
  for (int r0 = row_begin; r0 < row_end; r0 += BNN_CHUNK) {
    int mrows = row_end - r0 < BNN_CHUNK ? row_end - r0 : BNN_CHUNK;
    double *o = forward_chunk(m, theta, m->X, m->n, r0, mrows, pass);
    ll += lik_rows(m, theta, o, r0, mrows, weighted, grad ? m->delta : NULL,
                   grad ? g_extra : NULL);
    if (!grad) continue;
    backward_chunk(m, theta, m->X, m->n, r0, mrows, grad, pass);
  }
  if (grad)
    for (int j = m->n_net; j < m->dim; j++) grad[j] = g_extra[j - m->n_net];
  if (m->lik_scale != 1.0) {
    ll *= m->lik_scale;
    if (grad)
      for (int i = 0; i < m->dim; i++) grad[i] *= m->lik_scale;
  }
  return ll;
}


/* ------------------------------------------------- single precision -- */

/* a[i] = act(z[i]) in float: tanh, relu and identity natively, the other
 * activations through the double routine (converted both ways) */
static void act_forward_f32(bnn_model *m, const float *z, float *a, int n) {
  const bnn_simd_table *K = bnn_simd();
  int i;
  switch (m->act) {
  case BNN_ACT_TANH: K->tanh_f32(z, a, n); break;
  case BNN_ACT_RELU: K->relu_f32(z, a, n); break;
  case BNN_ACT_IDENTITY: for (i = 0; i < n; i++) a[i] = z[i]; break;
  default: {
    double *zd = m->f_tmp, *ad = m->f_tmp + BNN_CHUNK;
    for (i = 0; i < n; i++) zd[i] = (double)z[i];
    K->act_forward(m->act, zd, ad, n);
    for (i = 0; i < n; i++) a[i] = (float)ad[i];
  }
  }
}

/* d[i] *= act'(z[i]) given a = act(z), in float (others as above) */
static void act_backward_f32(bnn_model *m, const float *z, const float *a,
                             float *d, int n) {
  int i;
  switch (m->act) {
  case BNN_ACT_TANH:
  case BNN_ACT_RELU: bnn_simd()->act_backward_f32(m->act, z, a, d, n); break;
  case BNN_ACT_IDENTITY: break;
  default: {
    double *zd = m->f_tmp, *ad = m->f_tmp + BNN_CHUNK, *dd = m->f_tmp + 2 * BNN_CHUNK;
    for (i = 0; i < n; i++) {
      zd[i] = (double)z[i];
      ad[i] = (double)a[i];
      dd[i] = (double)d[i];
    }
    /* m->out_tmp: BNN_CHUNK x max_width doubles, free during the backward pass */
    bnn_simd()->act_backward(m->act, zd, ad, dd, m->out_tmp, n);
    for (i = 0; i < n; i++) d[i] = (float)dd[i];
  }
  }
}

/* lik_switch in the single-precision pass, unweighted: the outputs z read
 * straight from float, the deltas written straight to float (d, or NULL);
 * nb: the negative binomial's numbers with their tables (NULL for the other
 * likelihoods).  Scratch: m->f_tmp, two chunks of doubles. */
static double lik_chunk_f32(bnn_model *m, const double *theta, const float *z,
                            const double *y, int mrows, float *d, double *g_extra,
                            const negbin_consts *nb) {
  lik_io io = {.single = 1, .of = z, .df = d, .t0 = m->f_tmp, .t1 = m->f_tmp + BNN_CHUNK};
  return lik_switch(m, theta, &io, y, mrows, g_extra, nb);
}

/* loglik_rows() with the network in float: X's rows come from the float
 * copy, or are converted per chunk (minibatch models); the likelihood
 * (lik_chunk_f32, unweighted) reads the float outputs and writes float
 * deltas itself, the weighted rows' outputs come back to double for
 * lik_chunk_weighted, whose output deltas go to float for the backward
 * pass; grad_w_f32 adds each chunk's float sums to the double gradient. */
static double loglik_rows_f32(bnn_model *m, const double *theta, double *grad,
                              int row_begin, int row_end, int weighted) {
  const bnn_simd_table *K = bnn_simd();
  int L = m->n_layers, p = m->p, nout = bnn_model_n_out(m);
  float *th = m->f_theta;
  for (int i = 0; i < m->n_net; i++) th[i] = (float)theta[i];
  double ll = 0.0, g_extra[2] = {0.0, 0.0};
  if (grad) memset(grad, 0, sizeof(double) * (size_t)m->dim);
  negbin_consts nb;
  if (!weighted && m->lik == BNN_LIK_NEGBIN) negbin_consts_set(&nb, theta[m->n_net], grad != NULL, 1);
  for (int r0 = row_begin; r0 < row_end; r0 += BNN_CHUNK) {
    int mrows = row_end - r0 < BNN_CHUNK ? row_end - r0 : BNN_CHUNK;
    const float *xin = m->f_X ? m->f_X + r0 : m->f_x;
    int ldx = m->f_X ? m->n : BNN_CHUNK;
    if (!m->f_X)
      for (int k = 0; k < p; k++) {
        const double *src = m->X + (size_t)k * m->n + r0;
        float *dst = m->f_x + (size_t)k * BNN_CHUNK;
        for (int i = 0; i < mrows; i++) dst[i] = (float)src[i];
      }
    /* forward */
    const float *ain = xin;
    int lda = ldx;
    float *z = m->f_z;
    int off = 0;
    for (int l = 0; l < L; l++) {
      int fin = m->sizes[l], fout = m->sizes[l + 1];
      z = m->f_z + off;
      K->dense_f32(ain, lda, mrows, fin, fout, th + m->w_off[l], 1, fin,
                   th + m->b_off[l], z, BNN_CHUNK);
      if (l < L - 1) {
        float *a = m->f_a + off;
        for (int j = 0; j < fout; j++)
          act_forward_f32(m, z + (size_t)j * BNN_CHUNK, a + (size_t)j * BNN_CHUNK, mrows);
        ain = a;
        lda = BNN_CHUNK;
      }
      off += BNN_CHUNK * fout;
    }
    float *dcur = m->f_d, *dnext = m->f_d2;
    if (!weighted) {
      ll += lik_chunk_f32(m, theta, z, m->y + r0, mrows, grad ? dcur : NULL,
                          grad ? g_extra : NULL, m->lik == BNN_LIK_NEGBIN ? &nb : NULL);
      if (!grad) continue;
    } else {
      /* weighted rows go one at a time through the double code
       * (lik_chunk_weighted): the outputs to double, the deltas back */
      double *o = m->z;   /* BNN_CHUNK x n_out doubles */
      for (int k = 0; k < nout; k++)
        for (int i = 0; i < mrows; i++)
          o[(size_t)k * BNN_CHUNK + i] = (double)z[(size_t)k * BNN_CHUNK + i];
      ll += lik_rows(m, theta, o, r0, mrows, weighted, grad ? m->delta : NULL,
                   grad ? g_extra : NULL);
      if (!grad) continue;
      for (int k = 0; k < nout; k++)
        for (int i = 0; i < mrows; i++)
          dcur[(size_t)k * BNN_CHUNK + i] = (float)m->delta[(size_t)k * BNN_CHUNK + i];
    }
    /* backward */
    for (int l = L - 1; l >= 0; l--) {
      int fin = m->sizes[l], fout = m->sizes[l + 1];
      const float *a = l == 0 ? xin : m->f_a + layer_off(m, l - 1);
      K->grad_w_f32(a, l == 0 ? ldx : BNN_CHUNK, dcur, BNN_CHUNK, mrows, fin, fout,
                    grad + m->w_off[l], grad + m->b_off[l]);
      if (l > 0) {
        K->dense_f32(dcur, BNN_CHUNK, mrows, fout, fin, th + m->w_off[l], fin, 1,
                     NULL, dnext, BNN_CHUNK);
        int zo = layer_off(m, l - 1);
        for (int k = 0; k < fin; k++)
          act_backward_f32(m, m->f_z + zo + k * BNN_CHUNK, m->f_a + zo + k * BNN_CHUNK,
                           dnext + (size_t)k * BNN_CHUNK, mrows);
        float *t = dcur;
        dcur = dnext;
        dnext = t;
      }
    }
  }
  if (grad)
    for (int j = m->n_net; j < m->dim; j++) grad[j] = g_extra[j - m->n_net];
  if (m->lik_scale != 1.0) {
    ll *= m->lik_scale;
    if (grad)
      for (int i = 0; i < m->dim; i++) grad[i] *= m->lik_scale;
  }
  return ll;
}

double bnn_model_loglik(bnn_model *m, const double *theta, double *grad,
                        int row_begin, int row_end) {
  if (m->single)
    return loglik_rows_f32(m, theta, grad, row_begin, row_end, m->w != NULL);
  return loglik_rows(m, theta, grad, row_begin, row_end, NULL, m->w != NULL);
}

double bnn_model_loglik_pass(bnn_model *m, const double *theta, double *grad,
                             int row_begin, int row_end, bnn_pass *pass) {
  return loglik_rows(m, theta, grad, row_begin, row_end, pass, 0);
}

double bnn_model_logprior(const bnn_model *m, const double *theta, double *grad) {
  double lp = 0.0;
  const double *s = m->prior_scale, *c = m->prior_logc;
  int i, n = m->n_net;
  if (m->prior == BNN_PRIOR_NORMAL) {
    /* u = theta / s and the gradient by the SIMD routine, a block at a
     * time, then the log density from u in the serial order it always had */
    double ub[256];
    const bnn_simd_table *K = bnn_simd();
    for (int i0 = 0; i0 < n; i0 += 256) {
      int nb = n - i0 < 256 ? n - i0 : 256;
      const double *cb = c + i0;
      K->prior_normal_u(theta + i0, s + i0, ub, grad ? grad + i0 : NULL, nb);
      for (i = 0; i < nb; i++) {
        double u = ub[i];
        lp -= 0.5 * u * u + cb[i];
      }
    }
    lp -= n * HALF_LOG_2PI;
  } else {
    for (i = 0; i < n; i++) {
      lp -= fabs(theta[i]) / s[i] + c[i];
      if (grad) grad[i] -= (theta[i] > 0 ? 1.0 : (theta[i] < 0 ? -1.0 : 0.0)) / s[i];
    }
  }
  if (m->lik == BNN_LIK_GAUSS) {
    /* sigma = exp(u); log p(sigma) + log |d sigma / d u| */
    lp += bnn_sigma_logprior(m->sigma_prior, m->sigma_prior_scale, theta[m->n_net],
                             grad ? grad + m->n_net : NULL);
  } else if (m->lik == BNN_LIK_STUDENT || m->lik == BNN_LIK_NEGBIN) {
    /* Student-t: sigma as the Gaussian's, then nu; negative binomial: phi.
     * A gamma(a, b) prior on v = exp(u) with the Jacobian:
     * a log b - lgamma(a) + a u - b exp(u) */
    int j = m->n_net;
    if (m->lik == BNN_LIK_STUDENT) {
      lp += bnn_sigma_logprior(m->sigma_prior, m->sigma_prior_scale, theta[j],
                               grad ? grad + j : NULL);
      j++;
    }
    if (m->lik == BNN_LIK_NEGBIN || !(m->nu_fixed > 0)) {
      double a = m->aux_shape, b = m->aux_rate, u = theta[j], v = exp(u);
      lp += a * log(b) - lgamma(a) + a * u - b * v;
      if (grad) grad[j] += a - b * v;
    }
  }
  return lp;
}

double bnn_model_logpost(void *ctx, const double *theta, double *grad) {
  bnn_model *m = ctx;
  double ll = bnn_model_loglik(m, theta, grad, 0, m->n);
  double lp = bnn_model_logprior(m, theta, grad);
  return ll + lp;
}

void bnn_model_forward(bnn_model *m, const double *theta, const double *X,
                       int nx, double *out) {
  int K = bnn_model_n_out(m);
  for (int r0 = 0; r0 < nx; r0 += BNN_CHUNK) {
    int mrows = nx - r0 < BNN_CHUNK ? nx - r0 : BNN_CHUNK;
    double *o = forward_chunk(m, theta, X, nx, r0, mrows, NULL);
    for (int k = 0; k < K; k++)
      memcpy(out + (size_t)k * nx + r0, o + (size_t)k * BNN_CHUNK,
             sizeof(double) * (size_t)mrows);
  }
}

double bnn_model_loglik_outputs(bnn_model *m, const double *theta,
                                const double *out, double *dout,
                                double *g_extra) {
  int K = bnn_model_n_out(m), n = m->n;
  double ll = 0.0;
  double *o = m->a;   /* BNN_CHUNK x (sum of layer widths) >= BNN_CHUNK x K */
  for (int r0 = 0; r0 < n; r0 += BNN_CHUNK) {
    int mrows = n - r0 < BNN_CHUNK ? n - r0 : BNN_CHUNK;
    for (int k = 0; k < K; k++)
      memcpy(o + (size_t)k * BNN_CHUNK, out + (size_t)k * n + r0,
             sizeof(double) * (size_t)mrows);
    /* as bnn_model_loglik: the weighted path for weighted models */
    double ge[2] = {0.0, 0.0};
    ll += lik_rows(m, theta, o, r0, mrows, m->w != NULL, dout ? m->delta : NULL,
                   g_extra ? ge : NULL);
    if (g_extra) *g_extra += ge[0];
    if (dout)
      for (int k = 0; k < K; k++)
        memcpy(dout + (size_t)k * n + r0, m->delta + (size_t)k * BNN_CHUNK,
               sizeof(double) * (size_t)mrows);
  }
  return ll;
}

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "adapt.h"

void bnn_da_init(bnn_dual_avg *da, double delta, double gamma, double kappa,
                 double t0) {
  da->delta = delta;
  da->gamma = gamma;
  da->kappa = kappa;
  da->t0 = t0;
  da->mu = log(10.0);
  bnn_da_restart(da);
}

void bnn_da_restart(bnn_dual_avg *da) {
  da->counter = 0;
  da->s_bar = 0;
  da->x_bar = 0;
}

double bnn_da_learn(bnn_dual_avg *da, double a) {
  da->counter += 1;
  if (a > 1) a = 1;
  if (!(a >= 0)) a = 0; /* NaN acceptance counts as a rejection */
  double eta = 1.0 / (da->counter + da->t0);
  da->s_bar = (1.0 - eta) * da->s_bar + eta * (da->delta - a);
  double x = da->mu - da->s_bar * sqrt(da->counter) / da->gamma;
  double x_eta = pow(da->counter, -da->kappa);
  da->x_bar = (1.0 - x_eta) * da->x_bar + x_eta * x;
  return exp(x);
}

/* Stan applies exp(x_bar) unconditionally, which resets eps to 1 when no
 * update happened since the last restart (fixed upstream in 2025); we only
 * apply it when there was at least one update. */
double bnn_da_final(const bnn_dual_avg *da, double eps) {
  return da->counter > 0 ? exp(da->x_bar) : eps;
}

static void win_restart(bnn_windowed *w) {
  w->counter = 0;
  w->window_size = w->base_window;
  w->next_window = w->init_buffer + w->window_size - 1;
  w->n = 0;
  if (w->mean) memset(w->mean, 0, sizeof(double) * (size_t)w->dim);
  if (w->m2) memset(w->m2, 0, sizeof(double) * (size_t)w->dim);
}

int bnn_win_init(bnn_windowed *w, int dim, int num_warmup, int init_buffer,
                 int term_buffer, int base_window, int adapt_metric) {
  memset(w, 0, sizeof *w);
  w->dim = dim;
  w->num_warmup = num_warmup;
  w->active = adapt_metric;
  if (num_warmup < 20) {
    w->active = 0;   /* too short: step size only, as Stan */
  } else if (init_buffer + base_window + term_buffer > num_warmup) {
    /* Stan's 15/75/10 split.  Stan forgets to restart here (stan-dev/stan
     * #3380), so its metric is never updated; we restart as intended. */
    init_buffer = (int)(0.15 * num_warmup);
    term_buffer = (int)(0.10 * num_warmup);
    base_window = num_warmup - (init_buffer + term_buffer);
  }
  w->init_buffer = init_buffer;
  w->term_buffer = term_buffer;
  w->base_window = base_window;
  w->mean = calloc((size_t)(dim > 0 ? dim : 1), sizeof(double));
  w->m2 = calloc((size_t)(dim > 0 ? dim : 1), sizeof(double));
  if (!w->mean || !w->m2) return 1;
  win_restart(w);
  return 0;
}

void bnn_win_free(bnn_windowed *w) {
  free(w->mean);
  free(w->m2);
  w->mean = w->m2 = NULL;
}

static int end_of_window(const bnn_windowed *w) {
  return w->counter == w->next_window && w->counter != w->num_warmup;
}

static int in_slow_window(const bnn_windowed *w) {
  return w->counter >= w->init_buffer &&
         w->counter < w->num_warmup - w->term_buffer &&
         w->counter != w->num_warmup;
}

static void compute_next_window(bnn_windowed *w) {
  if (w->next_window == w->num_warmup - w->term_buffer - 1) return;
  w->window_size *= 2;
  w->next_window = w->counter + w->window_size;
  if (w->next_window != w->num_warmup - w->term_buffer - 1) {
    int next_window_boundary = w->next_window + 2 * w->window_size;
    if (next_window_boundary >= w->num_warmup - w->term_buffer)
      w->next_window = w->num_warmup - w->term_buffer - 1;
  }
}

int bnn_win_learn(bnn_windowed *w, const double *q, double *inv_metric) {
  if (!w->active) return 0;
  int ret = 0;
  if (in_slow_window(w)) {
    w->n += 1;
    for (int i = 0; i < w->dim; i++) {
      double dlt = q[i] - w->mean[i];
      w->mean[i] += dlt / w->n;
      w->m2[i] += dlt * (q[i] - w->mean[i]);
    }
  }
  if (end_of_window(w)) {
    compute_next_window(w);
    double n = w->n;
    if (n >= 2) {
      for (int i = 0; i < w->dim; i++) {
        double var = w->m2[i] / (n - 1.0);
        var = (n / (n + 5.0)) * var + 1e-3 * (5.0 / (n + 5.0));
        if (!isfinite(var)) ret = -1;
        inv_metric[i] = var;
      }
      if (ret == 0) ret = 1;
    }
    w->n = 0;
    memset(w->mean, 0, sizeof(double) * (size_t)w->dim);
    memset(w->m2, 0, sizeof(double) * (size_t)w->dim);
  }
  w->counter++;
  return ret;
}

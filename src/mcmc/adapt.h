/* Stan's warm-up adaptation: dual averaging of the step size and windowed
 * estimation of a diagonal metric, with the deviations documented in
 * ?bnn_nuts (short warm-ups: the intended 15%/75%/10% windows are used). */
#ifndef BNNMC_ADAPT_H
#define BNNMC_ADAPT_H

typedef struct {
  double mu, s_bar, x_bar, counter;
  double delta, gamma, kappa, t0;
} bnn_dual_avg;

void bnn_da_init(bnn_dual_avg *da, double delta, double gamma, double kappa,
                 double t0);
void bnn_da_restart(bnn_dual_avg *da);
/* one update from an acceptance statistic; returns the new step size */
double bnn_da_learn(bnn_dual_avg *da, double accept_stat);
/* final step size exp(x_bar); returns eps unchanged if no update was made */
double bnn_da_final(const bnn_dual_avg *da, double eps);

typedef struct {
  int num_warmup, init_buffer, term_buffer, base_window;
  int window_size, next_window, counter;
  int active;           /* metric adaptation on */
  int dim;
  double n;             /* Welford count */
  double *mean, *m2;
} bnn_windowed;

/* returns nonzero on allocation failure */
int bnn_win_init(bnn_windowed *w, int dim, int num_warmup, int init_buffer,
                 int term_buffer, int base_window, int adapt_metric);
void bnn_win_free(bnn_windowed *w);
/* Feed the draw q of warm-up iteration `counter`; when a slow window ends,
 * writes the regularised variances into inv_metric and returns 1 (the caller
 * then re-initialises the step size and restarts dual averaging).  Returns
 * -1 if the estimate is not finite. */
int bnn_win_learn(bnn_windowed *w, const double *q, double *inv_metric);
#endif

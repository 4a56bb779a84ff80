/* Convergence diagnostics for MCMC draws (pure C core, no SEXP).
 *
 * The draws of one variable are n_iter * n_chain doubles, stored column-major
 * as a matrix [iteration, chain]; a whole draws array [iteration, chain,
 * variable] is n_var such matrices one after the other.
 *
 * The algorithms follow the R package 'posterior' (>= 1.4.0) exactly:
 * rank-normalised split R-hat (bulk), folded R-hat (tail), their maximum,
 * basic split R-hat, bulk/tail/basic ESS with Geyer's initial monotone
 * sequence (including posterior's quirks: odd chain lengths drop the middle
 * draw when splitting, tau = 2 when Geyer's loop never runs, the ESS cap
 * S * log10(S), constant or non-finite input -> NA), MCSE of the mean and of
 * quantiles.  One deliberate difference: with 2 or 3 iterations (split
 * chains of one draw) everything is NA, where posterior's split loses the
 * matrix dimension and returns values.  "NA" is returned as NaN; the .Call
 * layer maps it to NA_real_.
 *
 * Usage: the caller allocates bnn_diag_ws_size() bytes once per call
 * (suitably aligned for double, e.g. from R_alloc or malloc), initialises the
 * workspace with bnn_diag_ws_init(), then for each variable calls
 * bnn_diag_load() and any of the getters.  Intermediate results (the sort,
 * the rank-normalised draws) are cached per variable, so asking for several
 * diagnostics of the same variable costs one sort.  Nothing is allocated
 * after bnn_diag_ws_init().  The workspace holds no global state; two
 * workspaces can be used concurrently. */
#ifndef BNNMC_DIAGNOSTICS_H
#define BNNMC_DIAGNOSTICS_H
#include <stddef.h>

typedef struct bnn_diag_ws bnn_diag_ws;

/* Bytes needed for draws of n_iter x n_chain; kappa is the number of
 * sub-chains of the chain-wise R-hat (0 if it is not needed, else >= 2).
 * Returns 0 if the sizes are invalid or too large. */
size_t bnn_diag_ws_size(int n_iter, int n_chain, int kappa);
/* mem must hold bnn_diag_ws_size() bytes, aligned to 8 bytes at least. */
bnn_diag_ws *bnn_diag_ws_init(void *mem, int n_iter, int n_chain, int kappa);
/* Sets the current variable (n_iter * n_chain doubles; must stay valid while
 * the getters are used). */
void bnn_diag_load(bnn_diag_ws *ws, const double *x);
/* Number of ESS values capped at S * log10(S) since bnn_diag_ws_init(). */
int bnn_diag_n_capped(const bnn_diag_ws *ws);
/* Use the portable autocovariance routine even if the CPU has AVX2/FMA (for
 * testing both; results differ by rounding only). */
void bnn_diag_no_simd(bnn_diag_ws *ws);

/* Summaries over all draws (NaN if any draw is NaN). */
double bnn_diag_mean(bnn_diag_ws *ws);
double bnn_diag_sd(bnn_diag_ws *ws);
double bnn_diag_quantile(bnn_diag_ws *ws, double prob); /* type 7 */

/* R-hat (posterior::rhat, rhat_basic with split = TRUE). */
double bnn_diag_rhat_bulk(bnn_diag_ws *ws);
double bnn_diag_rhat_tail(bnn_diag_ws *ws);
double bnn_diag_rhat(bnn_diag_ws *ws);
double bnn_diag_rhat_basic(bnn_diag_ws *ws);

/* ESS (posterior::ess_bulk, ess_tail, ess_basic = ess_mean, ess_sd as in
 * posterior >= 1.5 i.e. on (x - mean(x))^2, ess_quantile). */
double bnn_diag_ess_bulk(bnn_diag_ws *ws);
double bnn_diag_ess_tail(bnn_diag_ws *ws);
double bnn_diag_ess_basic(bnn_diag_ws *ws);
double bnn_diag_ess_sd(bnn_diag_ws *ws);
double bnn_diag_ess_quantile(bnn_diag_ws *ws, double prob);

/* Relative efficiency of PSIS-LOO, as loo::relative_eff(exp(ll - max(ll)),
 * chain_id) computes it for one observation: loo's ess_rfun() on the whole
 * (not split) chains, divided by the number of draws.  Its workspace is
 * made by bnn_diag_reff_ws_init() (bnn_diag_reff_ws_size() bytes, aligned
 * as above) and serves bnn_diag_relative_eff() only.  ll holds the
 * log-likelihoods of the observation, n_iter * n_chain doubles, chain by
 * chain; they are read, not changed, and need no copy.  Like loo: a
 * constant ll, or ll with NaN, an all -Inf ll or +Inf gives 1 / max(2,
 * 1 / log10(S)) (S = n_iter * n_chain; 1/2 for S >= 100).  Unlike loo,
 * which stops with an error, a single iteration (n_iter = 1) gives NaN. */
size_t bnn_diag_reff_ws_size(int n_iter, int n_chain);
bnn_diag_ws *bnn_diag_reff_ws_init(void *mem, int n_iter, int n_chain);
double bnn_diag_relative_eff(bnn_diag_ws *ws, const double *ll);

/* MCSE (posterior::mcse_mean, mcse_quantile). */
double bnn_diag_mcse_mean(bnn_diag_ws *ws);
double bnn_diag_mcse_quantile(bnn_diag_ws *ws, double prob);

/* Chain-wise R-hat cR^(kappa) (Sommer et al. 2024, App. B): for each chain,
 * the first n_iter mod kappa draws are dropped, the remaining draws are rank
 * normalised within the chain, cut into kappa contiguous sub-chains of equal
 * length and the R-hat of these sub-chains is computed.  out[c] is NaN if the
 * chain contains NaN, is constant, or sub-chains have fewer than 2 draws.
 * Requires kappa >= 2 at initialisation. */
void bnn_diag_chainwise_rhat(bnn_diag_ws *ws, double *out);

/* Chain moments on the raw draws, as in the reference code of Sommer et al.
 * (2024, Fig. 3-4): *within = mean over chains of the chain variances and
 * *between = variance of the chain means, both with denominator n (resp.
 * n_chain); slope[c] = |OLS slope| of chain c's draws on t = (s - 1) / n_iter
 * (NaN if n_iter < 2). */
void bnn_diag_moments(bnn_diag_ws *ws, double *within, double *between,
                      double *slope);

/* Cumulative (expanding-window) LPPD, Sommer et al. (2024) Eq. 8.
 * ll: [n_iter, n_chain, n_obs] column-major, ll = log p(y_i | theta_s).
 * out: [n_iter, n_chain]; out[t, c] = mean_i log(mean_{s <= t} exp(ll[s,c,i])),
 * computed with a running log-sum-exp per observation. */
void bnn_cumulative_lppd(const double *ll, int n_iter, int n_chain, int n_obs,
                         double *out);
/* Its pieces, for callers that check for interrupts in between: adds the
 * terms of observations [i0, i1) of chain c to oc (n_iter values, zeroed
 * first); bnn_cumulative_lppd is these over all observations in order, then
 * oc / n_obs, so the results are identical. */
void bnn_cumulative_lppd_add(const double *ll, int n_iter, int n_chain, int c,
                             int i0, int i1, double *oc);

/* Stopping rule, Eq. 9: the first l (1-based, l > window) with
 * |mean(lppd[l - window .. l - 1]) - lppd[l]| < eps, per chain; 0 if never. */
void bnn_lppd_stop(const double *lppd, int n_iter, int n_chain, double eps,
                   int window, int *out);
#endif

/* Predictive metrics for Gaussian-mixture predictive distributions (pure C,
 * no R API).
 *
 * One observation's predictive distribution is an equally weighted mixture of
 * S Gaussians N(mu[s], sd[s]^2), s = 0..S-1 (one per posterior draw), with all
 * sd[s] > 0 and finite.  For n observations the callers store the draws of
 * observation i contiguously at mu + i * S (an S x n column-major matrix). */
#ifndef BNNMC_METRICS_H
#define BNNMC_METRICS_H

/* Mixture CDF F(q) = (1/S) sum_s Phi((q - mu_s) / sd_s); if dens is not NULL
 * it receives the mixture density at q. */
double bnn_gmix_cdf(const double *mu, const double *sd, int S, double q,
                    double *dens);

/* log of the mixture density at y, by log-sum-exp (no underflow for y far
 * in the tails). */
double bnn_gmix_logpdf(const double *mu, const double *sd, int S, double y);

/* Mixture mean (1/S) sum_s mu_s. */
double bnn_gmix_mean(const double *mu, int S);

/* Quantiles of one mixture at the m probabilities p[0..m-1], which must be
 * sorted ascending and lie in (0, 1); zp[j] = Phi^{-1}(p[j]) (supplied by the
 * caller so that this file needs no normal quantile function).  Each root of
 * F(q) = p[j] is found by safeguarded Halley/Newton iteration (bisection
 * fallback) inside the bracket [min_s (mu_s + sd_s zp[j]),
 * max_s (mu_s + sd_s zp[j])], which always contains it, to an accuracy of
 * tol * max(1, |q|).  Many probabilities (at least 8, and four times as
 * many as the pieces needed) are instead found from Taylor expansions of F
 * over pieces that cover the bracket, each piece one pass over the
 * components, to rounding (see metrics.c).  Writes q[0..m-1] and the number
 * of passes over the components (CDF evaluations or pieces) to *passes;
 * returns the largest number of CDF evaluations used for one root
 * (BNN_GMIX_MAXIT means the last iterate was returned without convergence;
 * 1 for the Taylor pieces). */
#define BNN_GMIX_MAXIT 200
int bnn_gmix_quantiles(const double *mu, const double *sd, int S,
                       const double *p, const double *zp, int m, double tol,
                       double *q, int *passes);

#endif

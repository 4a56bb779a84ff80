/* Kronecker factors of the Laplace approximation's curvature (KFAC; Ritter
 * et al. 2018), for networks with one output and a likelihood without its
 * own parameter (Gaussian with fixed sigma, Bernoulli).
 *
 * For weight layer l with input a (with a 1 appended for the bias) and
 * pre-activation z, and g = sqrt(lambda_i) d f_i / d z, lambda_i the
 * second derivative of the row's negative log-likelihood with respect to
 * the output f_i (1 / sigma^2, or p (1 - p) for Bernoulli), the sums over
 * rows A_l = sum_i a a^T ((fin + 1) x (fin + 1)) and G_l = sum_i g g^T
 * (fout x fout) are returned; the generalised Gauss-Newton block of the
 * layer is approximately (G_l kron A_l) / n in the coordinates vec([W; b^T]).
 * The pass is the model's own (model.c, bnn_pass) with hooks that add to
 * A_l and G_l. */
#ifndef BNNMC_LAPLACE_H
#define BNNMC_LAPLACE_H
#include "model.h"

/* A[l], G[l]: column-major, zeroed and filled (both triangles).  Returns
 * 0 on success, -1 for an unsupported likelihood or output size, -2 on
 * allocation failure. */
int bnn_kfac_factors(bnn_model *m, const double *theta, double **A, double **G);
#endif

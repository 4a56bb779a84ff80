/* The isotropic-normal log prior's data term and gradient, for the
 * minibatch target (minibatch.c), where it costs as much as the likelihood
 * of a small batch.  Included by the SIMD files with KSUF defined.
 *
 * grad[i] -= (theta[i] / s[i]) / s[i], the same operations as the scalar
 * loop of bnn_model_logprior, so the gradient is the same bit for bit on
 * every instruction set; the returned sum of (theta[i] / s[i])^2 is
 * accumulated in eight independent sums, so it may differ in its last bits
 * (it enters only the reported log density, never a stochastic-gradient
 * move). */
static double KSUF(prior_normal)(const double *restrict theta,
                                 const double *restrict s,
                                 double *restrict grad, int n) {
  double acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  int i = 0;
  for (; i + 8 <= n; i += 8)
    for (int l = 0; l < 8; l++) {
      double u = theta[i + l] / s[i + l];
      acc[l] += u * u;
      grad[i + l] -= u / s[i + l];
    }
  for (int l = 0; i < n; i++, l++) {
    double u = theta[i] / s[i];
    acc[l] += u * u;
    grad[i] -= u / s[i];
  }
  return ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
}

/* u[i] = theta[i] / s[i] and, unless grad is NULL, grad[i] -= u[i] / s[i]:
 * the divisions of bnn_model_logprior's normal prior, which adds up its
 * log density from u in its own serial order.  Each element is one
 * correctly rounded division (and subtraction) on every instruction set,
 * so the results are the scalar loop's bit for bit; here the divisions
 * run several to a vector instead of one at a time (two per parameter
 * kept the divider busy for most of the log prior's time). */
static void KSUF(prior_normal_u)(const double *restrict theta, const double *restrict s,
                                 double *restrict u, double *restrict grad, int n) {
  if (grad)
    for (int i = 0; i < n; i++) {
      double v = theta[i] / s[i];
      u[i] = v;
      grad[i] -= v / s[i];
    }
  else
    for (int i = 0; i < n; i++) u[i] = theta[i] / s[i];
}

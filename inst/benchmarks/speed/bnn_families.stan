// A one-hidden-layer tanh network with the count, robust and binomial
// likelihoods of bnnmc, written out in full (every constant kept, target +=)
// so that its log density can be compared with bnnmc's to rounding.  The
// likelihood's own parameter lives on the log scale, as in bnnmc, with the
// Jacobian of exp() added to its prior.
//   lik = 1: Poisson (log link), 2: negative binomial (mean, phi),
//         3: Student-t (location, sigma, nu), 4: binomial (logit link)
data {
  int<lower=1> N;
  int<lower=1> P;
  int<lower=1> H;
  int<lower=1, upper=4> lik;
  matrix[N, P] X;
  vector[N] y_real;             // Student-t: the standardised response
  int y_int[N];                 // counts, or successes
  int trials[N];                // binomial trials
  real eta_center;              // the fixed centre of the linear predictor
  real sigma_scale;             // half-normal scale of sigma
  real aux_shape;               // gamma prior of phi or nu
  real aux_rate;
}
parameters {
  matrix[P, H] W1;
  vector[H] b1;
  vector[H] W2;
  real b2;
  vector[lik == 2 ? 1 : (lik == 3 ? 2 : 0)] u;   // log phi; or log sigma, log nu
}
model {
  vector[N] f = tanh(X * W1 + rep_matrix(b1', N)) * W2 + b2;
  target += normal_lpdf(to_vector(W1) | 0, 1) + normal_lpdf(b1 | 0, 1) +
            normal_lpdf(W2 | 0, 1) + normal_lpdf(b2 | 0, 1);
  if (lik == 1) {
    target += poisson_log_lpmf(y_int | f + eta_center);
  } else if (lik == 2) {
    real phi = exp(u[1]);
    target += gamma_lpdf(phi | aux_shape, aux_rate) + u[1];
    target += neg_binomial_2_log_lpmf(y_int | f + eta_center, phi);
  } else if (lik == 3) {
    real sigma = exp(u[1]);
    real nu = exp(u[2]);
    target += normal_lpdf(sigma | 0, sigma_scale) + log(2) + u[1];
    target += gamma_lpdf(nu | aux_shape, aux_rate) + u[2];
    target += student_t_lpdf(y_real | nu, f, sigma);
  } else {
    target += binomial_logit_lpmf(y_int | trials, f + eta_center);
  }
}

// The papers' regression BNN: two hidden layers, heteroscedastic Gaussian
// head (mean, log sd; sd clipped to [1e-6, 1e6]), N(0, 1) priors on every
// weight and bias.  act = 1: tanh, act = 2: relu.
data {
  int<lower=1> N;
  int<lower=1> P;
  int<lower=1> H1;
  int<lower=1> H2;
  int<lower=1, upper=2> act;
  matrix[N, P] X;
  vector[N] y;
}
parameters {
  matrix[P, H1] W1;
  vector[H1] b1;
  matrix[H1, H2] W2;
  vector[H2] b2;
  matrix[H2, 2] W3;
  vector[2] b3;
}
model {
  matrix[N, H1] h1 = X * W1 + rep_matrix(b1', N);
  matrix[N, H2] h2;
  vector[N] mu;
  vector[N] sd_y;
  if (act == 1) {
    h1 = tanh(h1);
  } else {
    h1 = 0.5 * (h1 + fabs(h1));  // relu (Stan 2.21 has no vectorised fmax)
  }
  h2 = h1 * W2 + rep_matrix(b2', N);
  if (act == 1) {
    h2 = tanh(h2);
  } else {
    h2 = 0.5 * (h2 + fabs(h2));
  }
  mu = h2 * col(W3, 1) + b3[1];
  sd_y = exp(h2 * col(W3, 2) + b3[2]);
  for (n in 1:N) sd_y[n] = fmin(fmax(sd_y[n], 1e-6), 1e6);
  to_vector(W1) ~ std_normal();
  b1 ~ std_normal();
  to_vector(W2) ~ std_normal();
  b2 ~ std_normal();
  to_vector(W3) ~ std_normal();
  b3 ~ std_normal();
  y ~ normal(mu, sd_y);
}

# A network without hidden layers, fixed noise and a Normal prior is Bayesian
# linear regression with a known Gaussian posterior.

test_that("no-hidden-layer BNN reproduces the conjugate linear-regression posterior", {
  set.seed(42)
  n <- 40
  d <- data.frame(x1 = rnorm(n), x2 = rnorm(n))
  d$y <- 1 + 2 * d$x1 - d$x2 + rnorm(n, sd = 0.5)
  sigma <- 0.6; s <- 1.5
  fit <- bnn_fit(y ~ x1 + x2, data = d, hidden = integer(0),
                 likelihood = bnn_likelihood("gaussian", sigma = sigma),
                 prior = bnn_prior(scale = s), chains = 4, warmup = 500,
                 iter = 2000, seed = 1, progress = FALSE, sampler = "nuts")
  Z <- cbind(fit$X, 1)
  yy <- fit$y_model
  A <- crossprod(Z) / sigma^2 + diag(3) / s^2
  Sig <- solve(A)
  mu <- drop(Sig %*% crossprod(Z, yy)) / sigma^2
  draws <- fit$draws  # W1[1,1], W1[2,1], b1[1]
  expect_equal(dimnames(draws)[[3]], c("W1[1,1]", "W1[2,1]", "b1[1]"))
  for (j in 1:3) {
    x <- draws[, , j]
    expect_lt(abs(mean(x) - mu[j]) / batch_mcse(x), 4)
    sq <- (x - mu[j])^2
    expect_lt(abs(mean(sq) - Sig[j, j]) / batch_mcse(sq), 4)
  }
  emp <- cov(matrix(draws, ncol = 3))
  expect_equal(unname(cov2cor(emp)), unname(cov2cor(Sig)), tolerance = 0.05)
})

test_that("the sampled sigma of the homoscedastic likelihood is positive and sensible", {
  set.seed(2)
  n <- 60
  d <- data.frame(x = rnorm(n))
  d$y <- d$x + rnorm(n, sd = 0.5)
  fit <- bnn_fit(y ~ x, data = d, hidden = integer(0), likelihood = "gaussian",
                 chains = 2, warmup = 300, iter = 500, seed = 3, progress = FALSE, sampler = "nuts")
  s <- fit$draws[, , "sigma"]
  expect_true(all(s > 0))
  # residual sd of the standardised response
  r <- residuals(lm(y ~ x, d)) / sd(d$y)
  expect_equal(mean(s), sqrt(sum(r^2) / (n - 2)), tolerance = 0.1)
})

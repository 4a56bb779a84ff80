# Laplace approximation: exact on the conjugate linear model.

lin_data <- function(n = 30, seed = 11) {
  set.seed(seed)
  d <- data.frame(x1 = rnorm(n), x2 = rnorm(n), x3 = runif(n))
  d$y <- 0.5 + d$x1 - 2 * d$x2 + 0.3 * d$x3 + rnorm(n, sd = 0.4)
  d
}

# Exact posterior of the linear model y = X w + b + e, e ~ N(0, sigma^2),
# (w, b) ~ N(0, s^2 I), in the package's layout (W1 then b1), on the
# standardised scale the fit uses.
lin_exact <- function(fit, sigma, tau) {
  X1 <- cbind(fit$X, 1)
  y <- fit$y_model
  P <- crossprod(X1) / sigma^2 + diag(tau, ncol(X1))
  S <- solve(P)
  dimnames(S) <- dimnames(P) <- NULL
  list(mean = drop(S %*% crossprod(X1, y)) / sigma^2, cov = S, prec = P,
       evidence = function(t) {
         C <- sigma^2 * diag(length(y)) + tcrossprod(X1) / t
         R <- chol(C)
         -0.5 * sum(backsolve(R, y, transpose = TRUE)^2) - sum(log(diag(R))) -
           length(y) / 2 * log(2 * pi)
       })
}

test_that("full Laplace equals the exact posterior of the conjugate linear model", {
  d <- lin_data()
  sigma <- 0.5
  la <- bnn_laplace(y ~ ., d, hidden = integer(0),
                    likelihood = bnn_likelihood("gaussian", sigma = sigma),
                    prior = bnn_prior(scale = 0.7), draws = 50, seed = 3,
                    optimizer = bnn_optimizer(optimizer = "adam", weight_decay = 0,
                                              epochs = 50, loss = "posterior"))
  ex <- lin_exact(la, sigma, 1 / 0.7^2)
  expect_equal(unname(la$approx$map), ex$mean, tolerance = 1e-8)
  expect_equal(unname(solve(la$approx$hessian)), ex$cov, tolerance = 1e-8)
  expect_equal(unname(la$approx$hessian), ex$prec, tolerance = 1e-8)
  # the Laplace evidence of a Gaussian model is exact
  expect_equal(la$approx$log_marglik, ex$evidence(1 / 0.7^2), tolerance = 1e-8)
  # draws: MAP + R^{-1} z with the seed's normals
  z <- bnnmc:::with_seed(3, matrix(rnorm(4 * 50), 4, 50))
  R <- chol(ex$prec)
  expect_equal(unname(la$draws[, 1, ]), t(ex$mean + backsolve(R, z)), tolerance = 1e-8)
  expect_s3_class(la, "bnnfit")
  expect_equal(dim(la$draws), c(50L, 1L, 4L))
})

test_that("marginal-likelihood tuning finds the exact evidence maximiser", {
  d <- lin_data(40, 5)
  sigma <- 0.3
  la <- bnn_laplace(y ~ ., d, hidden = integer(0),
                    likelihood = bnn_likelihood("gaussian", sigma = sigma),
                    prior_precision = "marglik", draws = 10, seed = 1,
                    optimizer = bnn_optimizer(epochs = 20, loss = "posterior"))
  ex0 <- lin_exact(la, sigma, 1)
  best <- optimize(function(lt) ex0$evidence(exp(lt)), c(-10, 10), maximum = TRUE,
                   tol = 1e-12)$maximum
  tau <- la$approx$prior_precision
  expect_equal(log(tau), best, tolerance = 1e-5)
  ex <- lin_exact(la, sigma, tau)
  expect_equal(unname(la$approx$map), ex$mean, tolerance = 1e-8)
  expect_equal(la$approx$log_marglik, ex$evidence(tau), tolerance = 1e-8)
  expect_equal(la$prior$scale, 1 / sqrt(tau))
})

# Priors of a sampled Gaussian sigma, applied on u = log sigma with the
# Jacobian: half-normal on sigma (default), exponential on sigma, and
# half-normal on the variance (Wiese et al. 2023 as printed).
sigma_part <- function(prior, scale, u) {
  set.seed(1)
  X <- matrix(rnorm(10), 10, 1); y <- rnorm(10)
  lik <- bnn_likelihood("gaussian", sigma_prior = prior, sigma_prior_scale = scale)
  spec <- bnnmc:::make_spec(bnnmc:::layer_sizes(1L, integer(0), lik), "tanh", lik,
                            bnn_prior(), X = X, y = y)
  th <- rbind(matrix(c(0.3, -0.2), 2, length(u)), u)
  res <- .Call(bnnmc:::C_model_logpost, spec, th)
  list(lp = res$logprior - sum(dnorm(c(0.3, -0.2), log = TRUE)),
       grad = res$grad[3, ] - 0)   # the weights' prior gradient is not in row 3
}

test_that("each sigma prior equals its density in log sigma, Jacobian included", {
  u <- c(-2, -0.5, 0, 0.7, 1.5)
  s <- exp(u)
  for (c0 in c(0.5, 1, 3)) {
    expect_equal(sigma_part("half_normal", c0, u)$lp,
                 log(2) + dnorm(s, 0, c0, log = TRUE) + u, tolerance = 1e-12)
    expect_equal(sigma_part("exponential", c0, u)$lp,
                 dexp(s, c0, log = TRUE) + u, tolerance = 1e-12)
    expect_equal(sigma_part("half_normal_variance", c0, u)$lp,
                 log(2) + dnorm(s^2, 0, c0, log = TRUE) + log(2 * s^2), tolerance = 1e-12)
  }
})

test_that("each sigma prior is a proper density in log sigma", {
  for (pr in c("half_normal", "exponential", "half_normal_variance")) {
    f <- function(u) exp(sigma_part(pr, 1.5, u)$lp)
    expect_equal(stats::integrate(f, -30, 10)$value, 1, tolerance = 1e-6)
  }
})

test_that("the sigma prior's gradient equals finite differences", {
  set.seed(2)
  X <- matrix(rnorm(30), 15, 2); y <- rnorm(15)
  for (pr in c("half_normal", "exponential", "half_normal_variance")) {
    lik <- bnn_likelihood("gaussian", sigma_prior = pr, sigma_prior_scale = 0.7)
    spec <- bnnmc:::make_spec(bnnmc:::layer_sizes(2L, 3L, lik), "tanh", lik,
                              bnn_prior(), X = X, y = y)
    th <- rnorm(bnnmc:::spec_dim(spec), 0, 0.5)
    g <- .Call(bnnmc:::C_model_logpost, spec, matrix(th))$grad[, 1]
    d <- length(th)
    h <- 1e-6
    fd <- (.Call(bnnmc:::C_model_logpost, spec, matrix(th + c(rep(0, d - 1), h)))$lp -
             .Call(bnnmc:::C_model_logpost, spec, matrix(th - c(rep(0, d - 1), h)))$lp) / (2 * h)
    expect_equal(g[d], fd, tolerance = 1e-7)
  }
})

test_that("a fit with the prior on the variance runs and reports it", {
  lik <- bnn_likelihood("gaussian", sigma_prior = "half_normal_variance")
  expect_output(print(lik), "half_normal_variance")
  fit <- suppressWarnings(bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, likelihood = lik,
                                  sampler = "nuts", chains = 1, warmup = 50, iter = 50,
                                  seed = 1, progress = FALSE))
  expect_true(all(fit$chain_status == "ok"))
  expect_match(format(prior_summary(fit)$prior), "half_normal_variance", all = FALSE)
  expect_error(bnn_likelihood("gaussian", sigma_prior = "inverse_gamma"), "sigma_prior")
})

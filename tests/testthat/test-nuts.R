# NUTS and HMC on targets with known answers.

within_mcse <- function(draws, truth_mean, truth_var, k = 4) {
  # draws: [iteration, chain, variable]
  z_mean <- z_var <- numeric(dim(draws)[3])
  for (j in seq_len(dim(draws)[3])) {
    x <- draws[, , j]
    z_mean[j] <- (mean(x) - truth_mean[j]) / batch_mcse(x)
    sq <- (x - truth_mean[j])^2
    z_var[j] <- (mean(sq) - truth_var[j]) / batch_mcse(sq)
  }
  list(mean = z_mean, var = z_var)
}

test_that("NUTS recovers a 100-dimensional standard normal", {
  d <- 100
  out <- bnn_sample_gaussian(rep(0, d), diag(d), chains = 4, warmup = 500,
                             iter = 1000, seed = 2024)
  z <- within_mcse(out$draws, rep(0, d), rep(1, d))
  # 200 z-scores: each within 4 MCSE (a false alarm has probability ~1e-2)
  expect_true(all(abs(z$mean) < 4), info = paste(range(z$mean)))
  expect_true(all(abs(z$var) < 4), info = paste(range(z$var)))
  expect_true(all(out$sampler_stats[, , "divergent__"] == 0))
  # adapted metric close to the true variances
  # (the last window has 200 correlated draws, so single values vary by ~15%)
  expect_lt(abs(mean(out$inv_metric) - 1), 0.05)
  expect_true(all(out$inv_metric > 0.4 & out$inv_metric < 2))
})

test_that("NUTS recovers a strongly correlated 2-D Gaussian", {
  S <- matrix(c(1, 0.95 * 3, 0.95 * 3, 9), 2)
  out <- bnn_sample_gaussian(c(1, -2), solve(S), chains = 4, warmup = 1000,
                             iter = 2000, seed = 7)
  z <- within_mcse(out$draws, c(1, -2), diag(S))
  expect_true(all(abs(z$mean) < 4), info = paste(z$mean))
  expect_true(all(abs(z$var) < 4), info = paste(z$var))
  x <- matrix(out$draws, ncol = 2)
  expect_equal(cor(x)[1, 2], 0.95, tolerance = 0.01)
  acc <- mean(out$sampler_stats[, , "accept_stat__"])
  expect_gt(acc, 0.7)
})

test_that("static HMC with adaptation recovers a Gaussian", {
  d <- 10
  v <- seq(0.5, 2, length.out = d)
  out <- bnn_sample_gaussian(rep(0, d), diag(1 / v), chains = 4, warmup = 500,
                             iter = 2000, seed = 3,
                             sampler = bnn_hmc(stepsize = 0.1, trajectory_length = 2,
                                               adapt_stepsize = TRUE, adapt_metric = TRUE))
  z <- within_mcse(out$draws, rep(0, d), v)
  expect_true(all(abs(z$mean) < 4), info = paste(z$mean))
  expect_true(all(abs(z$var) < 4), info = paste(z$var))
  nl <- out$sampler_stats[, , "n_leapfrog__"]
  expect_true(all(nl == floor(2 / out$sampler_stats[, , "stepsize__"])))
})

test_that("gradient evaluations are counted exactly", {
  out <- bnn_sample_gaussian(c(0, 0), diag(2), chains = 1, warmup = 0, iter = 50,
                             seed = 1, sampler = bnn_nuts(adapt_stepsize = FALSE, stepsize = 0.5))
  # one evaluation at the start plus one per leapfrog step
  expect_equal(out$n_grad, 1 + sum(out$sampler_stats[, , "n_leapfrog__"]))
})

test_that("a divergence is reported and never becomes a draw", {
  # a huge step size on a narrow Gaussian: every trajectory diverges
  out <- bnn_sample_gaussian(c(0, 0), diag(c(1e4, 1e4)), chains = 1, warmup = 0,
                             iter = 20, seed = 1, init = list(c(0.01, 0.01)),
                             sampler = bnn_nuts(adapt_stepsize = FALSE, stepsize = 10))
  expect_true(all(out$sampler_stats[, , "divergent__"] == 1))
  # the chain never left its init: a failed chain with a reason,
  # not 20 draws equal to the init
  expect_identical(as.character(out$chain_status),
                   "the chain never moved (every transition rejected)")
  expect_true(all(is.na(out$draws)))
})

test_that("Stan's windows are used, and the short-warm-up branch adapts the metric", {
  # 100 warm-up iterations: 15/75/10 buffers; Stan never updates the metric
  # there (stan-dev/stan#3380), we do.
  v <- c(0.01, 100)
  out <- bnn_sample_gaussian(c(0, 0), diag(1 / v), chains = 1, warmup = 100,
                             iter = 10, seed = 9)
  expect_false(isTRUE(all.equal(out$inv_metric[1, ], c(1, 1))))
  expect_gt(out$inv_metric[1, 2] / out$inv_metric[1, 1], 100)
})

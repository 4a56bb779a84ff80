# Preconditioned Crank-Nicolson (src/mcmc/pcn.c, R/sampler-pcn.R).

pcn_linear_data <- function() {
  set.seed(42)
  n <- 40
  d <- data.frame(x1 = rnorm(n), x2 = rnorm(n))
  d$y <- 1 + 2 * d$x1 - d$x2 + rnorm(n, sd = 0.5)
  d
}

test_that("pCN leaves the conjugate linear-regression posterior invariant", {
  d <- pcn_linear_data()
  sigma <- 0.6; s <- 1.5
  fit <- bnn_fit(y ~ x1 + x2, data = d, hidden = integer(0),
                 likelihood = bnn_likelihood("gaussian", sigma = sigma),
                 prior = bnn_prior(scale = s), sampler = bnn_pcn(), chains = 4,
                 warmup = 1000, iter = 5000, seed = 1, progress = FALSE)
  expect_true(all(fit$chain_status == "ok"))
  Z <- cbind(fit$X, 1)
  A <- crossprod(Z) / sigma^2 + diag(3) / s^2
  Sig <- solve(A)
  mu <- drop(Sig %*% crossprod(Z, fit$y_model)) / sigma^2
  for (j in 1:3) {
    x <- fit$draws[, , j]
    expect_lt(abs(mean(x) - mu[j]) / batch_mcse(x), 4)
    sq <- (x - mu[j])^2
    expect_lt(abs(mean(sq) - Sig[j, j]) / batch_mcse(sq), 4)
  }
  # beta was tuned towards the default target 0.25, then fixed
  acc <- mean(fit$sampler_stats[, , "accept_stat__"])
  expect_gt(acc, 0.18)
  expect_lt(acc, 0.32)
  b <- fit$sampler_stats[, , "stepsize__"]
  expect_true(all(apply(b, 2, function(v) length(unique(v)) == 1L)))
  expect_equal(unname(b[1, ]), unname(fit$stepsize))
  # lp__ is the log posterior; loglik__ the log-likelihood alone
  th <- fit$draws[10, 1, ]
  lp <- bnn_log_posterior(fit, th)
  expect_equal(unname(fit$sampler_stats[10, 1, "lp__"]), lp$lp, tolerance = 1e-10)
  expect_equal(unname(fit$sampler_stats[10, 1, "loglik__"]), lp$loglik, tolerance = 1e-10)
})

test_that("pCN with a sampled sigma (Metropolis-within-Gibbs) agrees with NUTS", {
  d <- pcn_linear_data()
  args <- list(y ~ x1 + x2, data = d, hidden = integer(0), likelihood = "gaussian",
               chains = 4, seed = 2, progress = FALSE)
  pc <- do.call(bnn_fit, c(args, list(sampler = "pcn", warmup = 1000, iter = 4000)))
  nu <- do.call(bnn_fit, c(args, list(sampler = "nuts", warmup = 300, iter = 1000)))
  for (j in c("W1[1,1]", "b1[1]", "sigma")) {
    a <- pc$draws[, , j]
    b <- nu$draws[, , j]
    z <- (mean(a) - mean(b)) / sqrt(batch_mcse(a)^2 + batch_mcse(b)^2)
    expect_lt(abs(z), 4, label = j)
  }
  ax <- mean(pc$sampler_stats[, , "accept_extra__"])
  expect_gt(ax, 0.3)
  expect_lt(ax, 0.6)
})

test_that("pCN's draws depend only on the seed and chain, not on blocks", {
  d <- pcn_linear_data()
  fit <- bnn_fit(y ~ x1, data = d, hidden = 2, sampler = bnn_pcn(), chains = 1,
                 warmup = 20, iter = 5, seed = 1, progress = FALSE, likelihood = "hetero_gaussian")
  spec <- bnnmc:::fit_spec(fit)
  init <- fit$inits[[1]]
  a <- bnnmc:::run_chain(spec, init, 7, 2L, bnn_pcn(), 100L, 150L, 1L, block = 7L)
  b <- bnnmc:::run_chain(spec, init, 7, 2L, bnn_pcn(), 100L, 150L, 1L, block = 150L)
  expect_identical(a$draws, b$draws)
  expect_identical(a$warmup_stats, b$warmup_stats)
  # without tuning beta stays where it was put
  f <- bnnmc:::run_chain(spec, init, 7, 2L, bnn_pcn(beta = 0.3, adapt_beta = FALSE),
                                10L, 20L, 1L)
  expect_true(all(f$stats[, 2] == 0.3))
  expect_identical(f$stepsize, 0.3)
})

test_that("pCN refuses non-Gaussian priors and bad settings, naming them", {
  d <- pcn_linear_data()
  expect_error(bnn_fit(y ~ x1, data = d, hidden = integer(0), prior = "laplace",
                       sampler = "pcn", chains = 1, warmup = 10, iter = 10, seed = 1),
               "needs prior = bnn_prior\\(\"normal\"\\)")
  spec <- list(type = "gaussian", mean = c(0, 0), prec = as.double(diag(2)))
  expect_error(bnnmc:::run_chain(spec, c(0, 0), 1, 1L, bnn_pcn(), 10L, 10L, 1L),
               "needs a model with a Normal prior")
  expect_error(bnn_pcn(beta = 0), "'beta'")
  expect_error(bnn_pcn(beta = 1.5), "'beta'")
  expect_error(bnn_pcn(target_accept = 1), "'target_accept'")
  expect_error(bnn_pcn(extra_stepsize = -1), "'extra_stepsize'")
  expect_output(print(bnn_pcn()), "preconditioned Crank-Nicolson")
})

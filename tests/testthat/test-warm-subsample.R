# The default's warm-up on a subsample of the rows on large data
# (R/run-warm-subsample.R): when it applies, that the chain's draws are of
# the full data's posterior, and that the draws do not depend on how the
# chains are run.

test_that("the default tunes on a subsample only above 2,000 rows, unless switched off", {
  run <- sampler_resolve_run(default_sampler(), NULL, 1000L, 10L,
                             c(warmup = FALSE, iter = FALSE, thin = FALSE, init = FALSE))
  given <- c(warmup = FALSE, iter = FALSE, thin = FALSE, init = FALSE)
  expect_identical(default_run_for_rows(run, 2000, given), run)
  # measured on the Gaussian likelihood only: counts and classes as before
  expect_identical(default_run_for_rows(run, 16000, given, "poisson"), run)
  expect_identical(default_run_for_rows(run, 16000, given, "bernoulli"), run)
  big <- default_run_for_rows(run, 16000, given)
  expect_identical(big$sampler$warm_rows, 2000L)
  expect_identical(big$sampler$n_samples, 2000L)
  expect_identical(big$iter, 2000L)
  expect_identical(big$sampler$n_tune, run$sampler$n_tune)
  # iter given: the sampling the user asked for
  expect_identical(default_run_for_rows(run, 16000, replace(given, "iter", TRUE))$sampler$n_samples,
                   run$sampler$n_samples)
  old <- options(bnnmc.warm_subsample = FALSE)
  on.exit(options(old))
  expect_identical(default_run_for_rows(run, 16000, given), run)
  expect_identical(vapply(c(2001, 16000, 40000, 1e5, 1e6), warm_subsample_size, 1L),
                   c(2000L, 2000L, 5000L, 8000L, 8000L))
  expect_match(format(big$sampler), "on a subsample of 2,000 rows but for the last 500 steps")
})

test_that("a chain warmed up on a subsample samples the full data's posterior", {
  # Bayesian linear regression with a known noise sd: the exact posterior is
  # Gaussian.  The chain tunes on 300 of 4,000 rows (each weighted by
  # 4000/300), whose own posterior mean sits several full-data posterior sds
  # away; its draws must be those of all rows.
  set.seed(3)
  n <- 4000
  X <- matrix(rnorm(2 * n), n, 2)
  y <- drop(X %*% c(0.5, -0.3)) + 0.2 + rnorm(n)
  spec <- list(type = "bnn", sizes = c(2L, 1L), act = 0L, lik = .likelihoods[["gaussian_fixed"]],
               prior = 0L, prior_scale = rep(10, 3), sigma_fixed = 1, sigma_prior = 0L,
               sigma_prior_scale = 1, X = X, y = y)
  Z <- cbind(X, 1)
  prec <- crossprod(Z) + diag(3) / 100
  mu <- drop(solve(prec, crossprod(Z, y)))
  sd <- sqrt(diag(solve(prec)))
  rows <- sort(sample(n, 300))
  s <- default_sampler()
  s$n_tune <- c(1600L, 400L, 200L)
  s$n_samples <- 4000L
  s$thin <- 2L
  s$warm_rows <- 300L
  r <- run_chain_warm_subsample(spec, rows, c(0, 0, 0), seed = 1, chain_id = 1L, sampler = s,
                                lr = 1e-3)
  expect_identical(r$status, "ok")
  expect_identical(dim(r$draws), c(2000L, 3L))
  expect_identical(nrow(r$tuning_stats), 2200L)
  # stage 1 and stage 3 on the subsample, stage 2 (400 steps) on all rows
  expect_identical(r$mclmc$warm_subsample, list(rows = 300L, of = 4000L, steps = 1800L))
  # order of the parameters: the two weights, then the bias
  m <- colMeans(r$draws)
  expect_lt(max(abs(m - mu) / sd), 0.5)
  expect_lt(max(abs(apply(r$draws, 2, stats::sd) / sd - 1)), 0.3)
  # the subsample's own posterior mean is far from the full data's in
  # units of its sd, so a chain that sampled the subsample would fail above
  Zs <- Z[rows, ]
  mu_sub <- drop(solve(crossprod(Zs) * n / 300 + diag(3) / 100, crossprod(Zs, y[rows]) * n / 300))
  expect_gt(max(abs(mu_sub - mu) / sd), 2)
})

test_that("the default's fit on a subsample: the same draws sequentially and on two cores", {
  skip_on_cran()
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  set.seed(9)
  n <- 2400
  d <- data.frame(x1 = runif(n), x2 = runif(n))
  d$y <- sin(3 * d$x1) + d$x2 + rnorm(n, sd = 0.2)
  fit_with <- function(cores) {
    old <- options(mc.cores = cores)
    on.exit(options(old))
    suppressWarnings(bnn_fit(y ~ ., data = d, chains = 2, warmup = 1000, iter = 40,
                             seed = 4, progress = FALSE))
  }
  set.seed(11)
  before <- runif(1)
  set.seed(11)
  a <- fit_with(1L)
  expect_identical(runif(1), before)   # R's random numbers are left as they were
  expect_identical(a$sampler$warm_rows, 2000L)
  expect_output(print(a), "on a subsample of 2,000 rows")
  expect_true(all(a$chain_status == "ok"))
  expect_identical(dim(a$draws)[1:2], c(40L, 2L))
  b <- fit_with(2L)
  expect_identical(a$draws, b$draws)
  # the previous behaviour on request: all rows from the start
  old <- options(bnnmc.warm_subsample = FALSE)
  on.exit(options(old))
  c0 <- fit_with(1L)
  expect_null(c0$sampler$warm_rows)
  expect_false(identical(a$draws, c0$draws))
})

# Pareto-smoothed importance sampling in C (src/diag/psis.c), which the
# default's check and the verdict's LOO-PIT use: equal to loo's psis() and
# loo() on light and heavy tails, repeated draws, short tails and varied
# relative efficiencies.

psis_cases <- function() {
  set.seed(11)
  S <- 2000; n <- 24
  ll <- matrix(rnorm(S * n, -1, 1), S, n) + outer(rep(1, S), rnorm(n))
  ll[, 1:6] <- 6 * ll[, 1:6]                       # heavy right tails of -ll
  ll[, 7] <- -abs(stats::rt(S, 1))                 # k far above 0.7
  ll[, 8] <- rep(rnorm(S / 4), each = 4)           # every draw repeated 4 times
  ll[, 9] <- round(ll[, 9], 1)                     # many ties in the tail
  list(ll = ll, r_eff = c(runif(n - 1, 0.1, 1.5), 1))
}

test_that("PSIS log weights and Pareto k equal loo::psis()'s", {
  cs <- psis_cases()
  ps <- suppressWarnings(loo::psis(-cs$ll, r_eff = cs$r_eff))
  mine <- bnnmc:::psis_log_weights(-cs$ll, cs$r_eff)
  expect_equal(mine$log_weights, unname(weights(ps, normalize = TRUE, log = TRUE)),
               tolerance = 1e-12)
  expect_equal(mine$pareto_k, ps$diagnostics$pareto_k, tolerance = 1e-12)
  expect_true(any(mine$pareto_k > 0.7))
  # a tail of fewer than 5 draws is not smoothed (k = Inf), as in loo
  short <- cs$ll[1:20, 1:3]
  ps <- suppressWarnings(loo::psis(-short, r_eff = rep(1, 3)))
  mine <- bnnmc:::psis_log_weights(-short)
  expect_equal(mine$log_weights, unname(weights(ps, normalize = TRUE, log = TRUE)),
               tolerance = 1e-12)
  expect_identical(mine$pareto_k, rep(Inf, 3))
})

test_that("PSIS-LOO pointwise elpd and the fit's elpd equal loo::loo()'s", {
  cs <- psis_cases()
  lo <- suppressWarnings(loo::loo(cs$ll, r_eff = cs$r_eff))
  pw <- bnnmc:::psis_loo_pointwise(cs$ll, cs$r_eff)
  expect_equal(unname(pw[, "elpd_loo"]), unname(lo$pointwise[, "elpd_loo"]), tolerance = 1e-12)
  expect_equal(unname(pw[, "pareto_k"]), lo$diagnostics$pareto_k, tolerance = 1e-12)
  expect_equal(sum(pw[, "lpd"]) - sum(pw[, "elpd_loo"]), lo$estimates["p_loo", "Estimate"],
               tolerance = 1e-10)
  # the result does not depend on the number of threads
  op <- options(bnnmc.threads = 1L)
  one <- bnnmc:::psis_loo_pointwise(cs$ll, cs$r_eff)
  options(op)
  expect_identical(one, pw)
  # on a fit, the default's check compares what loo() reports
  fit <- quiet_verdict(bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 4, sampler = "nuts",
                               chains = 2, warmup = 150, iter = 150, seed = 2))
  e <- bnnmc:::fit_psis_elpd(fit)
  lo <- suppressWarnings(loo::loo(fit, moment_match = FALSE))
  expect_equal(e$elpd, lo$estimates["elpd_loo", "Estimate"], tolerance = 1e-10)
  expect_equal(e$se, lo$estimates["elpd_loo", "SE"], tolerance = 1e-10)
  expect_identical(e$k_high, sum(lo$diagnostics$pareto_k > 0.7))
})

test_that("a non-finite log ratio gives NA, not weights", {
  ll <- matrix(rnorm(400), 100, 4)
  ll[5, 2] <- NaN
  ll[7, 3] <- -Inf                                  # a log ratio of +Inf
  mine <- bnnmc:::psis_log_weights(-ll)
  expect_true(all(is.na(mine$log_weights[, 2:3])))
  expect_identical(is.na(mine$pareto_k), c(FALSE, TRUE, TRUE, FALSE))
  pw <- bnnmc:::psis_loo_pointwise(ll)
  expect_identical(is.na(pw[, "elpd_loo"]), c(FALSE, TRUE, TRUE, FALSE))
  expect_error(bnnmc:::psis_loo_pointwise(ll, 1), "'r_eff' must be")
  expect_error(.Call(bnnmc:::C_psis, ll[1, , drop = FALSE], rep(1, 4), TRUE, 1L), "at least 2 draws")
})

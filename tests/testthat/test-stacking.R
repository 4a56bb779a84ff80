# Stacking of chains (R/metrics-stacking.R): weights from held-out data,
# used by every predictive function, with the raw chains kept.

stack_data <- function() {
  d <- transform(mtcars, y = mpg)[, c("y", "wt", "hp")]
  list(train = d[1:24, ], valid = d[25:32, ])
}
stack_fit <- function(d) suppressWarnings(
  bnn_fit(y ~ wt + hp, data = d$train, hidden = 3, chains = 3, warmup = 300, iter = 200,
          seed = 3, progress = FALSE, sampler = "nuts", likelihood = "gaussian"))

test_that("validation stacking down-weights a chain that predicts badly and beats equal weights there", {
  d <- stack_data()
  fit <- stack_fit(d)
  bad <- fit
  b <- grep("^b2", dimnames(fit$draws)[[3]])      # the output bias of a 1-hidden-layer net
  bad$draws[, 2, b] <- bad$draws[, 2, b] + 2      # chain 2 predicts 2 sd too high
  bad$convergence <- NULL
  st <- bnn_stack_chains(bad, newdata = d$valid)
  w <- st$stacking$weights
  expect_equal(sum(w), 1)
  expect_true(all(w >= 0))
  expect_lt(w[[2]], 0.05)
  expect_identical(st$stacking$method, "validation")
  expect_gte(st$stacking$lpd[["stacked"]], st$stacking$lpd[["equal"]])
  # the metrics on the validation set agree with the recorded densities (up
  # to the rounding of each chain's share of the draws)
  expect_equal(bnn_metrics(st, newdata = d$valid)$lppd, st$stacking$lpd[["stacked"]],
               tolerance = 0.01)
  expect_equal(bnn_metrics(bad, newdata = d$valid)$lppd, st$stacking$lpd[["equal"]],
               tolerance = 0.01)
  expect_output(print(st), "stacking:     weights")
  # the raw chains are kept, and method = "equal" returns to them
  expect_identical(st$draws, bad$draws)
  back <- bnn_stack_chains(st, method = "equal")
  expect_null(back$stacking)
  expect_equal(predict(back, newdata = d$valid), predict(bad, newdata = d$valid))
})

test_that("every predictive function sees the stacked mixture", {
  d <- stack_data()
  fit <- stack_fit(d)
  one <- bnnmc:::bnnfit_with(fit, stacking = list(
    weights = c(`1` = 1, `2` = 0, `3` = 0), method = "validation", n_points = 8L,
    lpd = c(equal = NA, stacked = NA)))
  chain1 <- bnnmc:::bnnfit_subset_chains(fit, 1L)
  S <- dim(fit$draws)[1]
  # weight 1 on chain 1: its draws repeated (unevenly: 3 draws per draw on
  # average), so means are chain 1's up to that
  expect_equal(colMeans(posterior_epred(one, newdata = d$valid)),
               colMeans(posterior_epred(chain1, newdata = d$valid)), tolerance = 2e-3)
  ll <- log_lik(one)
  expect_identical(dim(ll), c(3L * S, nrow(d$train)))
  pp <- posterior_predict(one, newdata = d$valid, seed = 1)
  expect_identical(nrow(pp), 3L * S)
  skip_if_not_installed("loo")
  expect_s3_class(suppressWarnings(suppressMessages(loo::loo(one))), "psis_loo")
})

test_that("PSIS-LOO stacking keeps equal weights where the leave-one-out estimate is unreliable", {
  d <- stack_data()
  fit <- stack_fit(d)
  expect_warning(st <- bnn_stack_chains(fit, method = "loo", k_threshold = 1e-6),
                 class = "bnnmc_stacking_unreliable")
  expect_null(st$stacking)
  # without a validation set stacking is not made unless asked for by name
  expect_error(bnn_stack_chains(fit), "'newdata' must be a validation set")
  st2 <- suppressWarnings(bnn_stack_chains(fit, method = "loo", k_threshold = 100))
  expect_identical(st2$stacking$method, "loo")
  expect_equal(sum(st2$stacking$weights), 1)
  expect_error(bnn_stack_chains(fit, method = "validation"), "'newdata' must be a validation set")
  expect_error(bnn_stack_chains(bnnmc:::bnnfit_subset_chains(fit, 1L), newdata = d$valid),
               "at least two chains")
})

# Many short chains (one draw per chain, Wiese et al. 2023) and diagnostics
# with the symmetries removed.

short_fit <- function(chains = 40, ..., sampler = "nuts", likelihood = "hetero_gaussian") {
  suppressWarnings(bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = chains,
                           warmup = 30, iter = 1, seed = 3, progress = FALSE, ..., sampler = sampler,
                           likelihood = likelihood))
}

test_that("one draw per chain works downstream and diagnostics say what they cannot do", {
  fit <- short_fit(likelihood = bnn_likelihood("gaussian"))
  expect_identical(dim(fit$draws)[1:2], c(1L, 40L))
  expect_output(print(fit), "median .* over 40 chains")
  pr <- predict(fit, newdata = mtcars[1:4, ], type = "interval")
  expect_true(all(is.finite(as.matrix(pr))))
  m <- bnn_metrics(fit, mtcars, scale = "standardized")
  expect_true(is.finite(m$lppd) && is.finite(m$rmse))
  expect_identical(m$n_draws, 40L)
  expect_warning(d <- bnn_diagnostics(fit), class = "bnnmc_short_chains")
  expect_true(all(is.na(d$rhat)) && all(is.na(d$ess_bulk)))
  expect_warning(bnn_function_rhat(fit, mtcars, "rmse"), "1 draw")
  pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_silent(plot(fit, type = "lppd", newdata = mtcars))
})

test_that("R-hat with symmetries removed ignores equioutput relabelling of chains", {
  fit <- suppressWarnings(bnn_fit(mpg ~ wt, data = mtcars, hidden = 3, chains = 3,
                                  warmup = 60, iter = 20, seed = 9, progress = FALSE, sampler = "nuts",
                                  likelihood = "hetero_gaussian"))
  moved <- fit
  a <- fit$draws[, 2, ]
  a <- bnn_permute_neurons(a, 1, c(3, 1, 2), sizes = fit$spec$sizes)
  a <- bnn_flip_neurons(a, 1, c(1, 3), sizes = fit$spec$sizes)
  moved$draws[, 2, ] <- a
  # same predictions, different parameters
  expect_equal(predict(moved, mtcars[1:5, ]), predict(fit, mtcars[1:5, ]), tolerance = 1e-10)
  r0 <- suppressWarnings(bnn_diagnostics(fit, symmetries = "remove"))
  r1 <- suppressWarnings(bnn_diagnostics(moved, symmetries = "remove"))
  expect_equal(r1$rhat, r0$rhat, tolerance = 1e-10)
  expect_equal(r1$ess_bulk, r0$ess_bulk, tolerance = 1e-8)
  k1 <- suppressWarnings(bnn_diagnostics(moved))
  expect_gt(max(abs(k1$rhat - r0$rhat)), 0.01)
  # removing twice changes nothing
  c1 <- bnn_remove_symmetries(fit)
  expect_identical(c1$symmetries, "canonical")
  expect_equal(bnn_remove_symmetries(c1)$draws, c1$draws, tolerance = 1e-14)
})

test_that("progress is signalled by default and shown by the user's handlers", {
  skip_if_not_installed("progressr")
  n <- 0L
  h <- progressr::make_progression_handler("count", enable = TRUE, reporter = list(
    update = function(...) n <<- n + 1L))
  # progressr reports in batch sessions only where the user enables it
  op <- options(progressr.enable = TRUE)
  on.exit(options(op), add = TRUE)
  progressr::with_progress(
    suppressWarnings(bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 2, warmup = 20,
                             iter = 5, seed = 1, sampler = "nuts", likelihood = "hetero_gaussian")),
    handlers = h)
  expect_gt(n, 0L)
  # without handlers around the call the conditions are still signalled
  m <- 0L
  withCallingHandlers(
    suppressWarnings(bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 2, warmup = 20,
                             iter = 5, seed = 1, sampler = "nuts", likelihood = "hetero_gaussian")),
    progression = function(p) m <<- m + 1L)
  expect_gt(m, 0L)
})

test_that("removing symmetries from a fit with a failed chain warns and keeps its NA", {
  fit <- short_fit(chains = 5)
  fit$chain_status[2] <- "non-finite state (NaN/Inf): the chain diverged"
  fit$draws[, 2, ] <- NA
  expect_warning(can <- bnn_remove_symmetries(fit), class = "bnnmc_chain_failure")
  expect_true(all(is.na(can$draws[, 2, ])))
  expect_false(anyNA(can$draws[, -2, ]))
  expect_equal(predict(can, mtcars[1:3, ]), predict(fit, mtcars[1:3, ]), tolerance = 1e-10)
})

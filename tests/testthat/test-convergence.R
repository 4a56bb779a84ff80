# The convergence verdict in function space (R/diag-convergence.R).

conv_fit <- function(...) suppressWarnings(
  bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 3, warmup = 300,
          iter = 200, seed = 5, progress = FALSE, sampler = "nuts", ...))

test_that("a well-mixed fit passes both parts, and print() and summary() show them", {
  fit <- conv_fit(likelihood = "gaussian")
  cv <- fit$convergence
  expect_s3_class(cv, "bnn_convergence")
  expect_true(cv$converged)
  expect_true(cv$predictions$reliable)
  expect_true(cv$fit_level$stationary)
  expect_lte(cv$predictions$mc_error, 0.1)
  expect_lte(cv$predictions$drift, 0.2)
  expect_true(cv$predictions$loo_coverage >= cv$predictions$coverage_band[1] &&
                cv$predictions$loo_coverage <= cv$predictions$coverage_band[2])
  expect_identical(nrow(cv$chains), 3L)
  expect_true(all(cv$chains$rhat_loglik < 1.1))
  expect_identical(cv, bnn_convergence(fit))        # the stored verdict is the verdict
  out <- capture.output(print(fit))
  expect_true(any(grepl("^ predictions:  reliable", out)))
  expect_true(any(grepl("^ fit level:    stationary", out)))
  out <- capture.output(print(summary(fit)))
  expect_false(any(grepl("run longer|not reliable|not stationary", out)))
})

test_that("a chain that drifts fails both parts, and bnn_fit()'s check warns with what to do", {
  fit <- conv_fit(likelihood = "gaussian")
  drift <- fit
  S <- dim(fit$draws)[1]
  # chain 2 walks away: its weights grow steadily over the run
  drift$draws[, 2, ] <- fit$draws[, 2, ] * seq(1, 3, length.out = S)
  drift$convergence <- NULL
  cv <- bnn_convergence(drift)
  expect_false(cv$converged)
  expect_false(cv$fit_level$stationary)
  expect_false(cv$predictions$reliable)
  expect_false(cv$chains$stationary[2])
  expect_match(paste(cv$fit_level$reasons, collapse = " "), "chain\\(s\\) 2 ")
  expect_match(paste(cv$predictions$reasons, collapse = " "), "moved during the run")
  # 200 draws per chain: a longer run is offered, once
  expect_match(cv$remedy, "update(fit, iter = 2000)", fixed = TRUE)
  expect_warning(bnnmc:::check_convergence(drift), class = "bnnmc_unreliable_predictions")
  out <- capture.output(print(drift))
  expect_true(any(grepl("^ predictions:  NOT reliable", out)))
  expect_true(any(grepl("^ fit level:    still moving", out)))
  out <- capture.output(print(summary(drift)))
  expect_true(any(grepl("The predictions are not reliable yet", out)))
  expect_true(any(grepl("The fit level is not stationary", out)))
})

test_that("a chain stuck in a much worse mode is an outlier", {
  fit <- conv_fit(likelihood = "gaussian")
  bad <- fit
  # chain 3 predicts a constant: every weight of the output layer at zero
  out_w <- grep("^W3|^b3|^W2", dimnames(fit$draws)[[3]])
  bad$draws[, 3, out_w] <- bad$draws[, 3, out_w] * 1e-3
  bad$convergence <- NULL
  cv <- bnn_convergence(bad)
  expect_true(cv$chains$outlier[3])
  expect_false(cv$converged)
})

test_that("too short a run cannot be judged and says how to run longer", {
  fit <- suppressWarnings(bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 2, warmup = 50,
                                  iter = 50, seed = 1, progress = FALSE, sampler = "nuts"))
  expect_true(is.na(fit$convergence$converged))
  expect_output(print(fit), "convergence:  cannot be judged")
  expect_identical(fit$convergence$remedy, "update(fit, iter = 1000)")
  expect_error(bnn_convergence(fit, threshold = 0.9), "'threshold' must be at least 1")
})

test_that("parameter-space chain-wise R-hat after removing the symmetries is reported on request", {
  fit <- conv_fit(likelihood = "gaussian")
  cv <- bnn_convergence(fit, parameters = TRUE)
  expect_true(cv$parameters$share_above >= 0 && cv$parameters$share_above <= 1)
  expect_output(print(cv), "Parameter space, symmetries removed")
})

test_that("loo() improves high Pareto k by moment matching without being asked", {
  skip_if_not_installed("loo")
  fit <- suppressWarnings(bnn_fit(mpg ~ wt + hp + qsec, data = mtcars, hidden = 8, chains = 2,
                                  warmup = 200, iter = 200, seed = 2, progress = FALSE,
                                  sampler = "nuts", likelihood = "hetero_gaussian"))
  plain <- suppressWarnings(loo::loo(fit, moment_match = FALSE))
  n_high <- sum(plain$diagnostics$pareto_k > 0.7)
  skip_if(n_high == 0L, "no high Pareto k in this fit")
  expect_message(auto <- suppressWarnings(loo::loo(fit)), "moment matching")
  mm <- suppressWarnings(loo::loo(fit, moment_match = TRUE))
  expect_equal(auto$estimates, mm$estimates)
  expect_lte(sum(auto$diagnostics$pareto_k > 0.7), n_high)
  expect_error(loo::loo(fit, moment_match = "yes"), "'moment_match' must be")
  # what remains unreliable is pointed to K-fold with its cost
  w <- tryCatch(suppressMessages(loo::loo(fit)), warning = function(w) w)
  if (inherits(w, "bnnmc_loo_pareto_k")) expect_match(conditionMessage(w), "10 refits: about")
})

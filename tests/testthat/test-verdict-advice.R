# The two-part verdict (R/diag-convergence.R): what a user is told, and
# that following its advice once never leads to the same advice again.

advice_fit <- function() suppressWarnings(
  bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 3, warmup = 300,
          iter = 200, seed = 5, progress = FALSE, sampler = "nuts", likelihood = "gaussian"))

# chain `k` of `fit` walks away: its weights grow by the factor `to` over the run
drifting <- function(fit, k = 2, to = 3) {
  S <- dim(fit$draws)[1]
  fit$draws[, k, ] <- fit$draws[, k, ] * seq(1, to, length.out = S)
  fit$convergence <- NULL
  fit
}

# `fit` with its draws repeated `times` times along the iterations (a fit
# that, as far as the verdict can tell, ran `times` times longer)
longer <- function(fit, times) {
  S <- dim(fit$draws)[1]
  idx <- rep(seq_len(S), each = times)
  fit$draws <- fit$draws[idx, , , drop = FALSE]
  fit$sampler_stats <- fit$sampler_stats[idx, , , drop = FALSE]
  fit$convergence <- NULL
  fit
}

# `fit` with its chains repeated `times` times (more chains in the same
# modes), every per-chain field with them (the verdict takes its points
# through the fit's constructor, which checks them)
more_chains <- function(fit, times) {
  idx <- rep(seq_len(dim(fit$draws)[2]), times)
  bnnmc:::bnnfit_with(bnnmc:::bnnfit_subset_chains(fit, idx), chain_id = seq_along(idx),
                      convergence = NULL)
}

test_that("a longer run is advised once; a fit that ran longer gets the next step instead", {
  fit <- advice_fit()
  cv1 <- bnn_convergence(drifting(fit))
  expect_false(cv1$predictions$reliable)
  expect_match(cv1$remedy, "update(fit, iter = 2000)", fixed = TRUE)
  # the same drift over 2,000 draws per chain: the user followed the advice
  cv2 <- bnn_convergence(drifting(longer(fit, 10)))
  expect_false(cv2$predictions$reliable)
  expect_false(grepl("update(fit, iter", cv2$remedy, fixed = TRUE))
  expect_match(cv2$remedy, "a longer run did not settle the predictions")
  expect_match(cv2$remedy, "bnn_metrics(fit, newdata)", fixed = TRUE)
})

test_that("more chains are advised once, with a number from the Monte Carlo error", {
  fit <- advice_fit()
  # chain 3 sits in a mode that predicts differently (shifted output bias)
  apart <- fit
  b <- grep("^b2", dimnames(fit$draws)[[3]])     # the output bias of a 1-hidden-layer net
  apart$draws[, 3, b] <- apart$draws[, 3, b] + 0.3
  apart$convergence <- NULL
  cv1 <- bnn_convergence(apart)
  expect_gt(cv1$predictions$mc_error, 0.1)
  m <- regmatches(cv1$remedy, regexpr("update\\(fit, chains = [0-9]+\\)", cv1$remedy))
  expect_length(m, 1L)
  need <- as.integer(sub(".*= ([0-9]+)\\)", "\\1", m))
  expect_identical(need, as.integer(ceiling(3 * (cv1$predictions$mc_error / 0.1)^2)))
  # with the chains multiplied, their spread is the same and the error falls
  # with the square root of their number, as the advice promised
  cv2 <- bnn_convergence(more_chains(apart, 4))
  expect_equal(cv2$predictions$mc_error, cv1$predictions$mc_error * sqrt(3 / 12),
               tolerance = 0.15)
  # a fit that already has more chains than the default is not told to add more
  cv3 <- bnn_convergence(more_chains(apart, 2))
  if (cv3$predictions$mc_error > 0.1) {
    expect_false(grepl("update(fit, chains", cv3$remedy, fixed = TRUE))
    expect_match(cv3$remedy, "would be needed")
  }
})

test_that("print() never calls one fit both failed and not a failure", {
  fit <- advice_fit()
  apart <- fit
  b <- grep("^b2", dimnames(fit$draws)[[3]])     # the output bias of a 1-hidden-layer net
  apart$draws[, 3, b] <- apart$draws[, 3, b] + 0.3
  apart$convergence <- NULL
  for (f in list(fit, drifting(fit), apart)) {
    out <- paste(capture.output(print(f)), collapse = " ")
    expect_false(grepl("NOT converged", out))
    expect_false(grepl("not a failure", out))
    expect_true(grepl("predictions:", out) && grepl("fit level:", out))
  }
})

test_that("raw parameter R-hat and ESS say that they measure symmetries", {
  fit <- advice_fit()
  out <- capture.output(print(bnn_diagnostics(fit)))
  expect_true(any(grepl("symmetries", out)))
  expect_true(any(grepl("bnn_convergence(fit)", out, fixed = TRUE)))
  s <- capture.output(print(summary(fit)))
  # the summary's notes explain any parameter-space alarm where they give it
  if (any(grepl("Parameter space \\(raw weights\\)", s)))
    expect_true(any(grepl("not convergence", s)))
  skip_if_not_installed("posterior")
  old <- options(bnnmc.raw_rhat_informed = NULL)
  on.exit(options(old))
  expect_message(sm <- posterior::summarise_draws(fit), "measure the permutation and sign symmetries")
  expect_s3_class(sm, "draws_summary")
  expect_equal(sm$rhat, unname(posterior::summarise_draws(posterior::as_draws_array(fit))$rhat))
  expect_silent(posterior::summarise_draws(fit))     # once per session
  # a linear model's coefficients are identified: no such note
  lin <- suppressWarnings(bnn_fit(mpg ~ wt, data = mtcars, hidden = integer(0), chains = 2,
                                  warmup = 200, iter = 200, seed = 1, progress = FALSE,
                                  sampler = "nuts"))
  expect_false(any(grepl("symmetries", capture.output(print(bnn_diagnostics(lin))))))
})

test_that("bnn_diagnostics() prints a summary per layer, every row on request", {
  fit <- suppressWarnings(bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = c(8, 8), chains = 2,
                                  warmup = 100, iter = 100, seed = 1, progress = FALSE,
                                  sampler = "nuts"))
  d <- suppressWarnings(bnn_diagnostics(fit))
  # the object is the full table, as before: one row per parameter
  expect_identical(nrow(d), length(fit$parameters))
  expect_identical(names(d), c("variable", "layer", "role", "mean", "sd", "rhat",
                               "cw_rhat_mean", "cw_rhat_max", "ess_bulk", "ess_tail"))
  expect_identical(d$variable, fit$parameters)
  expect_s3_class(d, "data.frame")
  out <- capture.output(print(d))
  # a screenful: the layers and sigma, the sampler's counts, the note
  expect_lt(length(out), 20L)
  expect_true(any(grepl("^Parameter-space diagnostics of 106 parameters \\(2 chains of 100 draws\\)", out)))
  for (g in c("layer 1", "layer 2", "layer 3", "sigma")) expect_true(any(grepl(g, out)), info = g)
  div <- sum(fit$sampler_stats[, , "divergent__"])
  tdh <- sum(fit$sampler_stats[, , "treedepth__"] >= 10)
  expect_true(any(grepl(sprintf("Sampler: %d divergent transitions?, %d at the maximum tree depth \\(10\\), of 200 draws",
                                div, tdh), out)))
  expect_true(any(grepl("symmetries", out)))
  # its numbers are the table's: worst R-hat and smallest ESS per layer
  by <- bnnmc:::diagnostics_by_layer(d)
  l2 <- d[d$layer %in% 2L, ]
  expect_equal(by$rhat_max[by$parameters == "layer 2"], max(l2$rhat))
  expect_equal(by$ess_bulk_min[by$parameters == "layer 2"], min(l2$ess_bulk))
  expect_identical(by$rhat_above_1.01[by$parameters == "layer 2"], sum(l2$rhat > 1.01))
  expect_identical(by$n, c(24L, 72L, 9L, 1L))
  # every row with detail = TRUE, and for a result of few rows
  full <- capture.output(print(d, detail = TRUE))
  expect_gt(length(full), nrow(d))
  expect_true(any(grepl("W2[3,5]", full, fixed = TRUE)))
  expect_true(any(grepl("W1[1,1]", capture.output(print(head(d))), fixed = TRUE)))
  expect_error(print(d, detail = NA), "'detail' must be TRUE or FALSE")
})

test_that("the verdict covers the count and Student-t likelihoods", {
  set.seed(3)
  d <- data.frame(x = rnorm(120))
  d$k <- rpois(120, exp(0.5 + 0.5 * d$x))
  d$t <- 1 + d$x + 0.5 * rt(120, df = 3)
  pois <- short_run(bnn_fit(k ~ x, data = d, family = poisson(), hidden = 3, sampler = "nuts",
                            chains = 2, warmup = 300, iter = 200, seed = 1, progress = FALSE),
                    also = "bnnmc_not_converged")
  cv <- bnn_convergence(pois)
  expect_false(is.na(cv$predictions$drift))
  expect_true(is.na(cv$predictions$loo_coverage))     # no PIT for counts
  stu <- short_run(bnn_fit(t ~ x, data = d, family = student(), hidden = 3, sampler = "nuts",
                           chains = 2, warmup = 300, iter = 200, seed = 1, progress = FALSE),
                   also = "bnnmc_not_converged")
  cs <- bnn_convergence(stu)
  # the Student-t's own CDF: its LOO intervals cover about 90%, not all points
  expect_true(cs$predictions$loo_coverage > 0.8 && cs$predictions$loo_coverage < 0.98)
})

test_that("the Monte Carlo error and drift are in units of the pooled predictive sd at each point", {
  fit <- advice_fit()
  cv <- bnn_convergence(fit)
  # recomputed from the draws: mu [S, K, n] and the noise sd
  S <- dim(fit$draws)[1]
  K <- dim(fit$draws)[2]
  mu <- array(posterior_epred(fit), c(S, K, nrow(mtcars)))
  sig <- as.vector(posterior::as_draws_df(fit)$sigma)
  psd <- sqrt(apply(mu, 3L, function(z) var(as.vector(z))) + mean(sig^2))
  mce <- apply(apply(mu, c(2L, 3L), mean), 2L, sd) / sqrt(K) / psd
  h <- seq_len(S %/% 2L)
  dr <- abs(apply(mu[h, , , drop = FALSE], 3L, mean) - apply(mu[-h, , , drop = FALSE], 3L, mean)) / psd
  expect_equal(cv$predictions$mc_error, unname(quantile(mce, 0.9)), tolerance = 1e-8)
  expect_equal(cv$predictions$drift, unname(quantile(dr, 0.9)), tolerance = 1e-8)
})

test_that("the advice fits the model: no chain weighting for a stack of two models, no heteroscedastic likelihood for one that has it", {
  cv <- list(predictions = list(drift = NA_real_, mc_error = 0.3, loo_coverage = 0.99,
                                coverage_band = c(0.85, 0.95)),
             n_draws = 1000L, n_chains = 8L, drift_max = 0.2, mc_error_max = 0.1)
  obj <- function(family, mixture = NULL)
    list(chain_status = rep("ok", 8), likelihood = list(family = family), mixture = mixture)
  plain <- bnnmc:::prediction_remedy(obj("gaussian"), cv)
  expect_match(plain, "weight the chains by held-out data (bnn_stack_chains())", fixed = TRUE)
  expect_match(plain, "likelihood = \"hetero_gaussian\"", fixed = TRUE)
  # the default's stack of the two Gaussian likelihoods: bnn_stack_chains()
  # refuses a mixture, and the heteroscedastic likelihood is already in it
  stacked <- bnnmc:::prediction_remedy(obj("hetero_gaussian", list(kind = "likelihood")), cv)
  expect_false(grepl("bnn_stack_chains", stacked, fixed = TRUE))
  expect_match(stacked, "report the spread between them", fixed = TRUE)
  expect_false(grepl("hetero_gaussian", stacked, fixed = TRUE))
  expect_match(stacked, "the stack already weighs both Gaussian likelihoods", fixed = TRUE)
  expect_match(stacked, "family = student()", fixed = TRUE)
  expect_false(grepl("likelihood = \"gaussian\"", stacked, fixed = TRUE))
  expect_match(bnnmc:::prediction_remedy(obj("hetero_gaussian"), cv),
               "a likelihood with one noise scale", fixed = TRUE)
})

test_that("a fit that becomes a stack of two models gets the advice for a stack, in its verdict and its warning", {
  fit <- advice_fit()
  # chains that disagree by far more than 64 chains could average: the
  # network alone is pointed to bnn_stack_chains()
  cv <- structure(list(predictions = list(reliable = FALSE, drift = NA_real_, mc_error = 0.9,
                                          loo_coverage = NA_real_, coverage_band = c(0.85, 0.95),
                                          reasons = "the chains disagree"),
                       n_draws = 200L, n_chains = 3L, drift_max = 0.2, mc_error_max = 0.1),
                  class = "bnn_convergence")
  cv$remedy <- bnnmc:::prediction_remedy(fit, cv)
  expect_match(cv$remedy, "bnn_stack_chains()", fixed = TRUE)
  fit$convergence <- cv
  # the default's check stacks it with the linear model (choose_default_model())
  stacked <- bnnmc:::bnnfit_with(fit, mixture = list(fit = fit, weights = c(network = 0.6,
                                                                            linear = 0.4)))
  out <- bnnmc:::restate_remedy(list(fit = stacked,
                                     warnings = list(bnnmc:::unreliable_condition(cv))))
  expect_false(grepl("bnn_stack_chains", out$fit$convergence$remedy, fixed = TRUE))
  expect_match(out$fit$convergence$remedy, "report the spread between them", fixed = TRUE)
  expect_length(out$warnings, 1L)
  expect_s3_class(out$warnings[[1]], "bnnmc_unreliable_predictions")
  expect_false(grepl("bnn_stack_chains", conditionMessage(out$warnings[[1]]), fixed = TRUE))
  # a reliable verdict is left as it is
  ok <- fit
  ok$convergence$predictions$reliable <- TRUE
  expect_identical(bnnmc:::restate_remedy(list(fit = ok, warnings = list()))$fit, ok)
})

# The verdict's third part, "does the model fit?" (R/diag-adequacy.R):
# splines of the leave-one-out quantile residuals on each input.

skip_if_not_installed("MASS")

readme_split <- function() {
  data("mcycle", package = "MASS", envir = environment())
  bnn_split(mcycle, "mile", seed = 1)
}

test_that("the default's prior alone misses mcycle's dip: the check names times and a wider prior", {
  s <- readme_split()
  # the default without its choice of the prior's scale (R/fit-choice.R)
  old <- options(bnnmc.prior_check = FALSE)
  on.exit(options(old))
  fit <- suppressMessages(bnn_fit(accel ~ times, data = s$train, seed = 1, progress = FALSE))
  ad <- fit$convergence$adequacy
  expect_false(ad$adequate)
  expect_identical(ad$inputs, "times")
  expect_gt(ad$tests$r2[ad$tests$term == "times"], 0.3)
  expect_match(ad$remedy, "prior = bnn_prior(scale = 3, fan_in = TRUE)", fixed = TRUE)
  out <- capture.output(print(fit))
  expect_true(any(grepl("^ model fit:    structure left: the leave-one-out residuals still follow times",
                        out)))
  expect_match(paste(capture.output(summary(fit)), collapse = " "), "leaves structure")
  # bnn_convergence() computes the same part
  expect_identical(bnn_convergence(fit)$adequacy$inputs, "times")
  expect_null(ad$wider_prior)
})

test_that("the default finds mcycle's curve: it fits the wider prior where the check fires", {
  s <- readme_split()
  expect_message(
    fit <- bnn_fit(accel ~ times, data = s$train, seed = 1, progress = FALSE),
    "leaves structure in these data \\(in times\\); the network with a prior 3 times wider")
  expect_equal(fit$prior$scale, 3)
  expect_true(fit$prior$fan_in)
  wp <- fit$convergence$adequacy$wider_prior
  expect_identical(wp$chosen, "wider")
  expect_named(wp$elpd, c("default", "wider"))
  expect_true(wp$wider_adequate)
  expect_true(fit$convergence$adequacy$adequate)
  out <- paste(capture.output(print(fit)), collapse = " ")
  expect_match(out, "no structure left")
  expect_match(gsub("\\s+", " ", out), "the prior is 3 times the default's, which left structure")
  # the README's first fit: within 10% of smooth.spline()'s test RMSE (19.7;
  # the default's prior alone gives 45)
  rmse <- sqrt(mean((as.vector(predict(fit, s$test)) - s$test$accel)^2))
  sp <- stats::smooth.spline(s$train$times, s$train$accel)
  rmse_sp <- sqrt(mean((stats::predict(sp, s$test$times)$y - s$test$accel)^2))
  expect_lt(rmse / rmse_sp, 1.10)
  # the choice is the user's call's: the same seed gives the same fit
  fit2 <- suppressMessages(bnn_fit(accel ~ times, data = s$train, seed = 1, progress = FALSE))
  expect_identical(fit2$draws, fit$draws)
  # the wider prior's chains started where the default's ended, with a
  # shorter tuning from their step size and L
  expect_true(wp$warm_start)
  expect_match(gsub("\\s+", " ", out), "started where the default's chains ended")
  expect_identical(fit$sampler$n_tune, bnnmc:::.wider_prior_tune)
  expect_identical(fit$warmup, sum(bnnmc:::.wider_prior_tune))
  expect_null(fit$ensemble)
  old <- options(bnnmc.prior_check = FALSE)
  on.exit(options(old))
  def <- suppressMessages(bnn_fit(accel ~ times, data = s$train, seed = 1, progress = FALSE))
  last <- def$draws[dim(def$draws)[1], , ]
  last[, "sigma"] <- log(last[, "sigma"])
  for (k in 1:4) expect_equal(unname(fit$inits[[k]]), unname(last[k, ]))
  expect_equal(fit$sampler$stepsize, stats::median(def$stepsize))
  expect_equal(fit$sampler$L, stats::median(def$L))
})

test_that("the wider prior's fit starts from the default's chains only where they are its own", {
  s <- readme_split()
  old <- options(bnnmc.prior_check = FALSE)
  on.exit(options(old))
  def <- suppressMessages(bnn_fit(accel ~ times, data = s$train, seed = 1, progress = FALSE,
                                  chains = 2))
  plan <- list(sampler = def$sampler, chains = 2L, warmup = 20000, init = "ensemble",
               model = list(spec = def$spec, likelihood = def$likelihood))
  warm <- bnnmc:::wider_prior_plan(plan, def)
  expect_true(warm$given_init)
  expect_identical(warm$warmup, sum(bnnmc:::.wider_prior_tune))
  expect_length(warm$init, 2)
  # not from another number of chains, a stack, a failed chain, another network
  four <- replace(plan, "chains", 4L)
  expect_identical(bnnmc:::wider_prior_plan(four, def), four)
  expect_identical(bnnmc:::wider_prior_plan(plan, bnnmc:::bnnfit_with(
    def, mixture = list(fit = def, weights = c(a = 0.5, b = 0.5), kind = "likelihood"))), plan)
  expect_identical(bnnmc:::wider_prior_plan(plan, bnnmc:::bnnfit_with(
    def, chain_status = factor(levels(def$chain_status)[c(1, 5)], levels = levels(def$chain_status)))), plan)
  other <- plan
  other$model$spec$sizes <- c(1L, 8L, 1L)
  expect_identical(bnnmc:::wider_prior_plan(other, def), other)
})

test_that("where the check is quiet the default's fit is untouched, draws and all", {
  fit_with <- function(step) {
    old <- options(bnnmc.prior_check = step)
    on.exit(options(old))
    bnn_fit(mpg ~ wt + hp, data = mtcars, seed = 3, progress = FALSE, chains = 2)
  }
  a <- suppressMessages(fit_with(TRUE))
  b <- suppressMessages(fit_with(FALSE))
  expect_true(a$convergence$adequacy$adequate)
  expect_null(a$convergence$adequacy$wider_prior)
  expect_identical(a$draws, b$draws)
  expect_identical(a$prior, b$prior)
})

test_that("a wider prior that does not help is not returned, and not advised again", {
  s <- readme_split()
  old <- options(bnnmc.prior_check = FALSE)
  on.exit(options(old))
  def <- bnnmc:::catch_warnings(function()
    suppressMessages(bnn_fit(accel ~ times, data = s$train, seed = 1, progress = FALSE)))
  # a stand-in for a wider prior's fit that predicts worse and leaves
  # structure too: a linear model (PSIS-LOO holds for both, so it decides)
  weak <- bnnmc:::catch_warnings(function()
    suppressMessages(bnn_fit(accel ~ times, data = s$train, seed = 1, hidden = integer(0),
                             progress = FALSE, prior = bnn_prior(scale = 3, fan_in = TRUE))))
  expect_false(weak$fit$convergence$adequacy$adequate)
  kept <- chosen_fit(bnnmc:::choose_wider_prior(def, weak, seconds = 1))
  expect_equal(kept$prior$scale, 1)
  wp <- kept$convergence$adequacy$wider_prior
  expect_identical(wp$chosen, "default")
  expect_true(wp$loo_holds)
  expect_lt(wp$elpd[["wider"]], wp$elpd[["default"]])
  # the advice names what is left to try, not the prior just tried
  expect_match(kept$convergence$adequacy$remedy, "times wider was fitted and predicted these data worse")
  expect_false(grepl("scale = 3,", kept$convergence$adequacy$remedy, fixed = TRUE))
  # a failed second fit leaves the default's as it was
  same <- bnnmc:::choose_wider_prior(def, NULL, seconds = 1)
  expect_identical(same$fit, def$fit)
})

test_that("following the advice once on mcycle makes the check quiet", {
  s <- readme_split()
  fit <- bnn_fit(accel ~ times, data = s$train, seed = 1, progress = FALSE,
                 prior = bnn_prior(scale = 3, fan_in = TRUE))
  ad <- fit$convergence$adequacy
  expect_true(ad$adequate)
  expect_length(ad$inputs, 0)
  expect_true(any(grepl("^ model fit:    no structure left", capture.output(print(fit)))))
  # the fit follows the curve: test RMSE 45 before, near smooth.spline's 19.7 now
  rmse <- sqrt(mean((as.vector(predict(fit, s$test)) - s$test$accel)^2))
  expect_lt(rmse, 25)
  # a fit that has followed it is never given the same advice again
  expect_false(grepl("scale = 3,", bnnmc:::adequacy_remedy(fit), fixed = TRUE))
  expect_match(bnnmc:::adequacy_remedy(fit), "a wider prior did not remove it")
})

test_that("a linear fit of mcycle fires, with the advice to fit a network", {
  s <- readme_split()
  fit <- bnn_fit(accel ~ times, data = s$train, hidden = integer(0), seed = 1, progress = FALSE)
  ad <- fit$convergence$adequacy
  expect_false(ad$adequate)
  expect_identical(ad$inputs, "times")
  expect_match(ad$remedy, "hidden = c(16, 16)", fixed = TRUE)
  # the network that advice gives is told the next step, not the same one
  net <- list(prior = bnn_prior(fan_in = TRUE), hidden = c(16, 16))
  expect_match(bnnmc:::adequacy_remedy(net), "scale = 3", fixed = TRUE)
  expect_false(grepl("hidden = c(16, 16)", bnnmc:::adequacy_remedy(net), fixed = TRUE))
})

test_that("a linear fit of linear data is quiet, and only the input with structure is named", {
  set.seed(3)
  d <- data.frame(x1 = runif(150, -2, 2), x2 = runif(150, -2, 2))
  d$y <- 1 + 2 * d$x1 - d$x2 + rnorm(150, sd = 0.5)
  fit <- bnn_fit(y ~ x1 + x2, data = d, hidden = integer(0), seed = 2, progress = FALSE)
  expect_true(fit$convergence$adequacy$adequate)
  d$y <- 1 + 2 * d$x1 + 3 * sin(2 * d$x2) + rnorm(150, sd = 0.5)
  fit2 <- bnn_fit(y ~ x1 + x2, data = d, hidden = integer(0), seed = 2, progress = FALSE)
  ad <- fit2$convergence$adequacy
  expect_false(ad$adequate)
  expect_identical(ad$inputs, "x2")
  # the Student-t and heteroscedastic likelihoods: the same residuals
  for (lik in list(list(family = student()), list(likelihood = "hetero_gaussian"))) {
    f <- do.call(bnn_fit, c(list(y ~ x1 + x2, data = d, hidden = integer(0), seed = 2,
                                 progress = FALSE), lik))
    expect_identical(f$convergence$adequacy$inputs, "x2")
  }
})

test_that("counts and binary responses use randomised quantile residuals, reproducibly", {
  set.seed(4)
  d <- data.frame(x = runif(200, -2, 2))
  d$y <- rpois(200, exp(1 + 1.5 * sin(2.5 * d$x)))
  # (a log-linear rate cannot follow the sine: the counts look overdispersed)
  expect_warning(fit <- bnn_fit(y ~ x, data = d, family = poisson(), hidden = integer(0),
                                seed = 3, progress = FALSE), "Poisson")
  ad <- fit$convergence$adequacy
  expect_false(ad$adequate)
  expect_identical(ad$inputs, "x")
  # the randomisation uses the fit's seed: the same residual tests again
  expect_identical(bnn_convergence(fit)$adequacy$tests, ad$tests)
  d$y <- rpois(200, exp(1 + 0.5 * d$x))
  fit_ok <- bnn_fit(y ~ x, data = d, family = poisson(), hidden = integer(0), seed = 3,
                    progress = FALSE)
  expect_true(fit_ok$convergence$adequacy$adequate)
  d$b <- factor(rbinom(200, 1, plogis(3 * cos(2 * d$x))))
  fb <- bnn_fit(b ~ x, data = d, hidden = integer(0), seed = 3, progress = FALSE)
  expect_false(fb$convergence$adequacy$adequate)
  expect_identical(fb$convergence$adequacy$inputs, "x")
  # a check that fails says so in its line instead of vanishing
  # (a seed set.seed() refuses, of the type the fit's constructor checks)
  bad <- fb
  bad$seed <- NaN
  cv <- suppressWarnings(bnn_convergence(bad))
  expect_true(is.na(cv$adequacy$adequate))
  expect_match(format(cv)[["model_fit"]], "^could not be checked: ")
})

test_that("the check stays out of fits with too few points", {
  d <- data.frame(x = 1:15, y = (1:15)^2)
  fit <- suppressMessages(suppressWarnings(bnn_fit(y ~ x, data = d, hidden = integer(0),
                                                   seed = 1, progress = FALSE)))
  expect_null(fit$convergence$adequacy)
  expect_false(any(grepl("model fit:", capture.output(print(fit)))))
})

test_that("the wider prior's step reuses the check's PSIS-LOO of the default's fit", {
  d <- mtcars
  net <- bnn_fit(mpg ~ wt + hp, data = d, hidden = 2, chains = 2, warmup = 150, iter = 100,
                 seed = 1, progress = FALSE, sampler = "nuts")
  lin <- bnn_fit(mpg ~ wt + hp, data = d, hidden = integer(0), chains = 2, warmup = 150,
                 iter = 100, seed = 1, progress = FALSE, sampler = "nuts")
  e_net <- bnnmc:::fit_psis_elpd(net)
  e_lin <- bnnmc:::fit_psis_elpd(lin)
  w <- c(network = 0.7, linear = 0.3)
  stacked <- bnnmc:::bnnfit_with(net, mixture = list(fit = lin, weights = w))
  # what choose_wider_prior() would otherwise compute again, and what loo()
  # of the stacked fit gives: each model's PSIS-LOO, mixed by the weights
  expect_equal(bnnmc:::returned_fit_elpd(stacked, e_net, e_lin, w),
               bnnmc:::default_fit_elpd(stacked))
  expect_equal(bnnmc:::default_fit_elpd(stacked)$pointwise,
               unname(suppressWarnings(loo(stacked, moment_match = FALSE))$pointwise[, "elpd_loo"]))
  expect_equal(bnnmc:::returned_fit_elpd(net, e_net), bnnmc:::default_fit_elpd(net))
  # results on fewer points than the rows (the verdict's at most 500) are not reused
  short <- list(pointwise = e_net$pointwise[-1], k_high = 0L)
  expect_null(bnnmc:::returned_fit_elpd(net, short))
  expect_null(bnnmc:::returned_fit_elpd(stacked, e_net, short, w))
})

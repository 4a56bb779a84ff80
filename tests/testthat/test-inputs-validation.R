# Validation of inputs that used to give wrong answers or cryptic errors.

fh_data <- function(n = 30) {
  set.seed(1)
  data.frame(y = rnorm(n), x = rnorm(n), z = rnorm(n))
}

fh_fit <- local({
  fit <- NULL
  function() {
    if (is.null(fit))
      fit <<- suppressWarnings(bnn_fit(y ~ x + z, data = fh_data(), hidden = 2, chains = 1,
                                       warmup = 20, iter = 10, seed = 1, progress = FALSE, sampler = "nuts",
                                       likelihood = "hetero_gaussian"))
    fit
  }
})

test_that("non-finite predictors are an error that says so", {
  fit <- fh_fit()
  expect_error(predict(fit, data.frame(x = Inf, z = 0)), "'newdata' has non-finite values.*x")
  expect_error(predict(fit, data.frame(x = 0, z = -Inf), type = "interval"),
               "non-finite.*z")
  d <- fh_data()
  d$x[2] <- Inf
  expect_error(bnn_fit(y ~ x + z, data = d, chains = 1, warmup = 5, iter = 5, sampler = "nuts"),
               "'data' has non-finite values \\(Inf, -Inf\\) in predictor\\(s\\): x")
})

test_that("cryptic errors are clear", {
  d <- fh_data()
  fit <- fh_fit()
  expect_error(bnn_fit(y ~ x, data = d, iter = Inf, sampler = "nuts"), "'iter' must be a whole number between 1 and 2147483647")
  expect_error(bnn_fit(y ~ x, data = d, seed = 1e10, sampler = "nuts"), "'seed' must be a whole number between 0 and 2147483647")
  expect_error(bnn_fit(y ~ x + z, data = d, hidden = 2, chains = 1,
                       init = function(i) rep(NA_real_, 12), sampler = "nuts",
                       likelihood = "hetero_gaussian"),
               "'init' function's value for chain 1 has missing or non-finite values \\(NA at positions 1, 2")
  expect_error(bnn_fit(y ~ x + z, data = d, hidden = 2, chains = 1, init = function(i) NA, sampler = "nuts",
                       likelihood = "hetero_gaussian"),
               "'init' function's value for chain 1 must be a numeric vector of length 12.*logical of length 1")
  expect_error(predict(fit, data.frame(x = "1", z = 0)),
               "column 'x' is character, but it was numeric in the training data")
  iv <- predict(fit, d[0, ], type = "interval")
  expect_identical(names(iv), c("mean", "lower", "upper"))
  expect_equal(nrow(iv), 0L)
})

test_that("counts above .Machine$integer.max are clear errors", {
  d <- fh_data()
  big <- 3e9
  for (a in c("chains", "iter", "warmup", "thin", "seed"))
    expect_error(do.call(bnn_fit, c(list(y ~ x, data = d), stats::setNames(list(big), a))),
                 sprintf("'%s' must be a whole number between [01] and 2147483647", a))
  old <- options(bnnmc.threads = big)
  on.exit(options(old))
  expect_error(bnn_rhat(array(rnorm(40), c(10, 2, 2))),
               "option 'bnnmc.threads' must be a whole number between 1 and 2147483647")
})

test_that("an ensemble whose members all failed does not print as a normal one", {
  d <- fh_data()
  expect_warning(ens <- bnn_fit_ensemble(y ~ x, data = d, hidden = 2, members = 2,
                                     optimizer = bnn_optimizer(lr = 1e300, epochs = 3),
                                     seed = 1, progress = FALSE, likelihood = "hetero_gaussian"),
                 "All 2 ensemble members hit a non-finite loss")
  expect_true(all(ens$chain_status == "failed"))
  expect_output(print(ens), "ALL MEMBERS FAILED")
})

test_that("static HMC beyond INT_MAX leapfrog steps is refused; all-underflow LPPD is -Inf", {
  expect_error(bnn_hmc(stepsize = 1e-10, trajectory_length = 1),
               "leapfrog steps per transition; it must be below 2147483647")
  s <- bnn_hmc(stepsize = 0.1, trajectory_length = 1)
  s$stepsize <- 1e-12          # edited after construction: the .Call boundary refuses it
  expect_error(bnn_fit(y ~ x, data = fh_data(), hidden = 2, chains = 1, warmup = 0,
                       iter = 2, sampler = s, seed = 1, progress = FALSE),
               "'trajectory_length' / 'stepsize' must be positive and below")
  # both components put y = 1e10 at z = Inf: density 0 exactly, log -Inf (not NaN)
  m <- bnn_metrics_gaussian(matrix(0, 3, 2), matrix(1e-300, 3, 2), c(1e10, 0),
                            pointwise = TRUE)
  expect_identical(m$pointwise$lpd[1], -Inf)
  expect_equal(m$pointwise$lpd[2], -log(1e-300) - 0.5 * log(2 * pi))
  expect_identical(m$lppd, -Inf)
})

test_that("bad inverse metrics are refused and a frozen chain is a failed chain", {
  for (bad in list(c(1, -1), c(1, 0), c(1, NA), c(1, Inf), c(1, NaN)))
    expect_error(bnn_nuts(inv_metric = bad), "'inv_metric' must have positive finite entries")
  expect_error(bnn_hmc(inv_metric = c(0, 1)), "'inv_metric' must have positive finite entries")
  d <- fh_data()
  s <- bnn_nuts(adapt_metric = FALSE)
  s$inv_metric <- c(rep(1, 9), -1)  # bypassing the constructor: checked in C too
  expect_error(bnn_fit(y ~ x, data = d, hidden = 2, chains = 1, warmup = 5, iter = 5,
                       sampler = s, seed = 1, progress = FALSE, likelihood = "hetero_gaussian"),
               "'inv_metric' must have positive finite entries; entry 10 is -1")
  s2 <- bnn_nuts()
  s2$adapt_delta <- 1.5          # other settings edited by hand: also checked in C
  expect_error(bnn_fit(y ~ x, data = d, hidden = 2, chains = 1, warmup = 5, iter = 5,
                       sampler = s2, seed = 1, progress = FALSE),
               "'adapt_delta' must be in \\(0, 1\\)")
  # a step size so large that every transition is rejected: the chain never moves
  expect_warning(
    fit <- bnn_fit(y ~ x, data = d, hidden = 2, chains = 1, warmup = 0, iter = 10, seed = 1,
                   sampler = bnn_hmc(stepsize = 1e3, trajectory_length = 1e3),
                   progress = FALSE, likelihood = "hetero_gaussian"),
    "Chain 1 failed: the chain never moved")
  expect_identical(as.character(fit$chain_status), "the chain never moved (every transition rejected)")
  expect_true(all(is.na(fit$draws)))
})

test_that("warmup = 0 starts from Stan's step-size heuristic and says 'not adapted'", {
  d <- fh_data()
  fit <- suppressWarnings(bnn_fit(y ~ x + z, data = d, hidden = 3, chains = 2, warmup = 0,
                                  iter = 30, seed = 1, progress = FALSE, sampler = "nuts",
                                  likelihood = "hetero_gaussian"))
  # before: the nominal step size 1 was kept and every transition diverged
  expect_true(all(fit$stepsize < 1))
  expect_lt(mean(fit$sampler_stats[, , "divergent__"]), 1)
  expect_equal(unname(fit$sampler_stats[1, , "stepsize__"]), fit$stepsize)
  out <- capture.output(print(fit))
  expect_true(any(grepl("not adapted", out)))
  expect_false(any(grepl("adapted\\)", out[1])))
  expect_true(any(grepl("metric fixed", out[1])))
  # with warm-up, unchanged: adapted
  fit2 <- suppressWarnings(bnn_fit(y ~ x + z, data = d, hidden = 3, chains = 1, warmup = 30,
                                   iter = 5, seed = 1, progress = FALSE, sampler = "nuts",
                                   likelihood = "hetero_gaussian"))
  expect_true(any(grepl("step sizes:.*\\(adapted\\)", capture.output(print(fit2)))))
})

test_that("standardize = FALSE with a response far from unit scale stops", {
  d <- fh_data()
  d$y <- d$y * 1e9
  expect_error(bnn_fit(y ~ x, data = d, hidden = 2, chains = 1, standardize = FALSE, sampler = "nuts",
                       likelihood = "hetero_gaussian"),
               "standardize = FALSE.*sd is 9.*bounds the predictive sd to \\[1e-6, 1e6\\].*standardize = TRUE")
  # the default standardises: fine, and predictions are on the response's scale
  fit <- suppressWarnings(bnn_fit(y ~ x, data = d, hidden = 2, chains = 1, warmup = 30,
                                  iter = 10, seed = 1, progress = FALSE, sampler = "nuts",
                                  likelihood = "hetero_gaussian"))
  iv <- predict(fit, d[1:3, ], type = "interval")
  expect_gt(min(iv$upper - iv$lower), 1e8)
})

test_that("model size is checked before allocating", {
  d <- fh_data()
  expect_error(bnn_fit(y ~ x + z, data = d, hidden = 1e6, chains = 1, sampler = "nuts",
                       likelihood = "hetero_gaussian"),
               "The network has 5,000,002 parameters \\(layer sizes 2-1000000-2\\); the fit would need about [0-9.]+ GB.*limit of 4.0 GB.*bnnmc.max_memory")
  expect_error(bnn_fit(y ~ x + z, data = d, hidden = c(1e6, 1e6), chains = 1, sampler = "nuts",
                       likelihood = "hetero_gaussian"),
               "1,000,006,000,002 parameters.*more than the 2,147,483,647")
  sz <- bnn_model_size(c(2, 1e6, 2), chains = 1, iter = 1000)
  expect_equal(sz$parameters, 5000002)
  # the limit is an option
  old <- options(bnnmc.max_memory = 1e3)
  on.exit(options(old))
  expect_error(bnn_fit(y ~ x, data = d, hidden = 2, chains = 1, sampler = "nuts"), "above the limit of 1 kB")
})

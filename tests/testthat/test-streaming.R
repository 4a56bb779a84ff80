# loo(), waic() and the default's PSIS-LOO check work on blocks of training
# observations: the same objects as loo's functions of the whole pointwise
# log-likelihood, without that [draw, observation] matrix, so they run on
# fits whose matrix is above getOption("bnnmc.max_memory"); log_lik() of
# such a size is refused with a pointer to the functions that summarise it
# in blocks.

streaming_fits <- local({
  cache <- NULL
  function() {
    if (is.null(cache)) {
      set.seed(3)
      n <- 600
      d <- data.frame(x1 = rnorm(n), x2 = runif(n))
      d$y <- sin(2 * d$x1) + d$x2 + rnorm(n, sd = 0.3)
      d$y[1:3] <- d$y[1:3] + 4   # outliers: high Pareto k
      d$w <- runif(n, 0.5, 1.5)
      d$b <- rbinom(n, 1, plogis(2 * d$x1))
      fit <- function(f, ...) quiet_verdict(bnn_fit(f, data = d, chains = 2, warmup = 100,
                                                     iter = 100, progress = FALSE,
                                                     sampler = "nuts", ...))
      # (weights are looked up in the data, so this fit is written out)
      net <- quiet_verdict(bnn_fit(y ~ x1 + x2, data = d, weights = w, hidden = 3, chains = 2,
                                   warmup = 100, iter = 100, seed = 1, progress = FALSE,
                                   sampler = "nuts"))
      lin <- fit(y ~ x1 + x2, hidden = integer(0), seed = 2)
      cache <<- list(
        data = d, weighted = net,
        stacked = bnnmc:::bnnfit_with(net, mixture = list(
          fit = lin, weights = c(network = 0.7, linear = 0.3))),
        bern = fit(b ~ x1 + x2, family = binomial(), hidden = 2, seed = 4))
    }
    cache
  }
})

# loo() as the package computed it before it worked in blocks: loo::loo()
# of the whole pointwise log-likelihood, with the chains' relative
# efficiencies, and no PSIS object kept.
loo_whole <- function(fit) {
  ll <- log_lik(fit)
  lo <- suppressWarnings(loo::loo(ll, r_eff = bnnmc:::fit_relative_eff(fit, ll)))
  lo$psis_object <- NULL
  lo
}

# A limit below the whole pointwise log-likelihood of `fit` (its 200 draws x
# 600 observations: 960 kB) but above a block of 256 observations.
small_limit <- function() options(bnnmc.max_memory = 5e5, bnnmc.block_bytes = 1)

test_that("loo() in blocks of observations equals loo() of the whole log-likelihood", {
  skip_if_not_installed("loo")
  fs <- streaming_fits()
  for (nm in c("weighted", "bern")) {
    fit <- fs[[nm]]
    ref <- loo_whole(fit)
    expect_error(log_lik(fit), NA)
    op <- small_limit()
    # the whole matrix is above the limit; loo() does not need it
    expect_error(log_lik(fit), "above the limit")
    lo <- suppressWarnings(loo(fit, moment_match = FALSE))
    options(op)
    expect_identical(lo, ref)
    expect_identical(attr(lo, "dims"), c(200L, 600L))
  }
})

test_that("loo() in blocks keeps its messages, warnings and moment matching", {
  skip_if_not_installed("loo")
  fit <- streaming_fits()$weighted
  ref <- loo_whole(fit)
  high <- sum(ref$diagnostics$pareto_k > 0.7)
  expect_gt(high, 0L)
  ref_mm <- suppressWarnings(loo::loo_moment_match(fit, loo::loo(
    log_lik(fit), r_eff = bnnmc:::fit_relative_eff(fit, log_lik(fit)), save_psis = TRUE)))
  ref_mm$psis_object <- NULL
  op <- small_limit()
  on.exit(options(op))
  expect_message(
    w <- testthat::capture_warnings(lo <- loo(fit)),
    sprintf("loo(): %d observation(s) have high Pareto k", high), fixed = TRUE)
  expect_identical(lo, ref_mm)
  # one warning, the package's: loo's own about Pareto k are not repeated per block
  expect_length(w, 1L)
  expect_match(w, "Pareto k above 0.70", fixed = TRUE)
  # a user's r_eff is checked against all observations, as loo checks it
  expect_error(loo(fit, r_eff = rep(1, 10), moment_match = FALSE),
               "'r_eff' must have one value per observation.", fixed = TRUE)
  r <- seq(0.5, 1, length.out = 600)
  lo_r <- suppressWarnings(loo(fit, r_eff = r, moment_match = FALSE))
  options(op)
  ref_r <- suppressWarnings(loo::loo(log_lik(fit), r_eff = r))
  ref_r$psis_object <- NULL
  expect_identical(lo_r, ref_r)
})

test_that("waic() in blocks equals loo::waic() of the whole log-likelihood, warning included", {
  skip_if_not_installed("loo")
  fit <- streaming_fits()$weighted
  ll <- log_lik(fit)
  ref_w <- testthat::capture_warnings(ref <- loo::waic(ll))
  expect_length(ref_w, 1L)   # the fit has observations with p_waic > 0.4
  op <- small_limit()
  w <- testthat::capture_warnings(wa <- waic(fit))
  options(op)
  expect_identical(wa, ref)
  expect_identical(w, ref_w)
})

test_that("a stacked fit's loo() and waic() in blocks equal those of whole matrices", {
  skip_if_not_installed("loo")
  fs <- streaming_fits()
  mix <- fs$stacked
  parts <- bnnmc:::mixture_components(mix)
  ref_lo <- bnnmc:::stacked_elpd_object(lapply(parts, loo_whole), mix$mixture$weights, "loo")
  ref_wa <- suppressWarnings(bnnmc:::stacked_elpd_object(
    lapply(parts, function(f) loo::waic(log_lik(f))), mix$mixture$weights, "waic"))
  op <- small_limit()
  lo <- suppressWarnings(loo(mix, moment_match = FALSE))
  wa <- suppressWarnings(waic(mix))
  options(op)
  expect_identical(lo, ref_lo)
  expect_identical(wa, ref_wa)
})

test_that("the default's PSIS-LOO check in blocks equals that of the whole matrix", {
  fit <- streaming_fits()$weighted
  ll <- log_lik(fit)
  pw <- bnnmc:::psis_loo_pointwise(ll, bnnmc:::fit_relative_eff(fit, ll))
  op <- small_limit()
  e <- bnnmc:::fit_psis_elpd(fit)
  options(op)
  expect_identical(e$pointwise, unname(pw[, "elpd_loo"]))
  expect_identical(e$elpd, sum(pw[, "elpd_loo"]))
  expect_identical(e$k_high, sum(pw[, "pareto_k"] > 0.7))
  # the verdict's matrix, when given, is used as it is
  expect_identical(bnnmc:::fit_psis_elpd(fit, list(pointwise = ll)), e)
})

test_that("log_lik() above the memory limit names its size and what summarises it in blocks", {
  fit <- streaming_fits()$weighted
  op <- options(bnnmc.max_memory = 5e5)
  on.exit(options(op))
  expect_error(log_lik(fit), "120,000 values", fixed = TRUE)
  expect_error(log_lik(fit), "bnn_metrics(fit, newdata)", fixed = TRUE)
  expect_error(log_lik(fit), "loo(fit) and waic(fit)", fixed = TRUE)
  # fewer draws fit under it
  expect_identical(dim(log_lik(fit, ndraws = 50)), c(50L, 600L))
})

test_that("bnn_metrics() in blocks gives the coverage table of all rows at once", {
  fs <- streaming_fits()
  fit <- fs$weighted
  nd <- fs$data
  pp <- bnnmc:::predictive_params(fit, nd)
  lv <- c((1:19) / 20)
  ref <- bnn_metrics_gaussian(pp$mu, pp$sd, nd$y, levels = lv, pointwise = TRUE)
  op <- options(bnnmc.block_bytes = 1)   # blocks of 256 rows
  m <- bnn_metrics(fit, nd, pointwise = TRUE)
  options(bnnmc.block_bytes = 1e12)      # all rows in one block
  m1 <- bnn_metrics(fit, nd, pointwise = TRUE)
  options(op)
  expect_identical(m, m1)
  expect_identical(m$coverage, ref$coverage)
  expect_identical(m$pointwise$mean, ref$pointwise$mean)
  expect_identical(m[c("rmse", "cal_error")], ref[c("rmse", "cal_error")])
})

# MCLMC with safeguard = "blackjax" (BlackJAX 1.2.2 as MILE ran it): in
# tuning stages 1-2 only a non-finite position is caught, everything else is
# accepted through nan_to_num; stage 3 and sampling check nothing, so chains
# can fail, and a failed chain is stopped and reported.

# N(0, I_d) except that coordinate 1 has precision 1e300: a move of order
# 1e-4 or more along it overflows the squared gradient norm, so the
# momentum, then the position, become NaN within the step
stiff_prec <- function(d) diag(c(1e300, rep(1, d - 1)))

test_that("tuning stages 1-2 catch a non-finite position only, capping the step size at 0.8 eps", {
  d <- 10L
  s <- bnn_mclmc(n_tune = c(30, 0, 0), n_samples = 0, stepsize = 0.1,
                 safeguard = "blackjax")
  r <- .mclmc_gaussian(rep(0, d), prec = stiff_prec(d), init = rep(0, d),
                       seed = 1, settings = s, trace = TRUE)
  tr <- r$trace
  expect_identical(r$info$status, "ok")
  expect_null(r$info$failed_at)
  # every step so far has a NaN position: caught, the state (log density 0
  # at the mean) kept, the step entered with energy error 0, whose estimate
  # ((1e-8)^(-1/6) = 21.5 times larger) the cap 0.8 * eps overrides
  expect_true(all(tr[, "reverted"] == 1))
  expect_true(all(tr[, "logdens"] == 0))
  expect_equal(tr[-1, "stepsize"], 0.8 * tr[-nrow(tr), "stepsize"], tolerance = 1e-14)
  expect_identical(r$info$n_reverted, 30)
  expect_identical(r$n_grad, bnn_mclmc_budget(s)$n_grad)   # 1 + 2 * 30

  # a non-finite log density at a finite position is not caught: the step is
  # accepted with nan_to_num(-Inf) = -DBL_MAX, its energy error is infinite,
  # which makes the step-size estimate NaN (0 * Inf) and dooms the chain in
  # BlackJAX; bnnmc stops it there
  s <- bnn_mclmc(n_tune = c(1000, 300, 300), n_samples = 3000, thin = 1,
                 stepsize = 0.5, safeguard = "blackjax")
  r <- .mclmc_gaussian(rep(0, d), cov = diag(d), init = rep(0, d), seed = 4,
                       settings = s, upper = c(2, rep(Inf, d - 1)), trace = TRUE)
  last <- r$trace[nrow(r$trace), ]
  expect_identical(r$info$status, "nonfinite")
  expect_identical(r$info$failed_at,
                   list(phase = "stage1", step = as.double(nrow(r$trace)),
                        reason = "stepsize"))
  expect_equal(last[["reverted"]], 0)
  expect_identical(last[["logdens"]], -.Machine$double.xmax)
  expect_identical(last[["energy_change"]], Inf)
  expect_true(is.nan(r$info$stepsize))
  expect_identical(r$info$n_reverted, 0)
  # stopped: only the gradients actually evaluated are counted
  expect_identical(r$n_grad, 1 + 2 * nrow(r$trace))
  expect_identical(dim(r$draws), c(3000L, d))
  expect_true(all(is.na(r$draws)))
  expect_true(all(is.na(r$stats)))

  # the default safeguard reverts that step and goes on
  s$safeguard <- "revert"
  r <- .mclmc_gaussian(rep(0, d), cov = diag(d), init = rep(0, d), seed = 4,
                       settings = s, upper = c(2, rep(Inf, d - 1)))
  expect_identical(r$info$status, "ok")
  expect_gt(r$info$n_reverted, 0)
  expect_true(all(is.finite(r$draws)))
})

test_that("stage 3 and sampling check nothing: the chain fails and stops", {
  d <- 10L
  for (st in c("stage3", "sampling")) {
    s <- bnn_mclmc(n_tune = if (st == "stage3") c(0, 0, 50) else c(0, 0, 0),
                   n_samples = 100, thin = 1, stepsize = 0.1,
                   safeguard = "blackjax")
    r <- .mclmc_gaussian(rep(0, d), prec = stiff_prec(d), init = rep(0, d),
                         seed = 1, settings = s)
    expect_identical(r$info$status, "nonfinite")
    expect_identical(r$info$failed_at,
                     list(phase = st, step = 1, reason = "state"))
    expect_identical(r$n_grad, 3)            # the start and one step
    expect_identical(r$info$n_reverted, 0)
    expect_true(all(is.na(r$draws)))
    expect_identical(dim(r$draws), c(100L, d))
    # the default safeguard reverts, shrinks the step size and keeps going
    s$safeguard <- "revert"
    r <- .mclmc_gaussian(rep(0, d), prec = stiff_prec(d), init = rep(0, d),
                         seed = 1, settings = s)
    expect_identical(r$info$status, "ok")
    expect_gt(r$info$n_reverted, 0)
    expect_true(all(is.finite(r$draws)))
    expect_identical(r$n_grad, bnn_mclmc_budget(s)$n_grad)
  }
})

test_that("bnn_fit reports chains that diverge with safeguard = \"blackjax\"", {
  # naive MCLMC (MILE's Table 5 baseline) with a far too large initial step
  # size on a small network: with this seed some chains turn non-finite,
  # others survive
  naive <- function(...)
    bnn_mclmc(tuning = "naive", n_tune = c(200, 50, 50), n_samples = 100,
              stepsize = 1000, ...)
  run <- function(sampler) {
    warns <- list()
    fit <- withCallingHandlers(
      bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 4, chains = 4, seed = 1,
              sampler = sampler, progress = FALSE, likelihood = "hetero_gaussian"),
      warning = function(w) {
        # the run's length and its convergence verdict are warned about
        # separately; these tests count the failure reports
        if (!inherits(w, c("bnnmc_short_run", "bnnmc_not_converged")))
          warns[[length(warns) + 1L]] <<- w
        invokeRestart("muffleWarning")
      })
    list(fit = fit, warns = warns)
  }
  a <- run(naive())
  fit <- a$fit
  bad <- which(fit$chain_status != "ok")
  ok <- which(fit$chain_status == "ok")
  expect_gt(length(bad), 0)
  expect_gt(length(ok), 0)
  expect_true(all(fit$chain_status[bad] == "non-finite state (NaN/Inf): the chain diverged"))
  # one warning, of class bnnmc_chain_failure, naming exactly the failed chains
  expect_length(a$warns, 1L)
  expect_s3_class(a$warns[[1]], "bnnmc_chain_failure")
  msg <- conditionMessage(a$warns[[1]])
  named <- as.integer(regmatches(msg, gregexpr("(?<=[ ,])[0-9]+(?= \\()", msg, perl = TRUE))[[1]])
  expect_identical(named, bad)
  expect_match(msg, sprintf("^%d of 4 chains failed", length(bad)))
  # where they failed; no draws; only the gradients evaluated are counted
  expect_true(all(!is.na(fit$failed_at$phase[bad])))
  expect_true(all(is.na(fit$failed_at$phase[ok])))
  expect_true(all(fit$failed_at$phase[bad] %in% c("stage1", "stage2", "stage3", "sampling")))
  expect_true(all(is.na(fit$draws[, bad, ])))
  expect_true(all(is.finite(fit$draws[, ok, ])))
  budget <- bnn_mclmc_budget(naive())$n_grad
  expect_true(all(fit$n_grad[ok] == budget))
  expect_true(all(fit$n_grad[bad] < budget))
  # the fit is usable through the chains that did not fail
  expect_identical(dim(ok_draws(fit))[2], length(ok))
  p <- predict(fit, newdata = mtcars[1:3, ])
  expect_true(all(is.finite(as.matrix(p))))
  sm <- summary(fit)$sampler
  expect_identical(sm$failed_phase, fit$failed_at$phase)

  # the same seed gives the same chains, failures included
  b <- run(naive())
  expect_identical(b$fit$draws, fit$draws)
  expect_identical(b$fit$failed_at, fit$failed_at)
  expect_identical(b$fit$n_grad, fit$n_grad)
  expect_identical(b$fit$stepsize, fit$stepsize)
  expect_identical(conditionMessage(b$warns[[1]]), msg)

  # the default safeguard on the same setup: no failure, finite draws
  r <- run(naive(safeguard = "revert"))
  expect_length(r$warns, 0L)
  expect_true(all(r$fit$chain_status == "ok"))
  expect_true(all(is.finite(r$fit$draws)))
  expect_true(all(r$fit$n_grad == budget))
})

test_that("the naive preset is MILE's tuning code with BlackJAX's targets", {
  s <- bnn_mclmc(tuning = "naive")
  m <- bnn_mclmc()
  expect_identical(s$safeguard, "blackjax")
  expect_identical(m$safeguard, "revert")
  expect_identical(bnn_mclmc(tuning = "blackjax")$safeguard, "revert")
  expect_identical(s$energy_var, c(5e-4, 5e-4))
  for (nm in c("n_tune", "n_samples", "thin", "diag_precond", "n_eff", "trust",
               "fft_params", "fft_samples"))
    expect_identical(s[[nm]], m[[nm]], label = nm)
  cs <- .mclmc_c_settings(s, 674)
  expect_equal(cs$stepsize, sqrt(674))          # 25.96: the config's 26.0
  expect_equal(cs$L, sqrt(674))
  expect_identical(cs$safeguard, 1L)
  expect_identical(.mclmc_c_settings(m, 674, lr = 0.01)$safeguard, 0L)
  expect_identical(bnn_mclmc(tuning = "naive", safeguard = "revert")$safeguard, "revert")
  expect_error(bnn_mclmc(safeguard = "none"), "'safeguard' must be one of")
  expect_match(format(s), "naive.*BlackJAX 1.2.2 safeguard")
})

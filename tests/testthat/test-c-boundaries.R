# Checks at the .Call boundary added by the C review (QA): sizes that would
# overflow the C code's int arithmetic are refused with a clear error, and
# the generic driver's interrupt checks (elapsed time, option
# bnnmc.interrupt_period) do not change the draws.

test_that("an architecture with more parameters than an int can index is refused", {
  # 60000 x 60000 weights: 3.6e9 parameters; refused before anything is
  # allocated or any other part of the spec is read
  spec <- list(sizes = c(60000L, 60000L, 1L))
  expect_error(.Call(bnnmc:::C_model_logpost, spec, matrix(0, 1, 1)),
               "3600120001 parameters, more than the supported 2147483646")
})

test_that("SG-MCMC schedules refuse warmup + iter beyond the int range", {
  spec <- list(type = "gaussian", mean = c(0, 0), prec = as.double(diag(2)))
  s <- list(stepsize = 1e-3, warmup = 1200000000L, iter = 1200000000L)
  expect_error(.Call(bnnmc:::C_kchain_new, "sgld", spec, c(0, 0), 1, 0L, s),
               "'warmup' \\+ 'iter' must be at most 2147483647, not 2400000000")
  # a cyclical schedule over nearly INT_MAX transitions has well-defined
  # cycle lengths (ceil(K / M) computed without overflow)
  s <- list(stepsize = 1e-3, warmup = 0L, iter = 2147483000L, cycles = 1000L)
  xp <- .Call(bnnmc:::C_kchain_new, "sgld", spec, c(0, 0), 1, 0L, s)
  out <- .Call(bnnmc:::C_kchain_run, xp, 3L, NULL)
  # K + M - 1 exceeds INT_MAX; cycles are 2147483 transitions long, so the
  # first steps have the full step size
  cyc <- ceiling(2147483000 / 1000)
  expect_equal(out$stats[, 2], 1e-3 / 2 * (cos(pi * (0:2) / cyc) + 1), tolerance = 1e-14)
})

test_that("interrupt checks of the generic driver do not change its draws", {
  spec <- list(type = "gaussian", mean = c(1, -1), prec = as.double(diag(2)))
  run <- function(period) {
    old <- options(bnnmc.interrupt_period = period)
    on.exit(options(old))
    bnnmc:::run_chain(spec, c(0, 0), 7, 1L, bnn_rwm(), 50L, 100L, 1L)$draws
  }
  a <- run(0)     # a check at every step
  expect_identical(a, run(0.2))
  expect_identical(a, run(3600))
  expect_equal(dim(a), c(100L, 2L))
})

test_that("minibatch targets refuse the emulators' multi-output likelihood", {
  # code 5: K responses per row; a batch copies one response per row, so
  # this would read past the batch's responses
  set.seed(1)
  n <- 40
  sp <- list(sizes = c(2L, 3L, 2L), act = 0L, lik = 5L, prior = 0L, sigma_prior = 0L,
             sigma_fixed = 1, sigma_prior_scale = 1, prior_scale = rep(1, 17),
             X = rnorm(2 * n), y = rnorm(2 * n))
  th <- matrix(rnorm(17), 17)
  expect_true(is.finite(.Call(bnnmc:::C_model_logpost, sp, th)$lp))
  expect_error(.Call(bnnmc:::C_minibatch_eval, sp, list(batch_size = 5L), 1, 1L, th, NULL),
               "one response per row")
  expect_error(.Call(bnnmc:::C_kchain_new, "sgld", sp, th[, 1], 1, 0L,
                     list(stepsize = 1e-3, batch_size = 5L)),
               "one response per row")
})

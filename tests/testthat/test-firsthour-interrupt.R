# Issue #12 item 11: interrupts are checked by elapsed time, also inside
# long NUTS trajectories, without changing the draws.

test_that("interrupt checks (even at every step) do not change the draws", {
  d <- data.frame(y = rnorm(30), x = rnorm(30))
  run <- function(period, sampler) {
    old <- options(bnnmc.interrupt_period = period)
    on.exit(options(old))
    suppressWarnings(bnn_fit(y ~ x, data = d, hidden = 3, chains = 2, warmup = 60, iter = 30,
                             seed = 5, sampler = sampler, progress = FALSE,
                             likelihood = "hetero_gaussian"))$draws
  }
  # period 0: the hook asks R (inside R_ToplevelExec) after every leapfrog step
  expect_identical(run(0, "nuts"), run(0.2, "nuts"))
  expect_identical(run(0, bnn_hmc(stepsize = 0.01, trajectory_length = 0.2)),
                   run(0.2, bnn_hmc(stepsize = 0.01, trajectory_length = 0.2)))
  mc <- bnn_mclmc(n_tune = c(80, 10, 10), n_samples = 40)
  expect_identical(run(0, mc), run(0.2, mc))
})

test_that("Ctrl-C inside a long NUTS trajectory is answered within a second or two", {
  skip_on_cran()
  skip_on_os("windows")
  skip_if_not(parallel::detectCores() >= 1)
  set.seed(1)
  n <- 2000
  d <- data.frame(matrix(rnorm(n * 8), n, 8))
  d$y <- rnorm(n)
  ini <- list(rnorm(450, sd = 0.1))
  # tree depth 12 with a tiny fixed step size: every transition is 4095
  # leapfrog steps (about 2 s here); before, interrupts were checked every
  # 8 transitions, i.e. after 10 s or more
  job <- parallel::mcparallel({
    tryCatch(bnn_fit(y ~ ., data = d, hidden = c(16, 16), chains = 1, warmup = 0, iter = 20,
                     sampler = bnn_nuts(max_treedepth = 12, stepsize = 1e-5,
                                        adapt_stepsize = FALSE),
                     seed = 1, progress = FALSE, init = ini, likelihood = "hetero_gaussian"),
             interrupt = function(e) Sys.time())
  })
  Sys.sleep(3)
  t_kill <- Sys.time()
  tools::pskill(job$pid, tools::SIGINT)
  res <- parallel::mccollect(job, wait = TRUE)[[1]]
  expect_s3_class(res, "POSIXct")
  expect_lt(as.numeric(difftime(res, t_kill, units = "secs")), 2)
})

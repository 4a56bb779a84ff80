# The memory guard of a fit: every stage of a calibration-emulation-sampling
# fit counts (calibration draws, emulator training pairs, sampling draws)
# before anything is allocated.

test_that("the memory guard counts every stage of a CES fit", {
  set.seed(1)
  d <- data.frame(matrix(rnorm(40 * 8), 40, 8))
  d$y <- rnorm(40)
  lik <- bnn_likelihood("gaussian", sigma = 0.3)
  # 8-32-32-1: 1,377 parameters.  calibration_iter = 5e6 would
  # allocate 51 GB, 1.5e6 about 16 GB (twice that while assembled); both
  # are refused before anything runs, naming calibration_iter
  for (ci in c(5e6, 1.5e6))
    expect_error(bnn_fit(y ~ ., data = d, hidden = c(32, 32), likelihood = lik,
                         sampler = bnn_ces(calibration = bnn_pcn(), calibration_iter = ci,
                                           J = 20, emulator = "exact"),
                         chains = 1, warmup = 10, iter = 10, progress = FALSE),
                 "This CES fit would need about .* GB .*Reduce calibration_iter")
  expect_gt(bnn_model_size(c(8, 32, 32, 1), chains = 1, iter = 10,
                           sampler = bnn_ces(calibration_iter = 5e6))$bytes, 5e10)
  # under a small limit: a calibration run that alone exceeds it (the
  # sampling stage is tiny), and J pairs whose outputs exceed it
  old <- options(bnnmc.max_memory = 2e6)
  on.exit(options(old))
  d2 <- d[, c("X1", "X2", "y")]
  expect_error(bnn_fit(y ~ X1 + X2, data = d2, hidden = 4, likelihood = lik,
                       sampler = bnn_ces(calibration = bnn_pcn(), calibration_iter = 2e4,
                                         J = 20, emulator = "exact"),
                       chains = 1, warmup = 10, iter = 10, progress = FALSE),
               "calibration draws 5.4 MB.*Reduce calibration_iter \\(20,000 iterations x 1 chain x 17")
  d3 <- data.frame(X1 = rnorm(5000), X2 = rnorm(5000), y = rnorm(5000))
  expect_error(bnn_fit(y ~ X1 + X2, data = d3, hidden = 4, likelihood = lik,
                       sampler = bnn_ces(calibration = bnn_pcn(), calibration_iter = 100,
                                         J = 100, emulator = "exact"),
                       chains = 1, warmup = 10, iter = 10, progress = FALSE),
               "Reduce J \\(100 training pairs of 17 parameters and 5,000 outputs\\)")
  # the sampling stage still counts
  expect_error(bnn_fit(y ~ X1 + X2, data = d2, hidden = 4, likelihood = lik,
                       sampler = bnn_ces(calibration = bnn_pcn(), calibration_iter = 100,
                                         J = 20, emulator = "exact"),
                       chains = 1, warmup = 10, iter = 2e4, progress = FALSE),
               "fewer chains or draws \\(thin\\)")
})

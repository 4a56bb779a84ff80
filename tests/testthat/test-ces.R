# Calibration-emulation-sampling: the multi-output Gaussian likelihood, the
# emulated target and its gradient, and the pipeline (R/sampler-ces.R,
# R/sampler-ces-emulator.R, R/fit-ces.R, src/mcmc/emulator.c, src/api/api_ces.c).

ces_data <- function(n = 40) {
  set.seed(3)
  d <- data.frame(x1 = runif(n, -2, 2), x2 = rnorm(n))
  d$y <- sin(2 * d$x1) + 0.5 * d$x2 + rnorm(n, sd = 0.2)
  d
}

ces_small <- function(...) {
  bnn_ces(calibration = bnn_nuts(), calibration_warmup = 60, calibration_iter = 60, J = 60,
          emulator = bnn_emulator(hidden = c(16, 16), holdout = 0.25,
                                  optimizer = bnn_optimizer("adam", lr = 3e-3, weight_decay = 0,
                                                            epochs = 400, batch_size = 15)), ...)
}

test_that("the multi-output Gaussian likelihood is the squared error of all outputs", {
  set.seed(1)
  n <- 7; p <- 3; K <- 4
  sizes <- c(p, 5L, K)
  X <- matrix(rnorm(n * p), n)
  Y <- matrix(rnorm(n * K), n)
  spec <- list(type = "bnn", sizes = as.integer(sizes), act = 0L, lik = 5L,
               sigma_fixed = 0.7, sigma_prior = 0L, sigma_prior_scale = 1, prior = 0L,
               prior_scale = rep(1.3, bnn_n_parameters(sizes)), X = X, y = as.double(Y))
  th <- rnorm(bnn_n_parameters(sizes))
  out <- .Call(bnnmc:::C_model_forward, spec, matrix(th), X, 1L)[, , 1]
  r <- .Call(bnnmc:::C_model_logpost, spec, matrix(th))
  expect_equal(r$loglik, sum(dnorm(Y, out, 0.7, log = TRUE)), tolerance = 1e-12)
  h <- 1e-6
  fd <- vapply(seq_along(th), function(j) {
    e <- replace(numeric(length(th)), j, h)
    diff(.Call(bnnmc:::C_model_logpost, spec, cbind(th - e, th + e))$lp) / (2 * h)
  }, numeric(1))
  expect_equal(drop(r$grad), fd, tolerance = 1e-6)
})

test_that("the emulated target's gradient equals finite differences", {
  d <- ces_data()
  d$cls <- factor(d$y > 0)
  cases <- list(list(y ~ x1 + x2, bnn_likelihood("gaussian", sigma = 0.5)),
                list(y ~ x1 + x2, bnn_likelihood("gaussian")),
                list(y ~ x1 + x2, "hetero_gaussian"),
                list(cls ~ x1 + x2, "bernoulli"))
  for (cs in cases) {
    fit <- short_run(bnn_fit(cs[[1]], data = d, hidden = 3, likelihood = cs[[2]],
                             sampler = "pcn", chains = 1, warmup = 5, iter = 5, seed = 1,
                             progress = FALSE))
    spec <- bnnmc:::fit_spec(fit)
    n_net <- bnn_n_parameters(spec$sizes)
    # 30 parameter vectors from the prior (and log sigma near 0)
    set.seed(4)
    th <- matrix(rnorm(length(fit$parameters) * 30, sd = 0.7), ncol = 30)
    outputs <- t(matrix(.Call(bnnmc:::C_model_forward, spec, th, spec$X, 1L), ncol = ncol(th)))
    em <- bnnmc:::train_emulator(t(th[seq_len(n_net), ]), outputs,
                                 bnn_emulator(hidden = c(5, 4), activation = "tanh",
                                              optimizer = bnn_optimizer("adam", epochs = 20)),
                                 seed = 1)
    es <- bnnmc:::emulated_spec(spec, em)
    x <- th[, 30] + rnorm(nrow(th), sd = 0.1)
    g <- .Call(bnnmc:::C_ces_loglik, es, matrix(x), TRUE)$grad
    h <- 1e-6
    fd <- vapply(seq_along(x), function(j) {
      e <- replace(numeric(length(x)), j, h)
      diff(.Call(bnnmc:::C_ces_loglik, es, cbind(x - e, x + e), FALSE)$lp) / (2 * h)
    }, numeric(1))
    expect_equal(drop(g), fd, tolerance = 1e-6, info = format(fit$likelihood))
    # ReLU emulator: away from kinks the gradient is exact as well
    em$act <- bnnmc:::.activations[["relu"]]
    es <- bnnmc:::emulated_spec(spec, em)
    g <- .Call(bnnmc:::C_ces_loglik, es, matrix(x), TRUE)$grad
    fd <- vapply(seq_along(x), function(j) {
      e <- replace(numeric(length(x)), j, h)
      diff(.Call(bnnmc:::C_ces_loglik, es, cbind(x - e, x + e), FALSE)$lp) / (2 * h)
    }, numeric(1))
    expect_equal(drop(g), fd, tolerance = 1e-5, info = format(fit$likelihood))
    # the exact forward map gives the model's own log posterior, to the bit
    ex <- .Call(bnnmc:::C_ces_loglik, bnnmc:::emulated_spec(spec, NULL), th[, 1:5], TRUE)
    ref <- .Call(bnnmc:::C_model_logpost, spec, th[, 1:5])
    expect_identical(ex$lp, ref$lp)
    expect_identical(ex$grad, ref$grad)
    # without the gradient (one likelihood evaluation per draw): the same
    # log-likelihood and log posterior as the gradient path's
    for (e in list(NULL, em)) {
      es <- bnnmc:::emulated_spec(spec, e)
      a <- .Call(bnnmc:::C_ces_loglik, es, th[, 1:5], FALSE)
      b <- .Call(bnnmc:::C_ces_loglik, es, th[, 1:5], TRUE)
      expect_equal(a$loglik, b$loglik, tolerance = 1e-12)
      expect_equal(a$lp, b$lp, tolerance = 1e-12)
      expect_null(a$grad)
    }
    ll <- .Call(bnnmc:::C_ces_loglik, bnnmc:::emulated_spec(spec, NULL), th[, 1:5], FALSE)
    expect_equal(ll$lp, ref$lp, tolerance = 1e-12)
  }
})

test_that("with the true forward map as emulator, CES is exact pCN draw for draw", {
  d <- ces_data()
  lik <- bnn_likelihood("gaussian", sigma = 0.3)
  ex <- short_run(bnn_fit(y ~ x1 + x2, data = d, hidden = 4, likelihood = lik,
                          sampler = bnn_ces(calibration = bnn_pcn(), calibration_iter = 50,
                                            J = 50, emulator = "exact"),
                          chains = 2, warmup = 100, iter = 200, seed = 5, progress = FALSE),
                  also = "bnnmc_not_converged")
  ref <- short_run(bnn_fit(y ~ x1 + x2, data = d, hidden = 4, likelihood = lik,
                           sampler = bnn_pcn(), init = ex$ces$init, chains = 2, warmup = 100,
                           iter = 200, seed = 5, progress = FALSE),
                   also = "bnnmc_not_converged")
  expect_identical(ex$draws, ref$draws)
  expect_identical(ex$sampler_stats, ref$sampler_stats)
  # the chains start at the last calibration draws
  expect_equal(ex$ces$init[[2]], unname(ex$ces$calibration$draws[50, 2, ]))
  expect_identical(ex$ces$n_emulated, sum(ref$n_grad))
})

test_that("the CES pipeline returns an ordinary bnnfit with its stage record", {
  d <- ces_data()
  # a linear model: its forward map is linear in theta, which 45 pairs can
  # emulate (a network's cannot be learnt from so few)
  fit <- bnn_fit(y ~ x1 + x2, data = d, hidden = integer(0),
                 likelihood = bnn_likelihood("gaussian", sigma = 0.3),
                 sampler = ces_small(), chains = 1, warmup = 200, iter = 300, seed = 2,
                 progress = FALSE)
  expect_s3_class(fit, "bnnfit")
  expect_true(all(fit$chain_status == "ok"))
  expect_named(fit$ces$times, c("calibration", "emulator", "sampling", "check"))
  expect_gte(fit$ces$times[["check"]], 0)
  expect_equal(fit$elapsed, sum(fit$ces$times))
  # exact evaluations: calibration gradients + J forward passes + held-out checks
  expect_equal(fit$ces$n_exact, sum(fit$ces$calibration$n_grad) + 60 + 15 + 50)
  expect_equal(fit$ces$n_emulated, 1 + 500)
  chk <- bnn_ces_check(fit)
  expect_equal(nrow(chk), 15L)
  expect_gt(attr(chk, "cor"), 0.9)
  expect_gt(attr(chk, "r2"), 0.9)
  # the check's true log-likelihoods are the model's
  th <- fit$ces$check$theta
  expect_equal(chk$true_loglik, bnn_log_posterior(fit, t(th))$loglik)
  # the check at 50 sampled draws: true and emulated log-likelihoods there
  cs <- bnn_ces_check(fit, "sampled")
  expect_equal(nrow(cs), 50L)
  ths <- fit$ces$check_sampled$theta
  expect_equal(cs$true_loglik, bnn_log_posterior(fit, t(ths))$loglik)
  expect_equal(attr(cs, "bias"), mean(cs$emulated_loglik - cs$true_loglik))
  expect_true(all(ths[1, ] == fit$draws[1, 1, ]))
  # the 50 draws are spread evenly over the run (sigma fixed: theta = draws)
  idx <- unique(round(seq(1, 300, length.out = 50)))
  expect_identical(unname(ths), unname(fit$draws[idx, 1, ]))
  expect_gt(attr(cs, "cor"), 0.9)
  expect_output(print(fit), "CES stages:.*calibration.*emulator.*sampling")
  # its chains sample an emulated posterior of its own calibration run
  expect_error(bnn_combine_chains(fit, fit),
               "Argument 1 of '...' is a fit of calibration-emulation-sampling .*its chains cannot be combined")
  expect_output(print(fit), "emulated")
  expect_output(print(summary(fit)), "CES stages")
  p <- predict(fit, newdata = d[1:4, ], type = "interval")
  expect_true(all(is.finite(as.matrix(p))))
  # predictions come from the original network at the draws
  th1 <- fit$draws[1, 1, ]
  mu <- .Call(bnnmc:::C_model_forward, fit$spec, matrix(th1), fit$X[1:2, , drop = FALSE], 1L)
  md <- predict(fit, newdata = d[1:2, ], type = "mean_draws")
  expect_equal(fit$y_center + fit$y_scale * drop(mu), unname(md[1, ]))
  tf <- tempfile(fileext = ".pdf")
  grDevices::pdf(tf)
  expect_invisible(bnn_ces_check(fit, plot = TRUE))
  grDevices::dev.off()
})

test_that("classification is supported: the emulator emulates the logits", {
  d <- ces_data()
  d$cls <- factor(ifelse(d$y > 0, "hi", "lo"))
  fit <- bnn_fit(cls ~ x1 + x2, data = d, hidden = integer(0), sampler = ces_small(), chains = 1,
                 warmup = 100, iter = 100, seed = 3, progress = FALSE)
  expect_gt(fit$ces$check$cor, 0.9)
  pr <- predict(fit, newdata = d[1:5, ], type = "prob")
  expect_true(all(pr >= 0 & pr <= 1))
})

test_that("bad CES input gives clear errors and a poor emulator a warning", {
  d <- ces_data()
  lik <- bnn_likelihood("gaussian", sigma = 0.3)
  fit_with <- function(s, ...) bnn_fit(y ~ x1 + x2, data = d, hidden = 3, likelihood = lik,
                                       sampler = s, chains = 1, warmup = 20, iter = 20,
                                       seed = 1, progress = FALSE, ...)
  expect_error(fit_with(bnn_ces(calibration = "pcn", calibration_iter = 50, J = 200)),
               "J = 200 is larger than the calibration run \\(1 chains x 50")
  expect_error(fit_with(bnn_ces(calibration = "pcn", calibration_iter = 50, J = 40,
                                emulator = bnn_emulator(optimizer = bnn_optimizer(batch_size = 64)))),
               "fewer than the emulator's batch size 64")
  expect_error(bnn_emulator(hidden = "3,x2"), "does not parse")
  expect_error(bnn_emulator(hidden = c(3, 0)), "positive whole numbers")
  expect_identical(bnn_emulator(hidden = "8, 64,32")$hidden, c(8L, 64L, 32L))
  expect_identical(bnn_emulator(preset = "boston")$hidden, c(3L, 32L))
  # Table 2's rate on the input layer only; none on the 3-unit first hidden layer
  expect_identical(bnn_emulator(preset = "boston")$input_dropout, 0.7)
  expect_identical(bnn_emulator(preset = "boston")$dropout, 0)
  expect_identical(bnn_emulator(preset = "boston", dropout = 0.2)$dropout, 0.2)
  expect_null(bnn_emulator()$optimizer$batch_size)
  expect_error(bnn_emulator(preset = "nope"), "'preset'")
  expect_error(bnn_ces(sampler = "nuts"), "kernel of the generic chain driver")
  expect_error(bnn_ces(emulator = "perfect"), "'emulator'")
  expect_error(bnn_fit(y ~ x1, data = d, hidden = 3, prior = "laplace", sampler = ces_small(),
                       chains = 1, warmup = 10, iter = 10, seed = 1), "needs prior")
  expect_error(bnn_fit(y ~ x1 + x2, data = d, hidden = 3, likelihood = "hetero_gaussian",
                       sampler = bnn_ces(calibration = "pcn", calibration_iter = 60, J = 60,
                                         emulator = bnn_emulator(inflate = TRUE,
                                           optimizer = bnn_optimizer(epochs = 1, batch_size = 8))),
                       chains = 1, warmup = 10, iter = 10, seed = 1, progress = FALSE),
               "inflate = TRUE")
  # an emulator trained for one epoch is poor: the warning names the figure
  bad <- bnn_ces(calibration = "pcn", calibration_iter = 60, J = 60,
                 emulator = bnn_emulator(hidden = 2, optimizer = bnn_optimizer(epochs = 1,
                                                                              batch_size = 8)))
  w <- capture_warnings(fit_with(bad))
  expect_match(w[1], "held-out R\\^2 is")
})

test_that("bnn_efficiency reports ESS over parameters, min-ESS/s and the speed-up", {
  d <- ces_data()
  lik <- bnn_likelihood("gaussian", sigma = 0.3)
  a <- short_run(bnn_fit(y ~ x1 + x2, data = d, hidden = integer(0), likelihood = lik,
                         sampler = "rwm", chains = 2, warmup = 100, iter = 200, seed = 1,
                         progress = FALSE), also = "bnnmc_not_converged")
  b <- short_run(bnn_fit(y ~ x1 + x2, data = d, hidden = integer(0), likelihood = lik,
                         sampler = "pcn", chains = 2, warmup = 100, iter = 200, seed = 1,
                         progress = FALSE), also = "bnnmc_not_converged")
  # such short fits can finish within the clock's resolution: fix their times
  a$elapsed <- 0.4
  b$elapsed <- 0.1
  e <- bnn_efficiency(rwm = a, pcn = b)
  ess <- bnn_ess(b)
  expect_equal(e$ess_min[2], min(ess))
  expect_equal(e$ess_median[2], median(ess))
  expect_equal(e$ess_max[2], max(ess))
  expect_equal(e$time, c(a$elapsed, b$elapsed))
  expect_equal(e$min_ess_per_s, e$ess_min / e$time)
  expect_equal(e$spdup, e$min_ess_per_s / e$min_ess_per_s[1])
  expect_identical(e$spdup[1], 1)
  e2 <- bnn_efficiency(a, b, reference = b)
  expect_equal(e2$spdup[2], 1)
  expect_identical(e2$fit, c("fit1", "fit2"))
  expect_equal(bnn_efficiency(list(x = a, y = b), reference = "y")$spdup, e2$spdup)
  expect_error(bnn_efficiency(a, reference = "zz"), "not among the fits")
  # a fit faster than the clock: no rate, said so, never Inf or NaN
  a$elapsed <- 0
  expect_warning(e0 <- bnn_efficiency(rwm = a, pcn = b), "rwm took less than the clock")
  expect_true(is.na(e0$min_ess_per_s[1]) && all(is.na(e0$spdup)))
  expect_equal(bnn_efficiency(rwm = a, pcn = b, reference = 2)$spdup[2], 1) |>
    expect_warning("clock")
  expect_error(bnn_efficiency(1), "bnnfit")
})

test_that("inflate = TRUE adds the emulator's held-out error to the noise variance", {
  d <- ces_data()
  s <- bnn_ces(calibration = bnn_nuts(), calibration_warmup = 60, calibration_iter = 60, J = 60,
               emulator = bnn_emulator(hidden = c(16, 16), holdout = 0.25, inflate = TRUE,
                                       optimizer = bnn_optimizer("adam", lr = 3e-3, weight_decay = 0,
                                                                 epochs = 100, batch_size = 15)))
  fit <- suppressWarnings(bnn_fit(y ~ x1 + x2, data = d, hidden = integer(0),
                                  likelihood = bnn_likelihood("gaussian", sigma = 0.3),
                                  sampler = s, chains = 1, warmup = 50, iter = 50, seed = 2,
                                  progress = FALSE))
  expect_equal(fit$ces$inflated_sigma, sqrt(0.3^2 + fit$ces$check$mse))
  # the held-out MSE is that of the emulated outputs at the held-out draws
  th <- fit$ces$check$theta
  em <- t(.Call(bnnmc:::C_ces_emulate,
                bnnmc:::emulated_spec(bnnmc:::fit_spec(fit), fit$ces$emulator), t(th)))
  tr <- t(matrix(.Call(bnnmc:::C_model_forward, fit$spec, t(th), fit$X, 1L), ncol = nrow(th)))
  expect_equal(fit$ces$check$mse, mean((em - tr)^2))
})

test_that("SGHMC on the emulator runs with the full emulated gradient (exact map: exact SGHMC)", {
  d <- ces_data()
  lik <- bnn_likelihood("gaussian", sigma = 0.3)
  s <- bnn_ces(calibration = bnn_sghmc(), calibration_warmup = 0, calibration_iter = 40,
               J = 40, emulator = "exact", sampler = bnn_sghmc())
  expect_null(s$sampler$batch_size)
  expect_match(format(s), "SGHMC \\(step size 1e-05, full batch")
  ex <- short_run(bnn_fit(y ~ x1 + x2, data = d, hidden = 3, likelihood = lik, sampler = s,
                          chains = 1, warmup = 0, iter = 100, seed = 4, progress = FALSE),
                  also = "bnnmc_not_converged")
  ref <- short_run(bnn_fit(y ~ x1 + x2, data = d, hidden = 3, likelihood = lik,
                           sampler = bnn_sghmc(batch_size = NULL), init = ex$ces$init,
                           chains = 1, warmup = 0, iter = 100, seed = 4, progress = FALSE),
                   also = "bnnmc_not_converged")
  expect_identical(ex$draws, ref$draws)
  # the calibration ran minibatch SGHMC from the seed + 1 start, as bnn_fit would
  cal <- short_run(bnn_fit(y ~ x1 + x2, data = d, hidden = 3, likelihood = lik,
                           sampler = bnn_sghmc(), chains = 1, warmup = 0, iter = 40, seed = 5,
                           progress = FALSE), also = "bnnmc_not_converged")
  expect_identical(ex$ces$calibration$draws, cal$draws)
  expect_error(bnn_ces(sampler = bnn_sghmc(gradient = "cv")), "gradient = \"minibatch\"")
})

test_that("the emulator's dropout acts on the inputs and the first hidden layer in training", {
  set.seed(7)
  theta <- matrix(rnorm(30 * 6), 30)
  outputs <- theta %*% matrix(rnorm(6 * 4), 6) + 0.1 * matrix(rnorm(30 * 4), 30)
  opt <- bnn_optimizer("adam", lr = 1e-2, weight_decay = 0, epochs = 30, batch_size = 10)
  e0 <- bnnmc:::train_emulator(theta, outputs, bnn_emulator(hidden = c(5, 4), optimizer = opt), 1)
  e1 <- bnnmc:::train_emulator(theta, outputs,
                               bnn_emulator(hidden = c(5, 4), dropout = 0.5, input_dropout = 0.2,
                                            optimizer = opt), 1)
  expect_false(isTRUE(all.equal(e0$weights, e1$weights)))
  # the same settings through the optimiser directly: dropout c(0.5, 0) and 0.2 on the inputs
  zi <- bnnmc:::col_standardiser(theta)
  zo <- bnnmc:::col_standardiser(outputs)
  spec <- list(type = "bnn", sizes = c(6L, 5L, 4L, 4L), act = 1L, lik = 5L, sigma_fixed = 1,
               sigma_prior = 0L, sigma_prior_scale = 1, prior = 0L,
               prior_scale = rep(1, bnn_n_parameters(c(6, 5, 4, 4))),
               X = sweep(sweep(theta, 2, zi$center), 2, zi$scale, "/"),
               y = as.double(sweep(sweep(outputs, 2, zo$center), 2, zo$scale, "/")))
  direct <- do.call(bnnmc:::.bnn_optimize,
                    c(list(spec = spec, seed = 1, member = 1L),
                      modifyList(unclass(opt), list(dropout = c(0.5, 0), input_dropout = 0.2))))
  expect_identical(e1$weights, direct$par)
  expect_identical(bnn_emulator(preset = "svhn")$hidden, c(4L, 64L, 32L))
})

test_that("the timing helper reports microseconds per log-likelihood evaluation", {
  d <- ces_data()
  fit <- short_run(bnn_fit(y ~ x1 + x2, data = d, hidden = 3, likelihood = "gaussian",
                           sampler = "pcn", chains = 1, warmup = 5, iter = 5, seed = 1,
                           progress = FALSE))
  es <- bnnmc:::emulated_spec(bnnmc:::fit_spec(fit), NULL)
  th <- bnn_unconstrain(fit, t(fit$draws[, 1, ]))
  us <- .Call(bnnmc:::C_ces_time, es, th, 20L)
  expect_true(is.finite(us) && us > 0 && us < 1e5)
  expect_error(.Call(bnnmc:::C_ces_time, es, th, 0L), "'n_rep'")
})

test_that("the check at sampled draws takes its draws evenly over iterations and chains", {
  d <- ces_data()
  fit <- suppressWarnings(
    bnn_fit(y ~ x1 + x2, data = d, hidden = integer(0),
            likelihood = bnn_likelihood("gaussian", sigma = 0.3),
            sampler = ces_small(), chains = 2, warmup = 50, iter = 40, seed = 3,
            progress = FALSE))
  # iterations vary fastest, then chains (the order of matrix(draws, nrow = 80))
  m <- matrix(fit$draws, nrow = 80)
  idx <- unique(round(seq(1, 80, length.out = 50)))
  expect_identical(unname(fit$ces$check_sampled$theta), unname(m[idx, ]))
})

test_that("a CES emulator without training pairs is an error naming holdout and J", {
  expect_error(bnn_ces(calibration = bnn_pcn(), calibration_iter = 30, J = 2,
                       emulator = bnn_emulator(holdout = 0.75)),
               "holdout = 0.75.*J = 2.*lower 'holdout' or raise 'J'")
  expect_s3_class(bnn_ces(J = 4, emulator = bnn_emulator(holdout = 0.75)), "bnn_ces")
  # the same settings through bnn_fit(), and settings changed after the
  # constructor, in a child process: R must survive the next gc (an
  # emulator without training pairs once freed R's memory)
  res <- run_in_child(c(
    "set.seed(1); d <- data.frame(x = rnorm(20)); d$y <- d$x + rnorm(20)",
    "r1 <- tryCatch(bnn_fit(y ~ x, d, hidden = 2,",
    "  likelihood = bnn_likelihood('gaussian', sigma = 0.3),",
    "  sampler = bnn_ces(calibration = bnn_pcn(), calibration_iter = 30, J = 2,",
    "    emulator = bnn_emulator(holdout = 0.75)), chains = 1, warmup = 10, iter = 10),",
    "  error = conditionMessage)",
    "ces <- bnn_ces(calibration = bnn_pcn(), calibration_iter = 30, J = 4,",
    "  emulator = bnn_emulator(holdout = 0.25))",
    "ces$emulator$holdout <- 0.9",
    "r2 <- tryCatch(bnn_fit(y ~ x, d, hidden = 2,",
    "  likelihood = bnn_likelihood('gaussian', sigma = 0.3), sampler = ces,",
    "  chains = 1, warmup = 10, iter = 10, progress = FALSE), error = conditionMessage)",
    "invisible(gc()); invisible(gc())",
    "cat('R1:', r1, '\\n'); cat('R2:', r2, '\\n'); cat('SURVIVED\\n')"))
  expect_equal(res$status, 0L, info = paste(res$output, collapse = "\n"))
  out <- paste(res$output, collapse = "\n")
  expect_match(out, "SURVIVED")
  expect_match(out, "R1: bnn_emulator\\(holdout = 0.75\\).*J = 2")
  expect_match(out, "R2: bnn_emulator\\(holdout = 0.9\\).*J = 4")
})

test_that("emulator widths that do not parse are refused by bnn_emulator()", {
  # before: "3,1e10" and "Inf" became NA with a coercion warning and failed
  # later with "invalid 'times' argument"; "3,,32" became c(3, 32)
  expect_error(bnn_emulator(hidden = "3,1e10"),
               "'hidden' = \"3,1e10\" is not valid: .*positive whole numbers up to 1,000,000")
  expect_error(bnn_emulator(hidden = "Inf"), "'hidden' = \"Inf\" does not parse")
  expect_error(bnn_emulator(hidden = "3,,32"), "'hidden' = \"3,,32\" has an empty field")
  expect_error(bnn_emulator(hidden = "3,32,"), "has an empty field")
  expect_error(bnn_emulator(hidden = c(3, Inf)), "'hidden' = c\\(3, Inf\\) is not valid")
  expect_error(bnn_emulator(hidden = 2.5), "'hidden' = 2.5 is not valid")
  expect_error(bnn_emulator(hidden = 1e7), "is not valid")
  expect_error(bnn_emulator(hidden = "-3"), "does not parse")
  expect_no_warning(expect_error(bnn_emulator(hidden = "3,1e10")))
  expect_identical(bnn_emulator(hidden = "3,32")$hidden, c(3L, 32L))
  expect_identical(bnn_emulator(hidden = "3 32")$hidden, c(3L, 32L))
  expect_identical(bnn_emulator(hidden = " 8; 64, 32 ")$hidden, c(8L, 64L, 32L))
  expect_identical(bnn_emulator(hidden = c(3, 32))$hidden, c(3L, 32L))
})

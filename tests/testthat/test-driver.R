# The generic chain driver (src/mcmc/kernel.h, src/mcmc/driver.c, src/api/api_kernel.c),
# exercised through its reference kernel, random-walk Metropolis.

test_that("random-walk Metropolis recovers a correlated 2-D Gaussian", {
  S <- matrix(c(1, 0.5, 0.5, 2), 2)
  out <- bnn_sample_gaussian(c(1, -1), solve(S), sampler = bnn_rwm(), chains = 4,
                             warmup = 1000, iter = 5000, seed = 11)
  expect_true(all(out$chain_status == "ok"))
  z_m <- z_v <- numeric(2)
  for (j in 1:2) {
    x <- out$draws[, , j]
    z_m[j] <- (mean(x) - c(1, -1)[j]) / batch_mcse(x)
    sq <- (x - c(1, -1)[j])^2
    z_v[j] <- (mean(sq) - diag(S)[j]) / batch_mcse(sq)
  }
  expect_true(all(abs(z_m) < 4), info = paste(z_m))
  expect_true(all(abs(z_v) < 4), info = paste(z_v))
  # the tuned acceptance rate is near its target
  acc <- mean(out$sampler_stats[, , "accept_stat__"])
  expect_gt(acc, 0.15)
  expect_lt(acc, 0.35)
  expect_identical(dimnames(out$sampler_stats)[[3]],
                   c("accept_stat__", "stepsize__", "lp__"))
})

test_that("the draws do not depend on the block size or the chain order", {
  spec <- list(type = "gaussian", mean = c(0, 0, 0), prec = as.double(diag(3)))
  s <- bnn_rwm()
  a <- bnnmc:::run_chain(spec, c(1, 1, 1), 5, 2L, s, 100L, 200L, 1L, block = 7L)
  b <- bnnmc:::run_chain(spec, c(1, 1, 1), 5, 2L, s, 100L, 200L, 1L, block = 200L)
  expect_identical(a$draws, b$draws)
  expect_identical(a$warmup_stats, b$warmup_stats)
  # thinning keeps every thin-th sampling draw of the same chain
  t3 <- bnnmc:::run_chain(spec, c(1, 1, 1), 5, 2L, s, 100L, 200L, 3L, block = 13L)
  expect_identical(t3$draws, a$draws[seq(1, 200, by = 3), ])
  # another chain id is another stream
  o <- bnnmc:::run_chain(spec, c(1, 1, 1), 5, 3L, s, 100L, 200L, 1L)
  expect_false(identical(o$draws, a$draws))
})

test_that("a chain that never moves is a failed chain with a reason, not draws", {
  # a proposal scale of 1e6 without tuning: nothing is ever accepted
  w <- capture_warnings(
    fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = integer(0),
                   likelihood = "gaussian", chains = 2, warmup = 50, iter = 50,
                   sampler = bnn_rwm(stepsize = 1e6, adapt_stepsize = FALSE),
                   seed = 3))
  expect_length(w, 2L)
  expect_match(w, "Chain [12] failed: no proposal was accepted .* did not move \\(warm-up, step 50\\)")
  expect_true(all(is.na(fit$draws)))
  expect_true(all(fit$chain_status == "the sampler failed (see $failed_at)"))
  expect_identical(fit$failed_at$phase, c("warm-up", "warm-up"))
  expect_identical(fit$failed_at$step, c(50, 50))
  expect_match(fit$failed_at$reason[1], "no proposal was accepted")
})

test_that("a bad start fails the chain at the start", {
  # an init with a non-finite log density (sigma = exp(800))
  expect_warning(
    fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = integer(0),
                   likelihood = "gaussian", chains = 1, warmup = 10, iter = 10,
                   sampler = "rwm", init = list(c(0, 0, 800)), seed = 3),
    "non-finite log density", class = "bnnmc_chain_failure")
  expect_true(all(is.na(fit$draws)))
})

test_that("random-walk settings are validated, naming the argument", {
  expect_error(bnn_rwm(stepsize = -1), "'stepsize'")
  expect_error(bnn_rwm(target_accept = 1.5), "'target_accept'")
  expect_error(bnn_rwm(inv_metric = c(1, NA)), "'inv_metric'")
  expect_error(bnn_rwm(inv_metric = c(1, 0)), "'inv_metric'")
  spec <- list(type = "gaussian", mean = c(0, 0), prec = as.double(diag(2)))
  # defensive checks in C
  expect_error(bnnmc:::run_chain(spec, c(0, 0), 1, 1L,
                                        list(driver = "rwm", c_settings = list(inv_metric = c(1, -1))),
                                        10L, 10L, 1L), "inv_metric")
  expect_error(bnnmc:::run_chain(spec, c(0, 0), 1, 1L,
                                        list(driver = "nope", c_settings = list()),
                                        10L, 10L, 1L), "unknown kernel")
  expect_error(bnnmc:::run_chain(spec, c(0, NA), 1, 1L, bnn_rwm(), 10L, 10L, 1L),
               "'init' must be finite")
})

test_that("bnn_fit with the random-walk kernel works downstream", {
  fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = integer(0),
                 likelihood = "gaussian", sampler = "rwm", chains = 2,
                 warmup = 300, iter = 300, seed = 4)
  expect_s3_class(fit, "bnnfit")
  expect_true(all(fit$chain_status == "ok"))
  expect_equal(dim(fit$draws), c(300L, 2L, 4L))
  p <- predict(fit, newdata = mtcars[1:3, ])
  expect_true(all(is.finite(unlist(p))))
  expect_output(print(fit), "random-walk Metropolis")
})

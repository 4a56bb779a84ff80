# Data out of the model's reach are refused with a message that says why,
# and a chain that never moves is reported, never silently "ok".

test_that("an unstandardised Gaussian response of 1e30 is refused, in either precision", {
  set.seed(1)
  d <- data.frame(x = rnorm(40))
  d$y <- 1e30 * (1 + d$x + rnorm(40, sd = 0.1))
  for (p in c("double", "single"))
    expect_error(bnn_fit(y ~ x, data = d, standardize = FALSE, precision = p, progress = FALSE),
                 "standardize = FALSE.*largest absolute value is [0-9.]+e\\+30.*standardize = TRUE")
  expect_error(bnn_fit(y ~ x, data = d, standardize = FALSE, hidden = 2, sampler = "nuts",
                       likelihood = bnn_likelihood("gaussian", sigma = 1)),
               "moderate scale")
  # standardised (the default) the same data fit, on the response's scale
  fit <- suppressWarnings(bnn_fit(y ~ x, data = d, hidden = 2, chains = 1, warmup = 50,
                                  iter = 20, seed = 1, progress = FALSE, sampler = "nuts",
                                  likelihood = "gaussian"))
  expect_gt(min(abs(predict(fit, d[1:3, ]))), 1e28)
})

test_that("single precision refuses inputs beyond float range, naming precision = \"double\"", {
  set.seed(1)
  d <- data.frame(x = c(1e39, rnorm(29)), y = rnorm(30))
  expect_error(bnn_fit(y ~ x, data = d, standardize = FALSE, precision = "single", progress = FALSE),
               "precision = \"single\".*float.*3.4e38.*predictor value of 1e\\+39.*precision = \"double\"")
  # standardised, the same column is within range
  fit <- suppressWarnings(bnn_fit(y ~ x, data = d, hidden = 2, chains = 1, warmup = 30, iter = 10,
                                  seed = 1, progress = FALSE, sampler = "nuts",
                                  precision = "single", likelihood = "gaussian"))
  expect_true(all(fit$chain_status == "ok"))
})

test_that("a chain that never moved in some coordinate is reported by name", {
  fit <- suppressWarnings(bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 2, warmup = 50,
                                  iter = 30, seed = 1, progress = FALSE, sampler = "nuts",
                                  likelihood = "gaussian"))
  expect_null(bnnmc:::check_frozen_chains(fit))
  stuck <- fit
  stuck$draws[, 2, ] <- rep(stuck$draws[1, 2, ], each = dim(stuck$draws)[1])
  expect_warning(bnnmc:::check_frozen_chains(stuck),
                 "1 of 2 chains never moved.*chain 2 in all 8 parameters", class = "bnnmc_frozen_chain")
  part <- fit
  part$draws[, 1, "W1[1,1]"] <- part$draws[1, 1, "W1[1,1]"]
  expect_warning(bnnmc:::check_frozen_chains(part), "chain 1 in 1 of 8 parameters \\(W1\\[1,1\\]\\)")
  # too few draws to judge: no warning
  short <- stuck
  short$draws <- stuck$draws[1:5, , , drop = FALSE]
  expect_null(bnnmc:::check_frozen_chains(short))
})

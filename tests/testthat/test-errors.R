test_that("bad input gets a clear error naming the argument", {
  d <- data.frame(y = rnorm(20), x = rnorm(20), z = rnorm(20),
                  f = factor(rep(c("a", "b"), 10)))
  fit1 <- function(..., sampler = "nuts", likelihood = "hetero_gaussian")
    bnn_fit(y ~ x + z, data = d, chains = 1, warmup = 5, iter = 5, seed = 1, progress = FALSE,
            ..., sampler = sampler, likelihood = likelihood)
  dm <- d; dm$x[3] <- NA
  expect_error(bnn_fit(y ~ x, data = dm, chains = 1, warmup = 5, iter = 5, sampler = "nuts"),
               "missing values.*na.action")
  expect_error(bnn_fit(y ~ x, data = transform(d, y = as.character(y)), chains = 1, sampler = "nuts"),
               "response must be a numeric")
  expect_error(bnn_fit(y ~ x + k, data = transform(d, k = 1), chains = 1, sampler = "nuts"),
               "Constant predictor.*k")
  expect_error(fit1(hidden = c(2.5)), "'hidden' must be")
  expect_error(fit1(hidden = -1), "'hidden' must be")
  expect_error(fit1(activation = "swish"), "'activation' must be one of")
  expect_error(fit1(likelihood = "gamma"), "'likelihood' must be one of")
  expect_error(fit1(sampler = "gibbs"), "'sampler' must be one of")
  expect_error(bnn_fit(y ~ x, data = d, chains = 0, sampler = "nuts"), "'chains' must be")
  expect_error(bnn_fit(y ~ x, data = d, warmup = -1, sampler = "nuts"), "'warmup' must be")
  expect_error(bnn_fit(y ~ x, data = d, chains = 2, init = list(1:3), sampler = "nuts"),
               "'init' has 1 starting points but there are 2 chains")
  expect_error(bnn_fit(y ~ x, data = d, hidden = 2, chains = 1, init = list(1:3), sampler = "nuts",
                       likelihood = "hetero_gaussian"),
               "'init' for chain 1 must be a numeric vector of length 10")
  expect_error(bnn_fit("y ~ x", data = d, sampler = "nuts"), "'formula' must be a formula")
  expect_error(bnn_fit(y ~ x, data = as.list(d), sampler = "nuts"), "'data' must be a data frame")
  expect_error(bnn_prior(scale = -1), "'scale' must be positive")
  expect_error(bnn_nuts(adapt_delta = 1.2), "'adapt_delta' must be")
})

test_that("newdata problems are reported clearly", {
  d <- data.frame(y = rnorm(20), x = rnorm(20), f = factor(rep(c("a", "b"), 10)))
  fit <- suppressWarnings(bnn_fit(y ~ x + f, data = d, hidden = 2, chains = 1,
                                  warmup = 10, iter = 10, seed = 1, progress = FALSE, sampler = "nuts",
                                  likelihood = "hetero_gaussian"))
  expect_error(predict(fit, data.frame(x = 1)), "lacks column.*f")
  expect_error(predict(fit, data.frame(x = 1, f = "c")), "level.*'f'.*c")
  expect_error(predict(fit, d, type = "interval", level = 2), "'level'")
  expect_error(predict(fit, d, type = "class"), "classification")
})

test_that("missing values are dropped with na.action = na.omit", {
  d <- data.frame(y = rnorm(20), x = rnorm(20)); d$x[2] <- NA
  fit <- suppressWarnings(bnn_fit(y ~ x, data = d, hidden = 2, chains = 1, warmup = 10,
                                  iter = 10, seed = 1, na.action = na.omit,
                                  progress = FALSE, sampler = "nuts",
                                  likelihood = "hetero_gaussian"))
  expect_equal(nobs(fit), 19)
})

test_that("an init with a non-finite log posterior fails that chain, reported", {
  d <- data.frame(y = rnorm(20), x = rnorm(20))
  sizes <- c(1, 2, 2)
  th <- rep(0, bnn_n_parameters(sizes))
  th[length(th)] <- -800   # log sd output bias: sd clipped at 1e-6, fine
  bad <- rep(1e200, length(th))   # overflows to Inf in the likelihood
  expect_warning(suppressWarnings(
    fit <- bnn_fit(y ~ x, data = d, hidden = 2, chains = 2, warmup = 10, iter = 10,
                   init = list(th, bad), seed = 1, progress = FALSE, sampler = "nuts",
                   likelihood = "hetero_gaussian"),
    classes = c("bnnmc_divergence", "bnnmc_treedepth", "bnnmc_sd_collapse", "bnnmc_short_run")),
    "Chain 2 failed: initial values")
  expect_true(all(is.na(fit$draws[, 2, ])))
  expect_false(anyNA(fit$draws[, 1, ]))
  expect_equal(length(predict(fit, d)), 20)
})

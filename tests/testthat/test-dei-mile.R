# DEI-MCMC and MILE on a small real data set: both improve on the deep
# ensemble they start from, reproducibly.

test_that("MILE and DEI-MCMC beat the deep ensemble's test LPPD on energy", {
  dir <- bnn_test_uci_dir()
  skip_if(is.null(dir), "UCI data directory not found (set BNNMC_DATA_DIR)")
  d <- bnn_read_uci("energy", dir = dir)
  sp <- bnn_split(d, protocol = "mile", rep = 1)
  ens <- bnn_fit_ensemble(y ~ ., data = sp$train, members = 2, hidden = c(8, 8),
                      activation = "relu", optimizer = bnn_optimizer_preset("mile"),
                      valid_data = sp$valid, seed = 1, progress = FALSE,
                      likelihood = "hetero_gaussian")
  de <- bnn_metrics(ens, sp$test)
  small_mile <- bnn_mclmc(n_tune = c(4000, 500, 500), n_samples = 2000, thin = 10)
  # two chains of a tenth of MILE's tuning: the verdict finds them apart
  mile <- quiet_verdict(bnn_fit(y ~ ., data = sp$train, hidden = c(8, 8), activation = "relu",
                                sampler = small_mile, chains = 2, init = ens, seed = 3,
                                progress = FALSE, likelihood = "hetero_gaussian"))
  m_mile <- bnn_metrics(mile, sp$test)
  dei <- suppressWarnings(bnn_fit(y ~ ., data = sp$train, hidden = c(8, 8),
                                  activation = "relu", sampler = bnn_nuts(max_treedepth = 7),
                                  warmup = 100, iter = 60, chains = 2, init = ens,
                                  seed = 3, progress = FALSE, likelihood = "hetero_gaussian"))
  m_dei <- bnn_metrics(dei, sp$test)
  expect_gt(m_mile$lppd, de$lppd)
  expect_gt(m_dei$lppd, de$lppd)
  # exact gradient budget of MCLMC, known before sampling
  expect_equal(mile$n_grad, rep(bnn_mclmc_budget(small_mile)$n_grad, 2))
  # same seed, same numbers
  mile2 <- quiet_verdict(bnn_fit(y ~ ., data = sp$train, hidden = c(8, 8), activation = "relu",
                                 sampler = small_mile, chains = 2, init = ens, seed = 3,
                                 progress = FALSE, likelihood = "hetero_gaussian"))
  expect_identical(mile2$draws, mile$draws)
  expect_identical(bnn_metrics(mile2, sp$test)$lppd, m_mile$lppd)
})

test_that("sampler = \"dei\" trains the ensemble itself, with 100 warm-up iterations", {
  fit <- suppressWarnings(bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3,
                                  sampler = "dei", chains = 2, iter = 20,
                                  ensemble = bnn_optimizer(epochs = 200),
                                  seed = 1, progress = FALSE, likelihood = "hetero_gaussian"))
  expect_equal(fit$warmup, 100)
  expect_s3_class(fit$ensemble, "bnn_ensemble")
  expect_equal(fit$ensemble$members, 2)
  # chain k starts at member k
  th <- bnn_unconstrain(fit$ensemble, fit$ensemble$draws[1, 2, ])
  expect_equal(fit$inits[[2]], unname(th))
  expect_output(print(fit), "DEI-MCMC")
})

test_that("pre-trained weights are accepted as an ensemble", {
  sizes <- c(2L, 3L, 2L)
  w <- lapply(1:2, function(i) rnorm(bnn_n_parameters(sizes), 0, 0.3))
  ens <- bnn_fit_ensemble(mpg ~ wt + hp, data = mtcars, hidden = 3, weights = w, seed = 1,
                      likelihood = "hetero_gaussian")
  expect_equal(ens$members, 2)
  expect_equal(unname(ens$draws[1, 1, ]), w[[1]])
  expect_error(bnn_fit_ensemble(mpg ~ wt + hp, data = mtcars, hidden = 3, weights = list(1:3),
                            likelihood = "hetero_gaussian"),
               "length 17")
  p <- predict(ens, mtcars[1:3, ], type = "interval")
  expect_true(all(p$lower < p$upper))
})

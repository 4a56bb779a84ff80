# Habits of rstanarm, brms, posterior and tidymodels users (a default a
# statistician can trust): one meaning of iter, metrics on the response
# scale, posterior's measures on a fit, no silent partial matching.

habit_fit <- function(...) suppressWarnings(
  bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2, warmup = 100,
          iter = 100, seed = 3, progress = FALSE, sampler = "nuts", ...))

test_that("iter is the number of draws kept per chain, for every sampler", {
  nuts <- habit_fit(thin = 2)
  expect_identical(dim(nuts$draws)[1], 100L)
  mile <- suppressWarnings(bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 1,
                                   warmup = 500, iter = 120, seed = 3, progress = FALSE,
                                   sampler = "mile"))
  expect_identical(dim(mile$draws)[1], 120L)     # 1200 steps thinned by 10
  expect_identical(mile$thin, 10L)
  sg <- suppressWarnings(bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 1,
                                 warmup = 50, iter = 110, thin = 3, seed = 3,
                                 likelihood = bnn_likelihood("gaussian", sigma = 0.5),
                                 sampler = bnn_sgld(1e-3, batch_size = 8), progress = FALSE))
  expect_identical(dim(sg$draws)[1], 110L)
  # a longer run is update(fit, iter = 2 * k)
  longer <- suppressWarnings(update(mile, iter = 240))
  expect_identical(dim(longer$draws)[1], 240L)
  # print() gives the warm-up with its unit
  expect_output(print(mile), "warm-up 500 tuning steps, thin 10")
  expect_output(print(nuts), "warm-up 100 iterations, thin 2")
})

test_that("a run that keeps fewer than 100 draws per chain warns with the call to run", {
  expect_warning(bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 1, warmup = 50,
                         iter = 50, seed = 1, progress = FALSE, sampler = "nuts"),
                 class = "bnnmc_short_run")
  expect_warning(bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 1, warmup = 50,
                         iter = 50, seed = 1, progress = FALSE, sampler = "nuts"),
                 "update\\(fit, iter = 1000\\)")
  # one draw from each of many chains is the design of bnn_modes() and
  # bnn_waves(), not a short run: no warning (the per-chain diagnostics
  # say what they cannot do when asked)
  expect_no_warning(one <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 20,
                                   warmup = 50, iter = 1, seed = 1, progress = FALSE,
                                   sampler = "nuts"))
  expect_identical(dim(one$draws)[1:2], c(1L, 20L))
  expect_warning(bnn_diagnostics(one), class = "bnnmc_short_chains")
  # a single chain of one draw is still a short run
  expect_warning(bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 1, warmup = 50,
                         iter = 1, seed = 1, progress = FALSE, sampler = "nuts"),
                 class = "bnnmc_short_run")
})

test_that("bnn_metrics() and the LPPD plot report on the response scale by default", {
  fit <- habit_fit()
  m <- bnn_metrics(fit, mtcars)
  ms <- bnn_metrics(fit, mtcars, scale = "standardized")
  expect_identical(m$scale, "response")
  expect_equal(m$rmse, ms$rmse * fit$y_scale)
  expect_equal(m$lppd, ms$lppd - log(fit$y_scale))
  # the RMSE of the posterior mean, in mpg
  mu <- colMeans(posterior_epred(fit, newdata = mtcars))
  expect_equal(m$rmse, sqrt(mean((mtcars$mpg - mu)^2)), tolerance = 1e-8)
  expect_error(bnn_metrics(fit, mtcars, scale = "log"), "'scale' must be \"response\"")
})

test_that("posterior's measures give one value per parameter, as summarise_draws()", {
  skip_if_not_installed("posterior")
  fit <- habit_fit()
  s <- posterior::summarise_draws(posterior::as_draws(fit))
  expect_equal(unname(posterior::rhat(fit)), as.numeric(s$rhat))
  expect_named(posterior::rhat(fit), s$variable)
  expect_equal(unname(posterior::ess_bulk(fit)), as.numeric(s$ess_bulk))
  expect_equal(unname(posterior::ess_tail(fit)), as.numeric(s$ess_tail))
  s2 <- posterior::summarise_draws(posterior::as_draws(fit), posterior::default_mcse_measures())
  expect_equal(unname(posterior::mcse_mean(fit)), as.numeric(s2$mcse_mean))
  expect_equal(unname(posterior::mcse_sd(fit)), as.numeric(s2$mcse_sd))
  for (f in c("rhat_basic", "ess_basic", "ess_mean", "ess_sd"))
    expect_length(getExportedValue("posterior", f)(fit), length(s$variable))
  q <- posterior::mcse_quantile(fit, probs = c(0.1, 0.9))
  expect_identical(dim(q), c(length(s$variable), 2L))
  expect_length(posterior::ess_median(fit), length(s$variable))
})

test_that("new_data is newdata, prob is an error naming probs and level", {
  fit <- habit_fit()
  expect_identical(predict(fit, new_data = mtcars[1:5, ]), predict(fit, newdata = mtcars[1:5, ]))
  expect_identical(posterior_epred(fit, new_data = mtcars[1:3, ]),
                   posterior_epred(fit, newdata = mtcars[1:3, ]))
  expect_error(predict(fit, newdata = mtcars[1:3, ], new_data = mtcars[1:3, ]), "not both")
  expect_error(predict(fit, mtcars[1:3, ], type = "interval", prob = 0.5),
               "'prob' is not an argument; did you mean 'probs'.*'level'")
  expect_error(fitted(fit, newd = mtcars[1:3, ]), "did you mean 'newdata'")
})

test_that("a misspelt bnn_fit() argument names the argument meant", {
  expect_error(bnn_fit(mpg ~ wt, mtcars, chain = 2), "'chain' \\(did you mean 'chains' or 'chain_id'")
  expect_error(bnn_fit(mpg ~ wt, mtcars, iters = 2), "did you mean 'iter'")
  expect_error(bnn_fit(mpg ~ wt, mtcars, hiden = 2), "did you mean 'hidden'")
})

test_that("rows with missing predictors in newdata are named", {
  fit <- habit_fit()
  nd <- mtcars[1:6, ]
  nd$hp[c(2, 5)] <- NA
  expect_error(predict(fit, nd, na.action = na.fail),
               "2 row\\(s\\): Mazda RX4 Wag, Hornet Sportabout")
})

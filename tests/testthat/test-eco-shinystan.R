# shinystan::as.shinystan() of fits (R/eco-shinystan.R).

test_that("as.shinystan() keeps draws, parameter names, NUTS statistics, no warm-up", {
  # loading shinystan (and shiny) can warn about ggplot2 deprecations
  suppressWarnings(suppressPackageStartupMessages(requireNamespace("shinystan", quietly = TRUE)))
  skip_if_not_installed("shinystan")
  fit <- eco_fits("reg")
  sso <- shinystan::as.shinystan(fit)
  expect_s4_class(sso, "shinystan")
  n_it <- dim(fit$draws)[1]
  expect_identical(sso@n_chain, 3L)
  expect_identical(as.integer(sso@n_iter), n_it)
  expect_identical(as.integer(sso@n_warmup), 0L)
  expect_identical(sso@param_names, c(fit$parameters, "log-posterior"))
  expect_equal(unname(sso@posterior_sample[, , "W1[2,3]"]), unname(fit$draws[, , "W1[2,3]"]))
  expect_equal(unname(sso@posterior_sample[, , "log-posterior"]),
               unname(fit$sampler_stats[, , "lp__"]))
  expect_length(sso@sampler_params, 3L)
  sp <- sso@sampler_params[[2]]
  expect_identical(colnames(sp), c("accept_stat__", "stepsize__", "treedepth__",
                                   "n_leapfrog__", "divergent__", "energy__"))
  expect_equal(unname(sp[, "treedepth__"]), unname(fit$sampler_stats[, 2, "treedepth__"]))
  expect_identical(sso@misc$stan_algorithm, "NUTS")
  expect_identical(as.integer(sso@misc$max_td), 10L)
  expect_match(sso@model_name, "mpg ~ wt \\+ hp")
  expect_identical(sso@param_dims$W1, c(2, 3))
  expect_identical(shinystan::as.shinystan(fit, model_name = "m1")@model_name, "m1")
})

test_that("as.shinystan() of a fit that is not NUTS has no sampler statistics", {
  suppressWarnings(suppressPackageStartupMessages(requireNamespace("shinystan", quietly = TRUE)))
  skip_if_not_installed("shinystan")
  fit <- suppressWarnings(bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 2,
                                  iter = 20, seed = 3, progress = FALSE))
  sso <- shinystan::as.shinystan(fit)
  expect_s4_class(sso, "shinystan")
  expect_identical(sso@n_chain, 2L)
  expect_identical(as.integer(sso@n_iter), dim(fit$draws)[1])
})

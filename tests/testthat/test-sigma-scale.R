# sigma, the Gaussian likelihood's noise sd, is on the response's scale
# wherever a user meets it: the draws in every format, coef(),
# posterior_interval(), summary(), summarise_draws() and tidybayes, so that
# median(as_draws_df(fit)$sigma) is sigma(fit).  The stored draws keep the
# standardised value the samplers and the papers' tables use.

sigma_fit <- local({
  fit <- NULL
  function() {
    if (is.null(fit))
      fit <<- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, likelihood = "gaussian",
                      chains = 2, warmup = 300, iter = 200, seed = 5, progress = FALSE,
                      sampler = "nuts")
    fit
  }
})

test_that("median(as_draws_df(fit)$sigma) is sigma(fit), on the response's scale", {
  fit <- sigma_fit()
  s <- sigma(fit)
  raw <- as.vector(fit$draws[, , "sigma"])
  # the stored draws are standardised (mtcars' mpg has sd 6.0) and stay so
  expect_equal(median(raw) * sd(mtcars$mpg), s, tolerance = 1e-12)
  expect_lt(median(raw), 1)
  # mtcars' residual sd is about 2.5 (lm: 2.59)
  expect_gt(s, 1.5)
  expect_lt(s, 4)
  df <- posterior::as_draws_df(fit)
  expect_equal(median(df$sigma), s, tolerance = 0.05)
  expect_equal(df$sigma, raw * fit$y_scale, tolerance = 1e-14)
  on_scale <- function(v) expect_equal(as.vector(v), raw * fit$y_scale, tolerance = 1e-14)
  on_scale(as.matrix(fit)[, "sigma"])
  on_scale(as.array(fit)[, , "sigma"])
  on_scale(as.data.frame(fit)$sigma)
  on_scale(posterior::as_draws_array(fit)[, , "sigma"])
  on_scale(posterior::as_draws_matrix(fit)[, "sigma"])
  on_scale(posterior::draws_of(posterior::as_draws_rvars(fit)$sigma))
  expect_equal(posterior::as_draws_list(fit)[[2]]$sigma,
               as.vector(fit$draws[, 2, "sigma"]) * fit$y_scale, tolerance = 1e-14)
  sm <- posterior::summarise_draws(fit)
  expect_equal(as.numeric(sm$median[sm$variable == "sigma"]), s, tolerance = 1e-12)
})

test_that("coef(), posterior_interval() and summary() give sigma on the response's scale", {
  fit <- sigma_fit()
  sig <- as.vector(fit$draws[, , "sigma"]) * fit$y_scale
  expect_equal(coef(fit)[["sigma"]], mean(sig), tolerance = 1e-12)
  # the network's other parameters are as stored
  expect_equal(coef(fit)[["b2[1]"]], mean(fit$draws[, , "b2[1]"]), tolerance = 1e-12)
  pi <- posterior_interval(fit, pars = "sigma", prob = 0.8)
  expect_equal(unname(pi[1, ]), unname(quantile(sig, c(0.1, 0.9))), tolerance = 1e-12)
  expect_true(pi[1, 1] < sigma(fit) && sigma(fit) < pi[1, 2])
  tab <- suppressWarnings(summary(fit))$parameters
  i <- match("sigma", tab$parameter)
  expect_equal(tab$mean[i], mean(sig), tolerance = 1e-12)
  expect_equal(tab$q50[i], sigma(fit), tolerance = 1e-12)
})

test_that("tidybayes' spread_draws(fit, sigma) has sigma on the response's scale", {
  skip_if_not_installed("tidybayes")
  fit <- sigma_fit()
  sd <- tidybayes::spread_draws(fit, sigma)
  expect_equal(median(sd$sigma), sigma(fit), tolerance = 1e-12)
})

test_that("a fixed sigma or standardize = FALSE leave nothing to convert", {
  f <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, likelihood = "gaussian", chains = 1,
               warmup = 100, iter = 100, seed = 6, progress = FALSE, sampler = "nuts",
               standardize = FALSE)
  expect_identical(as.matrix(f)[, "sigma"], as.vector(f$draws[, , "sigma"]))
  x <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2,
               likelihood = bnn_likelihood("gaussian", sigma = 0.5), chains = 1,
               warmup = 100, iter = 100, seed = 6, progress = FALSE, sampler = "nuts")
  expect_false("sigma" %in% posterior::variables(x))
})

test_that("the heteroscedastic likelihood has no sigma draws; its linear model's log sd is on the data's scale", {
  h <- eco_fits("reg")                     # a heteroscedastic network
  expect_false("sigma" %in% posterior::variables(h))
  lin <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = integer(0),
                 likelihood = "hetero_gaussian", chains = 2, warmup = 300, iter = 200,
                 seed = 7, progress = FALSE, sampler = "nuts")
  cf <- coef(lin)
  expect_identical(names(cf), c("(Intercept)", "wt", "hp", "sigma_(Intercept)", "sigma_wt",
                                "sigma_hp"))
  m <- as.matrix(lin)
  X <- model.matrix(mpg ~ wt + hp, data = mtcars)
  pp <- bnnmc:::predictive_params(lin, NULL)
  expect_equal(unname(m[, colnames(X)] %*% t(X)), unname(pp$mu), tolerance = 1e-10)
  expect_equal(unname(exp(m[, paste0("sigma_", colnames(X))] %*% t(X))), unname(pp$sd),
               tolerance = 1e-10)
})

test_that("a Student-t fit's sigma() is its scale parameter, as in its draws; counts have none", {
  set.seed(6)
  d <- data.frame(x = rnorm(80))
  d$y <- 3 + 2 * d$x + 0.5 * rt(80, df = 3)
  fit <- short_run(bnn_fit(y ~ x, data = d, family = student(), hidden = integer(0),
                           sampler = "nuts", chains = 2, warmup = 200, iter = 200, seed = 2,
                           progress = FALSE))
  skip_if_not_installed("posterior")
  expect_equal(median(posterior::as_draws_df(fit)$sigma), sigma(fit), tolerance = 0.05)
  expect_true(is.finite(sigma(fit)))
  d$k <- rpois(80, 3)
  pois <- short_run(bnn_fit(k ~ x, data = d, family = poisson(), hidden = integer(0),
                            sampler = "nuts", chains = 1, warmup = 100, iter = 100, seed = 2,
                            progress = FALSE))
  expect_error(sigma(pois), "no residual sd parameter")
})

# Issue #23 item 1: the default predictive distribution of a numeric
# response must be calibrated on small, noisy data.  The old default (the
# heteroscedastic Gaussian with Normal(0, 1) weights) put predictive draws
# thousands of response sds from their median on mtcars and covered every
# training point with its 90% intervals.

test_that("a default fit on small noisy data has sane predictive tails and coverage", {
  skip_on_cran()
  fit <- suppressWarnings(bnn_fit(mpg ~ wt + hp, data = mtcars, chains = 2,
                                  seed = 1, progress = FALSE))
  expect_identical(fit$likelihood$family, "gaussian")
  expect_true(fit$prior$fan_in)
  pp <- posterior_predict(fit, seed = 1)
  med <- apply(pp, 2, stats::median)
  far <- max(abs(sweep(pp, 2, med))) / stats::sd(mtcars$mpg)
  expect_lt(far, 50)
  lo <- apply(pp, 2, stats::quantile, 0.05)
  hi <- apply(pp, 2, stats::quantile, 0.95)
  cov90 <- mean(mtcars$mpg >= lo & mtcars$mpg <= hi)
  expect_gte(cov90, 0.80)
  expect_lte(cov90, 0.98)
})

test_that("the papers' model is one argument away and keeps the Normal(0, 1) prior", {
  d <- mtcars[, c("mpg", "wt")]
  h <- suppressWarnings(bnn_fit(mpg ~ wt, data = d, hidden = 2, chains = 1, warmup = 20,
                                iter = 5, seed = 1, progress = FALSE, sampler = "nuts",
                                likelihood = "hetero_gaussian"))
  expect_identical(h$likelihood$family, "hetero_gaussian")
  expect_false(h$prior$fan_in)
  expect_identical(format(h$prior), "Normal(0, 1)")
  # an explicit likelihood keeps the Normal(0, 1) prior; an explicit prior is used as given
  g <- bnnmc:::prepare_model(quote(stats::model.frame(formula = mpg ~ wt, data = d)),
                             environment(), mpg ~ wt, d, 2, "tanh", "gaussian", NULL, TRUE)
  expect_false(g$prior$fan_in)
  p <- bnnmc:::prepare_model(quote(stats::model.frame(formula = mpg ~ wt, data = d)),
                             environment(), mpg ~ wt, d, 2, "tanh", NULL, bnn_prior(scale = 0.5),
                             TRUE)
  expect_identical(p$likelihood$family, "gaussian")
  expect_equal(p$prior$scale, 0.5)
  # a factor response keeps its own default and the Normal(0, 1) prior
  m <- transform(mtcars, am = factor(am))
  f <- bnnmc:::prepare_model(quote(stats::model.frame(formula = am ~ wt, data = m)),
                             environment(), am ~ wt, m, 2, "tanh", NULL, NULL, TRUE)
  expect_identical(f$likelihood$family, "bernoulli")
  expect_false(f$prior$fan_in)
})

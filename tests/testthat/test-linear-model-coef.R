# A fit without hidden layer is a linear model and speaks as one: coef(),
# posterior_interval(), summary(), print() and the draws give its
# coefficients on the data's scale, named by the model matrix's columns, as
# lm() and rstanarm's stan_glm() do.

lin_fits <- local({
  cache <- list()
  function(what = c("mtcars", "cyl")) {
    what <- match.arg(what)
    if (is.null(cache[[what]]))
      cache[[what]] <<- bnn_fit(switch(what, mtcars = mpg ~ wt + hp,
                                       cyl = mpg ~ wt + factor(cyl)),
                                data = mtcars, hidden = integer(0), chains = 2, warmup = 500,
                                iter = 500, seed = 1, progress = FALSE, sampler = "nuts")
    cache[[what]]
  }
})

test_that("coef() of a linear model is lm's, on the data's scale and named by predictor", {
  fit <- lin_fits("mtcars")
  ref <- coef(lm(mpg ~ wt + hp, data = mtcars))
  cf <- coef(fit)
  expect_identical(names(cf), c("(Intercept)", "wt", "hp"))
  # within a few percent of lm's (the prior shrinks a little)
  expect_lt(max(abs(cf / ref - 1)), 0.05)
  # the posterior medians of the data-scale draws, as rstanarm's coef()
  m <- as.matrix(fit)
  expect_equal(cf, apply(m[, names(cf)], 2L, median), tolerance = 1e-14)
  # the conversion is exact: draw by draw, the data-scale coefficients give
  # the model's mean on the data's scale
  X <- model.matrix(mpg ~ wt + hp, data = mtcars)
  expect_equal(unname(m[, colnames(X)] %*% t(X)), unname(posterior_epred(fit)),
               tolerance = 1e-10)
})

test_that("factor levels are named as lm() names them", {
  fit <- lin_fits("cyl")
  l <- lm(mpg ~ wt + factor(cyl), data = mtcars)
  cf <- coef(fit)
  expect_identical(names(cf), names(coef(l)))
  # within half a standard error of lm's estimate
  expect_true(all(abs(cf - coef(l)) < 0.5 * sqrt(diag(vcov(l)))))
  X <- model.matrix(l)
  expect_equal(unname(as.matrix(fit)[, colnames(X)] %*% t(X)), unname(posterior_epred(fit)),
               tolerance = 1e-10)
})

test_that("posterior_interval() of a linear model has rstanarm's rows, on the data's scale", {
  fit <- lin_fits("mtcars")
  l <- lm(mpg ~ wt + hp, data = mtcars)
  pi <- posterior_interval(fit, prob = 0.9)
  expect_identical(rownames(pi), c("(Intercept)", "wt", "hp", "sigma"))
  expect_identical(colnames(pi), c("5%", "95%"))
  ci <- confint(l, level = 0.9)
  # each interval holds lm's estimate and has about lm's width
  expect_true(all(pi[1:3, 1] < coef(l) & coef(l) < pi[1:3, 2]))
  ratio <- (pi[1:3, 2] - pi[1:3, 1]) / (ci[, 2] - ci[, 1])
  expect_true(all(ratio > 0.8 & ratio < 1.25))
  expect_true(pi["sigma", 1] < sigma(l) && sigma(l) < pi["sigma", 2])
  # any variable by name, the raw parameters included
  expect_identical(rownames(posterior_interval(fit, pars = c("wt", "W1[1,1]"))),
                   c("wt", "W1[1,1]"))
  expect_error(posterior_interval(fit, pars = "cyl"), "'pars' names unknown")
})

test_that("the draws hold the data-scale coefficients by name and the raw parameters unchanged", {
  fit <- lin_fits("mtcars")
  df <- posterior::as_draws_df(fit)
  vars <- c("(Intercept)", "wt", "hp", "W1[1,1]", "W1[2,1]", "b1[1]", "sigma", "lp__")
  expect_identical(posterior::variables(df), vars)
  expect_identical(posterior::variables(fit), vars)
  expect_identical(posterior::nvariables(fit), length(vars))
  expect_identical(df[["W1[2,1]"]], as.vector(fit$draws[, , "W1[2,1]"]))
  expect_identical(df[["b1[1]"]], as.vector(fit$draws[, , "b1[1]"]))
  # slope = W1[j] * sd(y) / sd(x_j)
  expect_equal(df$hp, df[["W1[2,1]"]] * sd(mtcars$mpg) / sd(mtcars$hp), tolerance = 1e-12)
  expect_equal(median(posterior::as_draws_rvars(fit)$wt), coef(fit)[["wt"]], tolerance = 1e-12)
  s <- posterior::summarise_draws(fit)
  expect_equal(as.numeric(s$median[s$variable == "wt"]), coef(fit)[["wt"]], tolerance = 1e-12)
})

test_that("print() and summary() of a linear model speak of a linear model", {
  fit <- lin_fits("mtcars")
  out <- paste(capture.output(print(fit)), collapse = "\n")
  expect_match(out, "^Bayesian linear model fitted by NUTS")
  expect_no_match(out, "neural network")
  expect_no_match(out, "network: ")
  expect_match(out, "model: +linear: an intercept and 2 predictor column")
  expect_match(out, "coefficients \\(posterior median and MAD SD, on the data's scale\\)")
  expect_match(out, "\n +wt +-3\\.")
  s <- summary(fit)
  tab <- s$coefficients
  expect_identical(rownames(tab), c("(Intercept)", "wt", "hp", "sigma"))
  m <- as.matrix(fit)
  expect_equal(tab$mean, unname(colMeans(m[, rownames(tab)])), tolerance = 1e-12)
  expect_equal(tab$q95, unname(apply(m[, rownames(tab)], 2L, quantile, 0.95)),
               tolerance = 1e-12)
  expect_true(all(tab$rhat < 1.05))
  out <- paste(capture.output(print(s)), collapse = "\n")
  expect_match(out, "Coefficients on the data's scale")
  expect_no_match(out, "Per layer")
  # a network's summary keeps its per-layer view
  expect_null(suppressWarnings(summary(eco_fits("gauss")))$coefficients)
})

test_that("a binary linear model's coefficients are on the logit scale, as glm's", {
  d <- transform(MASS::Pima.tr, type = type == "Yes")
  fit <- bnn_fit(type ~ glu + bmi + age, data = d, hidden = integer(0), chains = 2,
                 warmup = 400, iter = 400, seed = 2, progress = FALSE, sampler = "nuts")
  g <- glm(type ~ glu + bmi + age, family = binomial, data = d)
  cf <- coef(fit)
  expect_identical(names(cf), names(coef(g)))
  expect_true(all(abs(cf - coef(g)) < 0.5 * sqrt(diag(vcov(g)))))
  X <- model.matrix(g)
  expect_equal(unname(as.matrix(fit)[, colnames(X)] %*% t(X)),
               unname(posterior_linpred(fit)), tolerance = 1e-10)
  expect_match(capture.output(print(fit))[1], "^Bayesian linear model \\(logistic regression\\)")
  expect_false("sigma" %in% rownames(posterior_interval(fit)))
})

test_that("the default's check says how long the whole call took, and how it was split", {
  # a default call on 32 rows: the network's plan, then the linear model's
  fit <- suppressWarnings(suppressMessages(
    bnn_fit(mpg ~ wt + hp, data = mtcars, chains = 2, seed = 3, progress = FALSE)))
  tm <- attr(fit$model_choice, "timing")
  expect_named(tm, c("total", "network", "linear", "check"))
  expect_true(all(tm >= 0))
  expect_equal(tm[["total"]], sum(tm[c("network", "linear", "check")]), tolerance = 1e-9)
  expect_equal(attr(fit$model_choice, "seconds"), tm[["linear"]] + tm[["check"]],
               tolerance = 1e-9)
  # the chains of the model returned ran within its share of the time
  mine <- if (fit$model_choice$chosen[2]) tm[["linear"]] else tm[["network"]]
  expect_lte(fit$elapsed, mine)
  out <- paste(capture.output(print(fit)), collapse = " ")
  expect_match(out, sprintf("time: +%.1f s in all: network %.1f s, linear model %.1f s, check",
                            tm[["total"]], tm[["network"]], tm[["linear"]]))
  expect_match(out, if (fit$model_choice$chosen[2]) "^Bayesian linear model" else
    "^Bayesian neural network")
  # a fit made without the check shows the chains' time
  expect_match(paste(capture.output(print(lin_fits("mtcars"))), collapse = " "),
               "time: +[0-9.]+ s \\(warm-up")
})

test_that("a Poisson linear model's coefficients are glm()'s, on the log scale", {
  set.seed(4)
  d <- data.frame(x = rnorm(150), z = runif(150))
  d$y <- rpois(150, exp(0.5 + 0.4 * d$x - 0.8 * d$z))
  fit <- short_run(bnn_fit(y ~ x + z, data = d, family = poisson(), hidden = integer(0),
                           sampler = "nuts", chains = 2, warmup = 300, iter = 300, seed = 1,
                           progress = FALSE))
  ref <- coef(glm(y ~ x + z, data = d, family = poisson()))
  expect_named(coef(fit), names(ref))
  expect_equal(unname(coef(fit)), unname(ref), tolerance = 0.1)
})

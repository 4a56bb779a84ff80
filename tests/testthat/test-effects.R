# bnn_importance() and bnn_effects(): permutation importance and partial
# dependence / conditional effects with bands from the draws.

# y depends on x1 (strongly, linearly) and x2 (a parabola), not on x3.
effects_data_sim <- function(n = 200, seed = 3) {
  set.seed(seed)
  d <- data.frame(x1 = runif(n), x2 = runif(n), x3 = runif(n))
  d$y <- 4 * d$x1 + 6 * (d$x2 - 0.5)^2 + stats::rnorm(n, sd = 0.3)
  d
}

effects_fit <- local({
  fit <- NULL
  function() {
    if (is.null(fit)) fit <<- suppressWarnings(
      bnn_fit(y ~ ., data = effects_data_sim(), hidden = 8, likelihood = "gaussian",
              sampler = "nuts", chains = 2, warmup = 300, iter = 100, seed = 5,
              progress = FALSE))
    fit
  }
})

test_that("bnn_importance ranks the used predictors above an unused one, with intervals", {
  fit <- effects_fit()
  imp <- bnn_importance(fit)
  expect_s3_class(imp, "bnn_importance")
  expect_identical(imp$variable[3], "x3")
  expect_identical(sort(imp$variable[1:2]), c("x1", "x2"))
  expect_true(all(imp$lower[1:2] > 0))
  # the unused predictor: small next to the used ones, its interval reaching (almost) 0
  expect_lt(imp$estimate[3], 0.1 * imp$estimate[2])
  expect_lt(imp$lower[3], 0.02 * imp$estimate[1])
  dr <- attr(imp, "draws")
  expect_identical(dim(dr), c(ndraws_fit(fit), 3L))
  expect_equal(imp$estimate, unname(colMeans(dr)))
  # draw by draw it is the drop in mean log-likelihood when x1 is permuted
  d <- effects_data_sim()
  set.seed(1)
  pm <- sample.int(nrow(d))
  dp <- d
  dp$x1 <- d$x1[pm]
  ref <- rowMeans(log_lik(fit, newdata = d)) - rowMeans(log_lik(fit, newdata = dp))
  expect_equal(unname(dr[, "x1"]), ref, tolerance = 1e-10)
  # rmse in response units: the rise for x1 is most of the signal's sd
  r <- bnn_importance(fit, measure = "rmse", nperm = 2, ndraws = 50)
  expect_identical(r$variable[1], "x1")
  expect_gt(r$estimate[1], 0.5)
  expect_output(print(imp), "Permutation importance")
  expect_output(print(imp[1:2, ]), "x1|x2")
  expect_error(bnn_importance(fit, measure = "mse"), "'measure' must be one of")
  expect_error(bnn_importance(fit, nperm = 0), "'nperm'")
  expect_error(bnn_importance(fit, newdata = d[c("x1", "x2", "x3")]), "response")
  expect_error(bnn_importance(lm(y ~ x1, d)), "'fit' must be a bnnfit")
})

test_that("bnn_effects: partial dependence recovers additive effects within its bands", {
  fit <- effects_fit()
  eff <- bnn_effects(fit, c("x1", "x2"), resolution = 25)
  expect_s3_class(eff, "bnn_effects")
  expect_identical(names(eff), c("x1", "x2"))
  r1 <- eff$x1
  expect_equal(nrow(r1), 25L)
  expect_true(all(r1$lower <= r1$estimate & r1$estimate <= r1$upper))
  # slope 4: the range of the estimate is near 4 * diff(range(x1))
  slope <- diff(range(r1$estimate)) / diff(range(r1$x1))
  expect_gt(slope, 3)
  expect_lt(slope, 5)
  # centred truth inside the centred band at most grid points
  covers <- function(r, truth) {
    off <- mean(r$estimate) - mean(truth)
    mean(r$lower - off <= truth & truth <= r$upper - off)
  }
  expect_gte(covers(r1, 4 * r1$x1), 0.8)
  expect_gte(covers(eff$x2, 6 * (eff$x2$x2 - 0.5)^2), 0.8)
  # the estimate is the mean over draws of the rows' average prediction
  d <- effects_data_sim()
  rows <- unique(round(seq(1, nrow(d), length.out = 100)))
  nd <- d[rows, ]
  nd$x1 <- r1$x1[7]
  expect_equal(r1$estimate[7], mean(posterior_epred(fit, newdata = nd)), tolerance = 1e-10)
  # the default picks the most important predictors
  e2 <- bnn_effects(fit, n_effects = 2, resolution = 5)
  expect_setequal(names(e2), c("x1", "x2"))
  # conditional effects with the predictive band
  ce <- bnn_effects(fit, "x1", method = "conditional", predictive = TRUE, resolution = 10)
  expect_true(all(ce$x1$pred_lower < ce$x1$lower & ce$x1$pred_upper > ce$x1$upper))
  expect_error(bnn_effects(fit, "x1", predictive = TRUE), "method = \"conditional\"")
  expect_error(bnn_effects(fit, "x9"), "is not one of: x1, x2, x3")
  expect_error(bnn_effects(fit, "x1:x2:x3"), "two joined by ':'")
  expect_output(print(eff), "Partial dependence")
})

test_that("bnn_effects: surfaces, factors (Poisson), binary probabilities, and their plots", {
  skip_if_not_installed("ggplot2")
  fit <- effects_fit()
  s <- bnn_effects(fit, "x1:x2", resolution = 8)
  expect_equal(nrow(s$`x1:x2`), 64L)
  expect_identical(names(s$`x1:x2`)[1:2], c("x1", "x2"))
  p <- plot(s, plot = FALSE)
  b <- ggplot2::ggplot_build(p[[1]])
  expect_true(inherits(p[[1]]$layers[[1]]$geom, "GeomRaster"))
  expect_equal(nrow(b$data[[1]]), 64L)
  pw <- suppressWarnings(bnn_fit(breaks ~ wool + tension, data = warpbreaks,
                                 family = poisson(), hidden = 3, sampler = "nuts", chains = 1,
                                 warmup = 150, iter = 60, seed = 1, progress = FALSE))
  e <- bnn_effects(pw, c("tension", "wool:tension"), method = "pd")
  te <- e$tension
  expect_identical(as.character(te$tension), c("L", "M", "H"))
  expect_true(all(te$lower > 0))
  # expected counts on the data's scale: L has the most breaks
  expect_gt(te$estimate[1], te$estimate[3])
  expect_equal(nrow(e$`wool:tension`), 6L)
  ep <- plot(e, points = TRUE, plot = FALSE)
  expect_true(inherits(ep$tension$layers[[1]]$geom, "GeomPoint"))   # the jittered data
  expect_true(any(vapply(ep$tension$layers, function(l) inherits(l$geom, "GeomPointrange"),
                         logical(1))))
  invisible(lapply(ep, ggplot2::ggplot_build))
  # a binomial response: probabilities of success; its trials come from the data
  set.seed(6)
  db <- data.frame(x = runif(60))
  db$s <- stats::rbinom(60, 12, stats::plogis(-1 + 2 * db$x))
  db$f <- 12 - db$s
  bi <- suppressWarnings(bnn_fit(cbind(s, f) ~ x, data = db, family = binomial(), hidden = 3,
                                 sampler = "nuts", chains = 1, warmup = 150, iter = 60,
                                 seed = 1, progress = FALSE))
  eb <- bnn_effects(bi, "x", resolution = 5)
  expect_true(all(eb$x$lower > 0 & eb$x$upper < 1))
  expect_gt(eb$x$estimate[5], eb$x$estimate[1])
  expect_identical(bnn_importance(bi)$variable, "x")
  bern <- eco_fits("bern")
  eb <- bnn_effects(bern, "wt", resolution = 10)
  expect_true(all(eb$wt$lower >= 0 & eb$wt$upper <= 1))
  expect_match(attr(eb, "response"), "P\\(am = TRUE\\)")
  # heavier cars are less often manual
  expect_gt(eb$wt$estimate[1], eb$wt$estimate[10])
  cat_fit <- eco_fits("cat")
  ec <- bnn_effects(cat_fit, "Petal.Length", resolution = 6)
  expect_identical(levels(ec$Petal.Length$class), levels(iris$Species))
  tot <- tapply(ec$Petal.Length$estimate, ec$Petal.Length$Petal.Length, sum)
  expect_equal(as.vector(tot), rep(1, 6), tolerance = 1e-12)
  pc <- plot(ec, plot = FALSE)
  expect_identical(ggplot2::ggplot_build(pc[[1]])$plot$labels$colour, "class")
  imp_p <- plot(bnn_importance(fit, ndraws = 40))
  bi <- ggplot2::ggplot_build(imp_p)
  # most important at the top: the y position of x3 is the lowest
  expect_identical(levels(imp_p$data$variable)[1], "x3")
  expect_equal(nrow(bi$data[[3]]), 3L)
})

test_that("importance and effects of a stacked fit weight its models as predict() does", {
  fit <- effects_fit()
  st <- fit
  st$mixture <- list(fit = fit, weights = c(network = 0.5, linear = 0.5))
  # two identical halves, 50 draws each: the partial dependence of the fit
  # alone with those 50 draws
  e1 <- bnn_effects(fit, "x1", resolution = 5, ndraws = 50)
  e2 <- bnn_effects(st, "x1", resolution = 5, ndraws = 100)
  expect_equal(e2$x1$estimate, e1$x1$estimate, tolerance = 1e-10)
})

test_that("plot(fit) is an overview of ggplots; a linear fit is labelled by its predictors", {
  skip_if_not_installed("ggplot2")
  fit <- effects_fit()
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  ov <- plot(fit)
  expect_true(all(c("x1", "x2", "x3", "trace") %in% names(ov)))
  if (requireNamespace("bayesplot", quietly = TRUE)) expect_true("pp_check" %in% names(ov))
  for (p in ov) expect_s3_class(ggplot2::ggplot_build(p), "ggplot_built")
  tr <- ov$trace$data
  expect_setequal(as.character(unique(tr$quantity)), c("log-likelihood", "sigma"))
  # the log-likelihood of each draw is the sum of log_lik() over the rows
  expect_equal(tr$value[tr$quantity == "log-likelihood"], unname(rowSums(log_lik(fit))),
               tolerance = 1e-10)
  lin <- suppressWarnings(bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = integer(0),
                                  chains = 2, warmup = 150, iter = 60, seed = 1,
                                  progress = FALSE, sampler = "nuts"))
  a <- plot(lin, type = "trace")
  expect_identical(dimnames(a)[[3]], c("(Intercept)", "wt", "hp", "sigma"))
  expect_identical(dimnames(plot(lin, type = "pairs_layer"))[[3]], c("wt", "hp"))
  lo <- plot(lin)
  expect_true(all(c("wt", "hp") %in% names(lo)))
  expect_identical(lo$wt$labels$x, "wt")
})

test_that("plot(type = \"bands\") works for a Student-t fit with nu < 2 draws", {
  set.seed(4)
  d <- data.frame(x = runif(80))
  d$y <- 2 * d$x + stats::rt(80, df = 1.5) * 0.3
  st <- suppressWarnings(bnn_fit(y ~ x, data = d, family = student(), hidden = 3,
                                 sampler = "nuts", chains = 1, warmup = 150, iter = 60,
                                 seed = 2, progress = FALSE))
  expect_true(any(st$draws[, , "nu"] < 2))
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  b <- plot(st, type = "bands", covariate = "x")
  expect_true(all(is.finite(b$lower90) & is.finite(b$upper90)))
  expect_true(all(b$lower90 < b$mean & b$mean < b$upper90))
  # the same quantiles as predict(type = "interval") at those points
  pi <- predict(st, newdata = data.frame(x = b$x[c(1, 50)]), type = "interval", level = 0.9)
  expect_equal(b$lower90[c(1, 50)], unname(pi$lower), tolerance = 1e-8)
})

test_that("summary() of a network leads with its predictors and fit; weights on request", {
  fit <- effects_fit()
  s <- summary(fit)
  expect_identical(s$predictors$variable[3], "x3")
  expect_true(all(c("importance", "lower", "upper", "effect_range") %in% names(s$predictors)))
  # x1's partial dependence spans about 4 (slope 4 over [0, 1])
  er <- s$predictors$effect_range[s$predictors$variable == "x1"]
  expect_gt(er, 3)
  expect_lt(er, 5)
  expect_true(s$fit_measures$bayes_R2[1] > 0.5)
  expect_true(is.finite(s$fit_measures$elpd_loo[1]))
  out <- capture.output(print(s))
  expect_true(any(grepl("^Predictors", out)))
  expect_true(any(grepl("Bayes R2", out)))
  expect_false(any(grepl("Per layer", out)))
  expect_true(any(grepl("Per layer", capture.output(print(s, weights = TRUE)))))
  expect_true(any(grepl("Per layer", capture.output(print(summary(fit, weights = TRUE))))))
  expect_null(summary(fit, predictors = FALSE)$predictors)
  expect_error(summary(fit, weights = NA), "'weights' must be TRUE or FALSE")
})

test_that("Friedman's function: the default fit's importance and effects find the truth", {
  skip_on_cran()
  set.seed(2026)
  n <- 1000
  d <- as.data.frame(matrix(stats::runif(n * 10), n, 10,
                            dimnames = list(NULL, paste0("x", 1:10))))
  d$y <- 10 * sin(pi * d$x1 * d$x2) + 20 * (d$x3 - 0.5)^2 + 10 * d$x4 + 5 * d$x5 +
    stats::rnorm(n)
  fit <- suppressMessages(suppressWarnings(bnn_fit(y ~ ., data = d, seed = 1,
                                                   progress = FALSE)))
  imp <- bnn_importance(fit)
  expect_setequal(imp$variable[1:5], paste0("x", 1:5))
  noise <- imp$variable %in% paste0("x", 6:10)
  # the noise inputs' lower bounds: below 2% of the weakest real input's estimate
  expect_true(all(imp$lower[noise] < 0.02 * min(imp$estimate[!noise])))
  eff <- bnn_effects(fit, c("x3", "x4"))
  covers <- function(r, truth) {
    off <- mean(r$estimate) - mean(truth)
    mean(r$lower - off <= truth & truth <= r$upper - off)
  }
  rng <- diff(range(eff$x4$estimate)) / diff(range(eff$x4$x4))
  expect_gt(rng, 8)
  expect_lt(rng, 12)
  expect_gte(covers(eff$x4, 10 * eff$x4$x4), 0.9)
  expect_gte(covers(eff$x3, 20 * (eff$x3$x3 - 0.5)^2), 0.9)
})

test_that("bnn_mcmc_plot() shows the readable quantities; weights on request", {
  skip_if_not_installed("ggplot2")
  fit <- effects_fit()
  p <- bnn_mcmc_plot(fit)
  vars <- levels(p$data$quantity)
  expect_identical(vars[1:3], c("log_lik", "lp__", "sigma"))
  expect_length(grep("^mu\\[", vars), 3L)
  expect_s3_class(ggplot2::ggplot_build(p), "ggplot_built")
  # log_lik of a draw: the sum of log_lik() over the training rows
  ll <- p$data$value[p$data$quantity == "log_lik"]
  expect_equal(ll, unname(rowSums(log_lik(fit))), tolerance = 1e-10)
  # mu[<row>]: the draws of the expected response at that row
  mu1 <- grep("^mu\\[", vars, value = TRUE)[1]
  row <- sub("^mu\\[(.*)\\]$", "\\1", mu1)
  expect_equal(p$data$value[p$data$quantity == mu1],
               unname(posterior_epred(fit)[, row]), tolerance = 1e-10)
  pw <- bnn_mcmc_plot(fit, variable = c("W1[1,1]", "b1[1]"))
  expect_identical(levels(pw$data$quantity), c("W1[1,1]", "b1[1]"))
  lin <- suppressWarnings(bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = integer(0),
                                  chains = 2, warmup = 150, iter = 60, seed = 1,
                                  progress = FALSE, sampler = "nuts"))
  pl <- bnn_mcmc_plot(lin, points = 0)
  expect_identical(levels(pl$data$quantity), c("log_lik", "(Intercept)", "wt", "hp", "sigma"))
  skip_if_not_installed("bayesplot")
  expect_s3_class(ggplot2::ggplot_build(bnn_mcmc_plot(fit, type = "rank_overlay", points = 1)),
                  "ggplot_built")
  expect_error(bnn_mcmc_plot(fit, type = "nonesuch"), "does not name a bayesplot function")
})

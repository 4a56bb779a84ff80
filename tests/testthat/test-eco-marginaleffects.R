# marginaleffects on fits (R/eco-marginaleffects.R): every estimate is the
# posterior median of draw-by-draw quantities, intervals equal-tailed.

eti <- function(x, level = 0.95) unname(quantile(x, c((1 - level) / 2, (1 + level) / 2)))

test_that("predictions() and avg_predictions() summarise posterior_epred() draws", {
  skip_if_not_installed("marginaleffects")
  skip_if_not_installed("collapse", "2.0.18")
  fit <- eco_fits("reg")
  S <- ndraws_fit(fit)
  nd <- mtcars[1:3, ]
  ep <- posterior_epred(fit, newdata = nd)
  p <- marginaleffects::predictions(fit, newdata = nd)
  expect_equal(p$estimate, unname(apply(ep, 2, median)))
  expect_equal(p$conf.low, unname(apply(ep, 2, quantile, 0.025)))
  expect_equal(p$conf.high, unname(apply(ep, 2, quantile, 0.975)))
  expect_identical(dim(marginaleffects::get_draws(p, "PxD")), c(3L, S))
  # the average over the training data, draw by draw, then its median
  ap <- marginaleffects::avg_predictions(fit)
  per_draw <- rowMeans(posterior_epred(fit))
  expect_equal(ap$estimate, median(per_draw))
  expect_equal(c(ap$conf.low, ap$conf.high), eti(per_draw))
})

test_that("slopes() and comparisons() are computed draw by draw", {
  skip_if_not_installed("marginaleffects")
  skip_if_not_installed("collapse", "2.0.18")
  fit <- eco_fits("reg")
  d <- mtcars
  ep0 <- posterior_epred(fit, newdata = d)
  ep1 <- posterior_epred(fit, newdata = transform(d, wt = wt + 1))
  cmp <- marginaleffects::avg_comparisons(fit, variables = list(wt = 1))
  per_draw <- rowMeans(ep1 - ep0)
  expect_equal(cmp$estimate, median(per_draw))
  expect_equal(c(cmp$conf.low, cmp$conf.high), eti(per_draw))
  # slopes: finite differences of the mean function
  sl <- marginaleffects::avg_slopes(fit, variables = "wt")
  h <- 1e-4
  dd <- (posterior_epred(fit, newdata = transform(d, wt = wt + h)) - ep0) / h
  expect_equal(sl$estimate, median(rowMeans(dd)), tolerance = 1e-3)
  one <- marginaleffects::slopes(fit, newdata = d[1:2, ], variables = "hp")
  expect_identical(nrow(one), 2L)
  expect_true(all(one$conf.low < one$estimate & one$estimate < one$conf.high))
})

test_that("classification fits: one row per class, and binary probabilities", {
  skip_if_not_installed("marginaleffects")
  skip_if_not_installed("collapse", "2.0.18")
  fit <- eco_fits("cat")
  ap <- marginaleffects::avg_predictions(fit)
  ep <- posterior_epred(fit)
  expect_identical(as.character(ap$group), levels(iris$Species))
  expect_equal(ap$estimate, unname(apply(apply(ep, c(1, 3), mean), 2, median)))
  b <- eco_fits("bern")
  pb <- marginaleffects::avg_predictions(b)
  expect_equal(pb$estimate, median(rowMeans(posterior_epred(b))))
})

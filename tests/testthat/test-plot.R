# plot.bnnfit(): every type draws to a null device and returns its data.

with_null_device <- function(expr) {
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  op <- graphics::par(no.readonly = TRUE)
  out <- expr
  expect_identical(graphics::par("mfrow"), op$mfrow)   # par() is restored
  out
}

test_that("trace and pairs_layer plots draw the chosen parameters", {
  fit <- eco_fits("reg")
  # by default the quantities that can be read, not weights
  a <- with_null_device(plot(fit, type = "trace"))
  expect_identical(dimnames(a)[[3]], "lp__")
  a <- with_null_device(plot(fit, type = "trace", pars = c("W1[1,1]", "W2[2,1]")))
  expect_identical(unname(a[, , "W2[2,1]"]), unname(fit$draws[, , "W2[2,1]"]))
  a <- with_null_device(plot(fit, type = "trace", pars = c("b1[1]", "lp__")))
  expect_identical(dimnames(a)[[3]], c("b1[1]", "lp__"))
  g <- eco_fits("gauss")
  expect_true("sigma" %in% dimnames(with_null_device(plot(g, type = "trace")))[[3]])
  p <- with_null_device(plot(fit, type = "pairs_layer"))
  expect_identical(dimnames(p)[[3]], c("W1[1,1]", "W1[2,1]", "W2[1,1]", "W2[2,1]"))
  p <- with_null_device(plot(fit, type = "pairs_layer", pars = c("W1[1,1]", "W1[1,2]")))
  expect_identical(dimnames(p)[[3]], c("W1[1,1]", "W1[1,2]"))
  expect_error(plot(fit, type = "pairs_layer", pars = c("W1[1,1]")), "'pars'")
  expect_error(plot(fit, type = "trace", pars = "W7[1,1]"), "'variable' names unknown")
})

test_that("R-hat plots use the layer table: pooled and chain-wise R-hat", {
  skip_if_not_installed("posterior")
  fit <- eco_fits("reg")
  tab <- bnnmc:::.layer_rhat_table(fit)
  P <- length(fit$parameters)
  expect_identical(nrow(tab), 4L * P)
  expect_identical(names(tab), c("variable", "layer", "role", "chain", "rhat"))
  expect_identical(tab$chain, rep(c(NA, 1:3), each = P))
  expect_identical(unique(tab$layer), c("layer 1", "layer 2"))
  pooled <- tab[is.na(tab$chain) & tab$variable == "W2[3,1]", "rhat"]
  expect_identical(pooled, posterior::rhat(fit$draws[, , "W2[3,1]"]))
  # chain-wise: the chain-wise R-hat of Sommer et al. (2024) with kappa = 4
  got <- tab[tab$chain %in% 2L & tab$variable == "b1[2]", "rhat"]
  expect_equal(got, unname(bnn_chainwise_rhat(fit$draws, kappa = 4)[2, "b1[2]"]))
  g <- eco_fits("gauss")
  gt <- bnnmc:::.layer_rhat_table(g)
  expect_equal(gt[gt$chain %in% 1L & gt$variable == "sigma", "rhat"],
               unname(bnn_chainwise_rhat(g$draws, kappa = 4)[1, "sigma"]))
  expect_identical(gt[gt$variable == "sigma", "layer"][1], "sigma")
  d <- with_null_device(plot(fit, type = "rhat_layer"))
  expect_true(all(is.na(d$chain)))
  d <- with_null_device(plot(fit, type = "rhat_chain"))
  expect_identical(sort(unique(d$chain)), 1:3)
})

test_that("cumulative LPPD per chain matches a direct computation", {
  fit <- eco_fits("reg")
  n_it <- dim(fit$draws)[1]
  d <- with_null_device(plot(fit, type = "lppd", scale = "original"))
  expect_identical(nrow(d), 3L * n_it)
  ll <- log_lik(fit)
  chain2 <- ll[n_it + 1:n_it, ]
  t <- 17
  direct <- mean(log(colMeans(exp(chain2[1:t, , drop = FALSE]))))
  expect_equal(d$lppd[d$chain == 2L][t], direct)
  expect_equal(d$lppd[d$chain == 2L][n_it], mean(log(colMeans(exp(chain2)))))
  expect_identical(d$iteration[1:2], c(81L, 82L))
  # stable where exp() underflows
  big <- bnn_cumulative_lppd(matrix(c(-1000, -1001, -2000, -2000.5), 2))
  expect_equal(big[2], mean(c(-1000 + log((1 + exp(-1)) / 2),
                              -2000 + log((1 + exp(-0.5)) / 2))))
  dn <- with_null_device(plot(fit, type = "lppd", newdata = mtcars[1:10, ], scale = "original"))
  expect_equal(dn$lppd[dn$chain == 1L][n_it],
               mean(log(colMeans(exp(log_lik(fit, newdata = mtcars[1:10, ])[1:n_it, ])))))
  expect_error(plot(fit, type = "lppd", ndraws = 10), "'ndraws'")
  expect_identical(nrow(with_null_device(plot(eco_fits("cat"), type = "lppd"))), 2L * n_it)
})

test_that("coverage uses the exact predictive intervals", {
  fit <- eco_fits("reg")
  cov <- with_null_device(plot(fit, type = "coverage"))
  expect_equal(cov$nominal, seq(0.05, 0.95, by = 0.05))
  iv <- predict(fit, type = "interval", level = 0.7)
  expect_equal(cov$empirical[14], mean(mtcars$mpg >= iv$lower & mtcars$mpg <= iv$upper))
  expect_true(all(diff(cov$empirical) >= 0))
  test <- mtcars[1:12, ]
  cn <- with_null_device(plot(fit, type = "coverage", newdata = test))
  iv <- predict(fit, newdata = test, type = "interval", level = 0.5)
  expect_equal(cn$empirical[10], mean(test$mpg >= iv$lower & test$mpg <= iv$upper))
  expect_error(plot(eco_fits("bern"), type = "coverage"), "regression")
})

test_that("bands follow one covariate with the others at reference values", {
  fit <- eco_fits("reg")
  b <- with_null_device(plot(fit, type = "bands", covariate = "hp"))
  expect_identical(names(b), c("hp", "mean", "lower90", "upper90", "lower50", "upper50"))
  expect_equal(range(b$hp), range(mtcars$hp))
  nd <- data.frame(wt = mean(mtcars$wt), hp = b$hp[c(1, 50)])
  expect_equal(b$mean[c(1, 50)], unname(predict(fit, newdata = nd)))
  iv <- predict(fit, newdata = nd, type = "interval", level = 0.5)
  expect_equal(b$lower50[c(1, 50)], iv$lower)
  expect_true(all(b$lower90 <= b$lower50 & b$upper50 <= b$upper90))
  # a numeric variable used as a factor is discrete
  g <- eco_fits("gauss")
  bg <- with_null_device(plot(g, type = "bands", covariate = "am", level = 0.8))
  expect_identical(bg$am, c(0, 1))
  expect_identical(names(bg), c("am", "mean", "lower80", "upper80"))
  bw <- with_null_device(plot(g, type = "bands"))    # default: first covariate
  expect_identical(names(bw)[1], "wt")
  cf <- eco_fits("cat")
  bc <- with_null_device(plot(cf, type = "bands", covariate = "Petal.Length"))
  expect_identical(names(bc), c("Petal.Length", levels(iris$Species)))
  expect_equal(unname(rowSums(bc[, -1])), rep(1, 100))
  expect_error(plot(fit, type = "bands", covariate = "qsec"), "'covariate'")
  expect_error(plot(fit, type = "bands", level = 1.2), "'level'")
})

test_that("plot() names a bad type and unused arguments", {
  fit <- eco_fits("reg")
  expect_error(plot(fit, type = "histogram"), "'type' must be one of")
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  expect_warning(plot(fit, colour = "red"), "unused argument\\(s\\): colour")
})

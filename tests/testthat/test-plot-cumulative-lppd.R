# The cumulative-LPPD plot: its scale (that of bnn_metrics()) and its
# y range when one chain is far below the others.

fh_null_device <- function(expr) {
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off())
  force(expr)
  list(value = expr, usr = graphics::par("usr"))
}

test_that("the cumulative-LPPD plot says its scale and matches bnn_metrics()' default", {
  fit <- suppressWarnings(bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 3,
                                  warmup = 80, iter = 40, seed = 11, progress = FALSE, sampler = "nuts",
                                  likelihood = "hetero_gaussian"))
  n_it <- dim(fit$draws)[1]
  o <- fh_null_device(plot(fit, type = "lppd"))$value
  s <- fh_null_device(plot(fit, type = "lppd", scale = "standardized"))$value
  expect_equal(s$lppd, o$lppd + log(fit$y_scale))
  expect_identical(unique(s$scale), "standardized scale")
  expect_identical(unique(o$scale), "response scale")
  # the older spellings still work
  o2 <- fh_null_device(plot(fit, type = "lppd", scale = "original"))$value
  expect_identical(o2, o)
  # the pooled value is bnn_metrics()' LPPD on the same (response) scale
  one <- fit
  one$draws <- fit$draws[, 1, , drop = FALSE]
  one$chain_status <- fit$chain_status[1]
  expect_equal(o$lppd[o$chain == 1L][n_it], bnn_metrics(one, mtcars)$lppd)
  expect_equal(s$lppd[s$chain == 1L][n_it],
               bnn_metrics(one, mtcars, scale = "standardized")$lppd)
  # printed metrics name their scale
  expect_identical(bnn_metrics(fit, mtcars)$scale, "response")
  expect_identical(bnn_metrics(fit, mtcars, scale = "standardised")$scale, "standardized")
  expect_identical(unique(bnn_metrics(fit, mtcars, by = "chain")$scale), "response")

  # one bad chain: its predicted mean 30 response sds away
  bad <- fit
  bad$draws[, 3, "b2[1]"] <- 30
  r <- fh_null_device(plot(bad, type = "lppd"))
  d <- r$value
  final3 <- d$lppd[d$chain == 3L][n_it]
  good <- d$lppd[d$chain != 3L & d$iteration > 80 + 4]
  expect_lt(final3, min(good) - 10)
  # the plot's vertical range follows chains 1 and 2, not the bad one
  expect_gt(r$usr[3], final3)
  expect_lt(r$usr[4] - r$usr[3], 2 * diff(range(good)) + 1)
})

test_that("bnn_fit returns a complete bnnfit and the methods work", {
  set.seed(1)
  fit <- suppressWarnings(bnn_fit(mpg ~ wt + hp + factor(am), data = mtcars,
                                  hidden = c(4, 3), chains = 2, warmup = 100,
                                  iter = 50, seed = 3, progress = FALSE, sampler = "nuts",
                                  likelihood = "hetero_gaussian"))
  expect_s3_class(fit, "bnnfit")
  expect_equal(dim(fit$draws), c(50, 2, bnn_n_parameters(c(3, 4, 3, 2))))
  expect_equal(dimnames(fit$sampler_stats)[[3]],
               c("accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__",
                 "divergent__", "energy__", "lp__"))
  expect_equal(fit$n_grad, 1 + apply(fit$warmup_stats[, , "n_leapfrog__"], 2, sum) +
                 apply(fit$sampler_stats[, , "n_leapfrog__"], 2, sum) +
                 # step-size searches at the start and after each metric update
                 fit$n_grad - 1 - apply(fit$warmup_stats[, , "n_leapfrog__"], 2, sum) -
                 apply(fit$sampler_stats[, , "n_leapfrog__"], 2, sum))
  expect_output(print(fit), "3 - 4 - 3 - 2")
  expect_output(print(summary(fit), weights = TRUE), "Per layer")
  expect_equal(nobs(fit), 32)
  expect_equal(formula(fit), mpg ~ wt + hp + factor(am))
  expect_length(coef(fit), length(fit$parameters))
  expect_equal(unname(fitted(fit)), unname(predict(fit)))
  expect_equal(unname(residuals(fit)), unname(mtcars$mpg - fitted(fit)))
  p <- predict(fit, mtcars[1:5, ], type = "interval", level = 0.8)
  expect_equal(names(p), c("mean", "lower", "upper"))
  expect_true(all(p$lower < p$mean & p$mean < p$upper))
  dr <- predict(fit, mtcars[1:5, ], type = "draws", seed = 1)
  expect_equal(dim(dr), c(100, 5))
  # predictive intervals agree with the quantiles of many predictive draws
  dr <- predict(fit, mtcars[1:5, ], type = "draws", seed = 2)
  big <- do.call(rbind, lapply(1:40, function(i) predict(fit, mtcars[1:5, ], type = "draws", seed = i)))
  q <- apply(big, 2, quantile, c(0.1, 0.9))
  expect_equal(p$lower, unname(q[1, ]), tolerance = 0.05)
  expect_equal(p$upper, unname(q[2, ]), tolerance = 0.05)
  expect_equal(dim(predict(fit, mtcars[1:5, ], type = "draws", ndraws = 10)), c(10, 5))
})

test_that("the mixture quantiles are exact", {
  mu <- matrix(c(-1, 1, 0, 3), 2)
  sd <- matrix(c(0.5, 0.5, 1, 2), 2)
  q <- bnn_mixture_quantile(mu, sd, c(0.05, 0.5, 0.95))
  for (j in 1:2) for (k in 1:3) {
    cdf <- mean(pnorm(q[j, k], mu[, j], sd[, j]))
    expect_equal(cdf, c(0.05, 0.5, 0.95)[k], tolerance = 1e-8)
  }
})

test_that("classification fits predict probabilities that sum to one", {
  set.seed(1)
  n <- 60
  d <- data.frame(x1 = rnorm(n), x2 = rnorm(n))
  d$cls <- factor(ifelse(d$x1 + d$x2 > 0, "pos", "neg"))
  fit <- suppressWarnings(bnn_fit(cls ~ x1 + x2, data = d, hidden = 3, chains = 1,
                                  warmup = 100, iter = 50, seed = 1, progress = FALSE, sampler = "nuts"))
  expect_equal(fit$likelihood$family, "bernoulli")
  pr <- predict(fit, d, type = "prob")
  expect_equal(unname(rowSums(pr)), rep(1, n), tolerance = 1e-12)
  expect_gt(mean(predict(fit, d, type = "class") == d$cls), 0.8)
  dr <- predict(fit, d, type = "draws", seed = 1)
  expect_equal(dim(dr), c(50, n))    # [draw, observation], class indices
  expect_true(all(dr %in% 1:2))
  d$k <- factor(sample(c("a", "b", "c"), n, TRUE))
  fit3 <- suppressWarnings(bnn_fit(k ~ x1 + x2, data = d, hidden = 2, chains = 1,
                                   warmup = 30, iter = 10, seed = 1, progress = FALSE, sampler = "nuts"))
  expect_equal(fit3$likelihood$family, "categorical")
  expect_equal(unname(rowSums(predict(fit3, d, type = "prob"))), rep(1, n), tolerance = 1e-12)
})

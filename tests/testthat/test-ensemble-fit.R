# Deep ensembles as fits.

test_that("as_bnnfit() of an ensemble predicts exactly as the ensemble", {
  set.seed(3)
  d <- data.frame(x1 = rnorm(40), x2 = rnorm(40))
  d$y <- d$x1 - d$x2^2 + rnorm(40, sd = 0.3)
  ens <- bnn_fit_ensemble(y ~ ., d[1:30, ], hidden = c(5, 5), members = 6, activation = "relu",
                      likelihood = bnn_likelihood("gaussian", sigma = 0.4),
                      optimizer = bnn_optimizer(epochs = 40), seed = 2, progress = FALSE)
  fit <- as_bnnfit(ens)
  expect_s3_class(fit, "bnnfit")
  expect_equal(dim(fit$draws), c(6L, 1L, dim(ens$draws)[3]))
  expect_identical(unname(fit$draws[, 1, ]), unname(ens$draws[1, , ]))
  expect_equal(predict(fit, d[31:40, ]), predict(ens, d[31:40, ]))
  expect_equal(bnn_metrics(fit, d[31:40, ])[c("rmse", "lppd")],
               bnn_metrics(ens, d[31:40, ])[c("rmse", "lppd")])
  expect_identical(as_bnnfit(fit), fit)
  # lp__ is the log posterior of each member
  lp <- .Call(bnnmc:::C_model_logpost, bnnmc:::fit_spec(ens), t(fit$draws[, 1, ]))$lp
  expect_equal(fit$sampler_stats[, 1, "lp__"], lp)
  skip_if_not_installed("loo")
  expect_s3_class(suppressWarnings(loo::loo(fit)), "psis_loo")
})

test_that("ensemble members equal one-by-one training (batched dispatch)", {
  set.seed(4)
  d <- data.frame(x = rnorm(30))
  d$y <- sin(d$x) + rnorm(30, sd = 0.2)
  opt <- bnn_optimizer(epochs = 15, batch_size = 8)
  ens <- bnn_fit_ensemble(y ~ x, d, hidden = 4, members = 7, optimizer = opt, seed = 5,
                      progress = FALSE, likelihood = "hetero_gaussian")
  mf <- quote(stats::model.frame(y ~ x, d))
  sp <- bnnmc:::prepare_model(mf, environment(), y ~ x, d, 4, "relu", "hetero_gaussian",
                              bnn_prior(), TRUE)$spec
  for (k in c(1, 4, 7)) {
    one <- do.call(bnnmc:::.bnn_optimize, c(list(spec = sp, seed = 5, member = k),
                                            unclass(opt)))
    expect_identical(unname(ens$draws[1, k, ]), one$par)
  }
})

test_that("the approximations are methods of coverage studies", {
  expect_true(all(c("laplace", "mc_dropout", "swag") %in% bnn_methods()$method))
  set.seed(6)
  d <- data.frame(x = runif(30, -2, 2))
  d$y <- sin(d$x) + rnorm(30, sd = 0.2)
  model <- list(hidden = 4, activation = "relu",
                likelihood = bnn_likelihood("gaussian", sigma = 0.3), prior = bnn_prior(),
                standardize = TRUE)
  opt <- bnn_optimizer(optimizer = "adam", weight_decay = 0, epochs = 20, loss = "posterior")
  for (m in list(bnn_method("laplace", draws = 20L, optimizer = opt),
                 bnn_method("mc_dropout", draws = 20L, optimizer = opt),
                 bnn_method("swag", draws = 20L, epochs = 10L, rank = 5L, optimizer = opt))) {
    fit <- m$fit(y ~ x, d, model, 1, m$settings)
    expect_s3_class(fit, "bnn_approx")
    expect_equal(dim(fit$draws)[1:2], c(20L, 1L))
  }
})

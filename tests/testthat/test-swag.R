# SWAG: moments of the collected SGD iterates, the draws, and SGD itself.

swag_data <- function(n = 50, seed = 8) {
  set.seed(seed)
  d <- data.frame(x1 = rnorm(n), x2 = runif(n))
  d$y <- sin(2 * d$x1) + d$x2 + rnorm(n, sd = 0.2)
  d
}

test_that("SWAG's diagonal covariance equals the iterates' sample covariance", {
  d <- swag_data()
  sw <- bnn_fit_swag(y ~ ., d, hidden = c(8, 8), rank = 5, epochs = 30, collect_every = 2,
                 lr = 5e-3, momentum = 0.5, batch_size = 10, draws = 7, seed = 4,
                 likelihood = bnn_likelihood("gaussian", sigma = 0.3),
                 optimizer = bnn_optimizer(optimizer = "adam", weight_decay = 0, epochs = 50))
  W <- sw$approx$iterates
  S <- nrow(W)
  expect_equal(S, 15L)
  expect_equal(sw$approx$diag, apply(W, 2, var) * (S - 1) / S, tolerance = 1e-12)
  expect_equal(sw$approx$mean, colMeans(W), tolerance = 1e-12)
  expect_equal(sw$approx$D, t(W[11:15, ]) - colMeans(W), tolerance = 1e-12)
  # the SGD trajectory really moves and starts at the MAP
  expect_true(all(sw$approx$diag >= 0) && max(sw$approx$diag) > 0)
  expect_identical(sw$approx$map, sw$approx$map_optim$par)
  # draws: mean + sqrt(diag/2) z1 + D z2 / sqrt(2 (K - 1))
  dd <- ncol(W)
  z <- bnnmc:::with_seed(4, list(z1 = matrix(rnorm(dd * 7), dd, 7),
                                 z2 = matrix(rnorm(5 * 7), 5, 7)))
  want <- t(colMeans(W) + sqrt(sw$approx$diag / 2) * z$z1 +
              sw$approx$D %*% z$z2 / sqrt(2 * 4))
  expect_equal(unname(sw$draws[, 1, ]), unname(want), tolerance = 1e-12)
  expect_length(predict(sw, d), nrow(d))
})

test_that("SGD with momentum follows v = mu v + g, theta -= lr v (full batch)", {
  d <- swag_data(20)
  mf <- quote(stats::model.frame(y ~ ., d))
  sp <- bnnmc:::prepare_model(mf, environment(), y ~ ., d, 3, "tanh",
                              bnn_likelihood("gaussian", sigma = 0.5), bnn_prior(),
                              TRUE)$spec
  set.seed(1)
  th0 <- rnorm(bnnmc:::spec_dim(sp), sd = 0.5)
  grad <- function(t) -drop(.Call(bnnmc:::C_model_logpost, sp, matrix(t))$grad) / 20
  lr <- 0.05
  mu <- 0.9
  v <- grad(th0)
  th1 <- th0 - lr * v
  v <- mu * v + grad(th1)
  th2 <- th1 - lr * v
  res <- bnnmc:::.bnn_optimize(sp, init = th0, optimizer = "sgd", lr = lr, momentum = mu,
                               weight_decay = 0, epochs = 2, loss = "posterior",
                               snapshot_every = 1)
  expect_equal(res$snapshots[, 1], th1, tolerance = 1e-13)
  expect_equal(res$snapshots[, 2], th2, tolerance = 1e-13)
  expect_identical(res$par, res$snapshots[, 2])
})

test_that("bad SWAG settings are errors naming the argument", {
  d <- swag_data()
  expect_error(bnn_fit_swag(y ~ ., d, rank = 0, epochs = 10), "'rank' must be a whole number from 2")
  expect_error(bnn_fit_swag(y ~ ., d, rank = 1, epochs = 10), "'rank'")
  expect_error(bnn_fit_swag(y ~ ., d, rank = 11, epochs = 10), "'rank'.*\\(10 = ")
  expect_error(bnn_fit_swag(y ~ ., d, rank = 6, epochs = 10, collect_every = 2),
               "'rank'.*\\(5 = ")
  expect_error(bnn_fit_swag(y ~ ., d, epochs = 3, collect_every = 2), "at least 2 collected")
  expect_error(bnn_fit_swag(y ~ ., d, rank = 2, epochs = 10, lr = -1), "'lr'")
  expect_error(bnn_fit_swag(y ~ ., d, rank = 2, epochs = 10, momentum = 1), "'momentum'")
})

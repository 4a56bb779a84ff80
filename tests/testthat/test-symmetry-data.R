# Data generators and the RMSProp optimiser of the symmetry paper's baselines.

test_that("the synthetic sets follow the paper's definitions", {
  s <- bnn_paper_symmetry_data("sinusoidal", seed = 1)
  expect_identical(dim(s), c(150L, 2L))
  expect_true(all(s$x >= 0 & s$x <= 8))
  expect_equal(sd(s$y - sin(s$x)), 0.3, tolerance = 0.15)
  r <- bnn_paper_symmetry_data("regression2d", seed = 2)
  p <- bnn_paper_symmetry_data("regression2d", formula = "printed", seed = 2)
  expect_identical(dim(r), c(256L, 3L))
  expect_identical(r$x1, p$x1)
  expect_equal(sd(r$y - r$x1 * (sin(r$x1) + cos(r$x2))), 0.1, tolerance = 0.15)
  expect_equal(sd(p$y - (p$x1 * sin(p$x1) + cos(p$x2))), 0.1, tolerance = 0.15)
  expect_identical(bnn_paper_symmetry_data("sinusoidal", seed = 1), s)
  expect_error(bnn_paper_symmetry_data("izmailov"), "'name'")
})

test_that("RMSProp makes PyTorch's updates", {
  set.seed(4)
  X <- matrix(rnorm(20), 10, 2)
  y <- rnorm(10)
  spec <- bnnmc:::make_spec(c(2L, 3L, 1L), "tanh", bnn_likelihood("gaussian"), bnn_prior(),
                            X = X, y = y)
  th0 <- rnorm(bnn_n_parameters(c(2, 3, 1)) + 1, sd = 0.5)
  out <- bnnmc:::.bnn_optimize(spec, init = th0, optimizer = "rmsprop", lr = 0.01,
                               weight_decay = 0, epochs = 3, loss = "posterior",
                               beta2 = 0.99)
  th <- th0
  v <- 0
  for (t in 1:3) {
    g <- -.Call(bnnmc:::C_model_logpost, spec, as.matrix(th))$grad[, 1] / 10
    v <- 0.99 * v + 0.01 * g^2
    th <- th - 0.01 * g / (sqrt(v) + 1e-8)
  }
  expect_equal(out$par, th, tolerance = 1e-12)
  expect_identical(bnn_optimizer("rmsprop")$beta2, 0.99)
})

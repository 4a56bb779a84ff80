# MC dropout: the dropout pass in C, the optimiser's dropout and the
# representation of MC-dropout draws as parameter vectors.

drop_data <- function(n = 40, seed = 2) {
  set.seed(seed)
  d <- data.frame(x1 = rnorm(n), x2 = runif(n))
  d$y <- sin(2 * d$x1) + d$x2 + rnorm(n, sd = 0.2)
  d
}

drop_spec <- function(d, hidden = c(5, 4), activation = "tanh", likelihood = "hetero_gaussian") {
  mf <- quote(stats::model.frame(y ~ ., d))
  bnnmc:::prepare_model(mf, environment(), y ~ ., d, hidden, activation, likelihood,
                        bnn_prior(), TRUE)$spec
}

test_that("with all rates 0 the dropout pass is bit-identical to the model's", {
  sp <- drop_spec(drop_data())
  set.seed(4)
  th <- matrix(rnorm(2 * bnnmc:::spec_dim(sp)), ncol = 2)
  a <- .Call(bnnmc:::C_dropout_loglik, sp, th, 0, c(0, 0), 1)
  b <- .Call(bnnmc:::C_model_logpost, sp, th)
  expect_identical(a$ll, b$loglik)
  expect_identical(a$grad - th / 1, b$grad)   # plus the N(0, 1) prior's gradient
})

test_that("the dropout gradient equals finite differences with the masks fixed", {
  for (act in c("tanh", "relu")) {
    sp <- drop_spec(drop_data(), hidden = c(6, 5), activation = act)
    set.seed(5)
    th <- rnorm(bnnmc:::spec_dim(sp), sd = 0.7)
    f <- function(t) .Call(bnnmc:::C_dropout_loglik, sp, matrix(t), 0.2, c(0.3, 0.5), 9)$ll
    g <- .Call(bnnmc:::C_dropout_loglik, sp, matrix(th), 0.2, c(0.3, 0.5), 9)$grad
    h <- 1e-6
    fd <- vapply(seq_along(th), function(j) {
      e <- replace(numeric(length(th)), j, h)
      (f(th + e) - f(th - e)) / (2 * h)
    }, numeric(1))
    expect_equal(drop(g), fd, tolerance = 1e-6)
    # the masks are really on: the value differs from the full network
    expect_false(isTRUE(all.equal(f(th), .Call(bnnmc:::C_model_logpost, sp, matrix(th))$loglik)))
  }
})

test_that("MC dropout at rate 0 equals the deterministic network", {
  d <- drop_data()
  opt <- bnn_optimizer(optimizer = "adam", weight_decay = 0, epochs = 30, batch_size = 8,
                       loss = "posterior")
  md <- bnn_fit_mc_dropout(y ~ ., d, hidden = c(6, 6), dropout = 0, draws = 5, seed = 3,
                       likelihood = bnn_likelihood("gaussian", sigma = 0.3), optimizer = opt)
  sp <- drop_spec(d, hidden = c(6, 6), activation = "relu",
                  likelihood = bnn_likelihood("gaussian", sigma = 0.3))
  plain <- do.call(bnnmc:::.bnn_optimize, c(list(spec = sp, seed = 3, member = 1L),
                                            unclass(opt)))
  expect_identical(md$approx$weights, plain$par)
  for (s in 1:5) expect_identical(unname(md$draws[s, 1, ]), plain$par)
  out <- .Call(bnnmc:::C_model_forward, sp, matrix(plain$par), md$X, 1L)[, 1, 1]
  expect_equal(unname(predict(md, d)), out * md$y_scale + md$y_center)
})

test_that("dropout training is reproducible and differs from training without it", {
  d <- drop_data()
  sp <- drop_spec(d, hidden = c(6, 6))
  run <- function(...) do.call(bnnmc:::.bnn_optimize, c(list(spec = sp, seed = 3, member = 1L),
    unclass(bnn_optimizer(epochs = 20, batch_size = 8, ...))))
  a <- run(dropout = 0.3, input_dropout = 0.1)
  expect_identical(a$par, run(dropout = 0.3, input_dropout = 0.1)$par)
  expect_false(identical(a$par, run()$par))
  expect_identical(run(dropout = c(0, 0))$par, run()$par)
  expect_false(identical(run(dropout = c(0, 0.2))$par, run()$par))
})

test_that("MC-dropout draws mask whole rows of the next weight matrix", {
  sizes <- c(3L, 4L, 5L, 1L)
  theta <- seq_len(bnn_n_parameters(sizes)) / 10
  S <- 4000
  dr <- bnnmc:::with_seed(1, bnnmc:::dropout_draws(theta, sizes, c(0.3, 0.5), 0.2, S))
  nm <- bnn_parameter_names(sizes)
  ratio <- dr / rep(theta, each = S)
  check_layer <- function(l, fin, fout, p) {
    idx <- grep(sprintf("^W%d\\[", l), nm)
    r <- ratio[, idx]
    expect_true(all(r == 0 | abs(r - 1 / (1 - p)) < 1e-12))
    # one mask per input unit: all outgoing weights of a unit agree
    unit <- rep(seq_len(fin), fout)
    for (k in seq_len(fin))
      expect_true(all(abs(r[, unit == k] - r[, which(unit == k)[1]]) < 1e-12))
    dropped <- mean(r[, seq_len(fin)] == 0)
    expect_lt(abs(dropped - p), 4 * sqrt(p * (1 - p) / (S * fin)))
  }
  check_layer(1, 3, 4, 0.2)
  check_layer(2, 4, 5, 0.3)
  check_layer(3, 5, 1, 0.5)
  expect_true(all(ratio[, grep("^b", nm)] == 1))
})

test_that("bad dropout rates are errors naming the argument", {
  d <- drop_data()
  expect_error(bnn_optimizer(dropout = 1), "'dropout'.*\\[0, 1\\)")
  expect_error(bnn_optimizer(dropout = -0.1), "'dropout'")
  expect_error(bnn_optimizer(input_dropout = 1.2), "'input_dropout'")
  expect_error(bnn_fit_mc_dropout(y ~ ., d, dropout = 1), "'dropout'")
  expect_error(bnn_fit_mc_dropout(y ~ ., d, input_dropout = NA), "'input_dropout'")
  expect_error(bnn_fit_mc_dropout(y ~ ., d, hidden = c(3, 3), dropout = c(0.1, 0.2, 0.3)),
               "'dropout' must have 1 or 2 rates")
})

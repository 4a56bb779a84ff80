# Optimiser (src/model/optim.c): Adam/AdamW against a hand computation in R,
# Glorot initialisation, minibatches, early stopping, non-finite losses.

tiny_spec <- function(n = 6, seed = 2, act = 0L, prior_sd = 0.7) {
  set.seed(seed)
  sizes <- c(2L, 3L, 2L)
  n_net <- 2L * 3L + 3L + 3L * 2L + 2L
  list(type = "bnn", sizes = sizes, act = act, lik = 0L, prior = 0L,
       prior_scale = rep(prior_sd, n_net), sigma_fixed = 1, sigma_prior = 0L,
       sigma_prior_scale = 1, X = matrix(rnorm(n * 2), n), y = rnorm(n))
}

# Adam written out from its definition: bias-corrected moments, eps added to
# sqrt(v_hat); coupled L2 decay (adam) or decoupled decay (adamw).
adam_by_hand <- function(theta, grad_loss, steps, lr, wd, decoupled,
                         b1 = 0.9, b2 = 0.999, eps = 1e-8) {
  m <- v <- numeric(length(theta))
  for (t in seq_len(steps)) {
    g <- grad_loss(theta)
    if (!decoupled) g <- g + wd * theta
    m <- b1 * m + (1 - b1) * g
    v <- b2 * v + (1 - b2) * g^2
    step <- (m / (1 - b1^t)) / (sqrt(v / (1 - b2^t)) + eps)
    if (decoupled) step <- step + wd * theta
    theta <- theta - lr * step
  }
  theta
}

test_that("Adam and AdamW match three steps computed by hand", {
  spec <- tiny_spec()
  n <- length(spec$y)
  set.seed(11)
  theta0 <- rnorm(length(spec$prior_scale), sd = 0.5)
  # gradient of log posterior from the model; the normal prior's gradient is
  # -theta / s^2, so the log-likelihood gradient is grad + theta / s^2
  grad_lp <- function(th) .Call(C_model_logpost, spec, th)$grad[, 1]
  g_nll <- function(th) -(grad_lp(th) + th / 0.7^2) / n
  g_post <- function(th) -grad_lp(th) / n

  r <- .bnn_optimize(spec, init = theta0, epochs = 3, optimizer = "adamw",
                     lr = 0.05, weight_decay = 0.1, loss = "nll")
  expect_equal(r$par, adam_by_hand(theta0, g_nll, 3, 0.05, 0.1, TRUE),
               tolerance = 1e-12)
  expect_identical(r$n_grad, 3)
  expect_identical(r$status, "ok")

  r <- .bnn_optimize(spec, init = theta0, epochs = 3, optimizer = "adam",
                     lr = 0.05, weight_decay = 0.1, loss = "posterior")
  expect_equal(r$par, adam_by_hand(theta0, g_post, 3, 0.05, 0.1, FALSE),
               tolerance = 1e-12)
  # the first reported loss is the loss at the start
  expect_equal(r$train_loss[1], -.Call(C_model_logpost, spec, theta0)$lp / n,
               tolerance = 1e-12)

  r <- .bnn_optimize(spec, init = theta0, epochs = 3, optimizer = "adam",
                     lr = 0.02, weight_decay = 0, loss = "nll",
                     beta1 = 0.5, beta2 = 0.9, eps = 1e-3)
  expect_equal(r$par, adam_by_hand(theta0, g_nll, 3, 0.02, 0, FALSE,
                                   b1 = 0.5, b2 = 0.9, eps = 1e-3),
               tolerance = 1e-12)
})

test_that("Glorot-uniform initialisation depends on (seed, member) only", {
  spec <- tiny_spec()
  a <- .bnn_optimize(spec, epochs = 0, seed = 3, member = 2)
  expect_identical(a$init, a$par)
  expect_identical(a$init, .bnn_optimize(spec, epochs = 0, seed = 3, member = 2)$init)
  expect_false(identical(a$init, .bnn_optimize(spec, epochs = 0, seed = 3, member = 3)$init))
  W1 <- a$init[1:6]; b1 <- a$init[7:9]; W2 <- a$init[10:15]; b2 <- a$init[16:17]
  expect_true(all(abs(W1) <= sqrt(6 / 5)) && all(abs(W2) <= sqrt(6 / 5)))
  expect_true(all(W1 != 0) && all(W2 != 0))
  expect_identical(c(b1, b2), rep(0, 5))
})

test_that("minibatches reshuffle per epoch and estimate the full loss", {
  spec <- tiny_spec(n = 40)
  set.seed(4)
  theta0 <- rnorm(length(spec$prior_scale), sd = 0.5)
  full <- -.Call(C_model_logpost, spec, theta0)$loglik / 40
  # with a tiny learning rate the parameters barely move, so the epoch's
  # mean batch loss (n / |B| scaling, batches of 16, 16, 8) is close to the
  # full-batch loss at theta0
  r <- .bnn_optimize(spec, init = theta0, epochs = 1, batch_size = 16,
                     lr = 1e-9, weight_decay = 0)
  expect_identical(r$n_grad, 3)
  expect_equal(r$train_loss, full, tolerance = 0.05)
  # batch_size = n is full batch
  expect_identical(.bnn_optimize(spec, init = theta0, epochs = 5, batch_size = 40)$par,
                   .bnn_optimize(spec, init = theta0, epochs = 5)$par)
  a <- .bnn_optimize(spec, epochs = 30, batch_size = 8, seed = 1, member = 1)
  expect_identical(a$par, .bnn_optimize(spec, epochs = 30, batch_size = 8,
                                        seed = 1, member = 1)$par)
  b <- .bnn_optimize(spec, init = a$init, epochs = 30, batch_size = 8, seed = 1,
                     member = 2)
  expect_false(identical(a$par, b$par))   # same start, other row order
  expect_lt(mean(tail(a$train_loss, 5)), mean(head(a$train_loss, 5)))
})

# Training data follow y = 2x, validation data y = x: starting from slope 0
# and sd 2, the validation loss falls while the slope passes 1 and the sd
# shrinks, then rises as the slope moves on to 2.
slope_problem <- function() {
  set.seed(5)
  x <- runif(60, -1, 1)
  xv <- runif(30, -1, 1)
  list(x = x, xv = xv,
       spec = list(type = "bnn", sizes = c(1L, 2L), act = 0L, lik = 0L,
                   prior = 0L, prior_scale = rep(1, 4), sigma_fixed = 1,
                   sigma_prior = 0L, sigma_prior_scale = 1, X = matrix(x),
                   y = 2 * x + rnorm(60, sd = 0.1)),
       valid = list(X = matrix(xv), y = xv + rnorm(30, sd = 0.1)),
       init = c(0, 0, 0, log(2)))   # W = (slope of mu, slope of log sd), b
}

test_that("early stopping returns the best validation epoch", {
  sp <- slope_problem()
  spec <- sp$spec
  valid <- sp$valid
  init <- sp$init
  r <- .bnn_optimize(spec, valid = valid, init = init, epochs = 2000,
                     lr = 0.01, weight_decay = 0, patience = 25)
  expect_identical(r$status, "early_stop")
  expect_identical(r$best_epoch, which.min(r$valid_loss))
  expect_gt(r$best_epoch, 10L)
  expect_identical(r$epochs, r$best_epoch + 25L)
  expect_length(r$valid_loss, r$epochs)
  # the returned parameters are those after the best epoch (full batch is
  # deterministic, so rerunning for best_epoch epochs reproduces them)
  again <- .bnn_optimize(spec, init = init, epochs = r$best_epoch, lr = 0.01,
                         weight_decay = 0)
  expect_identical(r$par, again$par)
  last <- .bnn_optimize(spec, valid = valid, init = init, epochs = 2000,
                        lr = 0.01, weight_decay = 0, patience = 25,
                        restore_best = FALSE)
  expect_identical(last$par, .bnn_optimize(spec, init = init, epochs = last$epochs,
                                           lr = 0.01, weight_decay = 0)$par)
})

test_that("the window rule stops where MILE's code would", {
  # MILE's reference code: after epoch t >= p, stop when each of the last p
  # validation losses is >= the loss p + 1 epochs back (the first loss at
  # t == p, where its clamped index lands)
  window_stop <- function(L, p) {
    for (t in seq_along(L)) {
      if (t < p) next
      ref <- L[if (t > p) t - p else 1L]
      if (all(L[(t - p + 1L):t] >= ref)) return(t)
    }
    NA_integer_
  }
  sp <- slope_problem()
  spec <- sp$spec
  valid <- sp$valid
  init <- sp$init
  x <- sp$x
  xv <- sp$xv
  full <- .bnn_optimize(spec, valid = valid, init = init, epochs = 1500,
                        lr = 0.01, weight_decay = 0)
  for (p in c(1L, 5L, 25L)) {
    w <- .bnn_optimize(spec, valid = valid, init = init, epochs = 1500, lr = 0.01,
                       weight_decay = 0, patience = p, stopping = "window",
                       restore_best = FALSE)
    b <- .bnn_optimize(spec, valid = valid, init = init, epochs = 1500, lr = 0.01,
                       weight_decay = 0, patience = p)
    expect_identical(w$status, "early_stop")
    expect_identical(w$epochs, window_stop(full$valid_loss, p))
    expect_identical(w$valid_loss, full$valid_loss[seq_len(w$epochs)])
    # never earlier than the "best" rule, except at epoch p, where the
    # clamped reference is one of the window (patience 1 stops at once)
    if (w$epochs > p) expect_gte(w$epochs, b$epochs)
    if (p == 1L) expect_identical(w$epochs, 1L)
    # the last parameters, as MILE's code keeps them
    expect_identical(w$par, .bnn_optimize(spec, init = init, epochs = w$epochs,
                                          lr = 0.01, weight_decay = 0)$par)
  }
  expect_error(bnn_optimizer(stopping = "last"), "'stopping' must be one of")
  expect_match(paste(capture.output(print(bnn_fit_ensemble(
    y ~ x, data = data.frame(x = x, y = 2 * x), members = 1, hidden = 2,
    optimizer = bnn_optimizer(epochs = 3, patience = 2, stopping = "window"),
    valid_data = data.frame(x = xv, y = xv), progress = FALSE,
                                                       likelihood = "hetero_gaussian"))), collapse = "\n"),
    "window rule")
})

test_that("a non-finite loss stops training with finite parameters", {
  spec <- tiny_spec(act = 1L)          # ReLU: huge inputs overflow
  spec$X <- spec$X * 1e300
  set.seed(6)
  theta0 <- abs(rnorm(length(spec$prior_scale)))
  r <- .bnn_optimize(spec, init = theta0, epochs = 5)
  expect_identical(r$status, "nonfinite")
  expect_identical(r$epochs, 0L)
  expect_identical(r$par, theta0)
})

test_that("bnn_optimizer() settings can be passed on to .bnn_optimize()", {
  spec <- tiny_spec(n = 20)
  s <- bnn_optimizer(lr = 0.01, epochs = 4, batch_size = 5)
  a <- do.call(.bnn_optimize, c(list(spec = spec, seed = 2, member = 1),
                                unclass(s)))
  b <- .bnn_optimize(spec, seed = 2, member = 1, lr = 0.01, epochs = 4,
                     batch_size = 5)
  expect_identical(a, b)
  expect_identical(a$n_grad, 16)
})

test_that("optimiser settings are validated with the argument's name", {
  expect_s3_class(bnn_optimizer(), "bnn_optimizer")
  expect_error(bnn_optimizer(lr = 0), "'lr'")
  expect_error(bnn_optimizer(weight_decay = -1), "'weight_decay'")
  expect_error(bnn_optimizer(epochs = 1.5), "'epochs'")
  expect_error(bnn_optimizer(batch_size = 0), "'batch_size'")
  expect_error(bnn_optimizer(beta2 = 1), "'beta2'")
  expect_error(bnn_optimizer(optimizer = "lbfgs"), "should be one of")
  spec <- tiny_spec()
  expect_error(.bnn_optimize(spec, patience = 5, epochs = 2), "'patience' needs")
  expect_error(.bnn_optimize(spec, valid = list(X = matrix(1, 2, 3), y = 1:2)),
               "'valid\\$X' must have 2 columns")
  expect_error(.bnn_optimize(spec, init = 1:3, epochs = 1), "'init' must be")
  expect_error(.bnn_optimize(spec, seed = -1), "'seed'")
})

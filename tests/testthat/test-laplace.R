# Laplace approximation: exact on the conjugate linear model.

lin_data <- function(n = 30, seed = 11) {
  set.seed(seed)
  d <- data.frame(x1 = rnorm(n), x2 = rnorm(n), x3 = runif(n))
  d$y <- 0.5 + d$x1 - 2 * d$x2 + 0.3 * d$x3 + rnorm(n, sd = 0.4)
  d
}

# Exact posterior of the linear model y = X w + b + e, e ~ N(0, sigma^2),
# (w, b) ~ N(0, s^2 I), in the package's layout (W1 then b1), on the
# standardised scale the fit uses.
lin_exact <- function(fit, sigma, tau) {
  X1 <- cbind(fit$X, 1)
  y <- fit$y_model
  P <- crossprod(X1) / sigma^2 + diag(tau, ncol(X1))
  S <- solve(P)
  dimnames(S) <- dimnames(P) <- NULL
  list(mean = drop(S %*% crossprod(X1, y)) / sigma^2, cov = S, prec = P,
       evidence = function(t) {
         C <- sigma^2 * diag(length(y)) + tcrossprod(X1) / t
         R <- chol(C)
         -0.5 * sum(backsolve(R, y, transpose = TRUE)^2) - sum(log(diag(R))) -
           length(y) / 2 * log(2 * pi)
       })
}

test_that("full Laplace equals the exact posterior of the conjugate linear model", {
  d <- lin_data()
  sigma <- 0.5
  for (curv in c("full", "ggn")) {
  la <- bnn_fit_laplace(y ~ ., d, hidden = integer(0), hessian = curv,
                    likelihood = bnn_likelihood("gaussian", sigma = sigma),
                    prior = bnn_prior(scale = 0.7), draws = 50, seed = 3,
                    optimizer = bnn_optimizer(optimizer = "adam", weight_decay = 0,
                                              epochs = 50, loss = "posterior"))
  ex <- lin_exact(la, sigma, 1 / 0.7^2)
  expect_equal(unname(la$approx$map), ex$mean, tolerance = 1e-8)
  expect_equal(unname(solve(la$approx$hessian)), ex$cov, tolerance = 1e-8)
  expect_equal(unname(la$approx$hessian), ex$prec, tolerance = 1e-8)
  # the Laplace evidence of a Gaussian model is exact
  expect_equal(la$approx$log_marglik, ex$evidence(1 / 0.7^2), tolerance = 1e-8)
  # draws: MAP + R^{-1} z with the seed's normals
  z <- bnnmc:::with_seed(3, matrix(rnorm(4 * 50), 4, 50))
  R <- chol(ex$prec)
  expect_equal(unname(la$draws[, 1, ]), t(ex$mean + backsolve(R, z)), tolerance = 1e-8)
  expect_s3_class(la, "bnnfit")
  expect_equal(dim(la$draws), c(50L, 1L, 4L))
  }
})

# Exact GGN of a network in R: per row J_i = (g_l kron [a, 1]) over layers,
# from the same backpropagation as kfac_direct, in the flat layout.
ggn_direct <- function(fit, theta, act, dact, lam) {
  sizes <- fit$spec$sizes
  L <- length(sizes) - 1L
  p <- bnn_unflatten(theta, sizes)
  a <- list(fit$X)
  z <- list()
  for (l in seq_len(L)) {
    z[[l]] <- sweep(a[[l]] %*% p[[l]]$W, 2, p[[l]]$b, "+")
    a[[l + 1]] <- if (l < L) act(z[[l]]) else z[[l]]
  }
  g <- vector("list", L)
  g[[L]] <- matrix(1, nrow(fit$X), 1)
  for (l in rev(seq_len(L - 1))) g[[l]] <- (g[[l + 1]] %*% t(p[[l + 1]]$W)) * dact(z[[l]])
  ix <- bnnmc:::kfac_index(sizes)
  J <- matrix(0, nrow(fit$X), length(theta))
  for (l in seq_len(L)) {
    at <- cbind(a[[l]], 1)
    for (i in seq_len(nrow(J))) J[i, ix[[l]]] <- kronecker(g[[l]][i, ], at[i, ])
  }
  crossprod(J * sqrt(lam(z[[L]][, 1]))) + diag(1, length(theta))
}

test_that("the full GGN equals J' Lambda J + prior precision (Gaussian, Bernoulli)", {
  d <- lin_data(25, 3)
  la <- bnn_fit_laplace(y ~ ., d, hidden = c(3, 2), activation = "tanh", hessian = "ggn",
                    likelihood = bnn_likelihood("gaussian", sigma = 0.6), draws = 2, seed = 1,
                    newton = 0, optimizer = bnn_optimizer(epochs = 30, loss = "posterior"))
  want <- ggn_direct(la, la$approx$map, tanh, function(z) 1 - tanh(z)^2,
                     function(z) rep(1 / 0.36, length(z)))
  expect_equal(unname(la$approx$hessian), want, tolerance = 1e-7)
  d$cl <- factor(d$y > 0.5)
  lb <- bnn_fit_laplace(cl ~ x1 + x2 + x3, d, hidden = 3, activation = "tanh", hessian = "ggn",
                    draws = 2, seed = 1, newton = 0,
                    optimizer = bnn_optimizer(epochs = 30, loss = "posterior"))
  want <- ggn_direct(lb, lb$approx$map, tanh, function(z) 1 - tanh(z)^2,
                     function(z) plogis(z) * (1 - plogis(z)))
  expect_equal(unname(lb$approx$hessian), want, tolerance = 1e-7)
})

test_that("marginal-likelihood tuning finds the exact evidence maximiser", {
  d <- lin_data(40, 5)
  sigma <- 0.3
  la <- bnn_fit_laplace(y ~ ., d, hidden = integer(0),
                    likelihood = bnn_likelihood("gaussian", sigma = sigma),
                    prior_precision = "marglik", draws = 10, seed = 1,
                    optimizer = bnn_optimizer(epochs = 20, loss = "posterior"))
  ex0 <- lin_exact(la, sigma, 1)
  best <- optimize(function(lt) ex0$evidence(exp(lt)), c(-10, 10), maximum = TRUE,
                   tol = 1e-12)$maximum
  tau <- la$approx$prior_precision
  expect_equal(log(tau), best, tolerance = 1e-5)
  ex <- lin_exact(la, sigma, tau)
  expect_equal(unname(la$approx$map), ex$mean, tolerance = 1e-8)
  expect_equal(la$approx$log_marglik, ex$evidence(tau), tolerance = 1e-8)
  expect_equal(la$prior$scale, 1 / sqrt(tau))
})

# KFAC factors computed directly in R: per row, the layer's input with a 1
# appended, and g = sqrt(lambda) d f / d z by backpropagation.
kfac_direct <- function(fit, theta, act, dact, lam) {
  sizes <- fit$spec$sizes
  L <- length(sizes) - 1L
  p <- bnn_unflatten(theta, sizes)
  a <- list(fit$X)
  z <- list()
  for (l in seq_len(L)) {
    z[[l]] <- sweep(a[[l]] %*% p[[l]]$W, 2, p[[l]]$b, "+")
    a[[l + 1]] <- if (l < L) act(z[[l]]) else z[[l]]
  }
  g <- vector("list", L)
  g[[L]] <- matrix(sqrt(lam(z[[L]])), ncol = 1)
  for (l in rev(seq_len(L - 1))) g[[l]] <- (g[[l + 1]] %*% t(p[[l + 1]]$W)) * dact(z[[l]])
  lapply(seq_len(L), function(l) list(A = unname(crossprod(cbind(a[[l]], 1))), G = unname(crossprod(g[[l]]))))
}

test_that("KFAC factors equal a direct computation (Gaussian and Bernoulli)", {
  d <- lin_data(35, 2)
  la <- bnn_fit_laplace(y ~ ., d, hidden = c(4, 3), activation = "tanh", hessian = "kfac",
                    likelihood = bnn_likelihood("gaussian", sigma = 0.6), draws = 5, seed = 1,
                    optimizer = bnn_optimizer(epochs = 30, loss = "posterior"))
  dir <- kfac_direct(la, la$approx$map, tanh, function(z) 1 - tanh(z)^2,
                     function(z) rep(1 / 0.6^2, length(z)))
  for (l in 1:3) {
    expect_equal(la$approx$kfac[[l]]$A, dir[[l]]$A, tolerance = 1e-12)
    expect_equal(la$approx$kfac[[l]]$G, dir[[l]]$G, tolerance = 1e-12)
  }
  d$cl <- factor(d$y > 0.5)
  lb <- bnn_fit_laplace(cl ~ x1 + x2 + x3, d, hidden = 5, activation = "relu", hessian = "kfac",
                    draws = 5, seed = 1, optimizer = bnn_optimizer(epochs = 30, loss = "posterior"))
  dir <- kfac_direct(lb, lb$approx$map, function(z) pmax(z, 0), function(z) (z > 0) * 1,
                     function(z) plogis(z) * (1 - plogis(z)))
  for (l in 1:2) {
    expect_equal(lb$approx$kfac[[l]]$A, dir[[l]]$A, tolerance = 1e-12)
    expect_equal(lb$approx$kfac[[l]]$G, dir[[l]]$G, tolerance = 1e-12)
  }
  expect_equal(dim(lb$draws), c(5L, 1L, bnn_n_parameters(c(3, 5, 1))))
})

test_that("KFAC is exact on the linear model, and its draws have its covariance", {
  d <- lin_data()
  sigma <- 0.5
  lk <- bnn_fit_laplace(y ~ ., d, hidden = integer(0), hessian = "kfac",
                    likelihood = bnn_likelihood("gaussian", sigma = sigma),
                    prior = bnn_prior(scale = 0.7), draws = 6, seed = 2, map = rep(0.1, 4))
  ex <- lin_exact(lk, sigma, 1 / 0.7^2)
  kf <- lk$approx$kfac
  expect_equal(bnnmc:::kfac_precision(kf, 4), ex$prec, tolerance = 1e-10)
  # draws = map + (U_G kron U_A) diag(1 / sqrt(lambda + tau)) z
  k <- kf[[1]]
  M <- kronecker(k$UG, k$UA) %*% diag(1 / sqrt(as.vector(bnnmc:::kfac_eigen(k)) + k$tau))
  expect_equal(M %*% t(M), ex$cov, tolerance = 1e-10)
  z <- bnnmc:::with_seed(2, matrix(rnorm(4 * 6), 4))
  expect_equal(unname(lk$draws[, 1, ]), t(0.1 + M %*% z), tolerance = 1e-10)
  # post-hoc tuning maximises n/2 log tau - tau/2 |map|^2 - 1/2 log det(H + tau I)
  lt <- bnn_fit_laplace(y ~ ., d, hidden = integer(0), hessian = "kfac", prior_precision = "marglik",
                    likelihood = bnn_likelihood("gaussian", sigma = sigma), draws = 2,
                    seed = 2, map = ex$mean)
  Hl <- ex$prec - diag(1 / 0.49, 4)
  obj <- function(t) 2 * log(t) - t / 2 * sum(ex$mean^2) -
    0.5 * determinant(Hl + diag(t, 4))$modulus
  best <- optimize(function(x) obj(exp(x)), c(-10, 10), maximum = TRUE, tol = 1e-12)$maximum
  expect_equal(log(lt$approx$prior_precision), best, tolerance = 1e-5)
  ext <- lin_exact(lt, sigma, lt$approx$prior_precision)
  expect_equal(bnnmc:::kfac_precision(lt$approx$kfac, 4), ext$prec, tolerance = 1e-10)
})

test_that("bad Laplace settings are errors naming the argument", {
  d <- lin_data()
  expect_error(bnn_fit_laplace(y ~ ., d, prior_precision = 0), "'prior_precision'")
  expect_error(bnn_fit_laplace(y ~ ., d, prior_precision = -2), "'prior_precision'")
  expect_error(bnn_fit_laplace(y ~ ., d, prior_precision = "ml"), "'prior_precision'")
  expect_error(bnn_fit_laplace(y ~ ., d, prior = bnn_prior("laplace")), "'prior'")
  expect_error(bnn_fit_laplace(y ~ ., d, hessian = "kfac"), "'likelihood'")
  expect_error(bnn_fit_laplace(y ~ ., d, hessian = "diag"), "'hessian'")
  expect_error(bnn_fit_laplace(y ~ ., d, map = 1:3), "'map'")
  expect_error(bnn_fit_laplace(y ~ ., d, draws = 0), "'draws'")
})

test_that("an indefinite log-likelihood Hessian is projected, with a warning", {
  d <- lin_data(30, 7)
  expect_warning(
    la <- bnn_fit_laplace(y ~ ., d, hidden = 4, activation = "tanh", likelihood = "gaussian",
                      newton = 0, draws = 3, seed = 1, prior_precision = "marglik",
                      optimizer = bnn_optimizer(epochs = 3, loss = "posterior")),
    class = "bnnmc_laplace_indefinite")
  H <- la$approx$hessian
  n_net <- bnn_n_parameters(c(3, 4, 1))
  Hl <- H
  i <- seq_len(n_net)
  Hl[cbind(i, i)] <- Hl[cbind(i, i)] - la$approx$prior_precision
  expect_gt(min(eigen(Hl, symmetric = TRUE)$values), -1e-8)
  expect_true(is.finite(la$approx$log_marglik))
  expect_equal(rownames(H)[n_net + 1], "log_sigma")
})

test_that("bnn_fit_laplace() with a huge or tiny fd_step is a clear error", {
  # before: "infinite or missing values in 'x'" from deep inside
  for (h in c(1e300, 0.5, 1e-300))
    expect_error(bnn_fit_laplace(mpg ~ wt, data = mtcars, hidden = 2, fd_step = h),
                 "'fd_step' \\(the relative step of the central differences\\) must be between 1e-10 and 0.1")
})

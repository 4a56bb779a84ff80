# Energy-distance MMD and IMQ KSD against direct computations.

mmd2_direct <- function(x, y) {
  k <- function(a, b) {
    na <- sqrt(rowSums(a^2)); nb <- sqrt(rowSums(b^2))
    D <- as.matrix(dist(rbind(a, b)))[seq_len(nrow(a)), nrow(a) + seq_len(nrow(b)), drop = FALSE]
    outer(na, nb, "+") - D
  }
  mean(k(x, x)) + mean(k(y, y)) - 2 * mean(k(x, y))
}

test_that("bnn_mmd is the kernel V-statistic of MMD^2 (and the energy distance)", {
  set.seed(3)
  x <- matrix(rnorm(40 * 7), 40, 7)
  y <- matrix(rnorm(25 * 7, mean = 0.3, sd = 1.5), 25, 7)
  direct <- mmd2_direct(x, y)
  expect_equal(bnn_mmd(x, y), direct, tolerance = 1e-12)
  expect_equal(bnn_mmd(x, y, squared = FALSE), sqrt(direct), tolerance = 1e-12)
  e <- function(a, b) mean(as.matrix(dist(rbind(a, b)))[seq_len(nrow(a)), nrow(a) + seq_len(nrow(b))])
  energy <- 2 * e(x, y) - mean(as.matrix(dist(x))) - mean(as.matrix(dist(y)))
  expect_equal(bnn_mmd(x, y), energy, tolerance = 1e-12)
  expect_equal(bnn_mmd(x, x[sample(40), ]), 0, tolerance = 1e-12)
  expect_equal(bnn_mmd(x, y), bnn_mmd(y, x), tolerance = 1e-14)
  # one dimension, odd sizes (the C loops' remainder path)
  expect_equal(bnn_mmd(x[, 1, drop = FALSE], y[1:3, 1, drop = FALSE]),
               mmd2_direct(x[, 1, drop = FALSE], y[1:3, 1, drop = FALSE]), tolerance = 1e-12)
})

test_that("bnn_mmd on fits uses weight and function space draws", {
  d <- data.frame(x = seq(-1, 1, length.out = 15))
  d$y <- sin(2 * d$x) + 0.1 * cos(7 * d$x)
  lik <- bnn_likelihood("gaussian", sigma = 0.2)
  f1 <- bnn_fit(y ~ x, d, hidden = 3, likelihood = lik, chains = 2, warmup = 60, iter = 20,
                seed = 1, progress = FALSE, sampler = "nuts")
  f2 <- bnn_fit(y ~ x, d, hidden = 3, likelihood = lik, chains = 1, warmup = 60, iter = 30,
                seed = 2, progress = FALSE, sampler = "nuts")
  w1 <- t(bnnmc:::draws_matrix(f1)); w2 <- t(bnnmc:::draws_matrix(f2))
  expect_equal(bnn_mmd(f1, f2), mmd2_direct(w1, w2), tolerance = 1e-12)
  nd <- data.frame(x = c(-2, 0, 0.5, 3))
  o1 <- predict(f1, nd, type = "mean_draws"); o2 <- predict(f2, nd, type = "mean_draws")
  expect_equal(bnn_mmd(f1, f2, space = "function", newdata = nd), mmd2_direct(o1, o2),
               tolerance = 1e-12)
  # different models are refused
  f3 <- suppressWarnings(bnn_fit(y ~ x, d, hidden = 4, likelihood = lik, chains = 1,
                                 warmup = 20, iter = 10, seed = 1, progress = FALSE, sampler = "nuts"))
  expect_error(bnn_mmd(f1, f3), "same model.*architecture")
  d2 <- d; d2$y <- d2$y + 1
  f4 <- suppressWarnings(bnn_fit(y ~ x, d2, hidden = 3, likelihood = lik, chains = 1,
                                 warmup = 20, iter = 10, seed = 1, progress = FALSE, sampler = "nuts"))
  expect_error(bnn_mmd(f1, f4, space = "function"), "training response")
  expect_error(bnn_mmd(w1, w2[, -1]), "same dimension")
  expect_error(bnn_mmd(w1, "a"), "'y' must be")
  expect_error(bnn_mmd(w1, w2, space = "fun"), "'space' must be one of")
})

# The Stein kernel by central finite differences of the IMQ kernel.
stein_fd <- function(w, v, sw, sv, l, h = 1e-4) {
  k <- function(a, b) (1 + sum((a - b)^2) / l^2)^(-1/2)
  d <- length(w)
  e <- diag(d)
  gw <- vapply(1:d, function(i) (k(w + h * e[, i], v) - k(w - h * e[, i], v)) / (2 * h), 0)
  gv <- vapply(1:d, function(i) (k(w, v + h * e[, i]) - k(w, v - h * e[, i])) / (2 * h), 0)
  tr <- sum(vapply(1:d, function(i)
    (k(w + h * e[, i], v + h * e[, i]) - k(w + h * e[, i], v - h * e[, i]) -
     k(w - h * e[, i], v + h * e[, i]) + k(w - h * e[, i], v - h * e[, i])) / (4 * h^2), 0))
  tr + sum(sw * gv) + sum(sv * gw) + sum(sw * sv) * k(w, v)
}

test_that("bnn_ksd matches the Stein kernel evaluated by finite differences", {
  set.seed(5)
  n <- 6; d <- 4; l <- 1.3
  W <- matrix(rnorm(n * d), n, d)
  S <- matrix(rnorm(n * d), n, d)      # any scores: the kernel identity is algebraic
  K <- outer(1:n, 1:n, Vectorize(function(a, b) stein_fd(W[a, ], W[b, ], S[a, ], S[b, ], l)))
  expect_equal(as.numeric(bnn_ksd(W, score = S, lengthscale = l)), sqrt(sum(K)) / n,
               tolerance = 1e-7)
  # the median heuristic is the default lengthscale
  expect_equal(attr(bnn_ksd(W, score = S), "lengthscale"), median(dist(W)))
})

test_that("KSD of exact Gaussian draws decreases towards 0 with n", {
  mu <- c(1, -2, 0.5); sdv <- c(1, 0.5, 2)
  ksd_n <- function(n, rep) {
    set.seed(100 * n + rep)
    W <- sweep(sweep(matrix(rnorm(n * 3), n, 3), 2, sdv, "*"), 2, mu, "+")
    S <- -sweep(sweep(W, 2, mu, "-"), 2, sdv^2, "/")
    as.numeric(bnn_ksd(W, score = S, lengthscale = 2))
  }
  k <- sapply(c(50, 200, 800), function(n) mean(sapply(1:3, function(r) ksd_n(n, r))))
  expect_true(all(diff(k) < 0))
  # the V-statistic of KSD^2 is O(1/n) for exact draws: KSD ~ n^-1/2
  expect_lt(k[3] / k[1], 0.35)
  expect_gt(k[3] / k[1], 0.15)
  # biased draws do not go to 0
  set.seed(9)
  W <- matrix(rnorm(800 * 3), 800, 3)
  S <- -sweep(sweep(W, 2, mu, "-"), 2, sdv^2, "/")
  expect_gt(as.numeric(bnn_ksd(W, score = S, lengthscale = 2)), 10 * k[3])
})

test_that("bnn_ksd takes scores from the fit's model (conjugate linear model)", {
  set.seed(2)
  d <- data.frame(x1 = rnorm(20), x2 = rnorm(20))
  d$y <- 1 + 2 * d$x1 - d$x2 + rnorm(20, sd = 0.5)
  fit <- bnn_fit(y ~ x1 + x2, d, hidden = integer(0), standardize = FALSE,
                 likelihood = bnn_likelihood("gaussian", sigma = 0.5), chains = 1,
                 warmup = 50, iter = 20, seed = 1, progress = FALSE, sampler = "nuts")
  # exact posterior of (w1, w2, b) under N(0, 1) priors
  X <- cbind(d$x1, d$x2, 1)
  P <- crossprod(X) / 0.25 + diag(3)
  V <- solve(P); m <- V %*% crossprod(X, d$y) / 0.25
  W <- t(m[, rep(1, 300)] + t(chol(V)) %*% matrix(rnorm(900), 3))
  S <- -t(P %*% (t(W) - as.vector(m)))
  expect_equal(as.numeric(bnn_ksd(W, model = fit, lengthscale = 0.3)),
               as.numeric(bnn_ksd(W, score = S, lengthscale = 0.3)), tolerance = 1e-10)
  expect_error(bnn_ksd(W), "give its scores")
  expect_error(bnn_ksd(W, model = lm(y ~ x1, d)), "no log-posterior gradient")
  expect_error(bnn_ksd(W[, 1:2], model = fit), "3")
  expect_error(bnn_ksd(W, score = S[-1, ]), "same dimensions")
  # a fit: its own draws and scores
  th <- bnnmc:::draws_matrix(fit)
  g <- bnn_log_posterior(fit, th)$grad
  expect_equal(as.numeric(bnn_ksd(fit, lengthscale = 0.3)),
               as.numeric(bnn_ksd(t(th), score = t(g), lengthscale = 0.3)), tolerance = 1e-12)
})

test_that("bnn_mds_map is cmdscale of the pairwise MMDs", {
  set.seed(7)
  sets <- list(a = matrix(rnorm(60), 30), b = matrix(rnorm(40, 1), 20),
               c = matrix(rnorm(50, 0.2), 25), d = matrix(rnorm(60, 2), 30))
  m <- bnn_mds_map(sets, size = c(1e-3, 1e-2, 1e-1, 1))
  M2 <- outer(1:4, 1:4, Vectorize(function(i, j) bnn_mmd(sets[[i]], sets[[j]])))
  expect_equal(unname(m$mmd2), M2, tolerance = 1e-12)
  expect_equal(unname(m$points), unname(cmdscale(sqrt(M2), k = 2)), tolerance = 1e-10)
  expect_equal(rownames(m$points), c("a", "b", "c", "d"))
  pdf(NULL)
  on.exit(dev.off(), add = TRUE)
  expect_invisible(plot(m))
  expect_output(print(m), "MMD map of 4 sets")
  expect_error(bnn_mds_map(sets[1:2]), "at least 3")
  expect_error(bnn_mds_map(c(sets[1:2], list(matrix(1, 2, 3)))), "same dimension")
  expect_error(bnn_mds_map(sets, size = 1), "'size'")
})

test_that("bnn_mds_map refuses fits of different models", {
  d <- data.frame(x = seq(-1, 1, length.out = 12))
  d$y <- d$x^2
  f <- function(h, s, dd = d) suppressWarnings(bnn_fit(y ~ x, dd, hidden = h, chains = 1,
                                                       warmup = 30, iter = 10, seed = s,
                                                       progress = FALSE, sampler = "nuts",
                                                       likelihood = "hetero_gaussian"))
  fits <- list(f(2, 1), f(2, 2), f(2, 3))
  m <- bnn_mds_map(fits, space = "function")
  expect_equal(m$mmd2[1, 2], bnn_mmd(fits[[1]], fits[[2]], space = "function"), tolerance = 1e-12)
  expect_equal(m$size, vapply(fits, function(z) mean(z$stepsize), 0))
  expect_error(bnn_mds_map(list(fits[[1]], fits[[2]], f(3, 1))), "same model")
})

test_that("bnn_mds_map groups labels by name without their numeric suffix", {
  set.seed(1)
  sets <- list(ensemble = matrix(rnorm(20), 10), hmc1 = matrix(rnorm(20), 10),
               hmc_2 = matrix(rnorm(20), 10), `sgld_1e-05` = matrix(rnorm(20), 10))
  expect_equal(bnn_mds_map(sets)$group, c("ensemble", "hmc", "hmc", "sgld"))
})

test_that("MMD thinning, MMD and KSD are right for draws beyond 1e154", {
  set.seed(2)
  x <- matrix(rnorm(300), 100, 3)
  y <- matrix(rnorm(240, mean = 0.5), 80, 3)
  th <- bnn_thin_mmd(x, 10)
  # a power of 2 scales exactly: the same selection, mmd2 scaled
  for (s in c(2^700, 2^-700)) {
    ts <- bnn_thin_mmd(x * s, 10)
    expect_identical(attr(ts, "index"), attr(th, "index"))
    expect_equal(attr(ts, "mmd2"), attr(th, "mmd2") * s, tolerance = 1e-12)
  }
  # before: index 1 every time
  expect_identical(attr(bnn_thin_mmd(x * 1e200, 10), "index"), attr(th, "index"))
  m <- bnn_mmd(x, y)
  expect_equal(bnn_mmd(x * 1e200, y * 1e200), m * 1e200, tolerance = 1e-12)  # was NaN
  expect_equal(bnn_mmd(x * 2^-700, y * 2^-700), m * 2^-700, tolerance = 1e-12)
  expect_equal(bnn_mmd(x * 1e300, y * 1e300, squared = FALSE), sqrt(m * 1e300),
               tolerance = 1e-12)
  expect_identical(bnn_mmd(x, y), m)   # ordinary draws: computed as before
  # KSD(c w, s / c, c l) = KSD(w, s, l) / c (every Stein-kernel term scales
  # by 1 / c^2); before: NaN (the squares overflowed)
  k <- bnn_ksd(x, score = -x)
  l <- attr(k, "lengthscale")
  for (s in c(2^600, 2^-600, 1e200)) {
    ks <- bnn_ksd(x * s, score = -x / s)
    expect_equal(as.numeric(ks), as.numeric(k) / s, tolerance = 1e-10)
    expect_equal(attr(ks, "lengthscale"), l * s, tolerance = 1e-12)
  }
  # scores alone huge (draws ordinary): the term u^-1/2 s's' dominates
  U <- 1 + as.matrix(stats::dist(x))^2 / l^2
  ref <- sqrt(sum(U^-0.5 * tcrossprod(x))) / nrow(x) * 1e200
  expect_equal(as.numeric(bnn_ksd(x, score = -x * 1e200, lengthscale = l)), ref,
               tolerance = 1e-10)
  expect_true(is.finite(bnn_ksd(x * 1e200, score = -x * 1e200)))
})

test_that("bnn_ksd() with one draw is a clear error", {
  # before: "missing value where TRUE/FALSE needed"
  expect_error(bnn_ksd(matrix(rnorm(3), 1, 3), score = matrix(rnorm(3), 1, 3)),
               "'x' must hold at least 2 draws for the KSD, not 1")
  expect_error(bnn_ksd(matrix(rnorm(3), 1, 3), score = matrix(rnorm(3), 1, 3),
                       lengthscale = 1), "at least 2 draws")
})

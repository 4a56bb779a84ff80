# Gradients by backpropagation against central finite differences
# (fd_check(), helper-gradient.R).

test_that("gradients match finite differences for every activation, likelihood and prior", {
  set.seed(11)
  n <- 17; p <- 3
  X <- matrix(rnorm(n * p), n, p)
  liks <- list(bnn_likelihood("hetero_gaussian"),
               bnn_likelihood("gaussian"),
               bnn_likelihood("gaussian", sigma_prior = "exponential", sigma_prior_scale = 2),
               bnn_likelihood("gaussian", sigma = 0.7),
               bnn_likelihood("bernoulli"),
               bnn_likelihood("categorical"))
  priors <- list(bnn_prior("normal", scale = c(1, 0.5, 2)),
                 bnn_prior("laplace", scale = 0.8, fan_in = TRUE))
  for (act in bnn_activations()) for (lik in liks) for (pr in priors) {
    y <- switch(lik$family, bernoulli = as.double(rbinom(n, 1, 0.5)),
                categorical = as.double(sample(0:2, n, TRUE)), rnorm(n))
    sizes <- bnnmc:::layer_sizes(p, c(4, 3), lik, n_class = 3L)
    spec <- bnnmc:::make_spec(sizes, act, lik, pr, X = X, y = y)
    theta <- rnorm(bnnmc:::spec_dim(spec), 0, 0.7)
    err <- fd_check(spec, theta)
    expect_lt(err, 1e-6, label = sprintf("%s / %s / %s: relative error %g",
                                         act, lik$family, pr$family, err))
  }
})

test_that("gradients are right with several row chunks and no hidden layer", {
  set.seed(3)
  n <- 600; p <- 2   # more rows than one chunk of 256
  X <- matrix(rnorm(n * p), n, p)
  y <- rnorm(n)
  for (hidden in list(integer(0), 5L, c(3L, 4L, 2L))) {
    lik <- bnn_likelihood()
    sizes <- bnnmc:::layer_sizes(p, hidden, lik)
    spec <- bnnmc:::make_spec(sizes, "tanh", lik, bnn_prior(), X = X, y = y)
    theta <- rnorm(bnnmc:::spec_dim(spec), 0, 0.5)
    expect_lt(fd_check(spec, theta), 1e-6)
  }
})

test_that("the log posterior equals a direct computation in R", {
  set.seed(5)
  n <- 9; p <- 2
  X <- matrix(rnorm(n * p), n, p); y <- rnorm(n)
  lik <- bnn_likelihood()
  sizes <- c(p, 3L, 2L)
  spec <- bnnmc:::make_spec(sizes, "tanh", lik, bnn_prior(scale = 0.5), X = X, y = y)
  theta <- rnorm(bnnmc:::spec_dim(spec))
  u <- bnn_unflatten(theta, sizes)
  h <- tanh(sweep(X %*% u$layer1$W, 2, u$layer1$b, "+"))
  o <- sweep(h %*% u$layer2$W, 2, u$layer2$b, "+")
  sd <- pmin(pmax(exp(o[, 2]), 1e-6), 1e6)
  ll <- sum(dnorm(y, o[, 1], sd, log = TRUE))
  lp <- sum(dnorm(theta, 0, 0.5, log = TRUE))
  res <- .Call(C_model_logpost, spec, matrix(theta))
  expect_equal(res$loglik, ll, tolerance = 1e-12)
  expect_equal(res$logprior, lp, tolerance = 1e-12)
  expect_equal(res$lp, ll + lp, tolerance = 1e-12)
})

test_that("the forward pass equals a direct computation for every activation", {
  set.seed(8)
  X <- matrix(rnorm(40), 20, 2)
  f <- list(tanh = tanh, relu = function(x) pmax(x, 0),
            leaky_relu = function(x) ifelse(x > 0, x, 0.01 * x),
            silu = function(x) x * plogis(x), sigmoid = plogis,
            softplus = function(x) log1p(exp(x)),
            gelu = function(x) x * pnorm(x),
            trunc_relu = function(x) pmin(pmax(x, 0), 1), identity = identity)
  for (act in names(f)) {
    sizes <- c(2L, 4L, 1L)
    spec <- bnnmc:::make_spec(sizes, act, bnn_likelihood("gaussian", sigma = 1), bnn_prior())
    theta <- rnorm(bnn_n_parameters(sizes), 0, 1.5)
    u <- bnn_unflatten(theta, sizes)
    expect_fn <- f[[act]](sweep(X %*% u$layer1$W, 2, u$layer1$b, "+")) %*% u$layer2$W + u$layer2$b
    out <- .Call(C_model_forward, spec, matrix(theta), X, 1L)
    expect_equal(out[, 1, 1], c(expect_fn), tolerance = 1e-12, label = act)
  }
})

test_that("the portable and the SIMD kernels agree and all give exact gradients", {
  old <- .Call(C_simd, NULL)
  on.exit(.Call(C_simd, old))
  set.seed(21)
  n <- 300; p <- 5
  X <- matrix(rnorm(n * p), n, p); y <- rnorm(n)
  kinds <- unique(vapply(c("avx2+fma", "avx512"), function(k) .Call(C_simd, k), ""))
  kinds <- setdiff(kinds, "generic")
  for (act in bnn_activations()) {
    lik <- bnn_likelihood()
    # 16 outputs: the wide blocks of the SIMD dense kernels; 7 and 2: their
    # remainders; 300 rows: a masked tail after 16-row blocks
    sizes <- c(p, 16L, 7L, 2L)
    spec <- bnnmc:::make_spec(sizes, act, lik, bnn_prior(), X = X, y = y)
    theta <- rnorm(bnnmc:::spec_dim(spec), 0, 0.3)
    .Call(C_simd, FALSE)
    expect_equal(.Call(C_simd, NULL), "generic")
    g0 <- .Call(C_model_logpost, spec, matrix(theta))
    # finite differences across a kink are meaningless with 300 rows; the
    # piecewise-linear activations are checked on small data above
    smooth <- !act %in% c("relu", "leaky_relu", "trunc_relu")
    if (smooth) expect_lt(fd_check(spec, theta), 1e-6)
    for (k in kinds) {
      expect_equal(.Call(C_simd, k), k)
      g1 <- .Call(C_model_logpost, spec, matrix(theta))
      expect_equal(g1$lp, g0$lp, tolerance = 1e-12, label = paste(act, k))
      expect_equal(g1$grad, g0$grad, tolerance = 1e-10, label = paste(act, k))
      if (smooth) expect_lt(fd_check(spec, theta), 1e-6)
    }
  }
})

test_that("exp and tanh kernels are accurate to a few ulp and keep NaN", {
  old <- .Call(C_simd, NULL)
  on.exit(.Call(C_simd, old))
  set.seed(3)
  x <- c(rnorm(2e4, 0, 3), 10^runif(2e4, -300, 1.5) * sample(c(-1, 1), 2e4, TRUE),
         0.0108, 0.0217, 0.05, 19, 19.1, 20, 25, 700, -700)
  ulp <- function(v) 2^(floor(log2(abs(v))) - 52)
  kinds <- unique(vapply(c("generic", "avx2+fma", "avx512"),
                         function(k) .Call(C_simd, k), ""))
  for (k in kinds) {
    .Call(C_simd, k)
    th <- .Call(C_vmath, "tanh", x)
    r <- tanh(x)
    # relative accuracy everywhere, tiny arguments included
    expect_lte(max(abs(th - r) / ulp(r)), 8, label = paste(k, "tanh ulp"))
    ex <- .Call(C_vmath, "exp", x[abs(x) < 700])
    expect_lt(max(abs(ex / exp(x[abs(x) < 700]) - 1)), 1e-15, label = paste(k, "exp"))
    sg <- .Call(C_vmath, "sigmoid", x[abs(x) < 700])
    expect_lt(max(abs(sg / plogis(x[abs(x) < 700]) - 1)), 1e-15, label = paste(k, "sigmoid"))
    # non-finite inputs: NaN and NA stay non-finite (never a number)
    spec_in <- c(NaN, NA, Inf, -Inf, 0)
    expect_true(all(is.nan(.Call(C_vmath, "tanh", spec_in)[1:2]) |
                      is.na(.Call(C_vmath, "tanh", spec_in)[1:2])), label = k)
    expect_equal(.Call(C_vmath, "tanh", spec_in)[3:5], c(1, -1, 0), label = k)
    e <- .Call(C_vmath, "exp", spec_in)
    expect_true(all(is.na(e[1:2])), label = k)
    expect_equal(e[4:5], c(exp(-708), 1), label = k)
    expect_gt(e[3], 1e307)
  }
})

test_that("the log1p kernel is accurate to an ulp or two, with -1, Inf and NaN", {
  old <- .Call(C_simd, NULL)
  on.exit(.Call(C_simd, old))
  set.seed(4)
  x <- c(-runif(2e4), -1 + 10^runif(2e3, -16, -1), 10^runif(2e4, -320, 308),
         sqrt(2) / 2 - 1 + (-50:50) * 1e-16, sqrt(2) - 1 + (-50:50) * 1e-16,
         (-50:50) * 2e-16, 2^(-60:1000), rnorm(2e4, 0, 3), .Machine$double.xmax)
  x <- x[x > -1]
  r <- log1p(x)
  ulp <- 2^(floor(log2(abs(r))) - 52)
  kinds <- unique(vapply(c("generic", "avx2+fma", "avx512"),
                         function(k) .Call(C_simd, k), ""))
  for (k in kinds) {
    .Call(C_simd, k)
    l <- .Call(C_vmath, "log1p", x)
    err <- ifelse(l == r, 0, abs(l - r) / ulp)   # (subnormal results: l == r)
    expect_lte(max(err), 2, label = paste(k, "log1p ulp"))
    sp <- .Call(C_vmath, "log1p", c(NaN, NA, Inf, -1, -2, 0, -Inf))
    expect_true(all(is.na(sp[1:2])), label = k)
    expect_identical(sp[3:6], c(Inf, -Inf, NaN, 0), label = k)
    expect_true(is.nan(sp[7]), label = k)
  }
})

test_that("a NaN parameter gives a non-finite log density with every kernel", {
  old <- .Call(C_simd, NULL)
  on.exit(.Call(C_simd, old))
  set.seed(5)
  X <- matrix(rnorm(60), 20, 3); y <- rnorm(20)
  sizes <- c(3L, 4L, 2L)
  spec <- bnnmc:::make_spec(sizes, "tanh", bnn_likelihood(), bnn_prior(), X = X, y = y)
  theta <- rnorm(bnnmc:::spec_dim(spec))
  for (k in c("generic", "avx2+fma", "avx512")) {
    .Call(C_simd, k)
    for (bad in c(NA, NaN)) {
      th <- theta
      th[1] <- bad   # a first-layer weight: only tanh stands between it and the output
      expect_false(is.finite(.Call(C_model_logpost, spec, matrix(th))$lp), label = k)
    }
  }
})

test_that("the kernels agree for row counts that leave partial SIMD blocks", {
  old <- .Call(C_simd, NULL)
  on.exit(.Call(C_simd, old))
  set.seed(9)
  for (n in c(1L, 5L, 8L, 13L, 16L, 17L, 255L, 256L, 257L)) {
    X <- matrix(rnorm(n * 3), n, 3); y <- rnorm(n)
    sizes <- c(3L, 9L, 5L, 2L)
    spec <- bnnmc:::make_spec(sizes, "tanh", bnn_likelihood(), bnn_prior(), X = X, y = y)
    theta <- rnorm(bnnmc:::spec_dim(spec))
    .Call(C_simd, FALSE)
    g0 <- .Call(C_model_logpost, spec, matrix(theta))
    f0 <- .Call(C_model_forward, spec, matrix(theta), X, 1L)
    for (k in c("avx2+fma", "avx512")) {
      .Call(C_simd, k)
      g1 <- .Call(C_model_logpost, spec, matrix(theta))
      expect_equal(g1$grad, g0$grad, tolerance = 1e-11, label = paste(n, k))
      expect_equal(.Call(C_model_forward, spec, matrix(theta), X, 1L), f0,
                   tolerance = 1e-12, label = paste(n, k))
    }
  }
})

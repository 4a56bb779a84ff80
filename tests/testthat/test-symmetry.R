# Equioutput transformations: counts, exact invariance of the network
# function and of the log posterior, and the canonical representative.

sym_spec <- function(sizes, act, lik = bnn_likelihood("hetero_gaussian"), X = NULL, y = NULL) {
  bnnmc:::make_spec(sizes, act, lik, bnn_prior(), X = X, y = y)
}
net_out <- function(spec, theta, X) {
  th <- if (is.matrix(theta)) t(theta) else as.matrix(theta)
  .Call(bnnmc:::C_model_forward, spec, th, X, 1L)
}
arch <- list(c(2L, 3L, 2L), c(2L, 3L, 4L, 2L), c(2L, 4L, 3L, 2L, 2L))
rand_transform <- function(th, sizes, act) {
  H <- length(sizes) - 2L
  for (l in seq_len(H)) {
    M <- sizes[l + 1L]
    th <- bnn_permute_neurons(th, l, sample.int(M), sizes = sizes)
    if (act %in% c("tanh", "identity")) {
      fl <- which(runif(M) < 0.5)
      if (length(fl)) th <- bnn_flip_neurons(th, l, fl, sizes = sizes, activation = act)
    }
    if (act %in% c("relu", "leaky_relu", "identity"))
      th <- bnn_rescale_neurons(th, l, seq_len(M), c = exp(runif(M, -1, 1)),
                                sizes = sizes, activation = act)
  }
  th
}

test_that("equioutput counts match the paper's values", {
  a <- bnn_equioutput_count(3, "tanh")
  expect_identical(a$value, 48)
  expect_identical(a$formatted, "48")
  b <- bnn_equioutput_count(c(16, 16, 16), "tanh")
  expect_equal(b$log10, 3 * (log10(factorial(16)) + 16 * log10(2)), tolerance = 1e-14)
  expect_equal(10^(b$log10 - 54), 2.578093, tolerance = 1e-6)
  expect_match(b$formatted, "^2\\.578093e\\+54$")
  expect_equal(bnn_equioutput_count(128, "tanh")$log10, log10(1.312199) + 254, tolerance = 1e-6)
  r <- bnn_equioutput_count(c(3, 4), "relu")
  expect_identical(r$value, 6 * 24)
  expect_true(r$rescaling_infinite)
  expect_output(print(r), "infinite")
  expect_identical(bnn_equioutput_count(3, "silu")$value, 6)
  expect_error(bnn_equioutput_count(3, "tan"), "'activation'")
})

test_that("every transformation leaves the network function unchanged", {
  set.seed(11)
  X <- matrix(rnorm(14), 7, 2)
  for (act in bnn_activations()) {
    for (sizes in arch) {
      spec <- sym_spec(sizes, act)
      th <- rnorm(bnn_n_parameters(sizes))
      ref <- net_out(spec, th, X)
      H <- length(sizes) - 2L
      for (l in seq_len(H)) {
        M <- sizes[l + 1L]
        p2 <- bnn_permute_neurons(th, l, rev(seq_len(M)), sizes = sizes)
        expect_false(isTRUE(all.equal(p2, th)))
        expect_equal(net_out(spec, p2, X), ref, tolerance = 1e-12)
        if (act %in% c("tanh", "identity")) {
          f2 <- bnn_flip_neurons(th, l, c(1, M), sizes = sizes, activation = act)
          expect_equal(net_out(spec, f2, X), ref, tolerance = 1e-12)
        } else {
          expect_error(bnn_flip_neurons(th, l, 1, sizes = sizes, activation = act),
                       "no sign flips")
        }
        if (act %in% c("relu", "leaky_relu", "identity")) {
          r2 <- bnn_rescale_neurons(th, l, seq_len(M), c = seq_len(M) / 2, sizes = sizes,
                                    activation = act)
          expect_equal(net_out(spec, r2, X), ref, tolerance = 1e-12)
        } else {
          expect_error(bnn_rescale_neurons(th, l, 1, 2, sizes = sizes, activation = act),
                       "no rescaling")
        }
      }
      # a composition over all layers, on a matrix of draws
      mth <- rbind(th, -th)
      tr <- rand_transform(mth, sizes, act)
      expect_equal(net_out(spec, tr, X), net_out(spec, mth, X), tolerance = 1e-12)
    }
  }
})

test_that("permutations and sign flips keep the log posterior; rescaling moves the prior", {
  set.seed(3)
  sizes <- c(2L, 3L, 4L, 1L)
  X <- matrix(rnorm(40), 20, 2)
  y <- rnorm(20)
  lik <- bnn_likelihood("gaussian")
  lp <- function(act, th) {
    .Call(bnnmc:::C_model_logpost, sym_spec(sizes, act, lik, X, y), as.matrix(th))
  }
  th <- c(rnorm(bnn_n_parameters(sizes)), log(0.7))
  t2 <- bnn_flip_neurons(bnn_permute_neurons(th, 2, c(4, 2, 1, 3), sizes = sizes), 1, 2,
                         sizes = sizes)
  expect_equal(lp("tanh", t2)$lp, lp("tanh", th)$lp, tolerance = 1e-12)
  r2 <- bnn_rescale_neurons(th, 1, 1:3, c = c(0.5, 2, 3), sizes = sizes)
  a <- lp("relu", th)
  b <- lp("relu", r2)
  expect_equal(b$loglik, a$loglik, tolerance = 1e-12)
  expect_gt(abs(b$logprior - a$logprior), 0.1)
  # the sigma entry is untouched
  expect_identical(t2[length(t2)], log(0.7))
})

test_that("bad input to the transformations is a clear error", {
  sizes <- c(1, 3, 1)
  th <- rnorm(bnn_n_parameters(sizes))
  expect_error(bnn_permute_neurons(th, 1, c(1, 1, 2), sizes = sizes), "'perm'.*permutation")
  expect_error(bnn_permute_neurons(th, 2, 1:3, sizes = sizes), "'layer'")
  expect_error(bnn_permute_neurons(th, 1, 1:3), "'sizes'")
  expect_error(bnn_permute_neurons(th[-1], 1, 1:3, sizes = sizes), "parameters per draw")
  expect_error(bnn_flip_neurons(th, 1, 4, sizes = sizes), "'neuron'")
  expect_error(bnn_rescale_neurons(th, 1, 1, c = 0, sizes = sizes), "'c'.*> 0")
  expect_error(bnn_rescale_neurons(th, 1, 1, c = -2, sizes = sizes), "positive")
  expect_error(bnn_flip_neurons(replace(th, 2, NA), 1, 1, sizes = sizes), "'x' has missing")
  expect_error(bnn_remove_symmetries(th, sizes = sizes, activation = "identity"),
               "linear map")
  expect_error(bnn_remove_symmetries(th, sizes = sizes), "'activation'")
})

test_that("canonicalisation sends 100 random equioutput copies to one vector", {
  set.seed(7)
  for (act in c("tanh", "relu", "leaky_relu", "silu")) {
    for (sizes in arch) {
      spec <- sym_spec(sizes, act)
      th <- rnorm(bnn_n_parameters(sizes))
      can <- bnn_remove_symmetries(th, sizes = sizes, activation = act)
      expect_equal(bnn_remove_symmetries(can, sizes = sizes, activation = act), can,
                   tolerance = 1e-14)                        # idempotent
      X <- matrix(rnorm(10), 5, 2)
      expect_equal(net_out(spec, can, X), net_out(spec, th, X), tolerance = 1e-12)
      copies <- t(replicate(100, rand_transform(th, sizes, act)))
      canon <- bnn_remove_symmetries(copies, sizes = sizes, activation = act)
      expect_lt(max(abs(sweep(canon, 2, can))), 1e-10)
    }
  }
})

test_that("canonicalisation of a draws array keeps shape, sigma and NA chains", {
  set.seed(2)
  sizes <- c(1L, 3L, 1L)
  d <- bnn_n_parameters(sizes) + 1L
  a <- array(rnorm(5 * 2 * d), c(5, 2, d))
  a[, , d] <- abs(a[, , d])
  out <- bnn_remove_symmetries(a, sizes = sizes, activation = "tanh")
  expect_identical(dim(out), dim(a))
  expect_identical(out[, , d], a[, , d])
  # first draw of chain 2 equals the canonical vector of that draw alone
  expect_equal(out[1, 2, ], bnn_remove_symmetries(a[1, 2, ], sizes = sizes, activation = "tanh"))
  expect_error(bnn_remove_symmetries(replace(a, 3, NA), sizes = sizes, activation = "tanh"),
               "missing")
})

test_that("the paper's removal (Algorithms 1-4) gathers equioutput copies into one set", {
  set.seed(21)
  for (sizes in list(c(1L, 3L, 1L), c(2L, 3L, 3L, 1L))) {
    d <- bnn_n_parameters(sizes)
    centre <- rnorm(d, sd = 1.5)
    G <- 80
    draws <- t(replicate(G, rand_transform(centre + rnorm(d, sd = 0.05), sizes, "tanh")))
    out <- bnn_remove_symmetries(draws, method = "paper", sizes = sizes, activation = "tanh",
                                 k = 64, iterations = 64)
    # only equioutput transformations were applied, draw by draw
    expect_equal(bnn_remove_symmetries(out, sizes = sizes, activation = "tanh"),
                 bnn_remove_symmetries(draws, sizes = sizes, activation = "tanh"),
                 tolerance = 1e-12)
    # with one hidden layer the copies now sit together (spread = the noise);
    # deeper, the layer-by-layer order leaves some mislabelled (documented)
    if (length(sizes) == 3L) {
      expect_lt(max(apply(out, 2, sd)), 0.1)
      expect_gt(max(apply(draws, 2, sd)), 1)
    }
    # deterministic given the seed
    expect_identical(bnn_remove_symmetries(draws, method = "paper", sizes = sizes,
                                           activation = "tanh", k = 64, iterations = 64), out)
  }
  expect_error(bnn_remove_symmetries(draws[, 1:bnn_n_parameters(c(1, 3, 1))], method = "paper",
                                     sizes = c(1, 3, 1), activation = "relu"), "tanh")
})

test_that("Inf draws are an error for bnn_remove_symmetries()", {
  sizes <- c(1, 3, 1)
  th <- matrix(rnorm(5 * bnn_n_parameters(sizes)), 5)
  expect_silent(bnn_remove_symmetries(th, sizes = sizes, activation = "tanh"))
  th[2, 3] <- Inf   # before: that draw came back unchanged, without a word
  expect_error(bnn_remove_symmetries(th, sizes = sizes, activation = "tanh"),
               "'x' has infinite values")
  th[2, 3] <- NA
  expect_error(bnn_remove_symmetries(th, sizes = sizes, activation = "tanh"),
               "missing \\(NA\\)")
})

test_that("bnn_rescale_neurons() refuses a c that makes weights infinite", {
  fit <- suppressWarnings(bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, activation = "relu",
                                  sampler = bnn_rwm(), chains = 1, warmup = 10, iter = 5,
                                  seed = 1, progress = FALSE))
  expect_error(bnn_rescale_neurons(fit, 1, 1, c = 1e-320),
               "'c' = 1e-320 would make weights of neuron 1 of layer 1 infinite or zero")
  expect_error(bnn_rescale_neurons(fit, 1, 1, c = c(1e-310)), "infinite or zero")
  ok <- bnn_rescale_neurons(fit, 1, 1, c = 2)
  expect_true(all(is.finite(ok$draws)))
})

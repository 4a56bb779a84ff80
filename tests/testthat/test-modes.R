# Mode discovery by spectral clustering of de-symmetrised draws.

# A fit whose draws are planted: three modes (shares 30/20/10 of 60 chains),
# each draw a random equioutput copy of a noisy mode centre.
planted_fit <- function() {
  fit <- suppressWarnings(bnn_fit(mpg ~ wt, data = mtcars, hidden = 3, chains = 60,
                                  warmup = 10, iter = 1, seed = 2, progress = FALSE, sampler = "nuts",
                                  likelihood = "hetero_gaussian"))
  sizes <- fit$spec$sizes
  d <- bnn_n_parameters(sizes)
  set.seed(10)
  centres <- matrix(rnorm(3 * d, sd = 2), 3)
  # away from the canonical map's boundaries (tied biases, outgoing weight 0)
  id <- bnnmc:::neuron_index(sizes, 1L, 1:3)
  centres[, id$bias] <- rep(c(-2, 0, 2), each = 3) + c(0, 0.3, 0.6)
  centres[, id$outgoing] <- 1 + abs(centres[, id$outgoing])
  centres <- bnn_remove_symmetries(centres, sizes = sizes, activation = "tanh")
  truth <- rep(1:3, c(30, 20, 10))
  for (ch in 1:60) {
    th <- centres[truth[ch], ] + rnorm(d, sd = 0.02)
    th <- bnn_permute_neurons(th, 1, sample.int(3), sizes = sizes)
    th <- bnn_flip_neurons(th, 1, which(runif(3) < 0.5), sizes = sizes)
    fit$draws[1, ch, seq_len(d)] <- th
  }
  list(fit = fit, truth = truth)
}

test_that("planted modes behind random symmetries are recovered", {
  p <- planted_fit()
  m <- bnn_modes(p$fit)
  expect_identical(m$k, 3L)
  expect_identical(m$chain_mode, p$truth)         # modes numbered by size
  expect_equal(m$probs, c(0.5, 1 / 3, 1 / 6))
  expect_identical(dim(m$labels), c(1L, 60L))
  expect_output(print(m), "3 functionally different mode")
  # with k given, and in function space
  expect_identical(bnn_modes(p$fit, k = 3, space = "function")$chain_mode, p$truth)
  # the data-driven chain count uses the estimated probabilities
  cn <- bnn_chains_needed(p$fit, p = 0.9)
  expect_identical(cn$chains, bnn_chains_needed(c(0.5, 1 / 3, 1 / 6), p = 0.9)$chains)
  pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  for (ty in c("neurons", "pairs", "function", "eigen")) expect_invisible(plot(m, type = ty))
})

test_that("bnn_modes() checks its input", {
  p <- planted_fit()
  expect_error(bnn_modes(p$fit$draws), "'object' must be a bnnfit")
  expect_error(bnn_modes(p$fit, neighbors = 0), "'neighbors'")
  f2 <- p$fit
  f2$chain_status[1:2] <- "step-size search failed (step size reached 0 or 1e7)"
  f2$draws[, 1:2, ] <- NA
  expect_warning(m <- bnn_modes(f2), class = "bnnmc_chain_failure")
  expect_true(all(is.na(m$chain_mode[1:2])))
  expect_identical(m$chain_mode[-(1:2)], p$truth[-(1:2)])
})

test_that("the KL convergence of the predictive density matches a direct computation", {
  fit <- suppressWarnings(bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 6,
                                  warmup = 20, iter = 1, seed = 5, progress = FALSE,
                                  likelihood = bnn_likelihood("gaussian"), sampler = "nuts"))
  xg <- c(2, 3, 4)
  yg <- seq(10, 35, length.out = 7)
  kl <- bnn_kl_convergence(fit, x_grid = xg, y_grid = yg)
  expect_identical(kl$n, 2:6)
  pp <- bnnmc:::predictive_params(fit, data.frame(wt = xg))
  ppd <- function(n) {
    m <- Reduce(`+`, lapply(seq_len(n), function(g)
      outer(seq_along(xg), seq_along(yg), function(i, j) dnorm(yg[j], pp$mu[g, i], pp$sd[g, i]))))
    m / rowSums(m)
  }
  direct <- vapply(2:6, function(n) {
    p <- ppd(n); q <- ppd(n - 1)
    mean(rowSums(p * (log(p + 1e-6) - log(q + 1e-6))))
  }, 0)
  expect_equal(kl$kl, direct, tolerance = 1e-12)
  expect_equal(attr(kl, "ppd")$density, ppd(6), tolerance = 1e-12)
  pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  expect_invisible(plot(kl))
  expect_error(bnn_kl_convergence(suppressWarnings(bnn_fit(mpg ~ wt + hp, data = mtcars,
    hidden = 2, chains = 1, warmup = 5, iter = 2, seed = 1, progress = FALSE, sampler = "nuts"))), "one numeric")
})

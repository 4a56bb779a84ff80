# Greedy MMD thinning with the distance-induced kernel (src/diag/mmd_thin.c).

# The direct O(T^2) computation: the full kernel matrix and, for every
# candidate j, MMD^2 between all draws and the selection plus j.
thin_direct <- function(x, m) {
  nr <- sqrt(rowSums(x^2))
  K <- outer(nr, nr, "+") - as.matrix(stats::dist(x))
  T <- nrow(x)
  sel <- integer(0)
  mmd <- numeric(m)
  for (i in seq_len(m)) {
    crit <- vapply(seq_len(T), function(j) {
      s <- c(sel, j)
      mean(K) - 2 * mean(K[, s]) + mean(K[s, s])
    }, numeric(1))
    sel <- c(sel, which.min(crit))
    mmd[i] <- min(crit)
  }
  list(index = sel, mmd2 = mmd)
}

test_that("streaming greedy MMD thinning equals the direct O(T^2) computation", {
  x <- bnnmc:::with_seed(1, matrix(stats::rnorm(60 * 3), 60))
  x[7, ] <- x[3, ]                     # a repeated draw
  for (m in c(1L, 10L, 60L, 90L)) {
    if (m > 60L) {
      expect_error(bnn_thin_mmd(x, m), "'m' \\(90\\) must not exceed the number of draws \\(60\\)")
      next
    }
    th <- bnn_thin_mmd(x, m)
    ref <- thin_direct(x, m)
    # the same draws (draws 3 and 7 are equal: either may win their tie)
    same <- function(i) ifelse(i == 7L, 3L, i)
    expect_identical(same(attr(th, "index")), same(ref$index))
    expect_lt(max(abs(attr(th, "mmd2") - ref$mmd2)), 1e-12)
    expect_identical(c(th), c(x[ref$index, , drop = FALSE]))
  }
  # later draws can repeat an earlier choice (selection with replacement)
  y <- bnnmc:::with_seed(2, matrix(stats::rnorm(40 * 2), 40))
  ref <- thin_direct(y, 40)
  expect_identical(attr(bnn_thin_mmd(y, 40), "index"), ref$index)
})

test_that("thinning T draws to m = T gives back the same multiset for tiny T", {
  # all T draws, each once, has MMD 0, the optimum; greedy finds it here
  for (T in 2:6) {
    x <- bnnmc:::with_seed(T, matrix(stats::rnorm(T * 2), T))
    th <- bnn_thin_mmd(x, T)
    expect_identical(sort(attr(th, "index")), seq_len(T))
    expect_lt(abs(tail(attr(th, "mmd2"), 1)), 1e-12)
  }
  # two clusters of 2 identical points: one point of each, then the others
  x <- rbind(c(1, 0), c(1, 0), c(-1, 0), c(-1, 0))
  th <- bnn_thin_mmd(x, 2)
  expect_setequal(th[, 1], c(1, -1))
})

test_that("MMD thinning takes fits and arrays, and checks its input", {
  fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = integer(0),
                 likelihood = bnn_likelihood("gaussian", sigma = 0.5),
                 sampler = bnn_sgld(2e-3, batch_size = 8), chains = 2,
                 warmup = 100, iter = 200, seed = 1)
  th <- bnn_thin_mmd(fit, 30)
  expect_identical(dim(th), c(30L, 2L))
  expect_identical(colnames(th), dimnames(fit$draws)[[3]])
  pooled <- rbind(fit$draws[, 1, ], fit$draws[, 2, ])
  expect_identical(c(th), c(pooled[attr(th, "index"), ]))
  expect_identical(attr(bnn_thin_mmd(fit$draws, 30), "index"), attr(th, "index"))
  expect_error(bnn_thin_mmd(pooled, 0), "'m'")
  expect_error(bnn_thin_mmd(pooled, 2.5), "'m'")
  expect_error(bnn_thin_mmd("a", 2), "'draws'")
  pooled[1, 1] <- NA
  expect_error(bnn_thin_mmd(pooled, 2), "'draws' must be finite")
})

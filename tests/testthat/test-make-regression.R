test_that("bnn_paper_make_regression follows make_regression's model", {
  d <- bnn_paper_make_regression(300, 8, n_informative = 3, noise = 0, bias = 2.5, seed = 4)
  w <- attr(d, "coef")
  expect_identical(names(d), c(paste0("x", 1:8), "y"))
  expect_identical(sum(w != 0), 3L)
  expect_true(all(w[w != 0] > 0 & w[w != 0] < 100))
  X <- as.matrix(d[, 1:8])
  expect_equal(d$y, drop(X %*% w) + 2.5, tolerance = 1e-12)
  # the predictors are standard normal
  expect_lt(abs(mean(X)), 4 / sqrt(length(X)))
  expect_lt(abs(stats::sd(as.vector(X)) - 1), 0.03)
  # the same seed gives the same data, without touching the global stream
  set.seed(9); u <- runif(1); set.seed(9)
  expect_identical(bnn_paper_make_regression(300, 8, n_informative = 3, bias = 2.5, seed = 4), d)
  expect_identical(runif(1), u)
})

test_that("bnn_paper_make_regression's noise has the given standard deviation", {
  d <- bnn_paper_make_regression(4000, 5, n_informative = 5, noise = 3, seed = 1)
  r <- d$y - drop(as.matrix(d[, 1:5]) %*% attr(d, "coef"))
  # sd of 4000 normal draws: relative standard error 1/sqrt(2 * 4000) = 1.1%
  expect_lt(abs(stats::sd(r) / 3 - 1), 4 * 0.0112)
  expect_lt(abs(mean(r)), 4 * 3 / sqrt(4000))
})

test_that("bnn_paper_make_regression rejects bad input", {
  expect_error(bnn_paper_make_regression(10, 3, n_informative = 4), "'n_informative'")
  expect_error(bnn_paper_make_regression(10, 3, n_informative = 1, noise = -1), "'noise'")
  expect_error(bnn_paper_make_regression(0, 3, n_informative = 1), "'n'")
})

# Splitting protocols and standardisation.

toy <- data.frame(x1 = seq(0, 1, length.out = 103), x2 = (1:103)^2, y = sin(1:103))

expect_partition <- function(s, n) {
  all_i <- unlist(s$index, use.names = FALSE)
  expect_identical(sort(all_i), seq_len(n))        # disjoint and covering
  expect_identical(nrow(s$train), length(s$index$train))
  expect_identical(nrow(s$test), length(s$index$test))
}

test_that("dei: 80/20, disjoint, covering, rows match indices", {
  s <- bnn_split(toy, "dei")
  expect_partition(s, 103L)
  expect_null(s$valid)
  expect_null(s$index$valid)
  expect_identical(length(s$index$test), 20L)      # floor(0.2 * 103)
  expect_identical(length(s$index$train), 83L)
  expect_identical(s$test, toy[s$index$test, ])
  expect_identical(rownames(s$train), as.character(s$index$train))
  expect_identical(s$seed, 1L)
  expect_identical(s$protocol, "dei")
})

test_that("mile: 70/10/20 with the reference code's rounding", {
  s <- bnn_split(toy, "mile", rep = 3)
  expect_partition(s, 103L)
  expect_identical(lengths(s$index), c(train = 72L, valid = 10L, test = 21L))
  expect_identical(s$valid, toy[s$index$valid, ])
  big <- data.frame(x = 1:1030)
  expect_identical(lengths(bnn_split(big, "mile")$index),
                   c(train = 721L, valid = 103L, test = 206L))
  expect_identical(lengths(bnn_split(big, "mile", prop = c(0.4, 0.1, 0.5))$index),
                   c(train = 412L, valid = 103L, test = 515L))
  expect_error(bnn_split(big, "mile", prop = c(0.5, 0.1, 0.1)), "summing to 1")
})

test_that("splits are reproducible, differ across repetitions and seeds", {
  a1 <- bnn_split(toy, "dei", rep = 1)
  expect_identical(bnn_split(toy, "dei", rep = 1), a1)
  a2 <- bnn_split(toy, "dei", rep = 2)
  a3 <- bnn_split(toy, "dei", rep = 3)
  expect_false(identical(sort(a1$index$test), sort(a2$index$test)))
  expect_false(identical(sort(a2$index$test), sort(a3$index$test)))
  expect_identical(a2$seed, 2L)
  b <- bnn_split(toy, "dei", rep = 1, seed = 99)
  expect_identical(b$seed, 99L)
  expect_false(identical(sort(b$index$test), sort(a1$index$test)))
  expect_identical(bnn_split(toy, "dei", seed = 5, rep = 2)$index,
                   bnn_split(toy, "dei", seed = 6, rep = 1)$index)
  m1 <- bnn_split(toy, "mile", rep = 1)
  expect_identical(bnn_split(toy, "mile", rep = 1)$index, m1$index)
  expect_false(identical(m1$index$test, bnn_split(toy, "mile", rep = 2)$index$test))
})

test_that("splitting does not disturb the caller's random numbers", {
  set.seed(42)
  x1 <- runif(3)
  set.seed(42)
  invisible(bnn_split(toy, "dei", rep = 2))
  expect_identical(runif(3), x1)
  kind <- RNGkind()
  invisible(bnn_split(toy, "mile"))
  expect_identical(RNGkind(), kind)
})

test_that("fixed splits use the given indices and check them", {
  idx <- list(train = 11:103, test = 1:10)
  s <- bnn_split(toy, "fixed", indices = idx)
  expect_partition(s, 103L)
  expect_identical(s$index$train, 11:103)
  expect_identical(s$test, toy[1:10, ])
  expect_true(is.na(s$seed))
  s3 <- bnn_split(toy, "fixed", indices = list(train = 1:80, valid = 81:90, test = 91:103))
  expect_identical(nrow(s3$valid), 10L)
  expect_error(bnn_split(toy, "fixed", indices = list(train = 1:60, test = 50:103)),
               "overlap")
  expect_error(bnn_split(toy, "fixed", indices = list(train = 1:60, test = 61:104)),
               "between 1 and nrow")
  expect_error(bnn_split(toy, "fixed", indices = list(train = 1:60)), "'train' and 'test'")
  expect_warning(bnn_split(toy, "fixed", indices = list(train = 1:60, test = 61:100)),
                 "3 of the 103 rows")
})

test_that("fixed splits from the real split file cover airfoil", {
  dir <- skip_if_no_uci()
  d <- bnn_read_uci("airfoil", dir = dir)
  s <- bnn_split(d, "fixed", indices = bnn_paper_uci_splits("airfoil", dir = dir))
  expect_partition(s, 1503L)
  expect_identical(nrow(s$test), 301L)
})

test_that("argument errors name the argument", {
  expect_error(bnn_split(1:10), "'data'")
  expect_error(bnn_split(toy, rep = 0), "'rep'")
  expect_error(bnn_split(toy, rep = 1.5), "'rep'")
  expect_error(bnn_split(toy, seed = "a"), "'seed'")
  expect_error(bnn_split(toy, "nope"), "should be one of")
})

test_that("standardisation with training statistics", {
  s <- bnn_split(toy, "dei")
  st <- bnn_standardize(s)
  pop_sd <- function(v) sqrt(mean((v - mean(v))^2))
  expect_equal(unname(colMeans(st$train)), c(0, 0, 0))
  expect_equal(unname(vapply(st$train, pop_sd, 1)), c(1, 1, 1))
  expect_equal(st$center, colMeans(s$train))
  expect_equal(st$scale, vapply(s$train, pop_sd, 1))
  expect_equal(st$test$x2, (s$test$x2 - mean(s$train$x2)) / pop_sd(s$train$x2))
  expect_identical(st$index, s$index)                   # other elements kept
  expect_identical(st$stats, "train")
  # data frames directly, exclude the target
  st2 <- bnn_standardize(s$train, test = s$test, exclude = "y")
  expect_identical(st2$test$y, s$test$y)
  expect_named(st2$center, c("x1", "x2"))
  expect_equal(st2$test$x1, st$test$x1)
  st3 <- bnn_standardize(s$train, s$test)
  expect_equal(st3$data2, st$test)
})

test_that("standardisation with full-data statistics, as the reference code", {
  s <- bnn_split(toy, "mile", rep = 2)
  st <- bnn_standardize(s, stats = "full")
  pop_sd <- function(v) sqrt(mean((v - mean(v))^2))
  full <- rbind(st$train, st$valid, st$test)
  expect_equal(unname(colMeans(full)), c(0, 0, 0))
  expect_equal(unname(vapply(full, pop_sd, 1)), c(1, 1, 1))
  expect_equal(st$center, colMeans(toy))
  # equals z-scoring the full data before splitting
  z <- as.data.frame(scale(toy, scale = vapply(toy, pop_sd, 1)))
  expect_equal(st$test, z[s$index$test, ], ignore_attr = TRUE)
})

test_that("standardisation skips factors and handles constant columns", {
  d <- data.frame(x1 = rnorm(20), x2 = 3, y = factor(rep(c("0", "1"), 10)))
  st <- bnn_standardize(d[1:15, ], test = d[16:20, ])
  expect_identical(st$train$y, d$y[1:15])
  expect_named(st$scale, c("x1", "x2"))
  expect_identical(st$scale[["x2"]], 1)
  expect_identical(st$train$x2, rep(0, 15))
  expect_error(bnn_standardize(d, test = d[, c("x1", "y")]), "lacks numeric columns")
  expect_error(bnn_standardize(d, test = 1:3), "'test' must be a data frame")
  expect_error(bnn_standardize(list(train = d, test = d), d), "not both")
})

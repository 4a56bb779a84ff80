# Old names (R/utils-deprecated.R): each says once per session which new
# name to use and returns what the new function returns.

said <- function() bnnmc:::.deprecated_said
forget <- function() rm(list = ls(said()), envir = said())

test_that("the paper helpers' old names say their new names once and work", {
  forget()
  on.exit(forget())
  expect_message(a <- bnn_task("AF1"), "bnn_task\\(\\) is deprecated.*bnn_paper_task\\(\\)")
  expect_identical(format(a), format(bnn_paper_task("AF1")))
  expect_silent(bnn_task("AF1"))   # once per session
  expect_message(p <- bnn_mode_probs_halfnormal(3), "bnn_paper_mode_probs_halfnormal")
  expect_identical(p, bnn_paper_mode_probs_halfnormal(3))
  expect_message(m <- bnn_make_regression(20, 3, n_informative = 2, seed = 1), "bnn_paper_make_regression")
  expect_identical(m, bnn_paper_make_regression(20, 3, n_informative = 2, seed = 1))
  expect_message(s <- bnn_symmetry_data("sinusoidal", n = 10, seed = 1), "bnn_paper_symmetry_data")
  expect_identical(s, bnn_paper_symmetry_data("sinusoidal", n = 10, seed = 1))
  expect_message(b <- bnn_lm_baseline(mpg ~ wt, mtcars), "bnn_paper_lm_baseline")
  expect_identical(coef(b$fit), coef(bnn_paper_lm_baseline(mpg ~ wt, mtcars)$fit))
  d <- bnn_paper_task_data(bnn_paper_task("AF1"), n_sets = 1, seed = 1)
  expect_message(d2 <- bnn_task_data(bnn_paper_task("AF1"), n_sets = 1, seed = 1),
                 "bnn_paper_task_data")
  expect_identical(d2, d)
})

test_that("bnn_uci() is bnn_read_uci(), the reader of the files wherever they are", {
  forget()
  on.exit(forget())
  dir <- tempfile("uci")
  dir.create(dir)
  writeLines(c("0.1 2 3.5", "0.4 1 2.9", "0.3 5 4.1"), file.path(dir, "toy.data"))
  expect_message(a <- bnn_uci("toy", dir = dir), "bnn_uci\\(\\) is deprecated.*bnn_read_uci\\(\\)")
  expect_identical(a, bnn_read_uci("toy", dir = dir))
})

test_that("every deprecated name is listed in ?bnnmc-deprecated and in NEWS", {
  old <- c("bnn_uci", "bnn_uci_splits", "bnn_task", "bnn_task_data", "bnn_symmetry_data",
           "bnn_make_regression", "bnn_mode_probs_halfnormal", "bnn_lm_baseline")
  ns <- getNamespaceExports("bnnmc")
  expect_true(all(old %in% ns))
  expect_true(all(paste0("bnn_paper_", sub("^bnn_", "", old[-1])) %in% ns))
  expect_true("bnn_read_uci" %in% ns)
})

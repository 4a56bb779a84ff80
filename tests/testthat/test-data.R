# Reader of the UCI benchmark files and of the fixed split files.

write_tmp <- function(lines, name = "toy", dir = tempfile("uci")) {
  dir.create(dir, showWarnings = FALSE)
  writeLines(lines, file.path(dir, paste0(name, ".data")))
  dir
}

test_that("the real regression files are read with x1..xp and y", {
  dir <- skip_if_no_uci()
  a <- bnn_read_uci("airfoil", dir = dir)
  expect_s3_class(a, "data.frame")
  expect_identical(dim(a), c(1503L, 6L))
  expect_identical(names(a), c(paste0("x", 1:5), "y"))
  expect_equal(unlist(a[1, ], use.names = FALSE), c(800, 0, 0.3048, 71.3, 0.00266337, 126.201))
  expect_true(is.numeric(a$y))
  # option and full path give the same data
  withr_opt <- options(bnnmc.data_dir = dir)
  on.exit(options(withr_opt), add = TRUE)
  expect_identical(bnn_read_uci("airfoil"), a)
  expect_equal(bnn_read_uci(file.path(dir, "airfoil.data")), a, ignore_attr = TRUE)
  expect_identical(bnn_read_uci("airfoil.data"), a)
  # leading blanks on every line (the synthetic sets of Wiese et al.)
  iz <- bnn_read_uci("izmailov", dir = dir)
  expect_identical(dim(iz), c(400L, 2L))
  expect_equal(iz$x1[1], 0.14994968473911285)
  for (nm in c("concrete", "energy", "yacht", "sinusoidal")) {
    d <- bnn_read_uci(nm, dir = dir)
    expect_false(anyNA(d))
    expect_true(is.numeric(d$y))
  }
  expect_identical(ncol(bnn_read_uci("concrete", dir = dir)), 9L)
})

test_that("bikesharing keeps 'instant' by default and drops it on request", {
  dir <- skip_if_no_uci()
  b <- bnn_read_uci("bikesharing", dir = dir)
  expect_identical(dim(b), c(17379L, 13L))
  expect_identical(b$x1, as.double(1:17379))          # the row index 'instant'
  b2 <- bnn_read_uci("bikesharing", dir = dir, drop_instant = TRUE)
  expect_identical(dim(b2), c(17379L, 12L))
  expect_identical(names(b2), c(paste0("x", 1:11), "y"))
  expect_identical(b2$x1, b$x2)
  expect_identical(b2$y, b$y)
  # drop_instant has no effect on other data sets
  expect_identical(bnn_read_uci("yacht", dir = dir, drop_instant = TRUE),
                   bnn_read_uci("yacht", dir = dir))
})

test_that("classification files get a factor label, with override", {
  dir <- skip_if_no_uci()
  io <- bnn_read_uci("ionosphere", dir = dir)
  expect_identical(dim(io), c(351L, 34L))
  expect_s3_class(io$y, "factor")
  expect_identical(levels(io$y), c("0", "1"))
  expect_identical(as.vector(table(io$y)), c(126L, 225L))
  gl <- bnn_read_uci("glass_proc", dir = dir)
  expect_identical(levels(gl$y), as.character(0:5))
  expect_identical(nrow(gl), 213L)
  wr <- bnn_read_uci("wine_red_proc", dir = dir)
  expect_identical(nlevels(wr$y), 6L)
  expect_identical(ncol(wr), 12L)
  num <- bnn_read_uci("ionosphere", dir = dir, classification = FALSE)
  expect_true(is.numeric(num$y))
  expect_identical(num$y, as.double(as.character(io$y)))
  expect_error(bnn_read_uci("airfoil", dir = dir, classification = TRUE),
               "integer class labels")
})

test_that("a temporary file in the UCI format is read, classification forced", {
  dir <- write_tmp(c("1 2 0", "", "  3 4 1  ", "5\t6 1"))
  d <- bnn_read_uci("toy", dir = dir)
  expect_equal(d, data.frame(x1 = c(1, 3, 5), x2 = c(2, 4, 6), y = c(0, 1, 1)),
               ignore_attr = TRUE)
  expect_identical(attr(d, "source"), file.path(dir, "toy.data"))
  dc <- bnn_read_uci("toy", dir = dir, classification = TRUE)
  expect_identical(dc$y, factor(c("0", "1", "1")))
})

test_that("missing directory and missing file give helpful errors", {
  expect_error(bnn_read_uci("airfoil", dir = ""), "options\\(bnnmc.data_dir")
  expect_error(bnn_read_uci("airfoil", dir = ""), "BNNMC_DATA_DIR")
  expect_error(bnn_read_uci("airfoil", dir = file.path(tempdir(), "no-such-dir")),
               "does not exist")
  dir <- write_tmp("1 2", name = "present")
  err <- expect_error(bnn_read_uci("airfoil", dir = dir), "airfoil.data")
  expect_match(conditionMessage(err), "UCI Machine Learning Repository")
  expect_match(conditionMessage(err), "Available in that directory: present")
  expect_error(bnn_read_uci(file.path(dir, "nothere.data")), "does not exist")
  expect_error(bnn_read_uci(c("a", "b"), dir = dir), "single non-empty string")
})

test_that("malformed files are reported with line and column", {
  dir <- write_tmp(c("1 2 3", "4 5 6", "7 8", "1 2 3", "9 9 9 9"), name = "cols")
  err <- expect_error(bnn_read_uci("cols", dir = dir), "wrong number of columns")
  expect_match(conditionMessage(err), "expected 3")
  expect_match(conditionMessage(err), "line 3 has 2")
  expect_match(conditionMessage(err), "line 5 has 4")
  # blank lines count for the line numbers
  dir <- write_tmp(c("1 2 3", "", "4 5 6", "7 abc 9"), name = "text")
  expect_error(bnn_read_uci("text", dir = dir), "'abc' on line 4, column 2")
  dir <- write_tmp(c("1,2,3", "4,5,6"), name = "comma")
  expect_error(bnn_read_uci("comma", dir = dir), "non-numeric text '1,2,3' on line 1, column 1")
  dir <- write_tmp(character(), name = "empty")
  expect_error(bnn_read_uci("empty", dir = dir), "is empty")
  dir <- write_tmp(c("", "   "), name = "blank")
  expect_error(bnn_read_uci("blank", dir = dir), "is empty")
  dir <- write_tmp(c("1", "2"), name = "onecol")
  expect_error(bnn_read_uci("onecol", dir = dir), "one column")
  dir <- write_tmp(c("1 2 3", "4 ? 6"), name = "qmark")
  expect_warning(d <- bnn_read_uci("qmark", dir = dir), "missing values")
  expect_true(is.na(d$x2[2]))
  dir <- write_tmp(c("1 2 0.5", "4 5 1"), name = "frac")
  expect_error(bnn_read_uci("frac", dir = dir, classification = TRUE), "integer class labels")
})

test_that("fixed splits are read as disjoint 1-based indices", {
  dir <- skip_if_no_uci()
  s <- bnn_paper_uci_splits("airfoil", dir = dir)
  expect_named(s, c("train", "test"))
  expect_identical(length(s$train), 1202L)
  expect_identical(length(s$test), 301L)
  expect_identical(s$train[1:3], c(459L, 1246L, 1035L) + 1L)
  expect_identical(sort(c(s$train, s$test)), 1:1503)
  toy <- bnn_paper_uci_splits("sinusoidal", dir = dir)  # found in the toy file
  expect_identical(sort(c(toy$train, toy$test)), 1:150)
  expect_error(bnn_paper_uci_splits("bikesharing", dir = dir), "available: airfoil")
  expect_error(bnn_paper_uci_splits("airfoil", dir = ""), "BNNMC_DATA_DIR")
})

test_that("split files: explicit file, bad content", {
  f <- tempfile(fileext = ".json")
  writeLines('{"a": {"train": [0, 2], "validate": [1]}, "b": {"train": [1], "validate": [1]}}', f)
  expect_identical(bnn_paper_uci_splits("a", file = f), list(train = c(1L, 3L), test = 2L))
  expect_error(bnn_paper_uci_splits("b", file = f), "overlap")
  expect_error(bnn_paper_uci_splits("c", file = f), "available: a, b")
  expect_error(bnn_paper_uci_splits("a", file = tempfile()), "does not exist")
  writeLines('{"a": {"train": [0, -2], "validate": [1]}}', f)
  expect_error(bnn_paper_uci_splits("a", file = f), "non-negative integers")
  writeLines('{"a": {"train": [0, 1]}}', f)
  expect_error(bnn_paper_uci_splits("a", file = f), "'train' and 'validate'")
})

test_that("the built-in JSON parser agrees with jsonlite", {
  txt <- paste0('{"x": {"train": [3, 0, 12], "validate": [1e2, -2.5]}, ',
                '"s": ["a\\"b", "\\u00e9\\n"], "l": [true, null, false], ',
                '"nested": [[1, 2], {"k": "v"}], "e": {}, "ea": []}')
  p <- .bnn_json_parse(txt)
  expect_identical(p$x$train, c(3, 0, 12))
  expect_identical(p$x$validate, c(100, -2.5))
  expect_identical(p$s, c("a\"b", "\u00e9\n"))
  expect_identical(p$l, c(TRUE, NA, FALSE))
  expect_identical(p$nested, list(c(1, 2), list(k = "v")))
  expect_length(p$e, 0L)
  expect_identical(p$ea, list())
  skip_if_not_installed("jsonlite")
  j <- jsonlite::fromJSON(txt, simplifyVector = TRUE)
  expect_equal(p$x, j$x)
  expect_identical(p$s, j$s)
  expect_identical(p$l, j$l)
  for (bad in c('{"a": [1, 2}', '{"a" 1}', '{"a": 01}', '[1, 2] x', '{"a": tru}', '',
                '{"a": [1,, 2]}', "{'a': 1}"))
    expect_error(.bnn_json_parse(bad), info = bad)
  dir <- bnn_test_uci_dir()
  if (!is.null(dir)) {  # the real split file, both parsers
    f <- file.path(dir, "toy_split_indices_0.2.json")
    pj <- .bnn_json_parse(paste(readLines(f, warn = FALSE), collapse = "\n"))
    jj <- jsonlite::fromJSON(f)
    expect_equal(pj$izmailov$train, jj$izmailov$train)
    expect_equal(pj$sinusoidal$validate, jj$sinusoidal$validate)
  }
})

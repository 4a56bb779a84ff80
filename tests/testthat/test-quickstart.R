# The quick start example (inst/examples/quickstart.R): its data come from
# bnn_split() and it says which sampler it runs.

test_that("the quick start takes its data from bnn_split() and says it runs MILE", {
  f <- system.file("examples", "quickstart.R", package = "bnnmc")
  skip_if(!nzchar(f))
  txt <- readLines(f)
  expect_true(any(grepl("bnn_split(Boston, \"mile\"", txt, fixed = TRUE)))
  expect_true(any(grepl("valid_data = valid", txt, fixed = TRUE)))
  # MILE, which is also bnn_fit()'s default sampler (an older comment called
  # NUTS the default)
  expect_true(any(grepl("by MILE", txt)) && any(grepl("default sampler", txt)))
  expect_false(any(grepl("NUTS, which is", txt)))
  expect_true(all(c("train", "valid", "test") %in% all.vars(parse(text = txt))))
})

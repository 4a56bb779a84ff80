# brms/rstanarm arguments that bnn_fit() spells differently: the error names
# the bnnmc way.

test_that("cores, threads name options(mc.cores)", {
  expect_error(bnn_fit(mpg ~ wt, data = mtcars, cores = 2),
               "no argument 'cores'.*options\\(mc.cores = 2\\)")
  expect_error(bnn_fit(mpg ~ wt, data = mtcars, threads = 2), "'threads'.*options\\(mc.cores")
})

test_that("refresh, silent and verbose name 'progress'", {
  expect_error(bnn_fit(mpg ~ wt, data = mtcars, refresh = 0), "'refresh'.*progress = FALSE")
  expect_error(bnn_fit(mpg ~ wt, data = mtcars, refresh = 100), "'refresh'.*progress = TRUE")
  expect_error(bnn_fit(mpg ~ wt, data = mtcars, silent = 2), "'silent'.*progress = FALSE")
  expect_error(bnn_fit(mpg ~ wt, data = mtcars, verbose = TRUE), "'verbose'.*progress = TRUE")
})

test_that("adapt_delta, max_treedepth and control name bnn_nuts() with their values", {
  expect_error(bnn_fit(mpg ~ wt, data = mtcars, adapt_delta = 0.95),
               "'adapt_delta'.*sampler = bnn_nuts\\(adapt_delta = 0.95\\)")
  expect_error(bnn_fit(mpg ~ wt, data = mtcars, max_treedepth = 12),
               "sampler = bnn_nuts\\(max_treedepth = 12\\)")
  expect_error(bnn_fit(mpg ~ wt, data = mtcars,
                       control = list(adapt_delta = 0.99, max_treedepth = 12)),
               "'control'.*sampler = bnn_nuts\\(adapt_delta = 0.99, max_treedepth = 12\\)")
  # several at once: one error naming each
  expect_error(bnn_fit(mpg ~ wt, data = mtcars, cores = 4, refresh = 0),
               "no arguments 'cores', 'refresh'.*mc.cores = 4.*progress = FALSE")
})

test_that("algorithm, inits, prior_aux, QR name what bnnmc has instead", {
  expect_error(bnn_fit(mpg ~ wt, data = mtcars, algorithm = "meanfield"),
               "'algorithm'.*sampler.*bnn_fit_laplace\\(\\)")
  expect_error(bnn_fit(mpg ~ wt, data = mtcars, inits = "random"), "'inits'.*'init'")
  expect_error(bnn_fit(mpg ~ wt, data = mtcars, prior_aux = 1), "bnn_likelihood\\(\"gaussian\", sigma_prior")
  expect_error(bnn_fit(mpg ~ wt, data = mtcars, QR = TRUE), "'QR'.*standardize = TRUE")
})

test_that("other unknown arguments still get the generic error with a suggestion", {
  expect_error(bnn_fit(mpg ~ wt, data = mtcars, iters = 10), "unknown argument.*'iters'.*'iter'")
})

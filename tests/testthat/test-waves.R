# Chains in waves until the chain-count bound is met (bnn_waves()).

wave_data <- function() {
  set.seed(3)
  d <- data.frame(x = runif(30, -2, 2))
  d$y <- sin(2 * d$x) + rnorm(30, sd = 0.1)
  d
}

test_that("a waves fit has the draws of a plain fit with as many chains", {
  d <- wave_data()
  w <- bnn_waves(wave = 8, max_chains = 24, p = 0.5, k = 2)
  fw <- suppressWarnings(bnn_fit(y ~ x, data = d, hidden = 2, likelihood = "gaussian",
                                 sampler = "nuts", warmup = 30, iter = 1, chains = w,
                                 seed = 5, progress = FALSE))
  n <- fw$chains
  expect_true(n %in% c(8, 16, 24))
  expect_equal(nrow(fw$waves$log), n / 8)
  f <- suppressWarnings(bnn_fit(y ~ x, data = d, hidden = 2, likelihood = "gaussian",
                                sampler = "nuts", warmup = 30, iter = 1, chains = n,
                                seed = 5, progress = FALSE))
  expect_identical(fw$draws, f$draws)
  expect_identical(fw$sampler_stats, f$sampler_stats)
  expect_identical(fw$inits, f$inits)
  # the logged bound is bnn_chains_needed() of the chains of the fit
  last <- fw$waves$log[nrow(fw$waves$log), ]
  cn <- bnn_chains_needed(f, p = 0.5, k = 2)
  expect_equal(last$bound, cn$chains)
  expect_equal(last$modes, 2L)
  expect_equal(last$min_prob, min(cn$probs))
  if (n < 24) expect_gte(n, last$bound)
  expect_output(print(fw), "waves:")
})

test_that("waves stop at the bound, or at max_chains with a warning", {
  d <- wave_data()
  # one mode: the exact bound is 1 chain, met by the first wave; the
  # Markov bound is 1 / (1 - p)
  f1 <- short_run(bnn_fit(y ~ x, data = d, hidden = 2, likelihood = "gaussian", sampler = "nuts",
                          warmup = 30, iter = 1,
                          chains = bnn_waves(wave = 6, max_chains = 40, k = 1, bound = "exact"),
                          seed = 2, progress = FALSE))
  expect_equal(f1$chains, 6L)
  expect_equal(f1$waves$log$bound, 1L)
  f1m <- short_run(bnn_fit(y ~ x, data = d, hidden = 2, likelihood = "gaussian", sampler = "nuts",
                           warmup = 30, iter = 1, chains = bnn_waves(wave = 6, max_chains = 40,
                                                                     k = 1, p = 0.75),
                           seed = 2, progress = FALSE))
  expect_equal(f1m$waves$log$bound, 4L)
  expect_equal(f1m$chains, 6L)
  expect_identical(f1m$draws, f1$draws)
  # p close to 1 with two modes: the bound (E / (1 - p)) is far above 12
  expect_warning(f2 <- short_run(bnn_fit(y ~ x, data = d, hidden = 2, likelihood = "gaussian",
                                         sampler = "nuts", warmup = 30, iter = 1,
                                         chains = bnn_waves(wave = 6, max_chains = 12,
                                                            p = 0.999, k = 2),
                                         seed = 2, progress = FALSE)),
                 "max_chains = 12 chains were run before the chain-count bound was met")
  expect_equal(f2$chains, 12L)
  expect_equal(nrow(f2$waves$log), 2L)
  # too few draws for the graph: no estimate in the first wave, noted
  f4 <- short_run(bnn_fit(y ~ x, data = d, hidden = 2, likelihood = "gaussian", sampler = "nuts",
                          warmup = 30, iter = 1,
                          chains = bnn_waves(wave = 4, max_chains = 8, k = 1, bound = "exact"),
                          seed = 2, progress = FALSE))
  expect_equal(f4$chains, 8L)
  expect_match(f4$waves$log$note[1], "Too few draws")
  expect_equal(f4$waves$log$bound, c(NA, 1L))
  # min_chains: no estimate before it
  f3 <- suppressWarnings(bnn_fit(y ~ x, data = d, hidden = 2, likelihood = "gaussian",
                                 sampler = "nuts", warmup = 30, iter = 1,
                                 chains = bnn_waves(wave = 5, min_chains = 10, max_chains = 10, k = 1,
                                                    bound = "exact"),
                                 seed = 2, progress = FALSE))
  expect_equal(f3$chains, 10L)
  expect_true(is.na(f3$waves$log$bound[1]))
  expect_equal(f3$waves$log$bound[2], 1L)
})

test_that("bnn_waves() checks its arguments", {
  expect_error(bnn_waves(wave = 1), "'wave'")
  expect_error(bnn_waves(p = 1), "'p'")
  expect_error(bnn_waves(max_chains = 10, min_chains = 20), "'min_chains' must be at most")
  expect_error(bnn_waves(kk = 2), "named arguments of bnn_modes\\(\\).*not: kk")
  expect_error(bnn_waves(wave = 4, p = 0.9, 10, 2, "exact", 3), "named arguments of bnn_modes")
  expect_error(bnn_waves(bound = "chebyshev"), "'bound'")
  expect_output(print(bnn_waves(k = 2)), "waves of 64")
  d <- wave_data()
  expect_error(bnn_fit(y ~ x, data = d, hidden = 2, sampler = "dei",
                       chains = bnn_waves(wave = 4, max_chains = 8), progress = FALSE),
               "not a deep ensemble")
  expect_error(bnn_fit(y ~ x, data = d, hidden = 2, sampler = bnn_ces(),
                       chains = bnn_waves(wave = 4, max_chains = 8), progress = FALSE),
               "not available for sampler = \"ces\"")
})

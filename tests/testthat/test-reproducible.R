test_that("the same seed gives the same draws", {
  f <- function(..., sampler = "nuts") bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2,
                             warmup = 60, iter = 40, progress = FALSE, ..., sampler = sampler,
                             likelihood = "hetero_gaussian")
  a <- suppressWarnings(f(seed = 11))
  b <- suppressWarnings(f(seed = 11))
  c <- suppressWarnings(f(seed = 12))
  expect_identical(a$draws, b$draws)
  expect_identical(a$sampler_stats, b$sampler_stats)
  expect_false(identical(a$draws, c$draws))
})

test_that("chains do not depend on how many there are or their order", {
  f <- function(chains) suppressWarnings(
    bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = chains,
            warmup = 60, iter = 40, seed = 5, progress = FALSE, sampler = "nuts",
            likelihood = "hetero_gaussian"))
  two <- f(2)
  three <- f(3)
  expect_identical(two$draws[, 1:2, ], three$draws[, 1:2, ])
  # run chain 2 alone, before chain 1, through the internal driver
  spec <- bnnmc:::make_spec(two$spec$sizes, "tanh", two$likelihood, two$prior,
                            X = two$X, y = two$y_model)
  r2 <- bnnmc:::run_chain(spec, two$inits[[2]], two$seed, 2L, two$sampler, 60L, 40L, 1L)
  r1 <- bnnmc:::run_chain(spec, two$inits[[1]], two$seed, 1L, two$sampler, 60L, 40L, 1L)
  expect_identical(r2$draws, unname(two$draws[, 2, ]))
  expect_identical(r1$draws, unname(two$draws[, 1, ]))
})

test_that("block size does not change the draws", {
  fit <- suppressWarnings(bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 1,
                                  warmup = 30, iter = 30, seed = 2, progress = FALSE, sampler = "nuts",
                                  likelihood = "hetero_gaussian"))
  spec <- bnnmc:::make_spec(fit$spec$sizes, "tanh", fit$likelihood, fit$prior,
                            X = fit$X, y = fit$y_model)
  r <- bnnmc:::run_chain(spec, fit$inits[[1]], fit$seed, 1L, fit$sampler, 30L, 30L, 1L,
                         block = 7L)
  expect_identical(r$draws, unname(fit$draws[, 1, ]))
})

test_that("thinning keeps every thin-th draw", {
  # iter is the number of draws kept: 10 draws thinned by 3 are 30 transitions
  f <- function(thin, iter) suppressWarnings(
    bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 1, warmup = 30,
            iter = iter, thin = thin, seed = 4, progress = FALSE, sampler = "nuts",
            likelihood = "hetero_gaussian"))
  a <- f(1, 30); b <- f(3, 10)
  expect_equal(dim(b$draws)[1], 10)
  expect_identical(b$draws[, 1, ], a$draws[seq(1, 30, by = 3), 1, ])
})

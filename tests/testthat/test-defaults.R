# The default fit is MILE (measured on the papers' UCI
# sets: vignette("benchmarks"), "Defaults for a first fit"); NUTS and the
# papers' protocols are one argument away.
test_that("the default fit is MILE from a deep ensemble, with the documented network", {
  expect_identical(formals(bnn_fit)$sampler, "mile")
  expect_equal(eval(formals(bnn_fit)$hidden), c(16, 16))
  expect_identical(formals(bnn_fit)$activation, "tanh")
  fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2, seed = 1,
                 progress = FALSE)
  expect_identical(fit$protocol, "mile")
  # a numeric response: one sampled sigma and fan-in scaled weights
  expect_identical(fit$likelihood$family, "gaussian")
  expect_true(fit$prior$fan_in)
  expect_s3_class(fit$sampler, "bnn_mclmc")
  expect_s3_class(fit$ensemble, "bnn_ensemble")
  expect_identical(dim(fit$draws)[1:2], c(500L, 2L))   # 5,000 steps thinned by 10
  expect_true(all(fit$chain_status == "ok"))
  expect_output(print(fit), "MCLMC")
  # the default budget: 16,000/2,000/2,000 tuning and 5,000 sampling steps,
  # in single precision
  expect_identical(fit$sampler$n_tune, c(16000L, 2000L, 2000L))
  expect_identical(fit$n_grad, rep(50001, 2))
  expect_identical(fit$precision, "single")
  expect_output(print(fit), "MILE tuning 16000/2000/2000, 5000 sampling steps thinned by 10")
  # the default equals MILE with that budget in single precision and the
  # ziggurat's normal deviates, draw for draw
  expect_identical(fit$sampler$normal, "ziggurat")
  expect_output(print(fit), "ziggurat normals")
  mile <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2, seed = 1,
                  sampler = bnnmc:::default_sampler(), precision = "single", progress = FALSE)
  expect_identical(fit$draws, mile$draws)
  # sampler = "mile" with the same budget draws its normals by the polar
  # method, as the paper's protocol: other chains
  polar <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 1, seed = 1,
                   sampler = "mile", warmup = 20000, iter = 500, thin = 10,
                   precision = "single", progress = FALSE)
  expect_identical(polar$sampler$normal, "polar")
  expect_false(identical(fit$draws[, 1, ], polar$draws[, 1, ]))
  # sampler = "mile" is the paper's protocol: its budget, in double precision
  paper <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 1, seed = 1,
                   sampler = "mile", progress = FALSE)
  expect_identical(paper$n_grad, 120001)
  expect_identical(paper$precision, "double")
  # NUTS with Stan's defaults is one argument away
  nuts <- suppressWarnings(bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 1,
                                   sampler = "nuts", warmup = 20, iter = 10, seed = 1,
                                   progress = FALSE))
  expect_identical(nuts$protocol, "nuts")
  expect_true("treedepth__" %in% dimnames(nuts$sampler_stats)[[3]])
})

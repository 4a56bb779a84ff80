# The cost estimate before a fit (R/run-cost.R).

test_that("the gradient count of MCLMC is its exact budget, NUTS's a stated guess", {
  g <- bnnmc:::chain_gradients(bnn_mclmc(), warmup = NA, iter = NA, n_obs = 100)
  expect_true(g$exact)
  expect_equal(g$n, bnn_mclmc_budget(bnn_mclmc())$n_grad)
  nuts <- bnnmc:::chain_gradients(bnn_nuts(), warmup = 1000, iter = 1000, n_obs = 100)
  expect_false(nuts$exact)
  expect_equal(nuts$n, 2000 * 63)
  sg <- bnnmc:::chain_gradients(bnn_sgld(batch_size = 50), warmup = 100, iter = 900, n_obs = 1000)
  expect_equal(sg$n, 1000 * 50 / 1000)
  # static HMC: floor(trajectory length / step size) leapfrog steps per
  # transition (it was counted as one gradient per transition)
  hmc <- bnnmc:::chain_gradients(bnn_hmc(stepsize = 0.01, trajectory_length = 0.5),
                                 warmup = 100, iter = 100, n_obs = 100)
  expect_equal(hmc$n, 200 * 50)
  expect_true(hmc$exact)
  expect_false(bnnmc:::chain_gradients(bnn_hmc(adapt_stepsize = TRUE), 10, 10, 100)$exact)
  expect_equal(bnnmc:::chain_gradients(bnn_rwm(), warmup = 10, iter = 20, n_obs = 100)$n, 30)
})

test_that("a fit records its estimate, and long fits are announced with the routes", {
  fit <- suppressWarnings(bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2,
                                  warmup = 100, iter = 100, seed = 1, progress = FALSE,
                                  sampler = "nuts"))
  expect_true(is.numeric(fit$cost_estimate) && fit$cost_estimate > 0)
  expect_output(print(fit), "estimated")
  cost <- list(t_gradient = 0.007, gradients = 120001, exact = TRUE, ensemble = 40,
               per_chain = 840, workers = 1L, cores = 2L, total = 3400, parallel_total = 1700,
               n_obs = 100000L)
  msg <- suppressMessages(bnnmc:::announce_cost(cost, quote(bnn_fit(y ~ ., data = big)), 4L,
                                                full_batch = TRUE))
  expect_match(msg, "estimated time 57 min")
  expect_match(msg, "options\\(mc.cores = 2\\) they would use 2 cores: about 28 min")
  expect_match(msg, "bnn_fit\\(y ~ ., data = big, sampler = bnn_sgld\\(stepsize = 2e-07")
  expect_message(bnnmc:::announce_cost(cost, quote(bnn_fit(y ~ ., data = big)), 4L, TRUE),
                 "minibatch sampler")
  # the papers' heteroscedastic head is swapped for the homoscedastic one,
  # and the message says so
  msg <- suppressMessages(bnnmc:::announce_cost(cost, quote(bnn_fit(y ~ ., data = big,
                                                                    likelihood = "hetero_gaussian")),
                                                4L, full_batch = TRUE))
  expect_match(msg, "likelihood = \"gaussian\"")
  expect_match(msg, "with the homoscedastic Gaussian likelihood")
  expect_no_match(suppressMessages(bnnmc:::announce_cost(cost, quote(bnn_fit(y ~ ., data = big)), 4L, TRUE)),
                  "homoscedastic")
  cost$total <- 10
  expect_silent(bnnmc:::announce_cost(cost, quote(bnn_fit(y ~ ., data = big)), 4L, TRUE))
})

test_that("a long double-precision fit is offered single precision, with its estimate", {
  spec <- bnnmc:::make_spec(c(2L, 8L, 1L), "tanh", list(family = "gaussian", sigma = NULL,
                            sigma_prior = "half_normal", sigma_prior_scale = 1), bnn_prior(),
                            X = matrix(rnorm(4000), 2000), y = rnorm(2000))
  # enough NUTS transitions to pass the offer's threshold
  cost <- bnnmc:::fit_cost(spec, bnn_nuts(), 4L, 2e5L, 2e5L, "random")
  expect_gte(cost$total, bnnmc:::single_offer_seconds)
  # offered only where single precision is faster on these kernels (at
  # least 1.25x; the AVX2 and AVX-512 kernels are, about 2x)
  if (!is.null(cost$single_total))
    expect_lt(cost$single_total, 0.8 * cost$total + 1e-9)
  cost$single_total <- cost$total / 2
  msg <- suppressMessages(bnnmc:::announce_cost(cost, quote(bnn_fit(y ~ ., data = d)), 4L, TRUE))
  expect_match(msg, "In single precision \\(precision = \"single\"")
  expect_match(msg, sprintf("about %s\\.", bnnmc:::format_duration(cost$total / 2)))
  # already single, or a short fit: no offer
  single <- bnnmc:::fit_cost(bnnmc:::spec_set_precision(spec, "single"), bnn_nuts(), 4L, 2e5L, 2e5L, "random")
  expect_null(single$single_total)
  short <- bnnmc:::fit_cost(spec, bnn_nuts(), 1L, 10L, 10L, "random")
  expect_null(short$single_total)
})

test_that("the suggested call is built from a call whose arguments are expressions", {
  cost <- list(t_gradient = 0.007, gradients = 120001, exact = TRUE, ensemble = 40,
               per_chain = 840, workers = 1L, cores = 2L, total = 3400, parallel_total = 1700,
               n_obs = 100000L)
  k <- 4L
  msg <- suppressMessages(bnnmc:::announce_cost(cost, quote(bnn_fit(y ~ ., data = big, chains = k)),
                                                k, full_batch = TRUE))
  expect_match(msg, "chains = k, sampler = bnn_sgld")
})

test_that("a call's plans time the gradient of a network on the same rows once", {
  lik <- list(family = "gaussian", sigma = NULL, sigma_prior = "half_normal",
              sigma_prior_scale = 1)
  X <- matrix(rnorm(100), 50)
  y <- rnorm(50)
  spec <- bnnmc:::make_spec(c(2L, 4L, 4L, 1L), "tanh", lik, bnn_prior(), X = X, y = y)
  theta <- 0.1 * sin(seq_len(bnnmc:::spec_dim(spec)))
  times <- new.env(parent = emptyenv())
  a <- bnnmc:::timed_gradient(spec, theta, times)
  expect_length(ls(times), 1L)
  # a wider prior on the same network and rows: the same timing, not a new one
  wide <- bnnmc:::make_spec(c(2L, 4L, 4L, 1L), "tanh", lik, bnn_prior(scale = 3), X = X, y = y)
  expect_identical(bnnmc:::timed_gradient(wide, theta, times), a)
  expect_length(ls(times), 1L)
  # another network: timed on its own
  other <- bnnmc:::make_spec(c(2L, 8L, 1L), "tanh", lik, bnn_prior(), X = X, y = y)
  bnnmc:::timed_gradient(other, 0.1 * sin(seq_len(bnnmc:::spec_dim(other))), times)
  expect_length(ls(times), 2L)
  # without an environment: timed every time
  expect_gt(attr(bnnmc:::timed_gradient(spec, theta), "cpu"), 0)
  expect_length(ls(times), 2L)
})

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
  expect_match(msg, "future::plan\\(future::multisession\\) they would use 2 cores: about 28 min")
  expect_match(msg, "bnn_fit\\(y ~ ., data = big, sampler = bnn_sgld\\(stepsize = 2e-07")
  expect_message(bnnmc:::announce_cost(cost, quote(bnn_fit(y ~ ., data = big)), 4L, TRUE),
                 "minibatch sampler")
  cost$total <- 10
  expect_silent(bnnmc:::announce_cost(cost, quote(bnn_fit(y ~ ., data = big)), 4L, TRUE))
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

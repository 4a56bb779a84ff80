# The cost announcement shows the call with its arguments abbreviated: a
# do.call() puts the data frame itself into the call, which must not be
# deparsed into the message.

test_that("the minibatch suggestion abbreviates data frames and functions put in the call", {
  df <- as.data.frame(matrix(rnorm(6000 * 10), 6000))
  df$y <- rnorm(6000)
  cl <- as.call(list(quote(bnn_fit), y ~ ., data = df, hidden = c(16, 16),
                     init = function(i) rep(0.1, 500), seed = 1))
  cost <- list(n_obs = 6000, t_gradient = 1e-3, workers = 1L, cores = 1L, total = 1000,
               exact = TRUE, gradients = 1e6, ensemble = 0, single_total = NULL,
               parallel_total = 1000)
  expect_message(msg <- bnnmc:::announce_cost(cost, cl, 4L, full_batch = TRUE), "minibatch")
  expect_lt(nchar(msg), 1000)
  expect_match(msg, "bnn_fit(y ~ ., data = <data frame: 6000 x 11>, hidden = c(16, 16), init = <function>, seed = 1, sampler = bnn_sgld(",
               fixed = TRUE)
})

test_that("calls as typed keep their arguments in full", {
  cl <- quote(bnn_fit(medv ~ crim + zn + indus, data = MASS::Boston[1:400, ], chains = 4))
  expect_identical(bnnmc:::deparse_call_short(cl),
                   "bnn_fit(medv ~ crim + zn + indus, data = MASS::Boston[1:400, ], chains = 4)")
  expect_identical(bnnmc:::deparse_arg_short(1:1000), "<integer vector of length 1000>")
  expect_identical(bnnmc:::deparse_arg_short(matrix(0, 3, 200)), "<double matrix: 3 x 200>")
})

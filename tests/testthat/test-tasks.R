# The synthetic tasks AF1-AF4 of Staber and Da Veiga.

test_that("the tasks have the paper's sizes, noise, input laws and surrogates", {
  t1 <- bnn_paper_task("AF1"); t2 <- bnn_paper_task("AF2"); t3 <- bnn_paper_task("AF3"); t4 <- bnn_paper_task("AF4")
  expect_equal(sapply(list(t1, t2, t3, t4), `[[`, "n"), c(100, 100, 82, 120))
  expect_equal(sapply(list(t1, t2, t3, t4), `[[`, "n_test"), c(200, 200, 200, 120))
  expect_equal(sapply(list(t1, t2, t3, t4), `[[`, "sigma"), c(0.2, 0.25, 0.25, 0.02))
  expect_equal(sapply(list(t1, t2, t3, t4), function(t) bnn_n_parameters(c(1, t$hidden, 1))),
               c(10401, 2701, 2701, 20501))
  expect_identical(t1$likelihood$sigma, 0.2)
  expect_false(t1$standardize)
  x <- c(-2.5, 0, 1.7)
  expect_equal(t1$f(x), cos(2 * x) + sin(x))
  expect_equal(t2$f(x), 0.1 * x^3)
  expect_equal(bnn_paper_task("AF2", exponent = 2)$f(x), 0.1 * x^2)
  expect_equal(t3$f(x), -(1 + x) * sin(1.2 * x))
  # AF4: a 1-100-100-100-1 ReLU network with weights from N(0, I), by hand
  w <- bnn_unflatten(t4$w0, c(1, 100, 100, 100, 1))
  relu <- function(z) pmax(z, 0)
  h <- relu(outer(x, w$layer1$W[1, ]) + rep(w$layer1$b, each = 3))
  h <- relu(h %*% w$layer2$W + rep(w$layer2$b, each = 3))
  h <- relu(h %*% w$layer3$W + rep(w$layer3$b, each = 3))
  expect_equal(t4$f(x), as.vector(h %*% w$layer4$W + w$layer4$b), tolerance = 1e-10)
  expect_equal(t4$w0, with(list(), { set.seed(4); rnorm(20501) }))
  expect_false(identical(bnn_paper_task("AF4", net_seed = 5)$w0, t4$w0))

  d3 <- bnn_paper_task_data(t3, n_sets = 3, seed = 2)
  for (tr in d3$train) {
    expect_equal(nrow(tr), 82)
    expect_equal(sum(abs(tr$x) < 2), 2)
    expect_true(all(abs(tr$x) <= 6))
  }
  d4 <- bnn_paper_task_data(t4, n_sets = 1, seed = 2)
  expect_true(all((d4$train[[1]]$x >= -10 & d4$train[[1]]$x <= -6) |
                  (d4$train[[1]]$x >= 6 & d4$train[[1]]$x <= 10) |
                  (d4$train[[1]]$x >= 14 & d4$train[[1]]$x <= 18)))
  expect_true(all(d4$test$x >= -12 & d4$test$x <= 22))
  d2 <- bnn_paper_task_data(t2, n_sets = 1, seed = 1)
  expect_true(all(abs(d2$train[[1]]$x) >= 1 & abs(d2$train[[1]]$x) <= 4))
  expect_true(min(d2$test$x) < -3 && max(d2$test$x) > 3 && any(abs(d2$test$x) < 1))
})

test_that("task data are reproducible per set and leave R's RNG alone", {
  set.seed(11); before <- .Random.seed
  a <- bnn_paper_task_data("AF1", n_sets = 4, seed = 7)
  expect_identical(.Random.seed, before)
  b <- bnn_paper_task_data("AF1", seed = 7, sets = c(3, 1))
  expect_identical(b$train, a$train[c(3, 1)])
  expect_identical(b$test, a$test)
  expect_false(identical(a$train[[1]], a$train[[2]]))
  # the noise has the task's sd
  big <- bnn_paper_task_data("AF1", n_sets = 20, seed = 1)
  r <- unlist(lapply(big$train, function(d) d$y - cos(2 * d$x) - sin(d$x)))
  expect_equal(sd(r), 0.2, tolerance = 0.05)
})

test_that("tasks reject bad names and settings", {
  expect_error(bnn_paper_task("AF5"), "'name' must be one of")
  expect_error(bnn_paper_task("AF2", exponent = 4), "'exponent'")
  expect_error(bnn_paper_task_data("nope"), "'name' must be one of")
  expect_error(bnn_paper_task_data(list()), "'task' must be")
  expect_output(print(bnn_paper_task("AF3")), "82 points")
})

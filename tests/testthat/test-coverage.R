# Coverage over training sets: PICP, CCP, MCP, MAE of CCP, Q^2; the study
# driver's data, seeds, resuming and plans.

test_that("bnn_coverage_metrics computes PICP, CCP, MCP and MAE of CCP directly", {
  set.seed(1)
  I <- matrix(runif(7 * 30) < 0.8, 7, 30)
  m <- bnn_coverage_metrics(I, level = 0.9)
  expect_equal(m$picp, apply(I, 1, mean))
  expect_equal(m$ccp, apply(I, 2, mean))
  expect_equal(m$mcp, sum(I) / length(I))
  expect_equal(m$mcp_se, sd(rowMeans(I)) / sqrt(7))
  # compared with the level 0.9 (the authors' code compares with alpha = 0.1)
  expect_equal(m$mae_ccp, sum(abs(colMeans(I) - 0.9)) / 30)
  expect_false(isTRUE(all.equal(m$mae_ccp, mean(abs(colMeans(I) - 0.1)))))
  I[2, ] <- NA
  expect_equal(bnn_coverage_metrics(I, 0.9)$n_sets, 6)
  expect_equal(bnn_coverage_metrics(I, 0.9)$mcp, mean(I[-2, ]))
  expect_error(bnn_coverage_metrics(I, 1.2), "'level'")
  expect_error(bnn_coverage_metrics(1:3, 0.5), "'I' must be")
})

test_that("Q^2 is the coefficient of determination of the predictive mean", {
  set.seed(2)
  y <- rnorm(30); mu <- matrix(rnorm(5 * 30, 0.5 * rep(y, each = 5)), 5, 30)
  m <- bnn_metrics_gaussian(mu, 1, y)
  expect_equal(m$q2, 1 - sum((y - colMeans(mu))^2) / sum((y - mean(y))^2))
  expect_true(is.na(bnn_metrics_gaussian(mu[, 1, drop = FALSE], 1, y[1])$q2))
  fit <- bnn_paper_lm_baseline(mpg ~ wt, mtcars[1:20, ])
  te <- mtcars[21:32, ]
  expect_equal(bnn_metrics(fit, te)$q2,
               1 - sum((te$mpg - predict(fit$fit, te))^2) / sum((te$mpg - mean(te$mpg))^2))
})

test_that("interval types: exact mixture quantiles, sampled quantiles, Gaussian", {
  set.seed(3)
  mu <- matrix(rnorm(40 * 6), 40, 6); sd <- matrix(runif(40 * 6, 0.2, 1), 40, 6)
  lv <- c(0.5, 0.9)
  q <- bnnmc:::predictive_bounds(mu, sd, lv, "quantile", 1)
  Q <- bnn_mixture_quantile(mu, sd, c(0.25, 0.05, 0.75, 0.95))
  expect_equal(q$lower, Q[, 1:2], ignore_attr = TRUE)
  expect_equal(q$upper, Q[, 3:4], ignore_attr = TRUE)
  g <- bnnmc:::predictive_bounds(mu, sd, lv, "gaussian", 1)
  v <- apply(mu, 2, function(m) mean((m - mean(m))^2)) + colMeans(sd^2)
  expect_equal(g$upper[, 2], colMeans(mu) + qnorm(0.95) * sqrt(v))
  s <- bnnmc:::predictive_bounds(mu, sd, lv, "sampled", 5)
  ys <- bnnmc:::with_seed(5, mu + sd * matrix(rnorm(240), 40, 6))
  expect_equal(s$lower[, 1], apply(ys, 2, quantile, 0.25, type = 7), ignore_attr = TRUE)
})

# A custom method: the least-squares line with a Gaussian predictive of the
# task's sd (a "posterior" of one draw).
lm_method <- bnn_method("lm", label = "line", fit = function(formula, data, model, seed, s) {
  fit <- lm(formula, data)
  function(newdata) list(mu = matrix(predict(fit, newdata), nrow = 1),
                         sd = matrix(s$sd, 1, nrow(newdata)))
}, sd = 0.2)

test_that("the study's indicators equal a direct computation on the task's sets", {
  st <- bnn_coverage_study("AF1", list(lm_method), n_sets = 4, levels = c(0.5, 0.9), target = 0.9,
                           seed = 5, progress = FALSE)
  d <- bnn_paper_task_data("AF1", n_sets = 4, seed = 5)
  expect_identical(st$test, d$test)
  for (j in 1:4) {
    m <- predict(lm(y ~ x, d$train[[j]]), d$test)
    for (l in 1:2) {
      h <- qnorm((1 + c(0.5, 0.9)[l]) / 2) * 0.2
      expect_identical(st$inside[j, 1, l, ], unname(abs(d$test$y - m) <= h))
    }
    expect_equal(unname(st$q2[j, 1]), 1 - sum((d$test$y - m)^2) / sum((d$test$y - mean(d$test$y))^2))
  }
  s <- summary(st)
  I <- st$inside[, 1, 2, ]
  expect_equal(s$mcp, mean(I))
  expect_equal(s$mae_ccp, mean(abs(colMeans(I) - 0.9)))
  expect_equal(s$mcp_se, sd(rowMeans(I)) / 2)
  expect_equal(unname(bnn_mcp_curve(st)[, 1]), c(mean(st$inside[, 1, 1, ]), mean(I)))
  # a straight line cannot follow cos(2x) + sin(x): under-coverage
  expect_lt(s$mcp, 0.6)
})

test_that("bootstrap studies resample the data; results do not depend on the plan", {
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  tr <- mtcars[1:24, ]; te <- mtcars[25:32, ]
  meth <- list(bnn_method("lm", label = "a", fit = function(formula, data, model, seed, s) {
    fit <- lm(formula, data)
    function(newdata) list(mu = matrix(predict(fit, newdata), 1), sd = matrix(3, 1, nrow(newdata)))
  }), bnn_method("ensemble", members = 2, optimizer = bnn_optimizer(epochs = 50)))
  a <- bnn_coverage_study(tr, meth, n_sets = 3, formula = mpg ~ wt, test = te,
                          model = list(hidden = 2, likelihood = "hetero_gaussian"), seed = 9,
                          progress = FALSE)
  expect_equal(a$jobs$status, rep("ok", 6))
  # set j's resample, by hand
  idx <- bnnmc:::with_seed(bnnmc:::derive_seed(9, 2, 1), sample.int(24, 24, replace = TRUE))
  m <- predict(lm(mpg ~ wt, tr[idx, ]), te)
  expect_identical(a$inside[2, "a", "0.50", ], unname(abs(te$mpg - m) <= qnorm(0.75) * 3))
  future::plan(future::multisession, workers = 2)
  b <- bnn_coverage_study(tr, meth, n_sets = 3, formula = mpg ~ wt, test = te,
                          model = list(hidden = 2, likelihood = "hetero_gaussian"), seed = 9,
                          progress = FALSE)
  expect_identical(b$inside, a$inside)
  expect_identical(b$mean, a$mean)
})

test_that("a study resumes from its directory and refuses other settings", {
  dir <- tempfile("study")
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  calls <- 0
  counting <- function(sd) bnn_method("lm", label = "line", sd = sd,
                                       fit = function(formula, data, model, seed, s) {
    fit <- lm(formula, data)
    function(newdata) list(mu = matrix(predict(fit, newdata), 1), sd = matrix(s$sd, 1, nrow(newdata)))
  })
  a <- bnn_coverage_study("AF2", list(counting(0.3)), n_sets = 2, seed = 1, dir = dir,
                          progress = FALSE)
  expect_length(list.files(dir, "^job_"), 2)
  b <- bnn_coverage_study("AF2", list(counting(0.3)), n_sets = 3, seed = 1, dir = dir,
                          progress = FALSE)
  expect_length(list.files(dir, "^job_"), 3)
  expect_identical(b$inside[1:2, , , , drop = FALSE], a$inside)
  # the saved jobs are read, not recomputed
  expect_identical(b$jobs$seconds[1:2], a$jobs$seconds)
  expect_error(bnn_coverage_study("AF2", list(counting(0.5)), n_sets = 3, seed = 1, dir = dir,
                                  progress = FALSE), "method 'line' with other settings")
  expect_error(bnn_coverage_study("AF2", list(counting(0.3)), n_sets = 3, seed = 2, dir = dir,
                                  progress = FALSE), "another task, data, model, levels or seed")
  # a new method extends the saved study; the old jobs are still read
  wide <- counting(0.5)
  wide$label <- "wide"
  c3 <- bnn_coverage_study("AF2", list(counting(0.3), wide), n_sets = 3, seed = 1, dir = dir,
                           progress = FALSE)
  expect_length(list.files(dir, "^job_"), 6)
  expect_identical(c3$jobs$seconds[c3$jobs$method == "line"], b$jobs$seconds)
  expect_identical(c3$inside[, "line", , , drop = FALSE], b$inside)
  expect_setequal(names(readRDS(file.path(dir, "study.rds"))$methods), c("line", "wide"))
  # and the first method alone still resumes from the extended directory
  d <- bnn_coverage_study("AF2", list(counting(0.3)), n_sets = 3, seed = 1, dir = dir,
                          progress = FALSE)
  expect_identical(d$jobs$seconds, b$jobs$seconds)
})

test_that("failed jobs are reported, not turned into coverage", {
  bad <- bnn_method("boom", fit = function(formula, data, model, seed, s) stop("no luck"))
  expect_warning(st <- bnn_coverage_study("AF1", list(lm_method, bad), n_sets = 2, seed = 1,
                                          progress = FALSE), "2 of 4 jobs failed.*no luck")
  expect_true(all(is.na(st$inside[, "boom", , ])))
  expect_equal(summary(st)$n_sets, c(2, 0))
})

test_that("built-in methods run, plots draw, and a reference gives MMDs", {
  task <- bnn_paper_task("AF1")
  task$hidden <- 4
  st <- bnn_coverage_study(task, list(
    bnn_method("ensemble", members = 3, optimizer = bnn_optimizer(epochs = 100)),
    bnn_method("nuts", chains = 1, warmup = 40, iter = 20, max_treedepth = 5)),
    n_sets = 2, seed = 3, reference = "nuts", progress = FALSE)
  expect_equal(st$jobs$status, rep("ok", 4))
  expect_equal(dim(st$inside), c(2, 2, 19, 200))
  expect_equal(st$mmd_ref[, "nuts"], c(0, 0))
  expect_equal(unname(st$mmd_ref[1, "ensemble"]), bnn_mmd(st$draws[[1, 1]], st$draws[[1, 2]]))
  expect_true(all(st$jobs$n_grad > 0))
  pdf(NULL)
  on.exit(dev.off(), add = TRUE)
  expect_invisible(plot(st))
  expect_invisible(plot(st, type = "hist"))
  expect_invisible(plot(st, type = "ccp", level = 0.5))
  expect_error(plot(st, type = "hist", level = 0.97), "one of the study's levels")
  expect_output(print(st), "Coverage study: task AF1, 2 training sets")
})

test_that("bad input to coverage studies gives clear errors", {
  expect_error(bnn_coverage_study("AF9", "nuts"), "'name' must be one of")
  expect_error(bnn_coverage_study("AF1", "bogus"), "Unknown method \"bogus\"")
  expect_error(bnn_coverage_study("AF1", "nuts", n_sets = 1), "'n_sets'")
  expect_error(bnn_coverage_study("AF1", "nuts", levels = c(0.5, 1)), "'levels'")
  expect_error(bnn_coverage_study("AF1", "nuts", levels = 0), "'levels'")
  expect_error(bnn_coverage_study("AF1", c("nuts", "nuts")), "distinct")
  expect_error(bnn_coverage_study("AF1", "nuts", reference = "hmc"), "'reference'")
  expect_error(bnn_coverage_study(mtcars, "nuts"), "'formula'")
  expect_error(bnn_coverage_study(mtcars, "nuts", formula = mpg ~ wt), "'test'")
  expect_error(bnn_coverage_study("AF1", "nuts", model = list(width = 3)), "'model'")
  expect_error(bnn_method("nuts", chain = 2), "Unknown setting.*chain")
  expect_error(bnn_method("dei", fit = 3), "'fit' must be a function")
  expect_true(all(c("dei", "ensemble", "hmc", "mile", "nuts") %in% bnn_methods()$method))
})

test_that("the HMC reference method tunes its step size to acceptance >= 0.8", {
  task <- bnn_paper_task("AF1")
  d <- bnn_paper_task_data(task, n_sets = 1, seed = 4)
  m <- bnn_method("hmc", trajectory_length = 0.3)
  # (100 draws: enough for the step size, not for convergence)
  fit <- short_run(m$fit(y ~ x, d$train[[1]], list(hidden = 4L, activation = "relu",
                                                   likelihood = task$likelihood,
                                                   prior = task$prior, standardize = FALSE),
                         11L, m$settings), also = "bnnmc_not_converged")
  expect_equal(dim(fit$draws)[1:2], c(100, 3))
  expect_identical(fit$sampler$method, "hmc")
  expect_gte(bnnmc:::method_cost(fit)$accept, 0.8)
  # long trajectories: integration time / adapted step size leapfrog steps
  expect_equal(unname(fit$sampler_stats[1, , "n_leapfrog__"]), floor(0.3 / fit$stepsize))
  # the study records the function-space R-hat (chains started at different
  # ensemble members may sit in different modes: it can exceed 1.1)
  r <- bnn_function_rhat(fit, d$test)
  expect_equal(bnnmc:::method_rhat(fit, d$test), c(max(r), median(r)))
})

test_that("stochastic-gradient and approximate methods enter a study by name", {
  task <- bnn_paper_task("AF1")
  task$hidden <- 3
  opt <- bnn_optimizer(optimizer = "adam", lr = 0.01, weight_decay = 0, epochs = 50,
                       loss = "posterior")
  st <- bnn_coverage_study(task, list(
    bnn_method("sgld", sampler = bnn_sgld(stepsize = 1e-4), warmup = 50, iter = 50),
    bnn_method("sghmc", sampler = bnn_sghmc(stepsize = 1e-5), warmup = 20, iter = 20),
    bnn_method("swag", epochs = 10L, rank = 3L, draws = 30L, optimizer = opt),
    bnn_method("mc_dropout", draws = 30L, optimizer = opt),
    bnn_method("laplace", draws = 30L, optimizer = opt, hessian = "ggn")),
    n_sets = 2, levels = c(0.5, 0.95), seed = 2, progress = FALSE)
  expect_equal(st$jobs$status, rep("ok", 10), info = paste(st$jobs$message, collapse = "; "))
  expect_equal(unname(st$jobs$n_draws), c(50, 50, 20, 20, 30, 30, 30, 30, 30, 30))
  expect_true(all(is.finite(st$q2)))
  expect_error(bnn_method("swag", learning_rate = 1), "Unknown setting")
})

test_that("a study saved before the optimiser gained fields still resumes", {
  m <- bnn_method("hmc", trajectory_length = 0.2)
  old <- m
  # an optimiser saved by an earlier version: without the later fields
  old$settings$ensemble <- structure(unclass(m$settings$ensemble)[1:12], class = "bnn_optimizer")
  expect_equal(bnnmc:::method_configs(list(old)), bnnmc:::method_configs(list(m)))
  changed <- m
  changed$settings$ensemble$lr <- 0.1
  expect_false(isTRUE(all.equal(bnnmc:::method_configs(list(changed)),
                                bnnmc:::method_configs(list(m)))))
})

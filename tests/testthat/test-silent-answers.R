# Answers that used to be wrong without a word: residuals of a binomial
# with trials, loo()/waic() given new data or a misspelt argument, refits
# to data changed since the fit, families and responses the model cannot
# represent, overdispersed counts, and the advice and elpd of stacked fits.

# The fits here are short on purpose (they pin behaviour, not posteriors):
# their "keeps fewer than 100 draws" warning is expected (helper-short-run.R).
quick_fit <- function(...) short_run(quiet_verdict(bnnmc::bnn_fit(...)))

binomial_data <- function() {
  set.seed(4)
  d <- data.frame(x = rnorm(60), n = rbinom(60, 20, 0.5) + 1)
  d$s <- rbinom(60, d$n, plogis(d$x))
  d
}

test_that("residuals() of a binomial with trials are the successes' (one column), as brms", {
  d <- binomial_data()
  fit <- quick_fit(cbind(s, n - s) ~ x, data = d, family = binomial(), hidden = integer(0),
                   sampler = "nuts", chains = 1, warmup = 150, iter = 50, seed = 1,
                   progress = FALSE)
  r <- residuals(fit)
  expect_null(dim(r))
  expect_length(r, nrow(d))
  expect_equal(unname(r), d$s - unname(fitted(fit)))
  # Pearson: divided by the sd of the predictive mixture of the successes
  ep <- posterior_epred(fit)
  p <- ep / rep(d$n, each = nrow(ep))
  v <- colMeans(ep * (1 - p) + ep^2) - colMeans(ep)^2
  expect_equal(unname(residuals(fit, type = "pearson")), unname((d$s - colMeans(ep)) / sqrt(v)))
})

test_that("residuals(summary = FALSE) gives draws x observations, as brms", {
  fit <- quick_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 1, warmup = 100, iter = 40,
                   seed = 1, progress = FALSE, sampler = "nuts")
  expect_silent(rd <- residuals(fit, summary = FALSE))
  expect_identical(dim(rd), c(40L, nrow(mtcars)))
  expect_equal(rd, matrix(mtcars$mpg, 40, nrow(mtcars), byrow = TRUE) - posterior_epred(fit),
               ignore_attr = TRUE)
  expect_equal(colMeans(rd), residuals(fit), ignore_attr = TRUE)
  expect_equal(colMeans(residuals(fit, type = "pearson", summary = FALSE)),
               residuals(fit, type = "pearson"), ignore_attr = TRUE)
  expect_error(residuals(fit, summary = NA), "'summary'")
})

test_that("loo() and waic() refuse newdata and unknown arguments instead of ignoring them", {
  fit <- quick_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 1, warmup = 100, iter = 40,
                   seed = 1, progress = FALSE, sampler = "nuts")
  nd <- mtcars[1:5, ]
  expect_error(loo(fit, newdata = nd), "does not take 'newdata'.*log_lik\\(fit, newdata")
  expect_error(waic(fit, newdata = nd), "does not take 'newdata'")
  expect_error(loo(fit, moment_macth = FALSE), "'moment_macth'.*did you mean 'moment_match'")
  expect_error(waic(fit, moment_match = FALSE), "unknown argument")
  expect_error(loo(fit, 3), "unnamed")
  expect_error(waic(fit, fit), "takes one fit")
  # loo's own argument still goes through
  lo <- suppressWarnings(loo(fit, moment_match = FALSE, is_method = "psis"))
  expect_s3_class(lo, "psis_loo")
})

test_that("kfold() and update() refit to the fit's own data, not to a changed data frame", {
  set.seed(1)
  dd <- data.frame(x = rnorm(40))
  dd$y <- sin(dd$x) + rnorm(40, sd = 0.3)
  dd$unused <- letters[1:40 %% 26 + 1]
  # (bnn_fit() called directly: the call names the data frame 'dd')
  fit <- short_run(quiet_verdict(bnn_fit(y ~ x, data = dd, hidden = 2, chains = 1, warmup = 100,
                                         iter = 40, seed = 1, progress = FALSE,
                                         sampler = "nuts")))
  # the fit keeps the rows and columns the model used
  expect_identical(fit$data, dd[, c("x", "y")])
  kf <- short_run(loo::kfold(fit, K = 2, chains = 1))
  dd$y <- dd$y * 10
  # the same rows, another response: kfold() still evaluates the fit's data
  kf2 <- short_run(loo::kfold(fit, K = 2, chains = 1))
  expect_identical(kf2$pointwise, kf$pointwise)
  # update() refuses the changed data frame and says what to pass
  expect_error(update(fit), "'dd' is not the data this fit was made with.*data = fit\\$data")
  u <- short_run(quiet_verdict(update(fit, data = fit$data)))
  expect_identical(u$draws, fit$draws)
  # asked for, the changed data are used (predictions about ten times the fit's)
  u10 <- short_run(quiet_verdict(update(fit, data = dd)))
  expect_equal(sd(fitted(u10)) / sd(fitted(fit)), 10, tolerance = 0.2)
})

test_that("a saved fit refits in a session without its data frame", {
  fit <- local({
    dloc <- data.frame(x = rnorm(30))
    dloc$y <- dloc$x + rnorm(30, sd = 0.5)
    short_run(quiet_verdict(bnn_fit(y ~ x, data = dloc, hidden = 2, chains = 1, warmup = 100,
                                    iter = 30, seed = 2, progress = FALSE, sampler = "nuts")))
  })
  # a new session: the data frame is gone
  rm("dloc", envir = environment(fit$formula))
  expect_message(u <- short_run(quiet_verdict(update(fit))),
                 "not found here; refitting to the training data")
  expect_identical(u$draws, fit$draws)
  kf <- short_run(loo::kfold(fit, K = 2, chains = 1))
  expect_s3_class(kf, "kfold")
  # without data kept (a fit of an older version) the message says what to pass
  old <- fit
  old$data <- NULL
  expect_error(update(old), "not found here.*update\\(fit, data = ")
  expect_error(loo::kfold(old, K = 2), "cannot be found")
})

test_that("family = MASS::negative.binomial(theta) is refused, not sampled with phi free", {
  skip_if_not_installed("MASS")
  expect_error(bnn_fit(breaks ~ wool, data = warpbreaks, family = MASS::negative.binomial(2)),
               "cannot hold fixed.*negbinomial\\(phi_prior = c\\(400, 200\\)\\)")
})

test_that("a binomial response without trials and a response too large for doubles are refused", {
  d <- data.frame(x = rnorm(30), s = 0, f = 0)
  expect_error(bnn_fit(cbind(s, f) ~ x, data = d, family = binomial()), "0 trials")
  set.seed(1)
  big <- data.frame(x = rnorm(50))
  big$y <- 1e300 * (big$x + rnorm(50))
  expect_error(bnn_fit(y ~ x, data = big, hidden = 2, sampler = "nuts"), "too large.*Rescale")
  expect_error(bnn_fit(y ~ x, data = big, family = student(), hidden = 2, sampler = "nuts"),
               "too large")
})

test_that("an overdispersed Poisson fit is said at fit time and by print(); a Poisson one is not", {
  skip_if_not_installed("MASS")
  q <- MASS::quine
  expect_warning(fq <- short_run(bnn_fit(Days ~ Eth + Sex + Age + Lrn, data = q,
                                         family = poisson(), hidden = integer(0),
                                         sampler = "nuts", chains = 2, warmup = 150,
                                         iter = 60, seed = 1, progress = FALSE)),
                 class = "bnnmc_overdispersion")
  dc <- bnnmc:::dispersion_check(fq)
  expect_gt(dc$ratio, 5)
  expect_output(print(fq), "dispersion:.*negbinomial")
  set.seed(2)
  dp <- data.frame(x = rnorm(150))
  dp$k <- rpois(150, exp(1 + 0.5 * dp$x))
  expect_no_warning(fp <- short_run(bnn_fit(k ~ x, data = dp, family = poisson(),
                                            hidden = integer(0), sampler = "nuts", chains = 2,
                                            warmup = 150, iter = 60, seed = 1,
                                            progress = FALSE)),
                    class = "bnnmc_overdispersion")
  expect_false(bnnmc:::overdispersed(bnnmc:::dispersion_check(fp)))
  expect_false(any(grepl("dispersion:", capture.output(print(fp)))))
})

test_that("an overdispersed binomial with trials is said; a binomial one is not", {
  set.seed(3)
  d <- data.frame(x = rnorm(120), N = 30)
  d$s_over <- rbinom(120, d$N, plogis(d$x + rnorm(120, 0, 1.2)))
  d$s_ok <- rbinom(120, d$N, plogis(d$x))
  fit <- function(f) short_run(bnn_fit(f, data = d, family = binomial(), hidden = integer(0),
                                       sampler = "nuts", chains = 2, warmup = 150, iter = 60,
                                       seed = 1, progress = FALSE))
  expect_warning(over <- fit(cbind(s_over, N - s_over) ~ x), "binomial model's replications",
                 class = "bnnmc_overdispersion")
  expect_no_warning(ok <- fit(cbind(s_ok, N - s_ok) ~ x), class = "bnnmc_overdispersion")
  expect_gt(bnnmc:::dispersion_check(over)$ratio, 3)
  expect_false(bnnmc:::overdispersed(bnnmc:::dispersion_check(ok)))
})

mixture_pair <- function() {
  d <- mtcars[, c("mpg", "wt", "hp")]
  f <- function(hidden) quick_fit(mpg ~ wt + hp, data = d, hidden = hidden, sampler = "nuts",
                                  chains = 2, warmup = 100, iter = 100, seed = 3,
                                  progress = FALSE)
  list(net = f(3), lin = f(integer(0)))
}

test_that("the stack's message follows the elpd difference and its SE", {
  m <- mixture_pair()
  n <- nrow(mtcars)
  set.seed(1)
  base <- rnorm(n, -2.5, 0.3)
  # the network ahead on two points in three, the linear model on the third
  sgn <- rep(c(1, 1, -1), length.out = n)
  e <- list(network = base + 0.9 * sgn, linear = base - 0.9 * sgn)
  elpd <- function(x, loglik = NULL) {
    v <- if (length(x$hidden)) e$network else e$linear
    list(elpd = sum(v), se = 1, k_high = 0L, pointwise = v)
  }
  msgs <- character()
  fit <- withCallingHandlers(chosen_fit(bnnmc:::choose_default_model(
    finished_fit(m$net), finished_fit(m$lin), psis_elpd = elpd)),
                             message = function(c) {
                               msgs <<- c(msgs, conditionMessage(c))
                               invokeRestart("muffleMessage")
                             })
  expect_false(is.null(fit$mixture))
  diff <- sum(e$network - e$linear)
  se <- sqrt(n * var(e$network - e$linear))
  expect_gt(diff, 2 * se)
  msg <- paste(msgs, collapse = " ")
  expect_no_match(msg, "about equally well")
  expect_match(msg, "3 network predicts these data better than a Bayesian linear model")
  expect_match(msg, sprintf("a difference of %.1f with SE %.1f", diff, se), fixed = TRUE)
  # nearly equal elpds: "about equally well"
  e <- list(network = base + 0.8 * rep(c(1, -1), length.out = n),
            linear = base - 0.8 * rep(c(1, -1), length.out = n))
  expect_message(bnnmc:::choose_default_model(finished_fit(m$net), finished_fit(m$lin),
                                             psis_elpd = elpd),
                 "about equally well")
})

test_that("loo() of a stacked fit is the stack's elpd, which print() shows, and its advice can be followed", {
  m <- mixture_pair()
  w <- c(network = 0.3, linear = 0.7)
  mix <- bnnmc:::bnnfit_with(m$net, mixture = list(fit = m$lin, weights = w))
  l_net <- suppressWarnings(loo(m$net, moment_match = FALSE))
  l_lin <- suppressWarnings(loo(m$lin, moment_match = FALSE))
  l_mix <- suppressWarnings(loo(mix, moment_match = FALSE))
  want <- log(0.3 * exp(l_net$pointwise[, "elpd_loo"]) + 0.7 * exp(l_lin$pointwise[, "elpd_loo"]))
  expect_equal(unname(l_mix$pointwise[, "elpd_loo"]), unname(want))
  expect_equal(l_mix$estimates["elpd_loo", "Estimate"], sum(want))
  expect_equal(l_mix$diagnostics$pareto_k,
               pmax(l_net$diagnostics$pareto_k, l_lin$diagnostics$pareto_k), ignore_attr = TRUE)
  expect_equal(attr(l_mix, "stacked")$elpd, c(l_net$estimates[1, 1], l_lin$estimates[1, 1]))
  # WAIC the same way
  w_mix <- suppressWarnings(waic(mix))
  w_parts <- suppressWarnings(list(waic(m$net), waic(m$lin)))
  expect_equal(w_mix$estimates["elpd_waic", "Estimate"],
               sum(log(0.3 * exp(w_parts[[1]]$pointwise[, "elpd_waic"]) +
                         0.7 * exp(w_parts[[2]]$pointwise[, "elpd_waic"]))))
  # the stack predicts at least as well as its better model when the
  # weights are the stacking weights
  sw <- bnnmc:::stacking_pair(l_net$pointwise[, 1], l_lin$pointwise[, 1])
  mix2 <- bnnmc:::bnnfit_with(m$net, mixture = list(fit = m$lin,
                                                    weights = c(network = sw[1], linear = sw[2])))
  expect_gte(suppressWarnings(loo(mix2, moment_match = FALSE))$estimates[1, 1],
             max(l_net$estimates[1, 1], l_lin$estimates[1, 1]) - 1e-3)
  # the advice of loo() on a stacked fit is one that works: moment matching
  # each model's draws
  expect_no_error(suppressWarnings(suppressMessages(loo(mix, moment_match = TRUE))))
  expect_error(loo(mix, save_psis = TRUE), "stacks two models")
  # print() of a stacked default fit shows the stack's elpd beside each model's
  mc <- structure(data.frame(model = c("network", "linear"), network = c("2-3-1", "2-1"),
                             elpd_loo = c(-80, -85), se = 1, pareto_k_high = 0L,
                             weight = c(0.6, 0.4), chosen = TRUE),
                  elpd_stack = -78.26)
  expect_match(bnnmc:::format_model_choice(mc), "each alone; stacked -78.3, which is what loo\\(fit\\) estimates")
})

test_that("moment matching works for a binomial with trials", {
  d <- binomial_data()
  fit <- quick_fit(cbind(s, n - s) ~ x, data = d, family = binomial(), hidden = 3,
                   sampler = "nuts", chains = 2, warmup = 150, iter = 100, seed = 1,
                   progress = FALSE)
  lo <- suppressWarnings(loo(fit, moment_match = FALSE, save_psis = TRUE))
  mm <- suppressWarnings(loo_moment_match(fit, lo, k_threshold = 0))
  expect_s3_class(mm, "psis_loo")
  expect_no_warning(suppressMessages(loo(fit, moment_match = TRUE)),
                    class = "bnnmc_loo_moment_match")
})

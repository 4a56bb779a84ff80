# The default's check stacks its network and its linear model (R/fit-choice.R)
# when neither takes almost all the weight, and every predictive function
# then uses each model's draws in proportion to its weight
# (R/predict-mixture.R).

mixture_fits <- function(family = "gaussian") {
  d <- if (family == "gaussian") mtcars[, c("mpg", "wt", "hp")] else
    transform(mtcars, am = factor(am))[, c("am", "wt", "hp")]
  f <- if (family == "gaussian") mpg ~ wt + hp else am ~ wt + hp
  fit <- function(hidden) quiet_verdict(bnn_fit(f, data = d, hidden = hidden, sampler = "nuts",
                                                chains = 2, warmup = 100, iter = 100, seed = 3,
                                                progress = FALSE))
  list(net = fit(3), lin = fit(integer(0)), data = d)
}

test_that("a mixture's predictions use each model's draws in proportion to its weight", {
  m <- mixture_fits()
  mix <- bnnmc:::bnnfit_with(m$net, mixture = list(fit = m$lin,
                                                   weights = c(network = 0.3, linear = 0.7)))
  nd <- m$data[1:6, ]
  # 200 draws in all: 60 of the network's, 140 of the linear model's
  expect_identical(bnnmc:::mixture_counts(mix), c(network = 60, linear = 140))
  ll <- log_lik(mix, newdata = nd)
  expect_identical(dim(ll), c(200L, 6L))
  expect_equal(ll[1:60, ], log_lik(m$net, newdata = nd, ndraws = 60), ignore_attr = TRUE)
  expect_equal(ll[61:200, ], log_lik(m$lin, newdata = nd, ndraws = 140), ignore_attr = TRUE)
  ep <- posterior_epred(mix, newdata = nd)
  expect_equal(ep[61:200, ], posterior_epred(m$lin, newdata = nd, ndraws = 140), ignore_attr = TRUE)
  # the mean is the draws' mean; ndraws splits the same way
  expect_equal(predict(mix, newdata = nd), colMeans(ep))
  expect_identical(dim(posterior_predict(mix, newdata = nd, ndraws = 50, seed = 1)), c(50L, 6L))
  expect_identical(dim(posterior_linpred(mix, newdata = nd)), c(200L, 6L))
  iv <- predict(mix, newdata = nd, type = "interval")
  expect_true(all(iv$lower < iv$mean & iv$mean < iv$upper))
  # metrics and loo see the mixture; the verdict and the draws stay the network's
  expect_equal(bnn_metrics(mix, newdata = nd)$lppd,
               mean(apply(ll, 2, function(a) max(a) + log(mean(exp(a - max(a)))))))
  expect_identical(dim(suppressWarnings(loo(mix))$pointwise)[1], nrow(m$data))
  expect_identical(dim(as.matrix(mix)), dim(as.matrix(m$net)))
  expect_error(bnn_stack_chains(mix, newdata = nd), "already mixes")
  # per-chain diagnostics are the network's chains'
  expect_equal(bnn_function_rhat(mix, nd), bnn_function_rhat(m$net, nd))
  expect_true(all(is.na(bnnmc:::tidy_draw_ids(mix)$.chain)))
  expect_identical(nrow(bnnmc:::tidy_draw_ids(mix)), 200L)
  expect_error(loo_moment_match(mix), "Moment matching")
  # weights of 1 and 0 give the one model
  one <- bnnmc:::bnnfit_with(m$net, mixture = list(fit = m$lin, weights = c(network = 1, linear = 0)))
  expect_equal(posterior_epred(one, newdata = nd), posterior_epred(m$net, newdata = nd))
})

test_that("a mixture of classifiers mixes their class probabilities", {
  m <- mixture_fits("bernoulli")
  mix <- bnnmc:::bnnfit_with(m$net, mixture = list(fit = m$lin,
                                                   weights = c(network = 0.5, linear = 0.5)))
  nd <- m$data[1:5, ]
  pr <- predict(mix, newdata = nd, type = "prob")
  want <- 0.5 * predict(m$net, newdata = nd, type = "prob", ndraws = 100) +
    0.5 * predict(m$lin, newdata = nd, type = "prob", ndraws = 100)
  expect_equal(unname(pr), unname(want))
  expect_identical(dim(posterior_epred(mix, newdata = nd)), c(200L, 5L))
  ll <- log_lik(mix, newdata = nd)
  expect_equal(ll[101:200, ], log_lik(m$lin, newdata = nd, ndraws = 100), ignore_attr = TRUE)
  expect_true(is.finite(bnn_metrics(mix, newdata = nd)$lppd))
})

test_that("the check stacks the two models when neither takes almost all the weight", {
  m <- mixture_fits()
  n <- nrow(m$data)
  # pointwise elpds on which each model is better on half of the points
  set.seed(1)
  base <- rnorm(n, -2.5, 0.3)
  e <- list(network = base + rep(c(0.8, -0.8), length.out = n),
            linear = base + rep(c(-0.8, 0.8), length.out = n))
  elpd <- function(x, loglik = NULL) {
    v <- if (length(x$hidden)) e$network else e$linear
    list(elpd = sum(v), se = 1, k_high = 0L, pointwise = v)
  }
  expect_message(fit <- chosen_fit(bnnmc:::choose_default_model(
    finished_fit(m$net), finished_fit(m$lin), psis_elpd = elpd)), "stacks them")
  expect_false(is.null(fit$mixture))
  expect_equal(sum(fit$mixture$weights), 1)
  expect_true(all(fit$mixture$weights > 0.3))
  expect_identical(fit$model_choice$chosen, c(TRUE, TRUE))
  expect_output(print(fit), "stacked with weights")
  # one model far ahead: it alone, as the choice was made before
  e$linear <- e$network - 1
  fit2 <- chosen_fit(bnnmc:::choose_default_model(finished_fit(m$net), finished_fit(m$lin),
                                                  psis_elpd = elpd))
  expect_null(fit2$mixture)
  expect_identical(fit2$model_choice$chosen, c(TRUE, FALSE))
  expect_equal(fit2$model_choice$weight, c(1, 0), tolerance = 1e-6)
})

test_that("the check reuses the verdict's pointwise log-likelihood and makes the linear verdict only when needed", {
  m <- mixture_fits()
  net <- m$net
  # the verdict keeps the pointwise log-likelihood of every training point
  # when asked: the values pointwise_loglik() computes
  cv <- bnnmc:::convergence_verdict(net, keep_loglik = TRUE)
  ll <- attr(cv, "pointwise_loglik")
  expect_identical(ll, bnnmc:::pointwise_loglik(net))
  # with more training points than the verdict uses, those it used (evenly
  # spaced): the check's PSIS-LOO on larger data
  sub <- bnnmc:::convergence_verdict(net, max_points = 10, keep_loglik = TRUE)
  idx <- attr(sub, "loglik_points")
  expect_identical(idx, unique(round(seq(1, nrow(net$X), length.out = 10))))
  expect_identical(attr(sub, "pointwise_loglik"), bnnmc:::pointwise_loglik(net)[, idx])
  expect_identical(attr(cv, "loglik_points"), seq_len(nrow(net$X)))
  expect_null(attr(bnnmc:::convergence_verdict(net), "pointwise_loglik"))
  # the kept values, passed beside the fit (complete_plan()), give the PSIS-LOO
  # of the fit's own
  kept <- list(pointwise = ll, points = attr(cv, "loglik_points"))
  expect_identical(bnnmc:::fit_psis_elpd(net, kept), bnnmc:::fit_psis_elpd(net))
  # the linear fit comes without a verdict (new_bnn_plan(verdict = FALSE));
  # the check makes it only for a linear model returned alone, and the fit
  # returned never carries the kept log-likelihood
  lin <- bnnmc:::bnnfit_with(m$lin, convergence = NULL)
  e <- bnnmc:::fit_psis_elpd
  far <- function(x, loglik = NULL) {
    r <- e(x, loglik)
    if (length(x$hidden)) r$pointwise <- r$pointwise - 5
    r$elpd <- sum(r$pointwise)
    r
  }
  fit_l <- suppressMessages(chosen_fit(bnnmc:::choose_default_model(
    finished_fit(net, kept), finished_fit(lin), psis_elpd = far)))
  expect_identical(length(fit_l$hidden), 0L)
  expect_s3_class(fit_l$convergence, "bnn_convergence")
  near <- function(x, loglik = NULL) {
    r <- e(x, loglik)
    if (!length(x$hidden)) r$pointwise <- r$pointwise - 5
    r$elpd <- sum(r$pointwise)
    r
  }
  fit_n <- chosen_fit(bnnmc:::choose_default_model(finished_fit(net, kept), finished_fit(lin),
                                                   psis_elpd = near))
  expect_identical(fit_n$hidden, 3L)
  expect_null(attr(fit_n$convergence, "pointwise_loglik"))
})

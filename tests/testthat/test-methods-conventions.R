# The methods' arguments are honoured, not silently ignored, and follow
# the conventions of rstanarm/brms.

fm_data <- local({
  set.seed(2)
  n <- 40
  d <- data.frame(x = rnorm(n), z = rnorm(n))
  d$y <- d$x + 0.3 * rnorm(n)
  d$o <- rnorm(n, 5)
  d$w <- rep(c(1, 2), n / 2)
  d
})

fm_fits <- local({
  cache <- list()
  function(what = c("reg", "small")) {
    what <- match.arg(what)
    if (is.null(cache[[what]]))
      cache[[what]] <<- suppressWarnings(switch(what,
        reg = bnn_fit(y ~ x + z, data = fm_data, hidden = 3, chains = 2, warmup = 100,
                      iter = 50, seed = 3, progress = FALSE, sampler = "nuts",
                      likelihood = "hetero_gaussian"),
        small = bnn_fit(y ~ x, data = fm_data, hidden = 2, chains = 2, warmup = 100,
                        iter = 50, seed = 3, progress = FALSE, sampler = "nuts",
                        likelihood = "hetero_gaussian")))
    cache[[what]]
  }
})

test_that("fitted(newdata =), predict(summary =, probs =) and residuals(type =) are honoured", {
  fit <- fm_fits("reg")
  nd <- fm_data[1:3, ]
  expect_equal(fitted(fit, newdata = nd), predict(fit, nd))
  expect_length(fitted(fit, newdata = nd), 3L)
  d1 <- predict(fit, nd, summary = FALSE, seed = 5)
  expect_identical(d1, predict(fit, nd, type = "draws", seed = 5))
  expect_error(predict(fit, nd, summary = FALSE, type = "interval"), "summary = FALSE")
  q <- predict(fit, nd, probs = c(0.025, 0.5, 0.975))
  expect_identical(names(q), c("mean", "Q2.5", "Q50", "Q97.5"))
  pp <- bnnmc:::predictive_params(fit, nd)
  expect_equal(q$Q97.5, bnn_mixture_quantile(pp$mu, pp$sd, 0.975)[, 1])
  iv <- predict(fit, nd, type = "interval", level = 0.95)
  expect_equal(q$Q2.5, iv$lower)
  expect_warning(predict(fit, nd, draws = 10), "unused argument\\(s\\): draws")
  # Pearson residuals: divided by the sd of the predictive mixture
  pp0 <- bnnmc:::predictive_params(fit, NULL)
  m <- colMeans(pp0$mu)
  v <- colMeans(pp0$sd^2) + colMeans(pp0$mu^2) - m^2
  expect_equal(unname(residuals(fit, type = "pearson")), (fm_data$y - m) / sqrt(v))
  expect_equal(unname(residuals(fit, type = "ordinary")), fm_data$y - m)
  expect_error(residuals(fit, type = "deviance"), "should be one of")
})

test_that("loo(fit1, fit2) compares as brms does; moment_match is implemented", {
  skip_if_not_installed("loo")
  f1 <- fm_fits("reg")
  f2 <- fm_fits("small")
  lst <- suppressWarnings(loo::loo(f1, f2))
  expect_s3_class(lst, "bnn_loolist")
  expect_identical(names(lst$loos), c("f1", "f2"))
  l1 <- suppressWarnings(loo::loo(f1))
  expect_equal(lst$loos$f1$estimates, l1$estimates)
  expect_equal(unname(lst$diffs[, "elpd_diff"]),
               unname(loo::loo_compare(lst$loos)[, "elpd_diff"]))
  expect_output(print(lst), "Model comparisons")
})

test_that("moment matching agrees with the exact LOO of a conjugate linear model", {
  skip_if_not_installed("loo")
  set.seed(4)
  n <- 25
  d <- data.frame(x = rnorm(n))
  d$y <- 0.8 * d$x + rnorm(n, sd = 0.5)
  d$y[3] <- 4                     # an influential point: high Pareto k
  sig <- 0.6
  fit <- suppressWarnings(bnn_fit(y ~ x, data = d, hidden = integer(0),
                                  likelihood = bnn_likelihood("gaussian", sigma = sig),
                                  chains = 2, warmup = 200, iter = 400, seed = 7,
                                  progress = FALSE, sampler = "nuts"))
  # exact LOO: the posterior of (w, b) without observation i is Gaussian
  X <- cbind(fit$X[, 1], 1)
  ys <- fit$y_model
  exact <- vapply(seq_len(n), function(i) {
    P <- diag(2) + crossprod(X[-i, ]) / sig^2
    m <- solve(P, crossprod(X[-i, ], ys[-i]) / sig^2)
    s2 <- drop(X[i, ] %*% solve(P, X[i, ])) + sig^2
    stats::dnorm(ys[i], sum(X[i, ] * m), sqrt(s2), log = TRUE) - log(fit$y_scale)
  }, numeric(1))
  lo <- suppressWarnings(loo::loo(fit, moment_match = TRUE))
  expect_s3_class(lo, "psis_loo")
  expect_equal(unname(lo$pointwise[, "elpd_loo"]), exact, tolerance = 0.05)
  mm <- suppressWarnings(loo::loo_moment_match(fit, k_threshold = 0.3))
  expect_equal(unname(mm$pointwise[, "elpd_loo"]), exact, tolerance = 0.05)
})

test_that("offset() in the formula shifts the mean exactly", {
  d <- fm_data
  d$y <- round(d$y * 1024) / 1024    # so that (y + o) - o == y exactly
  d$o <- round(d$o)
  d$y2 <- d$y + d$o
  fo <- suppressWarnings(bnn_fit(y2 ~ x + z + offset(o), data = d, hidden = 3, chains = 2,
                                 warmup = 100, iter = 50, seed = 3, progress = FALSE, sampler = "nuts",
                                 likelihood = "hetero_gaussian"))
  fit <- suppressWarnings(bnn_fit(y ~ x + z, data = d, hidden = 3, chains = 2,
                                  warmup = 100, iter = 50, seed = 3, progress = FALSE, sampler = "nuts",
                                  likelihood = "hetero_gaussian"))
  # the network models y2 - o = y: the same standardised data, the same draws
  expect_true(identical(unname(fo$draws), unname(fit$draws)))
  nd <- d[1:4, ]
  expect_equal(predict(fo, nd), predict(fit, nd) + nd$o)
  expect_equal(unname(log_lik(fo, newdata = nd)), unname(log_lik(fit, newdata = nd)))
  expect_error(bnn_fit(am ~ wt + offset(hp), data = transform(mtcars, am = factor(am)),
                       chains = 1, sampler = "nuts"), "offset\\(\\) in the formula is supported for numeric")
})

test_that("weights = is a weighted likelihood (new C path)", {
  fw <- suppressWarnings(bnn_fit(y ~ x + z, data = fm_data, weights = w, hidden = 3,
                                 chains = 1, warmup = 50, iter = 10, seed = 3,
                                 progress = FALSE, sampler = "nuts",
                                 likelihood = "hetero_gaussian"))
  expect_equal(fw$weights, fm_data$w)
  spec <- bnnmc:::fit_spec(fw)
  th <- bnnmc:::draws_matrix(fw)[, 1:3]
  lw <- .Call(bnnmc:::C_model_logpost, spec, th)
  # the same thing one observation at a time, unweighted
  one <- function(i) {
    s <- spec
    s$weights <- NULL
    s$X <- spec$X[i, , drop = FALSE]
    s$y <- spec$y[i]
    .Call(bnnmc:::C_model_logpost, s, th)
  }
  parts <- lapply(seq_len(nrow(fm_data)), one)
  ll <- Reduce(`+`, Map(function(p, w) w * p$loglik, parts, fm_data$w))
  expect_equal(lw$loglik, ll)
  # gradients: sum_i w_i (grad_i - grad_prior) + grad_prior
  gp <- .Call(bnnmc:::C_model_logpost, within(spec, weights <- rep(0, nrow(fm_data))), th)$grad
  gl <- Reduce(`+`, Map(function(p, w) w * (p$grad - gp), parts, fm_data$w))
  expect_equal(lw$grad, gl + gp)
  # unweighted fits are untouched: weights all 1 give the same log posterior
  s1 <- spec
  s1$weights <- rep(1, nrow(fm_data))
  s0 <- spec
  s0$weights <- NULL
  expect_equal(.Call(bnnmc:::C_model_logpost, s1, th), .Call(bnnmc:::C_model_logpost, s0, th))
  # log_lik() of the training data is weighted, as rstanarm's
  expect_equal(log_lik(fw)[, 2], 2 * bnnmc:::pointwise_loglik_unweighted(fw)[, 2])
  expect_error(bnn_fit(y ~ x, data = fm_data, weights = -w, chains = 1, sampler = "nuts"), "'weights' must be")
})

test_that("valid_data ignored by the sampler warns; na.exclude pads", {
  got <- NULL
  withCallingHandlers(
    bnn_fit(y ~ x, data = fm_data, valid_data = fm_data, hidden = 2, chains = 1,
            warmup = 10, iter = 5, seed = 1, progress = FALSE, sampler = "nuts",
            likelihood = "hetero_gaussian"),
    warning = function(w) {
      if (inherits(w, "bnnmc_ignored_argument")) got <<- conditionMessage(w)
      invokeRestart("muffleWarning")
    })
  expect_match(got, "'valid_data' is only used for the early stopping")
  d <- fm_data
  d$x[3] <- NA
  fe <- suppressWarnings(bnn_fit(y ~ x + z, data = d, na.action = na.exclude, hidden = 2,
                                 chains = 1, warmup = 30, iter = 10, seed = 3, progress = FALSE, sampler = "nuts",
                                 likelihood = "hetero_gaussian"))
  expect_length(fitted(fe), 40L)
  expect_true(is.na(fitted(fe)[3]) && !anyNA(fitted(fe)[-3]))
  expect_true(is.na(residuals(fe)[3]))
  ll <- log_lik(fe)
  expect_identical(dim(ll), c(10L, 40L))
  expect_true(all(is.na(ll[, 3])) && !anyNA(ll[, -3]))
  fo <- suppressWarnings(update(fe, na.action = na.omit))
  expect_length(fitted(fo), 39L)
})

test_that("bayes_R2, loo_R2, prior_summary, sigma, family, ndraws, vcov, logLik", {
  fit <- fm_fits("reg")
  r2 <- bayes_R2(fit)
  pp <- bnnmc:::predictive_params(fit, NULL)
  vf <- apply(pp$mu, 1, var)
  expect_equal(r2, vf / (vf + rowMeans(pp$sd^2)))
  expect_length(r2, ndraws(fit))
  skip_if_not_installed("loo")
  lr2 <- loo_R2(fit, n_boot = 500)
  expect_length(lr2, 500L)
  expect_true(all(lr2 <= 1 & lr2 >= -1))
  expect_lt(median(lr2), median(r2))
  ps <- prior_summary(fit)
  expect_s3_class(ps, "bnn_prior_summary")
  expect_identical(ps$prior, rep("normal(0, 1)", 4))
  expect_output(print(ps), "standardised data")
  expect_equal(sigma(fit), sqrt(mean(pp$sd^2)))
  fg <- suppressWarnings(bnn_fit(y ~ x, data = fm_data, hidden = 2, likelihood = "gaussian",
                                 chains = 1, warmup = 50, iter = 20, seed = 1, progress = FALSE, sampler = "nuts"))
  expect_equal(sigma(fg), median(fg$draws[, 1, "sigma"]) * fg$y_scale)
  expect_true(any(prior_summary(fg)$role == "sigma"))
  expect_identical(family(fg)$family, "gaussian")
  expect_identical(family(fit)$family, "hetero_gaussian")
  expect_equal(ndraws(fit), 100)
  # brms's deprecated nsamples() is neither re-exported nor given a method:
  # ndraws() is the one name
  expect_false("nsamples" %in% getNamespaceExports("bnnmc"))
  expect_error(rstantools::nsamples(fit), "no applicable method")
  expect_error(vcov(fit), "not identified")
  expect_error(logLik(fit), "log_lik")
})

test_that("kfold() refits and gives the same result under any future plan", {
  skip_if_not_installed("loo")
  fit <- fm_fits("small")
  kf <- loo::kfold(fit, K = 3)
  expect_s3_class(kf, "kfold")
  expect_identical(dim(kf$pointwise), c(40L, 3L))
  # fold 1 by hand
  f1 <- suppressWarnings(bnn_fit(y ~ x, data = fm_data[kf$fold != 1, ], hidden = 2, chains = 2,
                                 warmup = 100, iter = 50, seed = 3, progress = FALSE, sampler = "nuts",
                                 likelihood = "hetero_gaussian"))
  ll <- log_lik(f1, newdata = fm_data[kf$fold == 1, ])
  expect_equal(unname(kf$pointwise[kf$fold == 1, "elpd_kfold"]),
               unname(log(colMeans(exp(ll)))))
  # a fit started from an ensemble trained on all the data cannot be refitted fairly
  ens <- bnn_fit_ensemble(y ~ x, data = fm_data, hidden = 2, members = 2,
                      optimizer = bnn_optimizer(epochs = 20), seed = 1, progress = FALSE,
                      likelihood = "hetero_gaussian")
  fe <- suppressWarnings(bnn_fit(y ~ x, data = fm_data, hidden = 2, chains = 2, warmup = 10,
                                 iter = 5, init = ens, seed = 1, progress = FALSE, sampler = "nuts",
                                 likelihood = "hetero_gaussian"))
  expect_error(loo::kfold(fe, K = 2), "started from a given bnn_ensemble")
  skip_if_not_installed("future")
  oplan <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(oplan))
  kf2 <- loo::kfold(fit, K = 3)
  expect_identical(kf2$pointwise, kf$pointwise)
  expect_s3_class(loo::loo_compare(kf, kf2), "compare.loo")
})

test_that("pp_check(type = 'loo_pit_*') computes its own weights; NUTS plots refuse MCLMC", {
  skip_if_not_installed("bayesplot")
  skip_if_not_installed("loo")
  fit <- fm_fits("reg")
  p <- bayesplot::pp_check(fit, type = "loo_pit_qq", seed = 1)
  expect_s3_class(p, "ggplot")
  p2 <- bayesplot::pp_check(fit, type = "loo_intervals", seed = 1)
  expect_s3_class(p2, "ggplot")
  fm <- suppressWarnings(bnn_fit(y ~ x, data = fm_data, hidden = 2, chains = 1, seed = 1,
                                 sampler = bnn_mclmc(n_tune = c(80, 10, 10), n_samples = 20),
                                 progress = FALSE, likelihood = "hetero_gaussian"))
  expect_error(bayesplot::nuts_params(fm), "need a NUTS or HMC fit; this fit used MCLMC")
})

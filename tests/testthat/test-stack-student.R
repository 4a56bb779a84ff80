# A likelihood mixture of a (heteroscedastic) Gaussian and a Student-t
# network pools their draws as Student-t draws, the Gaussian ones with nu =
# Inf (student_block(), R/predict-mixture.R): every predictive function must
# treat each component's draws by its own likelihood.  The checks compare
# the mixture's results with the components' own, computed by hand.

# ---- by hand, on synthetic draws: no fit ---------------------------------

# A Gaussian component of 3 draws and a Student-t one of 2 draws with small
# degrees of freedom (its tails far from a normal's), over 4 rows.
hand_block <- function() {
  set.seed(11)
  g <- list(mu = matrix(rnorm(12), 3, 4), sd = matrix(runif(12, 0.5, 1.5), 3, 4))
  t <- list(family = "student", mu = matrix(rnorm(8), 2, 4), sigma = c(0.7, 1.3),
            nu = c(1.5, 3))
  t$sd <- matrix(ifelse(t$nu > 2, t$sigma * sqrt(t$nu / pmax(t$nu - 2, 1e-12)), Inf), 2, 4)
  list(g = g, t = t)
}

# The pooled CDF at q[i] of every row, by hand: the mean over all five draws
# of pnorm() for the Gaussian draws and pt() for the Student-t ones.
hand_cdf <- function(h, q) {
  vapply(seq_along(q), function(i)
    (sum(pnorm(q[i], h$g$mu[, i], h$g$sd[, i])) +
       sum(pt((q[i] - h$t$mu[, i]) / h$t$sigma, h$t$nu))) / 5, numeric(1))
}

test_that("a Gaussian and a Student-t block pool as t draws with nu = Inf for the Gaussian ones", {
  h <- hand_block()
  for (ord in list(c(1L, 2L), c(2L, 1L))) {
    res <- list(h$g, h$t)[ord]
    pp <- bnnmc:::student_block(res, c("gaussian", "student")[ord])
    expect_identical(pp$family, "student")
    expect_equal(dim(pp$sigma), c(5L, 4L))
    # the Gaussian draws' rows: their sd as the scale, nu = Inf
    gi <- if (ord[1] == 1L) 1:3 else 3:5
    ti <- setdiff(1:5, gi)
    expect_equal(pp$sigma[gi, ], h$g$sd)
    expect_true(all(is.infinite(pp$nu[gi])))
    expect_equal(pp$sigma[ti, ], matrix(h$t$sigma, 2, 4))
    expect_equal(pp$nu[ti], h$t$nu)
    # the log density: dnorm() for the Gaussian draws, dt() for the others
    y <- c(-3, 0.2, 1, 6)
    ll <- bnnmc:::family_log_density(pp, y)
    expect_equal(ll[gi, ], dnorm(matrix(y, 3, 4, byrow = TRUE), h$g$mu, h$g$sd, log = TRUE))
    expect_equal(ll[ti, ], dt((matrix(y, 2, 4, byrow = TRUE) - h$t$mu) / h$t$sigma, h$t$nu,
                              log = TRUE) - log(h$t$sigma))
    # had the t draws been read as Gaussian (mu, sd), the far point's density
    # would differ by far more than rounding
    expect_gt(abs(ll[ti[1], 4] - dnorm(6, h$t$mu[1, 4], 1, log = TRUE)), 1)
    # exact quantiles: the pooled CDF at them is p
    q <- bnnmc:::family_quantiles(pp, c(0.05, 0.5, 0.95))
    for (j in 1:3) expect_equal(hand_cdf(h, q[, j]), rep(c(0.05, 0.5, 0.95)[j], 4),
                                tolerance = 1e-8)
  }
})

test_that("predictive draws of a Gaussian and Student-t block follow each draw's likelihood", {
  h <- hand_block()
  pp <- bnnmc:::student_block(list(h$g, h$t), c("gaussian", "student"))
  big <- pp
  R <- 4000L                       # each of the five draws repeated R times
  big$mu <- pp$mu[rep(1:5, R), ]
  big$sd <- pp$sd[rep(1:5, R), ]
  big$sigma <- pp$sigma[rep(1:5, R), ]
  big$nu <- pp$nu[rep(1:5, R)]
  set.seed(3)
  x <- bnnmc:::family_rdraws(big)
  q <- bnnmc:::family_quantiles(pp, c(0.05, 0.95))
  N <- 5 * R
  for (j in 1:2) {
    ecdf_q <- colMeans(x <= matrix(q[, j], N, 4, byrow = TRUE))
    p <- c(0.05, 0.95)[j]
    expect_true(all(abs(ecdf_q - p) < 4 * sqrt(p * (1 - p) / N)))
  }
  # the Student-t draw with nu = 1.5 has heavy tails: its draws' central
  # 99% range (about 2 * 11.2 scales) is far wider than a normal's with the
  # same scale (2 * 2.58)
  tdraws <- x[seq(4, N, by = 5), 1] - pp$mu[4, 1]
  expect_gt(diff(quantile(tdraws, c(0.005, 0.995))), 3 * 2 * qnorm(0.995) * pp$sigma[4, 1])
})

# ---- on two quick fits -------------------------------------------------

quick_fits <- local({
  cache <- NULL
  function() {
    if (!is.null(cache)) return(cache)
    set.seed(3)
    n <- 80
    d <- data.frame(x = runif(n, -2, 2))
    d$y <- sin(d$x) + 0.3 * rt(n, df = 3)
    test <- data.frame(x = runif(40, -2, 2))
    test$y <- sin(test$x) + 0.3 * rt(40, df = 3)
    args <- list(y ~ x, data = d, hidden = 4, chains = 2, warmup = 200, iter = 100,
                 sampler = "nuts", seed = 1, progress = FALSE)
    het <- suppressWarnings(do.call(bnn_fit, c(args, list(likelihood = "hetero_gaussian"))))
    stu <- suppressWarnings(do.call(bnn_fit, c(args, list(family = student()))))
    mix <- bnnmc:::bnnfit_with(het, mixture = list(
      fit = stu, weights = c(heteroscedastic = 0.6, student = 0.4), kind = "likelihood"))
    mix_t <- bnnmc:::bnnfit_with(stu, mixture = list(
      fit = het, weights = c(student = 0.6, heteroscedastic = 0.4), kind = "likelihood"))
    cache <<- list(d = d, test = test, het = het, stu = stu, mix = mix, mix_t = mix_t)
    cache
  }
})

# The components of a mixture `m` in its order with the draws each gives
# (200 pooled draws: 120 and 80), and their own predictive parameters.
comp_params <- function(m, newdata) {
  comps <- bnnmc:::mixture_components(m)
  n_k <- bnnmc:::mixture_counts(m)
  lapply(1:2, function(k) list(fit = comps[[k]], n = n_k[k],
                               pp = bnnmc:::predictive_params(comps[[k]], newdata, n_k[k])))
}

# The CDF of each component's draws at y (one value per draw and row), by
# hand: pnorm() for a Gaussian network, pt() for a Student-t one.
comp_cdf <- function(cp, y) {
  pp <- cp$pp
  Y <- matrix(y, nrow(pp$mu), ncol(pp$mu), byrow = TRUE)
  if (identical(cp$fit$likelihood$family, "student"))
    pt((Y - pp$mu) / pp$sigma, pp$nu) else pnorm(Y, pp$mu, pp$sd)
}
comp_dens <- function(cp, y) {
  pp <- cp$pp
  Y <- matrix(y, nrow(pp$mu), ncol(pp$mu), byrow = TRUE)
  if (identical(cp$fit$likelihood$family, "student"))
    dt((Y - pp$mu) / pp$sigma, pp$nu) / pp$sigma else dnorm(Y, pp$mu, pp$sd)
}

test_that("log_lik() of the mixture is each component's own log_lik() for its draws", {
  f <- quick_fits()
  for (m in list(f$mix, f$mix_t)) {
    n_k <- bnnmc:::mixture_counts(m)
    expect_equal(unname(n_k), c(120, 80))
    comps <- bnnmc:::mixture_components(m)
    for (nd in list(NULL, f$test)) {
      ll <- log_lik(m, newdata = nd)
      expect_equal(dim(ll), c(200L, if (is.null(nd)) 80L else 40L))
      expect_equal(unname(ll[1:120, ]), unname(log_lik(comps[[1]], newdata = nd, ndraws = 120)))
      expect_equal(unname(ll[121:200, ]), unname(log_lik(comps[[2]], newdata = nd, ndraws = 80)))
    }
  }
})

test_that("the mixture's exact interval endpoints solve sum_k w_k mean_s F_ks(q) = p", {
  f <- quick_fits()
  for (m in list(f$mix, f$mix_t)) {
    w <- m$mixture$weights
    cps <- comp_params(m, f$test)
    iv <- predict(m, f$test, type = "interval", level = 0.8)
    pi80 <- predictive_interval(m, prob = 0.8, newdata = f$test)
    expect_equal(unname(pi80[, 1]), iv$lower)
    expect_equal(unname(pi80[, 2]), iv$upper)
    for (side in c("lower", "upper")) {
      Fq <- w[[1]] * colMeans(comp_cdf(cps[[1]], iv[[side]])) +
        w[[2]] * colMeans(comp_cdf(cps[[2]], iv[[side]]))
      expect_equal(Fq, rep(if (side == "lower") 0.1 else 0.9, 40), tolerance = 1e-7)
    }
    # the mean: the weighted means of the components' draws
    expect_equal(unname(iv$mean), w[[1]] * colMeans(cps[[1]]$pp$mu) +
                   w[[2]] * colMeans(cps[[2]]$pp$mu))
    expect_equal(unname(predict(m, f$test)), iv$mean)
    expect_equal(unname(colMeans(posterior_epred(m, newdata = f$test))), iv$mean)
    # probs = gives the same quantiles
    pr <- predict(m, f$test, probs = c(0.1, 0.9))
    expect_equal(unname(pr$Q10), iv$lower)
  }
})

test_that("posterior_predict() draws of the mixture match its exact quantiles", {
  f <- quick_fits()
  nd <- f$test[1:6, ]
  m <- f$mix
  iv <- predict(m, nd, type = "interval", level = 0.8)
  yrep <- do.call(rbind, lapply(1:60, function(s) posterior_predict(m, newdata = nd, seed = s)))
  N <- nrow(yrep)
  expect_equal(N, 12000L)
  for (side in c("lower", "upper")) {
    p <- if (side == "lower") 0.1 else 0.9
    e <- colMeans(yrep <= matrix(iv[[side]], N, 6, byrow = TRUE))
    # the 200 parameter draws repeated with fresh noise: the expected ECDF
    # at q is exactly p (shares 120 and 80 are the weights), and its
    # variance is at most the binomial's p(1 - p) / N
    expect_true(all(abs(e - p) < 4 * sqrt(p * (1 - p) / N)))
  }
  # the Student-t component's rows are t draws: they equal mu + sigma * rt()
  # from the same stream, not mu + sd * rnorm()
  pp <- bnnmc:::predictive_params(m, nd)
  expect_identical(pp$family, "student")
  yrep <- posterior_predict(m, newdata = nd, seed = 5)
  set.seed(5)
  expect_equal(yrep, bnnmc:::family_rdraws(pp), ignore_attr = TRUE)
})

test_that("bnn_metrics() of the mixture: lppd and coverage by hand from the pooled draws", {
  f <- quick_fits()
  for (m in list(f$mix, f$mix_t)) {
    y <- f$test$y
    cps <- comp_params(m, f$test)
    dens <- rbind(comp_dens(cps[[1]], y), comp_dens(cps[[2]], y))
    cdf <- rbind(comp_cdf(cps[[1]], y), comp_cdf(cps[[2]], y))
    met <- bnn_metrics(m, f$test)
    expect_equal(met$lppd, mean(log(colMeans(dens))), tolerance = 1e-10)
    pit <- colMeans(cdf)
    expect_equal(met$coverage_90, mean(pit >= 0.05 & pit <= 0.95))
    expect_equal(met$coverage_50, mean(pit >= 0.25 & pit <= 0.75))
    expect_equal(met$rmse, sqrt(mean((y - colMeans(rbind(cps[[1]]$pp$mu, cps[[2]]$pp$mu)))^2)))
    expect_equal(met$n_draws, 200L)
    # the coverage agrees with the exact intervals
    iv <- predict(m, f$test, type = "interval", level = 0.9)
    expect_equal(met$coverage_90, mean(y >= iv$lower & y <= iv$upper))
  }
})

test_that("LOO-PIT and loo() of the mixture by hand", {
  f <- quick_fits()
  m <- f$mix
  y <- f$d$y
  ll <- log_lik(m)
  pp <- bnnmc:::predictive_params(m, NULL)
  pit <- bnnmc:::loo_pit_continuous(ll, y, pp)
  cps <- comp_params(m, NULL)
  lw <- bnnmc:::psis_log_weights(-ll)$log_weights
  cdf <- rbind(comp_cdf(cps[[1]], y), comp_cdf(cps[[2]], y))
  expect_equal(pit, colSums(exp(lw) * cdf))
  # with fewer draws kept (the verdict's max_draws): the same by hand
  keep <- unique(round(seq(1, 200, length.out = 50)))
  pit50 <- bnnmc:::loo_pit_continuous(ll, y, pp, max_draws = 50L)
  lw50 <- bnnmc:::psis_log_weights(-ll[keep, ])$log_weights
  expect_equal(pit50, colSums(exp(lw50) * cdf[keep, ]))
  skip_if_not_installed("loo")
  # loo(): each model's own PSIS-LOO, mixed with the weights
  lo <- suppressWarnings(loo::loo(m, moment_match = FALSE))
  e1 <- suppressWarnings(loo::loo(f$het, moment_match = FALSE))$pointwise[, "elpd_loo"]
  e2 <- suppressWarnings(loo::loo(f$stu, moment_match = FALSE))$pointwise[, "elpd_loo"]
  expect_equal(unname(lo$pointwise[, "elpd_loo"]), unname(log(0.6 * exp(e1) + 0.4 * exp(e2))))
  skip_if_not_installed("bayesplot")
  expect_s3_class(suppressMessages(bayesplot::pp_check(m, type = "loo_pit_overlay", seed = 1)),
                  "ggplot")
})

test_that("what is not defined for a Gaussian and Student-t stack says so", {
  f <- quick_fits()
  expect_error(sigma(f$mix), "Student-t network")
  expect_equal(bnnmc:::mixture_names(f$mix),
               "the heteroscedastic Gaussian and the Student-t network")
  expect_equal(bnnmc:::mixture_names(f$mix_t),
               "the heteroscedastic Gaussian and the Student-t network")
})

# ---- the option ----------------------------------------------------------

test_that("options(bnnmc.stack_second = \"student\") stacks the Student-t network in the default", {
  skip_on_cran()
  old <- options(bnnmc.stack_second = "nonsense")
  on.exit(options(old), add = TRUE)
  set.seed(7)
  n <- 250
  d <- data.frame(x1 = runif(n, -2, 2), x2 = runif(n, -2, 2))
  d$y <- sin(2 * d$x1) + 0.5 * d$x2 + (0.05 + 0.6 * abs(d$x1)) * rnorm(n)
  expect_error(bnn_fit(y ~ ., data = d, seed = 1, progress = FALSE), "bnnmc.stack_second")
  options(bnnmc.stack_second = "student")
  msgs <- character(0)
  fit <- withCallingHandlers(suppressWarnings(bnn_fit(y ~ ., data = d, seed = 1, progress = FALSE)),
                             message = function(m) {
                               msgs <<- c(msgs, conditionMessage(m))
                               invokeRestart("muffleMessage")
                             })
  fams <- c(fit$likelihood$family, fit$mixture$fit$likelihood$family)
  expect_true("student" %in% fams)
  expect_false("gaussian" %in% fams)
  mc <- fit$model_choice
  expect_equal(mc$model, c("heteroscedastic", "student"))
  # noise whose spread varies with x1: the two are stacked, the Student-t
  # network keeping at least the guard weight
  expect_false(is.null(fit$mixture))
  expect_setequal(names(fit$mixture$weights), c("heteroscedastic", "student"))
  expect_gte(fit$mixture$weights[["student"]], 0.1 - 1e-12)
  expect_true(any(grepl("with a heteroscedastic Gaussian and with a Student-t likelihood", msgs,
                        fixed = TRUE)))
  expect_equal(bnnmc:::mixture_names(fit), "the heteroscedastic Gaussian and the Student-t network")
  # its predictions are the pooled t draws, the Gaussian ones with nu = Inf
  pp <- bnnmc:::predictive_params(fit, d[1:3, ])
  expect_identical(pp$family, "student")
  expect_equal(sum(is.infinite(pp$nu)), bnnmc:::mixture_counts(fit)[["heteroscedastic"]])
  out <- paste(capture.output(print(fit)), collapse = "\n")
  expect_match(out, "Student-t")
  expect_no_match(out, "homoscedastic")
})

test_that("where the Student-t network is returned alone and leaves structure, the wider prior's fit is a Student-t one", {
  skip_on_cran()
  # noise of one spread, where the stack keeps the Student-t network alone,
  # around two sharp bumps the default's prior smooths over
  set.seed(3)
  n <- 230
  d <- data.frame(x = runif(n, 0, 60))
  d$y <- -100 * exp(-((d$x - 20) / 2.5)^2) + 60 * exp(-((d$x - 32) / 3)^2) + rnorm(n, sd = 8)
  msgs <- character(0)
  fit <- withCallingHandlers(suppressWarnings(bnn_fit(y ~ x, data = d, seed = 1, progress = FALSE)),
                             message = function(m) {
                               msgs <<- c(msgs, conditionMessage(m))
                               invokeRestart("muffleMessage")
                             })
  expect_true(any(grepl("prior 3 times wider", msgs)))
  wp <- fit$convergence$adequacy$wider_prior
  expect_identical(wp$chosen, "wider")
  expect_identical(fit$likelihood$family, "student")
  expect_null(fit$mixture)
  expect_equal(fit$prior$scale, 3)
  expect_true(isTRUE(fit$convergence$adequacy$adequate))
})

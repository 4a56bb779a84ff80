# Predictive metrics against direct R computations.

set.seed(20240601)
S <- 7L
n <- 40L
mu <- matrix(rnorm(S * n, sd = 0.7), S, n) + rep(seq(-1, 1, length.out = n), each = S)
sdm <- matrix(exp(rnorm(S * n, -0.3, 0.4)), S, n)
y <- rnorm(n, seq(-1, 1, length.out = n), 1)

mix_cdf <- function(q, i) mean(pnorm(q, mu[, i], sdm[, i]))
mix_q_uniroot <- function(p, i) {
  lo <- min(mu[, i] - 12 * sdm[, i]); hi <- max(mu[, i] + 12 * sdm[, i])
  uniroot(function(q) mix_cdf(q, i) - p, c(lo, hi), tol = 1e-13)$root
}

test_that("LPPD is the mean over observations of log mean_s N(y | mu, sd)", {
  m <- bnn_metrics_gaussian(mu, sdm, y, pointwise = TRUE)
  dens <- dnorm(matrix(y, S, n, byrow = TRUE), mu, sdm)
  expect_equal(m$pointwise$lpd, log(colMeans(dens)), tolerance = 1e-12)
  expect_equal(m$lppd, mean(log(colMeans(dens))), tolerance = 1e-12)
  expect_equal(m$pointwise$mean, colMeans(mu), tolerance = 1e-14)
  expect_equal(m$pointwise$pit, vapply(seq_len(n), function(i) mix_cdf(y[i], i), 1),
               tolerance = 1e-12)
  expect_identical(m$n_obs, n)
  expect_identical(m$n_draws, S)
})

test_that("LPPD is stable far in the tails (log-sum-exp)", {
  yy <- c(60, -45, 0)
  mm <- rbind(c(0, 0, 0), c(0.5, 0, 1))
  ss <- rbind(c(1, 1, 2), c(1, 0.5, 1))
  lp <- bnn_metrics_gaussian(mm, ss, yy, pointwise = TRUE)$pointwise$lpd
  ref <- vapply(1:3, function(i) {
    l <- dnorm(yy[i], mm[, i], ss[, i], log = TRUE)
    max(l) + log(mean(exp(l - max(l))))
  }, 1)
  expect_true(all(is.finite(lp)))
  expect_equal(lp, ref, tolerance = 1e-12)
  expect_identical(log(mean(dnorm(60, mm[, 1], ss[, 1]))), -Inf)   # naive underflows
})

test_that("RMSE uses the mean over draws of mu", {
  m <- bnn_metrics_gaussian(mu, sdm, y)
  expect_equal(m$rmse, sqrt(mean((y - colMeans(mu))^2)), tolerance = 1e-14)
})

test_that("mixture quantiles match uniroot and a fine-grid CDF inversion", {
  p <- c(0.025, 0.25, 0.5, 0.9, 0.975)
  Q <- bnn_mixture_quantile(mu, sdm, p)
  expect_identical(dim(Q), c(n, length(p)))
  ref <- t(vapply(seq_len(n), function(i) vapply(p, mix_q_uniroot, 1, i = i), p))
  expect_equal(unname(Q), ref, tolerance = 1e-9)
  # CDF at the quantiles reproduces p
  Fq <- unname(t(vapply(seq_len(n), function(i) vapply(Q[i, ], mix_cdf, 1, i = i), p)))
  expect_equal(Fq, matrix(p, n, length(p), byrow = TRUE), tolerance = 1e-10)
  # fine grid inversion for a strongly bimodal mixture
  m2 <- c(-3, 2, 2.2); s2 <- c(0.3, 1, 0.2)
  grid <- seq(-6, 6, length.out = 2e5 + 1)
  Fg <- rowMeans(sapply(1:3, function(k) pnorm(grid, m2[k], s2[k])))
  pq <- c(0.1, 0.3, 0.34, 0.5, 0.8)
  gq <- approx(Fg, grid, xout = pq)$y
  expect_equal(as.vector(bnn_mixture_quantile(matrix(m2), matrix(s2), pq)), gq,
               tolerance = 1e-6)
  # one component: exactly the normal quantile
  expect_equal(as.vector(bnn_mixture_quantile(matrix(1.5), matrix(2), pq)),
               qnorm(pq, 1.5, 2), tolerance = 1e-15)
  # unsorted and repeated probabilities come back in the order asked
  Qu <- bnn_mixture_quantile(mu[, 1:3], sdm[, 1:3], c(0.9, 0.1, 0.9))
  expect_equal(Qu[, 1], Qu[, 3])
  expect_equal(unname(Qu[, 2]), unname(bnn_mixture_quantile(mu[, 1:3], sdm[, 1:3], 0.1)[, 1]))
})

test_that("coverage and widths match explicit counting", {
  lv <- c(0.2, 0.5, 0.9)
  cv <- bnn_coverage(mu, sdm, y, levels = lv)
  expect_named(cv, c("nominal", "coverage", "width"))
  expect_identical(cv$nominal, lv)
  for (j in seq_along(lv)) {
    inside <- 0; width <- 0
    for (i in seq_len(n)) {
      lo <- mix_q_uniroot((1 - lv[j]) / 2, i)
      hi <- mix_q_uniroot((1 + lv[j]) / 2, i)
      inside <- inside + (y[i] >= lo && y[i] <= hi)
      width <- width + (hi - lo)
    }
    expect_identical(cv$coverage[j], inside / n)
    expect_equal(cv$width[j], width / n, tolerance = 1e-9)
  }
  # equal-tailed interval contains y iff the PIT value is in its tails' range
  pit <- bnn_metrics_gaussian(mu, sdm, y, pointwise = TRUE)$pointwise$pit
  expect_identical(cv$coverage,
                   vapply(lv, function(l) mean(abs(pit - 0.5) <= l / 2), 1))
  # default levels 0.05, ..., 0.95
  d <- bnn_coverage(mu, sdm, y)
  expect_equal(d$nominal, seq(0.05, 0.95, by = 0.05), tolerance = 1e-15)
  expect_true(all(diff(d$width) > 0))
})

test_that("coverage from sampled predictive draws uses quantile(type = 7)", {
  yd <- mu + sdm * matrix(rnorm(S * n), S, n)
  lv <- c(0.5, 0.8)
  cv <- bnn_coverage(y = y, levels = lv, draws = yd, y_scale = 2)
  for (j in seq_along(lv)) {
    q <- apply(yd, 2, quantile, probs = c((1 - lv[j]) / 2, (1 + lv[j]) / 2), type = 7)
    expect_identical(cv$coverage[j], mean(y >= q[1, ] & y <= q[2, ]))
    expect_equal(cv$width[j], 2 * mean(q[2, ] - q[1, ]))
  }
  m <- bnn_metrics_gaussian(mu, sdm, y, levels = lv, draws = yd)
  expect_identical(m$coverage$coverage, cv$coverage)
  expect_error(bnn_coverage(mu, sdm, y, draws = yd), "not both")
  expect_error(bnn_coverage(y = y, draws = yd[, -1]), "'draws'")
})

test_that("calibration error is the weighted root mean square of Eq. 6", {
  m <- bnn_metrics_gaussian(mu, sdm, y)
  cl <- c(0.5, 0.75, 0.9, 0.95)
  cov <- bnn_coverage(mu, sdm, y, levels = cl)$coverage
  expect_identical(m$cal_levels, cl)
  expect_equal(m$cal_error, sqrt(mean((cov - cl)^2)), tolerance = 1e-14)
  w <- c(1, 2, 3, 4)
  mw <- bnn_metrics_gaussian(mu, sdm, y, cal_weights = w)
  expect_equal(mw$cal_error, sqrt(sum(w / sum(w) * (cov - cl)^2)), tolerance = 1e-14)
  # calibration levels need not be among 'levels'
  m2 <- bnn_metrics_gaussian(mu, sdm, y, levels = 0.3, cal_levels = c(0.6, 0.7))
  cov2 <- bnn_coverage(mu, sdm, y, levels = c(0.6, 0.7))$coverage
  expect_identical(nrow(m2$coverage), 1L)
  expect_equal(m2$cal_error, sqrt(mean((cov2 - c(0.6, 0.7))^2)))
  # a well-specified model is nearly calibrated
  yy <- rnorm(4000)
  mc <- bnn_metrics_gaussian(matrix(0, 1, 4000), 1, yy)
  expect_lt(mc$cal_error, 0.03)
  expect_error(bnn_metrics_gaussian(mu, sdm, y, cal_weights = c(1, -1, 1, 1)), "cal_weights")
})

test_that("y_scale reports the metrics on the original scale", {
  sc <- 3.5; ce <- 10
  m_std <- bnn_metrics_gaussian(mu, sdm, y, levels = c(0.5, 0.9), y_scale = sc,
                                pointwise = TRUE)
  m_orig <- bnn_metrics_gaussian(mu * sc + ce, sdm * sc, y * sc + ce, levels = c(0.5, 0.9),
                                 pointwise = TRUE)
  expect_equal(m_std$rmse, m_orig$rmse, tolerance = 1e-12)
  expect_equal(m_std$lppd, m_orig$lppd, tolerance = 1e-12)
  expect_equal(m_std$lppd, bnn_metrics_gaussian(mu, sdm, y)$lppd - log(sc))
  expect_equal(m_std$coverage, m_orig$coverage, tolerance = 1e-9)
  expect_equal(m_std$cal_error, m_orig$cal_error)
  expect_equal(m_std$pointwise$lpd, m_orig$pointwise$lpd, tolerance = 1e-12)
})

test_that("vector inputs and argument errors", {
  one <- bnn_metrics_gaussian(colMeans(mu), 0.8, y, pointwise = TRUE)
  expect_identical(one$n_draws, 1L)
  expect_equal(one$pointwise$lpd, dnorm(y, colMeans(mu), 0.8, log = TRUE))
  expect_equal(bnn_metrics_gaussian(mu, sdm[1, ], y)$lppd,
               bnn_metrics_gaussian(mu, matrix(sdm[1, ], S, n, byrow = TRUE), y)$lppd)
  expect_error(bnn_metrics_gaussian(mu[, -1], sdm, y), "'mu'")
  expect_error(bnn_metrics_gaussian(mu, sdm[-1, ], y), "'sd'")
  expect_error(bnn_metrics_gaussian(mu, -sdm, y), "'sd' must be positive")
  expect_error(bnn_metrics_gaussian(mu, sdm, replace(y, 2, NA)), "'y'")
  expect_error(bnn_metrics_gaussian(replace(mu, 3, NaN), sdm, y), "'mu'")
  expect_error(bnn_metrics_gaussian(mu, sdm, y, levels = c(0.5, 1)), "'levels'")
  expect_error(bnn_metrics_gaussian(mu, sdm, y, y_scale = 0), "'y_scale'")
  expect_error(bnn_mixture_quantile(mu, sdm, 1.2), "'probs'")
  expect_error(.Call(C_metrics_gmix_quantile, mu, sdm, c(0.5, 0.2), qnorm(c(0.5, 0.2)), 1e-10),
               "increasing")
  expect_error(.Call(C_metrics_gauss, mu, sdm[-1, ], y), "same dimensions")
})

test_that("quantiles of many draws converge without bisection fallbacks", {
  # 60 observations x 38 probabilities = 2280 roots; a root finder that falls
  # back to bisection (e.g. when the last Newton correction is below one ulp)
  # needs 30+ CDF evaluations for some of them instead of a handful.
  SS <- 2000L; nn <- 60L
  big_mu <- matrix(rnorm(SS * nn, sd = 0.3), SS, nn) + rep(rnorm(nn), each = SS)
  big_mu[1:300, 1:30] <- big_mu[1:300, 1:30] + 4          # bimodal for half
  big_sd <- matrix(exp(rnorm(SS * nn, -1, 0.3)), SS, nn)
  lv <- (1:19) / 20
  p <- sort(c((1 - lv) / 2, (1 + lv) / 2))
  Q <- .Call(C_metrics_gmix_quantile, big_mu, big_sd, p, qnorm(p), 1e-10)
  expect_lte(attr(Q, "iterations"), 8L)
  for (i in c(3L, 45L)) {
    Fq <- vapply(Q[, i], function(q) mean(pnorm(q, big_mu[, i], big_sd[, i])), 1)
    expect_equal(Fq, p, tolerance = 1e-11)
  }
})

test_that("many quantiles at once come from a few Taylor pieces, equal to the root finder", {
  # bnn_metrics() asks for 38 quantiles per observation: the mixture CDF's
  # Taylor expansion over a few pieces gives them all in a few passes over
  # the draws, where a root finder per quantile needs about 76
  SS <- 1000L; nn <- 30L
  tmu <- matrix(rnorm(SS * nn, sd = 0.4), SS, nn) + rep(rnorm(nn, sd = 3), each = SS)
  tsd <- matrix(exp(rnorm(SS, 0.2, 0.1)), SS, nn)     # one sd per draw, as sigma
  tsd[, 1:5] <- exp(rnorm(SS * 5, -0.5, 0.25))        # heteroscedastic
  tmu[1:200, 6] <- tmu[1:200, 6] + 5                  # bimodal
  tsd[, 7] <- exp(rnorm(SS, -2, 1))                   # widely varying sd: root finder
  lv <- c((1:19) / 20, 0.75)
  p <- sort(unique(c((1 - lv) / 2, (1 + lv) / 2)))
  Q <- .Call(C_metrics_gmix_quantile, tmu, tsd, p, qnorm(p), 1e-10)
  expect_lte(attr(Q, "passes") / nn, 10)
  # the same quantiles, two at a time (the root finder of every root)
  Q2 <- do.call(rbind, lapply(seq(1, length(p), by = 2), function(j)
    .Call(C_metrics_gmix_quantile, tmu, tsd, p[j:(j + 1)], qnorm(p[j:(j + 1)]), 1e-10)))
  expect_equal(Q, Q2, tolerance = 1e-9, ignore_attr = TRUE)
  for (i in c(1L, 6L, 7L, 20L)) {
    Fq <- vapply(Q[, i], function(q) mean(pnorm(q, tmu[, i], tsd[, i])), 1)
    expect_equal(Fq, p, tolerance = 1e-12)
  }
  # bnn_metrics_gaussian()'s widths and coverage are those of the root finder
  ty <- colMeans(tmu) + rnorm(nn)
  m <- bnn_metrics_gaussian(tmu, tsd, ty, levels = lv[1:19])
  ref <- bnn_coverage(y = ty, levels = lv[1:19], draws = NULL, mu = tmu, sd = tsd)
  lo <- t(Q2[match((1 - lv[1:19]) / 2, p), ]); hi <- t(Q2[match((1 + lv[1:19]) / 2, p), ])
  expect_equal(m$coverage$width, colMeans(hi - lo), tolerance = 1e-12)
  expect_equal(m$coverage$coverage, colMeans(lo <= ty & ty <= hi))
})

test_that("classification metrics match their definitions", {
  set.seed(3)
  nn <- 200L; K <- 3L
  raw <- matrix(rexp(nn * K), nn, K)
  prob <- raw / rowSums(raw)
  lab <- sample(0:2, nn, replace = TRUE)
  m <- bnn_metrics_class(prob, lab)
  k <- lab + 1L
  expect_identical(m$accuracy, mean(apply(prob, 1, which.max) == k))
  expect_equal(m$lppd, mean(log(prob[cbind(1:nn, k)])))
  br <- 0
  for (i in 1:nn) br <- br + sum((prob[i, ] - (seq_len(K) == k[i]))^2)
  expect_equal(m$brier, br / nn)
  conf <- apply(prob, 1, max)
  ok <- apply(prob, 1, which.max) == k
  ece <- 0
  for (b in 1:10) {
    inb <- conf > (b - 1) / 10 & conf <= b / 10
    if (any(inb)) ece <- ece + mean(inb) * abs(mean(ok[inb]) - mean(conf[inb]))
  }
  expect_equal(m$ece, ece)
  expect_identical(m$n_classes, 3L)
  # factor labels and named columns give the same result
  f <- factor(lab, levels = 0:2)
  expect_equal(bnn_metrics_class(prob, f), m)
  colnames(prob) <- c("0", "1", "2")
  expect_equal(bnn_metrics_class(prob, lab), m)
  expect_equal(bnn_metrics_class(prob, factor(lab, levels = c(2, 0, 1))), m)
  # binary: vector of P(second class)
  pb <- c(0.9, 0.2, 0.6)
  expect_equal(bnn_metrics_class(pb, c(1, 0, 0)),
               bnn_metrics_class(unname(cbind(1 - pb, pb)), c(1, 0, 0)))
  expect_equal(bnn_metrics_class(pb, c(1, 0, 0))$accuracy, 2 / 3)
  expect_error(bnn_metrics_class(prob * 0.5, lab), "sum to 1")
  expect_error(bnn_metrics_class(prob * 2, lab), "\\[0, 1\\]")
  expect_error(bnn_metrics_class(unname(prob), lab + 1L), "0-based")
  expect_error(bnn_metrics_class(prob, lab[-1]), "one label per row")
})

test_that("bnn_metrics is generic; the default method errors clearly", {
  expect_error(bnn_metrics(1:3), "no bnn_metrics\\(\\) method for an object of class 'integer'")
  expect_error(bnn_metrics(list()), "bnn_metrics_gaussian")
})

test_that("the linear-model baseline gets the same metrics", {
  set.seed(5)
  d <- data.frame(x1 = rnorm(80), x2 = runif(80))
  d$y <- 0.5 + 2 * d$x1 - d$x2 + rnorm(80, sd = 0.4)
  tr <- d[1:60, ]; te <- d[61:80, ]
  b <- bnn_paper_lm_baseline(y ~ ., tr)
  expect_s3_class(b, "bnn_lm_baseline")
  expect_output(print(b), "3 coefficients")
  fit <- lm(y ~ ., tr)
  pr <- predict(fit, te)
  s <- summary(fit)$sigma
  m <- bnn_metrics(b, newdata = te, levels = c(0.5, 0.9))
  expect_equal(m$rmse, sqrt(mean((te$y - pr)^2)))
  expect_equal(m$lppd, mean(dnorm(te$y, pr, s, log = TRUE)))
  for (j in 1:2) {
    l <- c(0.5, 0.9)[j]
    h <- qnorm((1 + l) / 2) * s
    expect_identical(m$coverage$coverage[j], mean(abs(te$y - pr) <= h))
    expect_equal(m$coverage$width[j], 2 * h)
  }
  mt <- bnn_metrics(b, newdata = te, levels = c(0.5, 0.9), predictive = "t")
  pi90 <- predict(fit, te, interval = "prediction", level = 0.9)
  expect_equal(mt$coverage$width[2], mean(pi90[, "upr"] - pi90[, "lwr"]))
  expect_identical(mt$coverage$coverage[2],
                   mean(te$y >= pi90[, "lwr"] & te$y <= pi90[, "upr"]))
  se <- predict(fit, te, se.fit = TRUE)$se.fit
  sc <- sqrt(s^2 + se^2)
  expect_equal(mt$lppd, mean(dt((te$y - pr) / sc, fit$df.residual, log = TRUE) - log(sc)))
  expect_named(mt, names(m))
  expect_error(bnn_metrics(b), "'newdata'")
  expect_error(bnn_paper_lm_baseline("y ~ x", d), "'formula'")
})

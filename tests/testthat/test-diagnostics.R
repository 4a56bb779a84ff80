# Tests of the convergence diagnostics (R/diag-rhat-ess.R, src/diag/diagnostics.c).

# ---- helpers -------------------------------------------------------------------

# TRUE if a and b have NA at the same places and agree to a relative
# tolerance elsewhere (equal infinities count as agreeing).
same_values <- function(a, b, tol = 1e-8) {
  a <- unname(as.numeric(a))
  b <- unname(as.numeric(b))
  if (length(a) != length(b) || !identical(is.na(a), is.na(b))) return(FALSE)
  ok <- is.na(b) | a == b | abs(a - b) <= tol * abs(b)
  all(ok)
}

# Draws [N, M] of one variable of a given kind.
gen_draws <- function(kind, N, M) {
  S <- N * M
  ar <- function(phi) {
    as.numeric(replicate(M, as.numeric(stats::filter(stats::rnorm(N), phi, "recursive"))))
  }
  odd_mid <- function(v, value) {
    v <- matrix(v, N, M)
    v[(N + 1) %/% 2, sample.int(M, 1)] <- value
    v
  }
  x <- switch(kind,
    normal = stats::rnorm(S),
    ar = ar(stats::runif(1, -0.9, 0.99)),
    ar_high = ar(0.995),
    shifted = stats::rnorm(S) + rep(stats::rnorm(M, 0, 3), each = N),
    t1 = stats::rt(S, 1),
    t2 = stats::rt(S, 2),
    cauchy = stats::rcauchy(S),
    constant = rep(3.25, S),
    near_constant = 1 + 10^stats::runif(1, -14, -9) * stats::rnorm(S),
    spike = 1 + c(1e-15, rep(0, S - 1)),
    chain_constant = rep(stats::rnorm(M), each = N),
    na = replace(stats::rnorm(S), sample.int(S, 1), NA),
    nan_mid = odd_mid(stats::rnorm(S), NaN),
    inf = replace(stats::rnorm(S), sample.int(S, sample.int(3, 1)), Inf),
    minf = replace(stats::rnorm(S), sample.int(S, 1), -Inf),
    inf_mid = odd_mid(stats::rnorm(S), Inf),
    ties = sample(1:3, S, replace = TRUE),
    rounded = round(stats::rnorm(S), 2),
    stop("unknown kind")
  )
  matrix(as.numeric(x), N, M)
}

# posterior's values for one variable [N, M]
posterior_values <- function(m) {
  q <- function(e) suppressWarnings(e)
  c(rhat = posterior::rhat(m), rhat_basic = posterior::rhat_basic(m),
    ess_bulk = q(posterior::ess_bulk(m)), ess_tail = q(posterior::ess_tail(m)),
    ess_basic = q(posterior::ess_basic(m)), mcse_mean = q(posterior::mcse_mean(m)),
    mcse_q5 = q(unname(posterior::mcse_quantile(m, 0.05))),
    mcse_q95 = q(unname(posterior::mcse_quantile(m, 0.95))))
}

# bnnmc's values for all variables of a 3-D array, a matrix [variable, stat]
bnnmc_values <- function(x) {
  q <- function(e) suppressWarnings(e)
  mq <- q(bnn_mcse(x, "quantile", probs = c(0.05, 0.95)))
  cbind(rhat = bnn_rhat(x), rhat_basic = bnn_rhat(x, "rhat_basic"),
        ess_bulk = q(bnn_ess(x, "bulk")), ess_tail = q(bnn_ess(x, "tail")),
        ess_basic = q(bnn_ess(x, "basic")), mcse_mean = q(bnn_mcse(x, "mean")),
        mcse_q5 = mq[, 1], mcse_q95 = mq[, 2])
}

# Reference split R-hat of one chain's draws cut into kappa blocks after
# dropping the first N %% kappa draws, rank normalised within the chain
# (Sommer et al. 2024, App. B), written from the definition.
ref_chain_rhat <- function(v, kappa) {
  L <- length(v) %/% kappa
  v <- v[(length(v) - kappa * L + 1):length(v)]
  r <- rank(v, ties.method = "average")
  z <- stats::qnorm((r - 3 / 8) / (length(v) + 1 / 4))
  y <- matrix(z, L, kappa)
  B <- L * stats::var(colMeans(y))
  W <- mean(apply(y, 2, stats::var))
  sqrt((B / W + L - 1) / L)
}

# ---- agreement with posterior --------------------------------------------------

test_that("R-hat, ESS and MCSE agree with posterior on 230 random arrays", {
  skip_if_not_installed("posterior")
  set.seed(20240229)
  kinds <- c("normal", "ar", "shifted", "t1", "t2", "cauchy", "constant",
             "near_constant", "spike", "chain_constant", "na", "nan_mid", "inf",
             "minf", "inf_mid", "ties", "rounded")
  ours <- list()
  theirs <- list()
  labels <- character()
  n_arrays <- 230L
  for (a in seq_len(n_arrays)) {
    M <- sample.int(12, 1)
    N <- if (a %% 46 == 0) {
      sample(1000:5000, 1)
    } else if (a %% 9 == 0) {
      sample(31:600, 1)
    } else {
      sample(4:30, 1)
    }
    V <- sample.int(3, 1)
    k <- sample(kinds, V, replace = TRUE)
    # long arrays: also slowly mixing and disagreeing chains, whose ESS needs
    # many autocovariance lags (the FFT path)
    if (N >= 1000) k <- c("ar_high", "shifted", "ar")[seq_len(V)]
    x <- array(0, c(N, M, V))
    for (v in seq_len(V)) x[, , v] <- gen_draws(k[v], N, M)
    ours[[a]] <- bnnmc_values(x)
    theirs[[a]] <- t(vapply(seq_len(V), function(v) posterior_values(x[, , v]),
                            numeric(8)))
    labels <- c(labels, sprintf("array %d (N = %d, M = %d), variable %d: %s",
                                a, N, M, seq_len(V), k))
  }
  ours <- do.call(rbind, ours)
  theirs <- do.call(rbind, theirs)
  expect_gte(nrow(ours), n_arrays)
  for (s in colnames(theirs)) {
    bad <- which(!vapply(seq_len(nrow(ours)), function(i) {
      same_values(ours[i, s], theirs[i, s])
    }, logical(1)))
    expect(length(bad) == 0L,
           sprintf("%s differs from posterior for %d variable(s), e.g. %s: %s vs %s",
                   s, length(bad), labels[bad[1]], format(ours[bad[1], s], digits = 15),
                   format(theirs[bad[1], s], digits = 15)))
  }
  # the comparisons cover finite values and NAs of every statistic
  expect_true(all(colSums(is.na(theirs)) > 0))
  expect_true(all(colSums(!is.na(theirs)) > 100))
})

test_that("the portable autocovariance kernel gives the same ESS", {
  skip_if_not_installed("posterior")
  set.seed(11)
  x <- array(0, c(3000, 4, 3))
  for (v in 1:3) x[, , v] <- gen_draws(c("ar", "ar_high", "shifted")[v], 3000, 4)
  old <- options(bnnmc.simd = FALSE)
  on.exit(options(old))
  portable <- suppressWarnings(cbind(bnn_ess(x, "bulk"), bnn_ess(x, "tail"),
                                     bnn_ess(x, "basic")))
  options(bnnmc.simd = TRUE)
  fast <- suppressWarnings(cbind(bnn_ess(x, "bulk"), bnn_ess(x, "tail"),
                                 bnn_ess(x, "basic")))
  expect_true(same_values(portable, fast, 1e-10))
  ref <- suppressWarnings(vapply(1:3, function(v) posterior::ess_bulk(x[, , v]), 1))
  expect_true(same_values(portable[, 1], ref))
})

test_that("summaries agree with posterior::summarise_draws", {
  skip_if_not_installed("posterior")
  set.seed(5)
  x <- array(stats::rnorm(500 * 4 * 3), c(500, 4, 3),
             dimnames = list(NULL, NULL, c("a", "b[1]", "sigma")))
  x[, , 2] <- x[, , 2] * 10 + 3
  ours <- bnn_summarize_draws(x)
  ref <- posterior::summarise_draws(posterior::as_draws_array(x))
  expect_identical(ours$variable, ref$variable)
  for (s in c("mean", "median", "sd", "q5", "q95", "rhat", "ess_bulk", "ess_tail")) {
    expect_true(same_values(ours[[s]], ref[[s]], 1e-10), label = s)
  }
  expect_true(same_values(ours$mcse_mean,
                          apply(x, 3, function(m) posterior::mcse_mean(m)), 1e-10))
  cw <- bnn_chainwise_rhat(x)
  expect_equal(ours$cw_rhat_mean, unname(colMeans(cw)))
  expect_equal(ours$cw_rhat_max, unname(apply(cw, 2, max)))
  expect_false("cw_rhat_mean" %in% names(bnn_summarize_draws(x, chainwise = FALSE)))
  # a posterior draws_array is accepted as it is
  expect_equal(bnn_rhat(posterior::as_draws_array(x)), bnn_rhat(x))
})

# ---- definitions and quirks ----------------------------------------------------

test_that("ESS keeps posterior's quirks: tau = 2 when Geyer's loop never runs, the cap", {
  # alternating draws: rho(1) = -1, so the loop does not start (max_t = 0);
  # posterior's sum(rho[1:0]) takes rho[1] = 1, tau = 2, ESS = S / 2
  expect_equal(bnn_ess(rep(c(1, -1), 50), "basic"), 50)
  # strongly antithetic draws: the ESS is capped at S * log10(S), with a warning
  set.seed(1)
  y <- as.numeric(stats::arima.sim(list(ar = -0.9), 1000))
  expect_warning(e <- bnn_ess(y, "basic"), "capped")
  expect_equal(e, 3000)
})

test_that("ess_sd is the basic ESS of the squared deviations", {
  set.seed(3)
  x <- matrix(stats::rt(2000, 3), 500, 4)
  expect_equal(bnn_ess(x, "sd"), bnn_ess((x - mean(x))^2, "basic"), tolerance = 1e-12)
  expect_equal(bnn_ess(x, "mean"), bnn_ess(x, "basic"))
})

test_that("diagnostics return NA where nothing can be computed", {
  one_draw <- matrix(stats::rnorm(4), 1, 4)
  expect_true(is.na(bnn_rhat(one_draw)))
  expect_true(is.na(bnn_ess(one_draw)))
  expect_true(is.na(bnn_mcse(one_draw)))
  expect_true(all(is.na(bnn_mcse(one_draw, "quantile"))))
  # 2 or 3 iterations: split chains of one draw
  expect_true(is.na(bnn_rhat(matrix(stats::rnorm(6), 3, 2))))
  # fewer than 6 iterations: split chains shorter than 3, no ESS
  x5 <- matrix(stats::rnorm(10), 5, 2)
  expect_false(is.na(bnn_rhat(x5)))
  expect_true(is.na(bnn_ess(x5)))
  # one chain is fine
  set.seed(2)
  v <- stats::rnorm(100)
  expect_false(is.na(bnn_rhat(v)))
  expect_false(is.na(bnn_ess(v, "tail")))
  # constant or NA draws
  expect_true(is.na(bnn_rhat(matrix(1, 10, 2))))
  expect_true(is.na(bnn_ess(c(v[-1], NA))))
  # no variables
  expect_length(bnn_rhat(array(0, c(10, 2, 0))), 0)
  expect_equal(nrow(bnn_summarize_draws(array(0, c(10, 2, 0)))), 0)
})

test_that("output shapes follow the input", {
  set.seed(4)
  x <- array(stats::rnorm(100 * 2 * 3), c(100, 2, 3),
             dimnames = list(NULL, NULL, c("u", "v", "w")))
  expect_named(bnn_rhat(x), c("u", "v", "w"))
  expect_length(bnn_rhat(x[, , 1]), 1)
  expect_null(names(bnn_rhat(x[, , 1])))
  expect_length(bnn_ess(as.vector(x[, 1, 1])), 1)
  m <- bnn_mcse(x, "quantile", probs = c(0.1, 0.5))
  expect_equal(dim(m), c(3L, 2L))
  expect_equal(colnames(m), c("mcse_q10", "mcse_q50"))
  expect_named(bnn_mcse(x[, , 1], "quantile"), c("mcse_q5", "mcse_q95"))
  expect_equal(unname(bnn_rhat(x)), unname(bnn_rhat(unname(x))))
  # integer draws are accepted
  xi <- array(sample(1:5, 600, TRUE), c(100, 2, 3))
  expect_equal(bnn_rhat(xi), bnn_rhat(xi + 0))
})

# ---- chain-wise R-hat and layer summaries -------------------------------------

test_that("chain-wise R-hat follows its definition", {
  set.seed(6)
  x <- array(stats::rnorm(203 * 3 * 2), c(203, 3, 2))
  x[, , 2] <- round(x[, , 2], 1) # ties
  for (kappa in c(2, 3, 4)) {
    cw <- bnn_chainwise_rhat(x, kappa = kappa)
    expect_equal(dim(cw), c(3L, 2L))
    ref <- apply(x, c(2, 3), ref_chain_rhat, kappa = kappa)
    expect_equal(unname(cw), unname(ref), tolerance = 1e-12)
  }
})

test_that("chain-wise R-hat with kappa = 2 is posterior's bulk R-hat of one chain", {
  skip_if_not_installed("posterior")
  set.seed(7)
  x <- matrix(stats::rnorm(400 * 3), 400, 3)
  cw <- bnn_chainwise_rhat(x, kappa = 2)
  # bulk R-hat of one chain: split R-hat of its normal scores (even N, so
  # splitting drops nothing and ranking before splitting is the same)
  bulk <- vapply(1:3, function(k) {
    z <- stats::qnorm((rank(x[, k]) - 3 / 8) / (400 + 1 / 4))
    posterior::rhat_basic(matrix(z, ncol = 1))
  }, 1)
  expect_equal(unname(cw[, 1]), bulk, tolerance = 1e-12)
  expect_true(all(cw[, 1] <= apply(x, 2, posterior::rhat) + 1e-12))
})

test_that("chain-wise R-hat is near 1 for stationary chains and large with a trend", {
  set.seed(8)
  n <- 2000
  stat <- array(0, c(n, 4, 3))
  for (v in 1:3) for (c in 1:4) {
    stat[, c, v] <- as.numeric(stats::filter(stats::rnorm(n), 0.5, "recursive"))
  }
  cw <- bnn_chainwise_rhat(stat)
  expect_true(all(cw < 1.05))
  expect_true(all(cw > 0.99))
  trend <- stat + array(rep(seq(0, 4, length.out = n), 12), dim(stat))
  expect_true(all(bnn_chainwise_rhat(trend) > 1.1))
})

test_that("chain-wise R-hat is NA only for the affected chains", {
  set.seed(9)
  x <- matrix(stats::rnorm(100 * 3), 100, 3)
  x[50, 2] <- NA
  x[, 3] <- 1
  cw <- bnn_chainwise_rhat(x)
  expect_false(is.na(cw[1, 1]))
  expect_true(is.na(cw[2, 1]))
  expect_true(is.na(cw[3, 1]))
  # sub-chains of one draw
  expect_true(all(is.na(bnn_chainwise_rhat(matrix(stats::rnorm(14), 7, 2)))))
  expect_error(bnn_chainwise_rhat(x, kappa = 1), "'kappa'")
})

test_that("layer summary aggregates by layer and role", {
  set.seed(10)
  nm <- c("W1[1,1]", "W1[2,1]", "b1[1]", "W2[1,1]", "b2[1]", "sigma")
  n <- 300
  x <- array(stats::rnorm(n * 3 * 6), c(n, 3, 6), dimnames = list(NULL, NULL, nm))
  x[, , "W2[1,1]"] <- x[, , "W2[1,1]"] + seq(0, 2, length.out = n)
  s <- bnn_layer_summary(x)
  expect_equal(s$layer, c(1L, 1L, 2L, 2L, NA))
  expect_equal(s$role, c("weight", "bias", "weight", "bias", "other"))
  expect_equal(s$n_params, c(2L, 1L, 1L, 1L, 1L))
  rh <- bnn_rhat(x)
  cw <- colMeans(bnn_chainwise_rhat(x))
  within <- apply(x, 3, function(m) mean(apply(m, 2, function(v) mean((v - mean(v))^2))))
  between <- apply(x, 3, function(m) {
    cm <- colMeans(m)
    mean((cm - mean(cm))^2)
  })
  tt <- (seq_len(n) - 1) / n
  slope <- apply(x, 3, function(m) mean(apply(m, 2, function(v) abs(stats::coef(stats::lm(v ~ tt))[2]))))
  g <- c("W1[1,1]", "W1[2,1]")
  expect_equal(s$rhat_mean[1], mean(rh[g]))
  expect_equal(s$rhat_se[1], stats::sd(rh[g]) / sqrt(2))
  expect_equal(s$cw_rhat_mean[1], mean(cw[g]))
  expect_equal(s$within_var_mean[1], mean(within[g]))
  expect_equal(s$between_var_mean[1], mean(between[g]))
  expect_equal(s$abs_slope_mean[1], unname(mean(slope[g])))
  expect_equal(s$abs_slope_mean[3], unname(slope["W2[1,1]"]))
  expect_true(is.na(s$rhat_se[2]))
  expect_gt(s$cw_rhat_mean[3], 1.1)
  expect_error(bnn_layer_summary(unname(x)), "variable names")
})

# ---- cumulative LPPD -----------------------------------------------------------

test_that("cumulative LPPD equals a direct computation", {
  set.seed(12)
  S <- 60
  ll <- array(stats::dnorm(stats::rnorm(S * 3 * 7), sd = 2, log = TRUE) - 50, c(S, 3, 7))
  ll[5, 2, 3] <- -Inf # a zero density
  cl <- bnn_cumulative_lppd(ll)
  expect_equal(dim(cl), c(S, 3L))
  direct <- matrix(NA_real_, S, 3)
  for (c in 1:3) for (t in 1:S) {
    direct[t, c] <- mean(log(colMeans(exp(matrix(ll[1:t, c, ], t) + 50)))) - 50
  }
  expect_equal(cl, direct, tolerance = 1e-12)
  # a matrix [iteration, observation] is one chain
  expect_equal(bnn_cumulative_lppd(ll[, 1, ]), cl[, 1, drop = FALSE])
  # stable where exp() underflows
  expect_true(all(is.finite(bnn_cumulative_lppd(ll - 1e4))))
  expect_equal(bnn_cumulative_lppd(ll - 1e4), cl - 1e4, tolerance = 1e-12)
  expect_error(bnn_cumulative_lppd(letters), "'loglik'")
})

test_that("the stopping rule fires at the first l with a small enough change", {
  v <- c(1, 2, 3, 3.5, 3.6, 3.61, 3.615, 3.62)
  never <- c(1, 2, 3, 4, 5, 6, 7, 8)
  m <- cbind(a = v, b = never)
  # window 2, eps 0.1: at l = 6, |mean(3.5, 3.6) - 3.61| = 0.06 < 0.1
  expect_equal(bnn_lppd_stop(m, epsilon = 0.1, window = 2), c(a = 6L, b = NA))
  # window 1, eps 0.2: |3.5 - 3.6| = 0.1 at l = 5
  expect_equal(bnn_lppd_stop(v, epsilon = 0.2, window = 1), 5L)
  # a non-finite value in the window blocks the rule until it has left
  w <- v
  w[5] <- NaN
  expect_equal(bnn_lppd_stop(w, epsilon = 0.1, window = 2), 8L)
  # brute force on random input
  set.seed(13)
  r <- cumsum(stats::rnorm(200, sd = 1 / (1:200)))
  brute <- NA_integer_
  for (l in 6:200) {
    if (abs(mean(r[(l - 5):(l - 1)]) - r[l]) < 0.01) {
      brute <- l
      break
    }
  }
  expect_equal(bnn_lppd_stop(r, epsilon = 0.01, window = 5), brute)
  expect_error(bnn_lppd_stop(v, epsilon = -1, window = 2), "'epsilon'")
  expect_error(bnn_lppd_stop(v, epsilon = 0.1, window = 0), "'window'")
})

# ---- input checks and methods -------------------------------------------------------

test_that("bad input gives errors naming the argument", {
  expect_error(bnn_rhat("a"), "'x'")
  expect_error(bnn_ess(data.frame(a = 1:10)), "'x'")
  expect_error(bnn_rhat(array(0, c(2, 2, 2, 2))), "'x'")
  expect_error(bnn_rhat(matrix(0, 0, 2)), "'x'")
  expect_error(bnn_mcse(1:10, "quantile", probs = 2), "'probs'")
  expect_error(bnn_ess(1:10, "nonsense"), "'arg'")
  expect_error(bnn_summarize_draws(1:10, chainwise = NA), "'chainwise'")
})

test_that("bnnfit methods use the draws of the fit", {
  set.seed(14)
  x <- array(stats::rnorm(200 * 2 * 3), c(200, 2, 3),
             dimnames = list(NULL, NULL, c("W1[1,1]", "b1[1]", "sigma")))
  fit <- structure(list(draws = x), class = "bnnfit")
  expect_identical(bnn_rhat(fit), bnn_rhat(x))
  expect_identical(bnn_rhat(fit, type = "rhat_basic"), bnn_rhat(x, type = "rhat_basic"))
  expect_identical(bnn_ess(fit, type = "tail"), bnn_ess(x, type = "tail"))
  expect_identical(bnn_mcse(fit), bnn_mcse(x))
  expect_identical(bnn_chainwise_rhat(fit, kappa = 2), bnn_chainwise_rhat(x, kappa = 2))
  expect_identical(bnn_summarize_draws(fit), bnn_summarize_draws(x))
  expect_identical(bnn_layer_summary(fit), bnn_layer_summary(x))
})

test_that("diagnostics do not depend on the number of threads", {
  set.seed(17)
  a <- array(rt(600 * 4 * 37, df = 3), c(600, 4, 37))
  a[, 2, 3] <- 2
  a[5, 1, 9] <- NA
  old <- options(bnnmc.threads = 1L)
  on.exit(options(old))
  one <- list(bnn_rhat(a), bnn_ess(a), bnn_ess(a, type = "tail"))
  options(bnnmc.threads = 2L)
  two <- list(bnn_rhat(a), bnn_ess(a), bnn_ess(a, type = "tail"))
  expect_identical(one, two)
  options(bnnmc.threads = 0)
  expect_error(bnn_rhat(a), "bnnmc.threads")
})

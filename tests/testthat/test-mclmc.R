# MCLMC (src/mcmc/mclmc.c): accuracy on an ill-conditioned Gaussian, integrator
# order, reproducibility, non-finite steps, the ESS of stage 3, the
# gradient budget and the block-wise C interface.

# 100-D Gaussian, variances log-spaced from 1 to 100 (condition number 100),
# rotated by a fixed random orthogonal matrix.
gauss100 <- function() {
  d <- 100
  set.seed(1)
  Q <- qr.Q(qr(matrix(rnorm(d * d), d)))
  v <- exp(seq(log(1), log(100), length.out = d))
  Sigma <- Q %*% diag(v) %*% t(Q)
  list(mu = seq(-1, 1, length.out = d), Sigma = (Sigma + t(Sigma)) / 2)
}

test_that("tuned MCLMC recovers a rotated 100-D Gaussian (condition number 100)", {
  g <- gauss100()
  sd_true <- sqrt(diag(g$Sigma))
  # BlackJAX tuning (energy variance 5e-4 per dimension). Measured bias: with
  # 6 chains x 50000 draws the marginal variances are 0.991 of the truth on
  # average (coordinates 0.98-1.00), so the discretisation bias is about
  # -1%. One chain of 20000 draws (thin 2) over seeds 1-6 gave average
  # variance ratios 0.984-0.995, per-coordinate ratios 0.92-1.07 and mean
  # errors up to 0.048 sd; the bounds below leave room for Monte Carlo error.
  r <- .mclmc_gaussian(g$mu, cov = g$Sigma, init = g$mu + 3, seed = 1,
                       chain_id = 1,
                       settings = bnn_mclmc(tuning = "blackjax",
                                            n_samples = 20000, thin = 2))
  expect_identical(r$info$status, "ok")
  expect_identical(dim(r$draws), c(10000L, 100L))
  ratio <- apply(r$draws, 2, var) / diag(g$Sigma)
  expect_lt(max(abs(colMeans(r$draws) - g$mu) / sd_true), 0.1)
  expect_gt(mean(ratio), 0.96)
  expect_lt(mean(ratio), 1.02)
  expect_true(all(ratio > 0.85 & ratio < 1.15))
  expect_lt(r$info$eevpd, 5 * 5e-4)

  # MILE's tuning targets an energy variance of 0.5 -> 0.1 per dimension,
  # 200-1000x BlackJAX's, which on this Gaussian puts the step size at the
  # integrator's stability edge for the stiffest directions (about 27 versus
  # 4 with BlackJAX's target). Measured over seeds 1-6 (stages
  # 4000/1000/1000, 20000 draws thinned by 2): average marginal variance
  # ratio 0.81-0.90 (a bias of -10% to -19%) and mean errors up to 0.15 sd.
  # The test bounds this bias.
  r <- .mclmc_gaussian(g$mu, cov = g$Sigma, init = g$mu + 3, seed = 1,
                       chain_id = 1,
                       settings = bnn_mclmc(n_tune = c(4000, 1000, 1000),
                                            n_samples = 20000, thin = 2,
                                            stepsize = 0.01))
  ratio <- apply(r$draws, 2, var) / diag(g$Sigma)
  expect_lt(max(abs(colMeans(r$draws) - g$mu) / sd_true), 0.25)
  expect_gt(mean(ratio), 0.75)
  expect_lt(mean(ratio), 1.02)
})

test_that("ziggurat normals for the momentum give the same sampler, other chains", {
  g <- gauss100()
  sd_true <- sqrt(diag(g$Sigma))
  # the first block of the test above with the ziggurat's deviates: the
  # same bounds hold (measured over seeds 1-3: mean variance ratio
  # 0.990-0.995, coordinates 0.93-1.06, mean errors up to 0.064 sd)
  s <- bnn_mclmc(tuning = "blackjax", n_samples = 20000, thin = 2, normal = "ziggurat")
  r <- .mclmc_gaussian(g$mu, cov = g$Sigma, init = g$mu + 3, seed = 1, chain_id = 1,
                       settings = s)
  expect_identical(r$info$status, "ok")
  ratio <- apply(r$draws, 2, var) / diag(g$Sigma)
  expect_lt(max(abs(colMeans(r$draws) - g$mu) / sd_true), 0.1)
  expect_gt(mean(ratio), 0.96)
  expect_lt(mean(ratio), 1.02)
  expect_true(all(ratio > 0.85 & ratio < 1.15))
  # reproducible, and not the polar method's chain
  s2 <- bnn_mclmc(n_tune = c(300, 100, 100), n_samples = 300, thin = 3, stepsize = 0.1,
                  normal = "ziggurat")
  a <- .mclmc_gaussian(g$mu, cov = g$Sigma, seed = 9, chain_id = 2, settings = s2)
  b <- .mclmc_gaussian(g$mu, cov = g$Sigma, seed = 9, chain_id = 2, settings = s2, block = 37L)
  expect_identical(a$draws, b$draws)
  s2$normal <- "polar"
  p <- .mclmc_gaussian(g$mu, cov = g$Sigma, seed = 9, chain_id = 2, settings = s2)
  expect_false(isTRUE(all.equal(a$draws, p$draws)))
  expect_match(format(bnn_mclmc(normal = "ziggurat")), "ziggurat normals")
  expect_error(bnn_mclmc(normal = "box-muller"), "'normal' must be one of")
})

test_that("both integrators have second-order energy error", {
  # Deterministic isokinetic dynamics (L = Inf: no momentum noise) on a
  # 100-D Gaussian. A symmetric (second-order) splitting has a local error
  # O(eps^3), so the energy error of one step shrinks ~8x when eps halves,
  # and a global error O(eps^2), so the energy error over a fixed time
  # shrinks ~4x. Measured (eps 0.5 -> 0.25 -> 0.125, time 8):
  #   leapfrog:  fixed time 4.002, 4.001; one step 8.63, 8.33
  #   mclachlan: fixed time 3.98, 3.995;  one step 7.90, 7.95
  d <- 100
  v <- exp(seq(log(1), log(100), length.out = d))
  set.seed(3)
  x0 <- rnorm(d) * sqrt(v)
  for (integ in c("leapfrog", "mclachlan")) {
    err <- sapply(c(0.5, 0.25, 0.125), function(eps) {
      r <- .mclmc_gaussian(rep(0, d), cov = diag(v), init = x0, seed = 1,
                           chain_id = 1,
                           settings = bnn_mclmc(integrator = integ,
                                                n_tune = c(0, 0, 0),
                                                n_samples = 8 / eps, thin = 1,
                                                stepsize = eps, L = Inf))
      c(total = sum(r$stats[, "energy_change"]),
        first = unname(r$stats[1, "energy_change"]))
    })
    fixed_time <- err["total", 1:2] / err["total", 2:3]
    one_step <- err["first", 1:2] / err["first", 2:3]
    expect_true(all(fixed_time > 3.7 & fixed_time < 4.3), label = integ)
    expect_true(all(one_step > 7 & one_step < 9.5), label = integ)
  }
})

test_that("same seed gives identical draws, another chain_id other draws", {
  g <- gauss100()
  s <- bnn_mclmc(n_tune = c(300, 100, 100), n_samples = 300, thin = 3,
                 stepsize = 0.1)
  a <- .mclmc_gaussian(g$mu, cov = g$Sigma, seed = 9, chain_id = 2, settings = s)
  b <- .mclmc_gaussian(g$mu, cov = g$Sigma, seed = 9, chain_id = 2, settings = s,
                       block = 37L)   # other block sizes, same chain
  expect_identical(a$draws, b$draws)
  expect_identical(a$stats, b$stats)
  expect_identical(a$info, b$info)
  c3 <- .mclmc_gaussian(g$mu, cov = g$Sigma, seed = 9, chain_id = 3, settings = s)
  expect_false(isTRUE(all.equal(a$draws, c3$draws)))
  d10 <- .mclmc_gaussian(g$mu, cov = g$Sigma, seed = 10, chain_id = 2, settings = s)
  expect_false(isTRUE(all.equal(a$draws, d10$draws)))
})

test_that("non-finite steps are reverted, counted and never become draws", {
  # N(0, I_10) with log density -Inf where x_1 > 2: every step that
  # crosses the wall has a non-finite log density
  d <- 10
  s <- bnn_mclmc(n_tune = c(1000, 300, 300), n_samples = 3000, thin = 1,
                 stepsize = 0.5)
  r <- .mclmc_gaussian(rep(0, d), cov = diag(d), init = rep(0, d), seed = 4,
                       chain_id = 1, settings = s,
                       upper = c(2, rep(Inf, d - 1)), trace = TRUE)
  rev_tune <- r$trace[, "reverted"] == 1
  rev_samp <- r$stats[, "reverted"] == 1
  expect_gt(sum(rev_tune), 0)
  expect_gt(sum(rev_samp), 0)
  expect_identical(r$info$n_reverted, as.double(sum(rev_tune) + sum(rev_samp)))
  expect_true(all(r$draws[, 1] <= 2))
  expect_true(all(is.finite(r$draws)))
  expect_true(all(is.finite(r$stats[, "logdens"])))
  expect_true(all(is.finite(r$trace[, "logdens"])))
  expect_true(all(is.na(r$stats[rev_samp, "energy_change"])))
  expect_true(all(is.finite(r$stats[!rev_samp, "energy_change"])))
  # a reverted step repeats the previous draw and shrinks the step size
  i <- which(rev_samp)
  i <- i[i > 1 & i < nrow(r$draws)]
  expect_gt(length(i), 0)
  expect_identical(r$draws[i, ], r$draws[i - 1, ])
  expect_equal(r$stats[i + 1, "stepsize"], 0.8 * r$stats[i, "stepsize"])
  # during stages 1 and 2 a failed step caps the step size at 0.8 times the
  # value it used
  j <- which(rev_tune & r$trace[, "stage"] < 3)
  expect_true(all(r$trace[j + 1, "stepsize"] <= 0.8 * r$trace[j, "stepsize"] * (1 + 1e-12)))
  # the budget is unchanged by reverted steps
  expect_identical(r$n_grad, bnn_mclmc_budget(s)$n_grad)

  # a non-finite log density at the start is an error
  expect_error(.mclmc_gaussian(rep(0, d), cov = diag(d), init = rep(3, d),
                               settings = s, upper = rep(2, d)),
               "not finite at 'init'")
})

test_that("stage-3 ESS is BlackJAX's single-chain estimator", {
  # reference: Geyer's initial positive and monotone sequences on acf()
  # autocovariances, written out in R
  ess_ref <- function(x) {
    n <- length(x)
    acov <- drop(stats::acf(x, lag.max = n - 1, type = "covariance",
                            plot = FALSE, demean = TRUE)$acf)
    var0 <- acov[1] * n / (n - 1)
    ne <- n - n %% 2
    rho <- c(1, 1 - (var0 - acov[2:ne]) / acov[1])
    K <- ne / 2
    ev <- rho[seq(1, ne, 2)]
    od <- rho[seq(2, ne, 2)]
    npos <- 0
    while (npos < K && ev[npos + 1] + od[npos + 1] > 0) npos <- npos + 1
    keep <- seq_len(K) <= npos
    ev2 <- ifelse(keep, ev, 0)
    od2 <- ifelse(keep, od, 0)
    nxt <- max(npos, 1) + 1
    if (nxt <= K) ev2[nxt] <- max(ev[nxt], 0)
    S <- ev2 + od2
    for (k in seq_len(K)[-1]) if (S[k] > S[k - 1]) {
      S[k] <- S[k - 1]
      ev2[k] <- S[k] / 2
    }
    tau <- -1 + 2 * sum(S) - ev2[min(nxt, K)]
    n / max(tau, 1 / log10(n))
  }
  set.seed(8)
  ar1 <- function(n, phi) as.numeric(stats::arima.sim(list(ar = phi), n))
  x <- cbind(ar1(1000, 0.9), ar1(1000, -0.5), rnorm(1000), ar1(1000, 0.99),
             cumsum(rnorm(1000)))
  expect_equal(.Call(C_mclmc_ess, x), apply(x, 2, ess_ref), tolerance = 1e-8)
  y <- x[1:999, 1:3]                  # odd length, odd number of columns
  expect_equal(.Call(C_mclmc_ess, y), apply(y, 2, ess_ref), tolerance = 1e-8)
  expect_true(is.nan(.Call(C_mclmc_ess, matrix(1, 10, 1))))
})

test_that("the gradient budget is exact and known before running", {
  expect_identical(bnn_mclmc_budget(bnn_mclmc())$n_grad, 120001)
  expect_identical(bnn_mclmc_budget(bnn_mclmc())$n_draws, 1000)
  expect_identical(bnn_mclmc_budget(bnn_mclmc(integrator = "leapfrog"))$n_grad, 60001)
  bj <- bnn_mclmc(tuning = "blackjax", n_samples = 1000)
  expect_identical(bj$n_tune, c(101L, 101L, 100L))
  expect_identical(unname(bnn_mclmc_budget(bj)$steps), c(101, 101, 33, 100, 1000))
  # a small BNN (heteroscedastic Gaussian, 2 hidden units): the chain uses
  # exactly the budgeted number of gradient evaluations, for both
  # integrators, with and without preconditioning
  set.seed(12)
  spec <- list(type = "bnn", sizes = c(2L, 2L, 2L), act = 0L, lik = 0L,
               prior = 0L, prior_scale = rep(1, 12), sigma_fixed = 1,
               sigma_prior = 0L, sigma_prior_scale = 1,
               X = matrix(rnorm(40), 20), y = rnorm(20))
  for (s in list(bnn_mclmc(n_tune = c(200, 60, 50), n_samples = 100),
                 bnn_mclmc(tuning = "blackjax", n_samples = 200,
                           integrator = "leapfrog"))) {
    r <- .mclmc_chain(spec, rep(0.1, 12), seed = 1, chain_id = 1,
                      settings = s, lr = 0.01)
    expect_identical(r$n_grad, bnn_mclmc_budget(s)$n_grad)
    expect_identical(nrow(r$draws), as.integer(bnn_mclmc_budget(s)$n_draws))
    expect_true(all(is.finite(r$draws)))
    expect_true(r$info$stepsize > 0 && r$info$L > 0)
  }
  # preconditioning estimated in stage 2 is used afterwards
  expect_false(all(r$info$sqrt_diag_cov == 1))
  expect_true(all(r$info$sqrt_diag_cov > 0))
})

test_that("presets resolve MILE's and BlackJAX's initial values", {
  m <- .mclmc_c_settings(bnn_mclmc(), dim = 450, lr = 1e-3)
  expect_identical(c(m$stepsize, m$L), c(1e-3, sqrt(450)))
  expect_identical(.mclmc_c_settings(bnn_mclmc(), dim = 100)$L, 15)
  expect_identical(m$energy_var, c(0.5, 0.1))
  expect_identical(c(m$n_eff, m$diag_precond, m$fft_params, m$fft_samples),
                   c(100, 0, 2000, 10000))
  b <- .mclmc_c_settings(bnn_mclmc(tuning = "blackjax"), dim = 400)
  expect_identical(c(b$stepsize, b$L), c(5, 20))
  expect_identical(b$energy_var, c(5e-4, 5e-4))
  expect_identical(c(b$n_eff, b$diag_precond, b$fft_params, b$fft_samples),
                   c(150, 1, 0, 0))
  expect_identical(.mclmc_c_settings(bnn_mclmc(stepsize = 0.3, L = 2),
                                     dim = 10, lr = 1e-3)[c("stepsize", "L")],
                   list(stepsize = 0.3, L = 2))
})

test_that("stage 3 can subsample parameters and steps", {
  # d = 100 > fft_params = 10 parameters, n3 = 400 > fft_samples = 50 rows
  g <- gauss100()
  s <- bnn_mclmc(n_tune = c(1000, 300, 400), n_samples = 10, thin = 1,
                 stepsize = 0.1, fft_params = 10, fft_samples = 50)
  r <- .mclmc_gaussian(g$mu, cov = g$Sigma, seed = 2, chain_id = 1, settings = s)
  full <- .mclmc_gaussian(g$mu, cov = g$Sigma, seed = 2, chain_id = 1,
                          settings = bnn_mclmc(n_tune = c(1000, 300, 400),
                                               n_samples = 10, thin = 1,
                                               stepsize = 0.1,
                                               fft_params = Inf,
                                               fft_samples = Inf))
  # same dynamics up to stage 3; L differs only through the ESS subset
  expect_identical(r$info$status, "ok")
  expect_true(is.finite(r$tune$L) && r$tune$L > 0)
  expect_false(identical(r$tune$L, full$tune$L))
  expect_lt(abs(log(r$tune$L / full$tune$L)), log(3))
})

test_that("the block-wise C interface runs the tuning stages in order, then samples", {
  # MCLMC is the chain driver's "mclmc" kernel: its warm-up is the tuning
  s <- .mclmc_c_settings(bnn_mclmc(n_tune = c(10, 5, 4), n_samples = 10,
                                   thin = 1, stepsize = 0.1), dim = 5)
  spec <- list(type = "gaussian", mean = rep(0, 5), prec = diag(5))
  expect_error(.Call(C_kchain_new, "mclmc", spec, rep(0.1, 5), 1, 1L,
                     c(s, list(warmup = 5L, iter = 10L))),
               "warm-up must be its 19 tuning steps")
  xp <- .Call(C_kchain_new, "mclmc", spec, rep(0.1, 5), 1, 1L,
              c(s, list(warmup = 19L, iter = 10L)))
  t1 <- .Call(C_kchain_run, xp, 4L, NULL)
  expect_identical(t1$n_done, 4L)
  expect_identical(c(t1$info$done1, t1$info$done2, t1$info$done3), c(4, 0, 0))
  t2 <- .Call(C_kchain_run, xp, 15L, NULL)
  expect_identical(c(t2$info$done1, t2$info$done2, t2$info$done3), c(10, 5, 4))
  expect_identical(t2$info$stage, 4)     # tuning complete
  expect_identical(t2$info$n_sample_steps, 0)
  r1 <- .Call(C_kchain_run, xp, 4L, c(0L, 3L))   # sampling steps 0..3 keep 0 and 3
  r2 <- .Call(C_kchain_run, xp, 4L, 2L)          # steps 4..7 keep 6
  expect_identical(c(nrow(r1$draws), nrow(r2$draws)), c(2L, 1L))
  expect_identical(.Call(C_kchain_stat_names, "mclmc"),
                   c("energy_change__", "kinetic_change__", "lp__", "stepsize__",
                     "L__", "reverted__"))
  expect_identical(r2$info$n_sample_steps, 8)
  expect_identical(r2$info$n_grad, 1 + 2 * (10 + 5 + 4 + 8))
})

test_that("MCLMC settings are validated with the argument's name", {
  expect_s3_class(bnn_mclmc(), "bnn_mclmc")
  expect_error(bnn_mclmc(n_tune = c(1, 2)), "'n_tune'")
  expect_error(bnn_mclmc(thin = 0), "'thin'")
  expect_error(bnn_mclmc(stepsize = -1), "'stepsize'")
  expect_error(bnn_mclmc(L = 0), "'L'")
  expect_error(bnn_mclmc(energy_var = c(0.5, 0.1, 0.01)), "'energy_var'")
  expect_error(bnn_mclmc(shrink = 1), "'shrink'")
  expect_error(bnn_mclmc(fft_params = 1), "'fft_params'")
  expect_error(bnn_mclmc(integrator = "yoshida"), "should be one of")
  expect_error(bnn_mclmc_budget(list()), "'settings'")
  expect_error(.mclmc_gaussian(1, cov = matrix(1)), "at least 2 parameters")
  expect_error(.mclmc_gaussian(c(0, 0), cov = diag(2), init = c(0, 0, 0)),
               "'init' must have length 2")
  expect_error(.mclmc_chain(list(type = "gaussian"), c(0, 0), 1, 1),
               "needs double 'mean'")
})

# Stochastic-gradient MCMC: the minibatch target (src/mcmc/minibatch.c), the
# SGLD / pSGLD / SGHMC kernels (src/mcmc/sgld.c, src/mcmc/sghmc.c) and their settings.

# The model of the known-answer tests: mpg ~ wt + hp, standardised, a
# Bayesian linear model with fixed sigma (conjugate: Gaussian posterior).
sg_model <- function(hidden = integer(0), sigma = 0.5, lik = NULL) {
  if (is.null(lik)) lik <- bnn_likelihood("gaussian", sigma = sigma)
  bnnmc:::prepare_model(quote(list(formula = mpg ~ wt + hp, data = mtcars)),
                        environment(), mpg ~ wt + hp, mtcars,
                        hidden, "tanh", lik, bnn_prior(), TRUE)
}
mb_eval <- function(spec, settings, theta, seed = 1, chain = 1L, hold = NULL)
  .Call(bnnmc:::C_minibatch_eval, spec, settings, seed, as.integer(chain),
        theta, hold)
expect_abs <- function(a, b, tol) expect_lt(max(abs(a - b)), tol)
full_grad <- function(spec, theta) .Call(bnnmc:::C_model_logpost, spec, theta)

test_that("the minibatch gradient averages to the full gradient over an epoch", {
  m <- sg_model(hidden = 3, lik = bnn_likelihood("gaussian"))  # sigma sampled
  spec <- m$spec
  d <- bnnmc:::spec_dim(spec)
  th <- bnnmc:::with_seed(1, stats::rnorm(d))
  full <- full_grad(spec, th)
  for (B in c(1L, 8L, 32L)) {
    nb <- 32L / B
    r <- mb_eval(spec, list(batch_size = B), matrix(th, d, 3L * nb))
    for (e in 0:2) {
      cols <- e * nb + seq_len(nb)
      # an epoch's batches are disjoint and cover every row once
      expect_setequal(c(r$idx[, cols]), 1:32)
      expect_abs(rowMeans(r$grad[, cols, drop = FALSE]), c(full$grad), 1e-10)
      expect_abs(mean(r$lp[cols]), full$lp, 1e-10)
    }
    # reshuffled each epoch
    if (B < 32L) expect_false(identical(r$idx[, 1:nb], r$idx[, nb + 1:nb]))
  }
  # batch 32 of 32 rows is the full gradient (the rows summed in another order)
  r <- mb_eval(spec, list(batch_size = 32L), matrix(th, d, 1))
  expect_equal(c(r$grad), c(full$grad), tolerance = 1e-12)
})

test_that("minibatches of a weighted likelihood carry their rows' weights", {
  spec <- sg_model(hidden = 2, lik = bnn_likelihood("gaussian"))$spec
  spec$weights <- rep(c(0, 0.5, 2, 1), 8)
  d <- bnnmc:::spec_dim(spec)
  th <- bnnmc:::with_seed(3, stats::rnorm(d))
  full <- full_grad(spec, th)
  r <- mb_eval(spec, list(batch_size = 4L), matrix(th, d, 8L))
  expect_setequal(c(r$idx), 1:32)
  expect_abs(rowMeans(r$grad), c(full$grad), 1e-10)
  expect_abs(mean(r$lp), full$lp, 1e-10)
})

test_that("the batch changes at every evaluation unless the kernel holds it", {
  spec <- sg_model()$spec
  th <- matrix(0.1, 3, 12)
  r <- mb_eval(spec, list(batch_size = 5L), th)
  # 32 %/% 5 = 6 disjoint batches per epoch, then a reshuffle
  for (k in 2:12) expect_false(identical(r$idx[, k], r$idx[, k - 1]))
  expect_length(unique(c(r$idx[, 1:6])), 30L)
  # hold(on) draws a batch and the next evaluations reuse it until hold(off)
  h <- mb_eval(spec, list(batch_size = 5L), th,
               hold = as.integer(c(1, 0, 0, -1, 0, 1, 0, -1, 0, 0, 0, 0)))
  expect_identical(h$idx[, 1], h$idx[, 2])
  expect_identical(h$idx[, 1], h$idx[, 3])
  expect_false(identical(h$idx[, 4], h$idx[, 3]))
  expect_false(identical(h$idx[, 6], h$idx[, 5]))
  expect_identical(h$idx[, 6], h$idx[, 7])
  expect_false(identical(h$idx[, 8], h$idx[, 7]))
  # with replacement: rows repeat within a batch of all 32
  w <- mb_eval(spec, list(batch_size = 32L, replace = TRUE), th[, 1:3])
  expect_true(all(apply(w$idx, 2, function(i) anyDuplicated(i) > 0)))
  expect_true(all(w$idx >= 1 & w$idx <= 32))
  # batches are the chain's own stream: same (seed, chain) same batches
  expect_identical(mb_eval(spec, list(batch_size = 5L), th)$idx, r$idx)
  expect_false(identical(mb_eval(spec, list(batch_size = 5L), th, chain = 2L)$idx, r$idx))
  expect_false(identical(mb_eval(spec, list(batch_size = 5L), th, seed = 2)$idx, r$idx))
})

test_that("control-variate and SVRG gradients are exact at the centre", {
  m <- sg_model(hidden = 3, lik = bnn_likelihood("gaussian"))
  spec <- m$spec
  d <- bnnmc:::spec_dim(spec)
  ctr <- bnnmc:::with_seed(2, stats::rnorm(d, sd = 0.5))
  full <- full_grad(spec, ctr)
  cv <- mb_eval(spec, list(batch_size = 4L, gradient = 1L, centre = ctr),
                matrix(ctr, d, 5))
  expect_identical(cv$grad, matrix(full$grad, d, 5))
  # the value sums the prior's constant in another order
  expect_equal(cv$lp, rep(full$lp, 5), tolerance = 1e-14)
  expect_identical(cv$n_full, 1)
  # away from the centre, unbiased over an epoch
  th <- ctr + 0.1
  cv2 <- mb_eval(spec, list(batch_size = 4L, gradient = 1L, centre = ctr),
                 matrix(th, d, 8))
  expect_abs(rowMeans(cv2$grad), c(full_grad(spec, th)$grad), 1e-10)
  # SVRG: re-centred at the evaluation point every svrg_period evaluations
  pts <- sapply(1:7, function(k) ctr + 0.05 * k)
  sv <- mb_eval(spec, list(batch_size = 4L, gradient = 2L, centre = ctr,
                           svrg_period = 3L), pts)
  expect_identical(sv$n_full, 3)    # the start, then evaluations 4 and 7
  for (k in c(4L, 7L)) {
    f <- full_grad(spec, pts[, k])
    expect_identical(sv$grad[, k], c(f$grad))
    expect_equal(sv$lp[k], f$lp, tolerance = 1e-14)
  }
  expect_false(identical(sv$grad[, 5], c(full_grad(spec, pts[, 5])$grad)))
})

# The exact posterior of the conjugate linear model.
lin_posterior <- function(m, sigma = 0.5) {
  X <- cbind(m$X, 1)               # W1[1,1], W1[2,1], b1[1]
  P <- crossprod(X) / sigma^2 + diag(ncol(X))
  S <- solve(P)
  list(mean = c(S %*% crossprod(X, m$y_model)) / sigma^2, cov = S, prec = P, X = X)
}

# Covariance of the minibatch gradient (N/B) sum_B g_i of the linear model
# at theta, for B rows drawn with replacement: N^2/B times the population
# covariance of the per-row gradients g_i.
lin_grad_noise <- function(post, y, theta, B, sigma = 0.5) {
  X <- post$X
  N <- nrow(X)
  G <- X * c(y - X %*% theta) / sigma^2
  N * (N - 1) / B * stats::cov(G)
}

test_that("full-batch SGLD has the stationary law of the discretised diffusion", {
  # On N(mu, P^-1) with exact gradients, SGLD is the linear recursion
  # x' = A x + sqrt(2 eps) xi, A = I - eps P: its stationary mean is mu
  # exactly and its covariance S solves S = A S A' + 2 eps I (the step-size
  # bias, here 3.6% on the largest eigen-direction).  MC error only.
  P <- matrix(c(4, 1, 1, 2), 2)
  eps <- 0.02
  A <- diag(2) - eps * P
  S <- matrix(solve(diag(4) - kronecker(A, A), c(2 * eps * diag(2))), 2)
  out <- bnn_sample_gaussian(c(1, -1), P, sampler = bnn_sgld(eps, batch_size = NULL),
                             chains = 4, warmup = 500, iter = 20000, seed = 3)
  expect_true(all(out$chain_status == "ok"))
  for (j in 1:2) {
    x <- out$draws[, , j]
    expect_lt(abs(mean(x) - c(1, -1)[j]) / batch_mcse(x), 4)
    sq <- (x - c(1, -1)[j])^2
    expect_lt(abs(mean(sq) - S[j, j]) / batch_mcse(sq), 4)
  }
  expect_gt(S[1, 1] / solve(P)[1, 1], 1.03)   # the bias is visible at this size
  expect_identical(unique(c(out$sampler_stats[, , "stepsize__"])), eps)
})

test_that("SGLD and SGHMC recover the conjugate linear model's posterior", {
  m <- sg_model()
  post <- lin_posterior(m)
  V <- lin_grad_noise(post, m$y_model, post$mean, B = 8L)
  # SGLD with gradient noise zeta ~ (0, V): x' = A x + eps zeta + sqrt(2 eps) xi,
  # stationary mean mu (linear recursion, zero-mean noise), covariance S with
  # S = A S A' + 2 eps I + eps^2 V (V taken at the posterior mean).  The test
  # allows the predicted bias |S - Sigma| (x 1.5, V varies over the
  # posterior) plus 4 Monte Carlo standard errors.  Batches are drawn with
  # replacement here, so that each is independent of the state: within an
  # epoch (the default) the batch depends on the earlier ones, which moved
  # the state, and the mean gets an O(eps) bias (2-3% of a posterior sd on
  # the intercept at this step size; checked below with that allowance).
  eps <- 2e-3
  A <- diag(3) - eps * post$prec
  S <- matrix(solve(diag(9) - kronecker(A, A), c(2 * eps * diag(3) + eps^2 * V)), 3)
  fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = integer(0),
                 likelihood = bnn_likelihood("gaussian", sigma = 0.5),
                 sampler = bnn_sgld(eps, batch_size = 8, replace = TRUE), chains = 4,
                 warmup = 500, iter = 5000, thin = 5, seed = 7,
                 init = rep(list(post$mean), 4))
  expect_true(all(fit$chain_status == "ok"))
  for (j in 1:3) {
    x <- fit$draws[, , j]
    expect_lt(abs(mean(x) - post$mean[j]), 4 * batch_mcse(x))
    sq <- (x - post$mean[j])^2
    expect_lt(abs(mean(sq) - post$cov[j, j]),
              1.5 * abs(S[j, j] - post$cov[j, j]) + 4 * batch_mcse(sq))
  }
  fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = integer(0),
                 likelihood = bnn_likelihood("gaussian", sigma = 0.5),
                 sampler = bnn_sgld(eps, batch_size = 8), chains = 4,
                 warmup = 500, iter = 5000, thin = 5, seed = 7,
                 init = rep(list(post$mean), 4))
  for (j in 1:3) {
    x <- fit$draws[, , j]
    expect_lt(abs(mean(x) - post$mean[j]),
              0.05 * sqrt(post$cov[j, j]) + 4 * batch_mcse(x))
  }
  # SGHMC: the covariance of w at transition boundaries, propagated through
  # L leapfrog steps of z = (w - mu, v): z' = T z + (0, eps zeta + sqrt(2 a eps) xi),
  # T = [I I; -eps P (1 - a) I], with v ~ N(0, eps I) at the start: the
  # fixed point C is the exact stationary covariance with gradient noise V.
  eps <- 1e-4
  a <- 0.1
  L <- 10L
  Tm <- rbind(cbind(diag(3), diag(3)), cbind(-eps * post$prec, (1 - a) * diag(3)))
  Q <- matrix(0, 6, 6)
  Q[4:6, 4:6] <- 2 * a * eps * diag(3) + eps^2 * V
  C <- post$cov
  for (it in 1:3000) {
    K <- matrix(0, 6, 6)
    K[1:3, 1:3] <- C
    K[4:6, 4:6] <- eps * diag(3)
    for (l in seq_len(L)) K <- Tm %*% K %*% t(Tm) + Q
    C <- K[1:3, 1:3]
  }
  fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = integer(0),
                 likelihood = bnn_likelihood("gaussian", sigma = 0.5),
                 sampler = bnn_sghmc(eps, friction = a, n_leapfrog = L, batch_size = 8,
                                     replace = TRUE),
                 chains = 4, warmup = 200, iter = 4000, thin = 2, seed = 8,
                 init = rep(list(post$mean), 4))
  expect_true(all(fit$chain_status == "ok"))
  for (j in 1:3) {
    x <- fit$draws[, , j]
    expect_lt(abs(mean(x) - post$mean[j]), 4 * batch_mcse(x))
    sq <- (x - post$mean[j])^2
    expect_lt(abs(mean(sq) - post$cov[j, j]),
              1.5 * abs(C[j, j] - post$cov[j, j]) + 4 * batch_mcse(sq))
  }
})

test_that("pSGLD, cyclical and control-variate samplers run and stay finite", {
  fits <- list(
    psgld = bnn_psgld(1e-3, batch_size = 8),
    csgld = bnn_sgld(2e-3, batch_size = 8, cycles = 4),
    csghmc = bnn_sghmc(1e-4, friction = 0.1, batch_size = 8, cycles = 3,
                       batch = "iteration"),
    sgld_cv = bnn_sgld(2e-3, batch_size = 8, gradient = "cv"),
    sghmc_svrg = bnn_sghmc(1e-4, friction = 0.1, batch_size = 8, gradient = "svrg"))
  m <- sg_model()
  post <- lin_posterior(m)
  for (nm in names(fits)) {
    fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = c(3),
                   likelihood = bnn_likelihood("gaussian", sigma = 0.5),
                   sampler = fits[[nm]], chains = 2, warmup = 100, iter = 300,
                   seed = 5, progress = FALSE)
    expect_true(all(fit$chain_status == "ok"), info = nm)
    expect_true(all(is.finite(fit$draws)), info = nm)
    expect_identical(dimnames(fit$sampler_stats)[[3]], c("lp__", "stepsize__"))
  }
  # the cyclical schedule: 4 cycles of ceil(400 / 4) = 100 transitions
  fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = integer(0),
                 likelihood = bnn_likelihood("gaussian", sigma = 0.5),
                 sampler = bnn_sgld(2e-3, batch_size = 8, cycles = 4), chains = 1,
                 warmup = 100, iter = 300, seed = 5)
  k <- 100:399
  expect_equal(c(fit$sampler_stats[, 1, "stepsize__"]),
               1e-3 * (cos(pi * (k %% 100) / 100) + 1), tolerance = 1e-14)
  # control variates: the centre is the MAP (here the posterior mean; Adam
  # gets within a few percent of a posterior sd) and the chains start there
  fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = integer(0),
                 likelihood = bnn_likelihood("gaussian", sigma = 0.5),
                 sampler = bnn_sgld(2e-3, batch_size = 8, gradient = "cv"),
                 chains = 2, warmup = 0, iter = 2000, seed = 5)
  expect_lt(max(abs(fit$sampler$centre - post$mean) / sqrt(diag(post$cov))), 0.05)
  expect_identical(fit$inits[[1]], fit$sampler$centre)
  expect_lt(max(abs(apply(fit$draws, 3, mean) - post$mean) / sqrt(diag(post$cov))), 0.3)
  # where the chains start
  one <- function(s, init = "random")
    bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = integer(0),
            likelihood = bnn_likelihood("gaussian", sigma = 0.5), sampler = s,
            chains = 1, warmup = 0, iter = 5, seed = 5, init = init)
  m1 <- one(bnn_sgld(2e-3, batch_size = 8, start = "map"))
  expect_identical(m1$inits[[1]], m1$sampler$centre)
  expect_identical(m1$sampler$centre, fit$sampler$centre)   # same seed, same MAP
  r1 <- one(bnn_sgld(2e-3, batch_size = 8, gradient = "cv", start = "init"))
  expect_false(identical(r1$inits[[1]], r1$sampler$centre))
  u1 <- one(bnn_sgld(2e-3, batch_size = 8, gradient = "cv"), init = list(c(0, 0, 0)))
  expect_identical(u1$inits[[1]], c(0, 0, 0))
  expect_null(one(bnn_sgld(2e-3, batch_size = 8))$sampler$centre)
  expect_error(bnn_sgld(start = "mode"), "'start'")
})

test_that("the same seed gives the same SG draws whatever the block size or plan", {
  spec <- sg_model(hidden = 2)$spec
  d <- bnnmc:::spec_dim(spec)
  s <- bnn_sghmc(1e-4, friction = 0.1, batch_size = 5, gradient = "svrg",
                 centre = rep(0.1, d), svrg_period = 7)
  a <- bnnmc:::run_chain(spec, rep(0.1, d), 9, 2L, s, 20L, 60L, 1L, block = 7L, fit_shape = TRUE)
  b <- bnnmc:::run_chain(spec, rep(0.1, d), 9, 2L, s, 20L, 60L, 1L, block = 60L, fit_shape = TRUE)
  expect_identical(a$draws, b$draws)
  t3 <- bnnmc:::run_chain(spec, rep(0.1, d), 9, 2L, s, 20L, 60L, 3L, block = 11L, fit_shape = TRUE)
  expect_identical(t3$draws, a$draws[seq(1, 60, by = 3), , , drop = FALSE])
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  f <- function() bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 2,
                          likelihood = bnn_likelihood("gaussian", sigma = 0.5),
                          sampler = bnn_sgld(1e-3, batch_size = 8), chains = 2,
                          warmup = 50, iter = 100, seed = 3, progress = FALSE)
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  seq_draws <- f()$draws
  future::plan(future::multisession, workers = 2)
  expect_identical(f()$draws, seq_draws)
})

test_that("a diverging SG chain is a failed chain with where it failed", {
  for (s in list(bnn_sgld(5, batch_size = 8), bnn_sghmc(5, batch_size = 8))) {
    w <- capture_warnings(
      fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3,
                     likelihood = bnn_likelihood("gaussian", sigma = 0.5),
                     sampler = s, chains = 2, warmup = 20, iter = 50, seed = 1))
    expect_match(w, "2 of 2 chains failed: non-finite state .*chains 1 \\((warm-up|sampling), step [0-9]+\\)")
    expect_true(all(is.na(fit$draws)))
    expect_true(all(fit$chain_status == "non-finite state (NaN/Inf): the chain diverged"))
    expect_true(all(fit$failed_at$phase %in% c("warm-up", "sampling")))
    expect_true(all(fit$failed_at$step >= 1))
    expect_match(fit$failed_at$reason, "diverged")
  }
})

test_that("bad SG settings are errors naming the argument", {
  fit_with <- function(s, warmup = 10, iter = 10)
    bnn_fit(mpg ~ wt, data = mtcars, hidden = integer(0),
            likelihood = bnn_likelihood("gaussian", sigma = 0.5), sampler = s,
            chains = 1, warmup = warmup, iter = iter, seed = 1)
  expect_error(fit_with(bnn_sgld(batch_size = 40)), "'batch_size' \\(40\\) must be at most the number of rows \\(32\\)")
  expect_error(bnn_sgld(batch_size = 0), "'batch_size'")
  expect_error(bnn_sgld(batch_size = 2.5), "'batch_size'")
  expect_error(bnn_sgld(stepsize = 0), "'stepsize'")
  expect_error(bnn_sghmc(stepsize = -1), "'stepsize'")
  expect_error(bnn_psgld(stepsize = 0), "'stepsize'")
  expect_error(bnn_sghmc(friction = 0), "'friction'")
  expect_error(bnn_sghmc(friction = 1.5), "'friction'")
  expect_error(bnn_sghmc(n_leapfrog = 0), "'n_leapfrog'")
  expect_error(bnn_sghmc(batch = "epoch"), "'batch'")
  expect_error(bnn_psgld(alpha = 1), "'alpha'")
  expect_error(bnn_psgld(lambda = 0), "'lambda'")
  expect_error(bnn_sgld(gradient = "exact"), "'gradient'")
  expect_error(bnn_sgld(gradient = "cv", batch_size = NULL), "needs a 'batch_size'")
  expect_error(bnn_sgld(cycles = 0), "'cycles'")
  expect_error(fit_with(bnn_sgld(batch_size = 8, cycles = 30)),
               "'cycles' \\(30\\) must not exceed the number of iterations \\(warmup \\+ iter = 20\\)")
  expect_error(fit_with(bnn_sgld(batch_size = 8, gradient = "cv", centre = c(0, 0, 0))),
               "'centre' must have one value per parameter \\(2\\)")
  # the C boundary checks on its own too
  spec <- sg_model()$spec
  expect_error(mb_eval(spec, list(batch_size = 33L), matrix(0, 3, 1)),
               "'batch_size' must be between 1 and the number of rows \\(32\\), not 33")
  expect_error(bnnmc:::run_chain(spec, c(0, 0, 0), 1, 1L,
                                        bnn_sgld(batch_size = 8, cycles = 50), 10L, 10L, 1L),
               "'cycles' \\(50\\) must not exceed")
  gspec <- list(type = "gaussian", mean = c(0, 0), prec = as.double(diag(2)))
  expect_error(bnnmc:::run_chain(gspec, c(0, 0), 1, 1L, bnn_sgld(), 10L, 10L, 1L),
               "'batch_size' needs a model with data")
})

test_that("Adam's exponential learning-rate decay matches a direct computation", {
  spec <- sg_model()$spec
  th0 <- c(0.3, -0.2, 0.1)
  run <- function(decay, epochs = 4)
    bnnmc:::.bnn_optimize(spec, init = th0, seed = 1, member = 0L, optimizer = "adam",
                          lr = 0.05, weight_decay = 0, epochs = epochs,
                          loss = "posterior", lr_decay = decay)$par
  # Adam in R: full batch, loss -(1/n) log posterior, lr * decay^epoch
  adam_r <- function(decay, epochs = 4) {
    th <- th0
    m <- v <- 0
    for (t in seq_len(epochs)) {
      g <- -c(full_grad(spec, th)$grad) / 32
      m <- 0.9 * m + 0.1 * g
      v <- 0.999 * v + 0.001 * g^2
      th <- th - 0.05 * decay^(t - 1) * (m / (1 - 0.9^t)) / (sqrt(v / (1 - 0.999^t)) + 1e-8)
    }
    th
  }
  expect_abs(run(0.5), adam_r(0.5), 1e-12)
  expect_abs(run(1), adam_r(1), 1e-12)
  # no decay is the existing optimiser, bit for bit
  expect_identical(run(1), bnnmc:::.bnn_optimize(spec, init = th0, seed = 1, member = 0L,
                                                 optimizer = "adam", lr = 0.05,
                                                 weight_decay = 0, epochs = 4,
                                                 loss = "posterior")$par)
  expect_error(bnn_optimizer(lr_decay = 0), "'lr_decay'")
  expect_error(bnn_optimizer(lr_decay = 1.1), "'lr_decay'")
})

test_that("the kernels' ziggurat normal deviates are standard normal", {
  x <- .Call(bnnmc:::C_zig_draws, 1, 200000L, FALSE)
  # the kernels draw a step's deviates in one pass (bnn_zig_fill), with the
  # generator's state in registers: the same deviates, slow paths included
  expect_identical(.Call(bnnmc:::C_zig_draws, 1, 200000L, TRUE), x)
  expect_identical(.Call(bnnmc:::C_zig_draws, 5, 7L, TRUE),
                   .Call(bnnmc:::C_zig_draws, 5, 7L, FALSE))
  expect_gt(stats::ks.test(x, "pnorm")$p.value, 1e-3)
  expect_lt(abs(mean(x)), 4 / sqrt(2e5))
  expect_lt(abs(var(x) - 1), 4 * sqrt(2 / 2e5))
  # the tail beyond the ziggurat's base (R = 3.4426) and a wedge region
  for (q in c(1, 2, 3.4426198559)) {
    p <- 2 * stats::pnorm(-q)
    expect_lt(abs(mean(abs(x) > q) - p), 4 * sqrt(p * (1 - p) / 2e5))
  }
})

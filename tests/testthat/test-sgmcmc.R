# Stochastic-gradient MCMC: the minibatch target (src/minibatch.c), the
# SGLD / pSGLD / SGHMC kernels (src/sgld.c, src/sghmc.c) and their settings.

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
  expect_identical(cv$lp, rep(full$lp, 5))
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
    expect_identical(sv$lp[k], f$lp)
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
                 warmup = 500, iter = 25000, thin = 5, seed = 7,
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
                 warmup = 500, iter = 25000, thin = 5, seed = 7,
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
                 chains = 4, warmup = 200, iter = 8000, thin = 2, seed = 8,
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

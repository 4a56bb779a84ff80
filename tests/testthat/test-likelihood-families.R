# The Poisson, negative binomial, Student-t and binomial likelihoods: exact
# gradients, their log density against R's own densities, fits through the
# samplers, prediction, and family = as glm and brms users write it.

# The fits here are short on purpose (they pin behaviour, not posteriors):
# their "keeps fewer than 100 draws" warning is expected (helper-short-run.R).
bnn_fit <- function(...) short_run(bnnmc::bnn_fit(...))

# a spec of each new likelihood on random data (offset included for the
# count likelihoods); y as encode_count_response() builds it
fam_spec <- function(lik, n = 300, p = 3, hidden = c(4, 3), act = "tanh", seed = 1) {
  set.seed(seed)
  X <- matrix(rnorm(n * p), n, p)
  off <- runif(n, -0.5, 0.5)
  y <- switch(lik$family,
    poisson = rpois(n, exp(0.5 + X[, 1] / 2 + off)),
    negbinomial = rnbinom(n, size = 2, mu = exp(0.5 + X[, 1] / 2 + off)),
    binomial = { tr <- rbinom(n, 12, 0.7); s <- rbinom(n, tr, plogis(X[, 1])); cbind(s, tr - s) },
    student = X[, 1] + rt(n, df = 3))
  ym <- if (lik$family == "student") y else
    bnnmc:::encode_count_response(y, lik, if (lik$family == "binomial") NULL else off)$y
  sizes <- bnnmc:::layer_sizes(p, hidden, lik)
  spec <- bnnmc:::make_spec(sizes, act, lik, bnn_prior(scale = 0.7), X = X, y = as.double(ym))
  list(spec = spec, X = X, y = y, ym = ym, off = off, sizes = sizes)
}

new_liks <- function() list(
  bnn_likelihood("poisson"), bnn_likelihood("negbinomial"),
  bnn_likelihood("student"), bnn_likelihood("student", nu = 4),
  bnn_likelihood("binomial"))

test_that("the new likelihoods' gradients match finite differences, over several chunks", {
  for (lik in new_liks()) for (act in c("tanh", "relu", "identity")) {
    s <- fam_spec(lik, act = act)
    set.seed(2)
    theta <- rnorm(bnnmc:::spec_dim(s$spec), 0, 0.4)
    err <- fd_check(s$spec, theta)
    expect_lt(err, 1e-6, label = sprintf("%s (nu %s) / %s: relative error %g", lik$family,
                                         format(lik[["nu"]]), act, err))
  }
})

test_that("the new likelihoods' dimensions count their own parameters", {
  dims <- vapply(new_liks(), function(lik) {
    s <- fam_spec(lik, n = 5)
    bnnmc:::spec_dim(s$spec) - bnn_n_parameters(s$sizes)
  }, numeric(1))
  expect_equal(dims, c(0, 1, 2, 1, 0))
})

test_that("the weighted likelihood of a new family is the sum of weighted rows", {
  for (lik in new_liks()) {
    s <- fam_spec(lik, n = 40)
    set.seed(3)
    theta <- rnorm(bnnmc:::spec_dim(s$spec), 0, 0.4)
    w <- runif(40)
    sw <- s$spec
    sw$weights <- w
    ll_w <- .Call(C_model_logpost, sw, matrix(theta))$loglik
    ll_i <- vapply(seq_len(40), function(i) {
      si <- s$spec
      si$X <- s$X[i, , drop = FALSE]
      si$y <- as.double(matrix(s$ym, 40)[i, ])
      .Call(C_model_logpost, si, matrix(theta))$loglik
    }, numeric(1))
    expect_equal(ll_w, sum(w * ll_i), tolerance = 1e-10)
    expect_lt(fd_check(sw, theta), 1e-6)
  }
})

# The exact log density in plain R from the network's outputs (the
# comparison with Stan's log density is not made here: rstan is not
# installed where this was written).
ref_loglik <- function(s, lik, theta) {
  out <- .Call(C_model_forward, s$spec, matrix(theta), s$X, 1L)[, 1, 1]
  nnet <- bnn_n_parameters(s$sizes)
  ym <- matrix(s$ym, nrow(s$X))
  switch(lik$family,
    poisson = sum(dpois(ym[, 1], exp(out + ym[, 2]), log = TRUE)),
    negbinomial = sum(dnbinom(ym[, 1], size = exp(theta[nnet + 1]), mu = exp(out + ym[, 2]),
                              log = TRUE)),
    binomial = sum(dbinom(ym[, 1], ym[, 2], plogis(out + ym[, 3]), log = TRUE)),
    student = {
      sg <- exp(theta[nnet + 1])
      nu <- if (is.null(lik[["nu"]])) exp(theta[nnet + 2]) else lik[["nu"]]
      sum(dt((s$y - out) / sg, df = nu, log = TRUE) - log(sg))
    })
}

test_that("the new likelihoods' log density equals R's dpois, dnbinom, dt and dbinom", {
  for (lik in new_liks()) {
    s <- fam_spec(lik, n = 50, hidden = 3)
    set.seed(4)
    theta <- rnorm(bnnmc:::spec_dim(s$spec), 0, 0.5)
    ll <- .Call(C_model_logpost, s$spec, matrix(theta))$loglik
    expect_equal(ll, ref_loglik(s, lik, theta), tolerance = 1e-8,
                 label = lik$family)
  }
})

test_that("the negative binomial is exact for large counts and a large phi too", {
  lik <- bnn_likelihood("negbinomial")
  s <- fam_spec(lik, n = 60, hidden = 3)
  set.seed(6)
  y <- rnbinom(60, size = 2, mu = 40)   # most counts >= 16: lgamma and digamma per row
  s$y <- y
  s$ym <- bnnmc:::encode_count_response(y, lik, s$off)$y
  s$spec$y <- as.double(s$ym)
  # phi = exp(17) and exp(40): the asymptotic series (beyond exp(40) the
  # prior's -0.01 phi swamps finite differences of the log posterior)
  for (lphi in c(-1, 2, 17, 40)) {
    theta <- c(rnorm(bnn_n_parameters(s$sizes), 0, 0.5), lphi)
    ll <- .Call(C_model_logpost, s$spec, matrix(theta))$loglik
    expect_equal(ll, ref_loglik(s, lik, theta), tolerance = 1e-8)
    if (lphi < 30) expect_lt(fd_check(s$spec, theta), 1e-6)
  }
})

test_that("the priors of phi and nu are gamma densities with the log-scale Jacobian", {
  lik <- bnn_likelihood("negbinomial", phi_prior = c(2, 0.5))
  s <- fam_spec(lik, n = 10, hidden = integer(0))
  theta <- c(rep(0, bnn_n_parameters(s$sizes)), log(3))
  lp0 <- .Call(C_model_logpost, s$spec, matrix(theta))$logprior
  net <- sum(dnorm(0, 0, 0.7, log = TRUE) * bnn_n_parameters(s$sizes))
  expect_equal(lp0 - net, dgamma(3, 2, 0.5, log = TRUE) + log(3), tolerance = 1e-12)
  lik <- bnn_likelihood("student")
  s <- fam_spec(lik, n = 10, hidden = integer(0))
  theta <- c(rep(0, bnn_n_parameters(s$sizes)), log(0.8), log(5))
  lp <- .Call(C_model_logpost, s$spec, matrix(theta))$logprior - net
  hn <- log(2) + dnorm(0.8, log = TRUE) + log(0.8)
  expect_equal(lp, hn + dgamma(5, 2, 0.1, log = TRUE) + log(5), tolerance = 1e-12)
})

test_that("single precision gives the new likelihoods' value and gradient to float accuracy", {
  # every kernel: the single-precision pass computes these likelihoods from
  # the float outputs itself, with the kernels' log1p
  old <- .Call(C_simd, NULL)
  on.exit(.Call(C_simd, old))
  kinds <- unique(vapply(c("generic", "avx2+fma", "avx512"), function(k) .Call(C_simd, k), ""))
  for (k in kinds) {
    .Call(C_simd, k)
    for (lik in new_liks()) for (act in c("tanh", "relu")) {
      s <- fam_spec(lik, act = act)
      set.seed(5)
      theta <- matrix(rnorm(bnnmc:::spec_dim(s$spec) * 3, 0, 0.4), ncol = 3)
      d <- .Call(C_model_logpost, s$spec, theta)
      f <- .Call(C_model_logpost, bnnmc:::spec_set_precision(s$spec, "single"), theta)
      lab <- paste(k, lik$family, act)
      expect_equal(f$lp, d$lp, tolerance = 1e-5, label = lab)
      expect_true(all(sqrt(colSums((f$grad - d$grad)^2)) / sqrt(colSums(d$grad^2)) < 1e-4),
                  label = lab)
      expect_false(identical(f$grad, d$grad))
      # weighted rows take the double likelihood code in single precision
      sw <- bnnmc:::spec_set_precision(s$spec, "single")
      sw$weights <- rep(c(0.5, 2), length.out = nrow(s$X))
      s$spec$weights <- sw$weights
      dw <- .Call(C_model_logpost, s$spec, theta)
      fw <- .Call(C_model_logpost, sw, theta)
      expect_equal(fw$lp, dw$lp, tolerance = 1e-5, label = paste(lab, "weighted"))
      expect_true(all(sqrt(colSums((fw$grad - dw$grad)^2)) / sqrt(colSums(dw$grad^2)) < 1e-4))
    }
  }
})

test_that("single precision keeps the negative binomial exact for large counts and phi", {
  # counts of 16 and more (lgamma and digamma per row) and phi from exp(-1)
  # to exp(40) (the asymptotic series, and beyond 1e15 no table of small
  # counts), as the double test above
  lik <- bnn_likelihood("negbinomial")
  s <- fam_spec(lik, n = 300, hidden = 3)
  set.seed(6)
  y <- c(rnbinom(150, size = 2, mu = 40), rnbinom(150, size = 2, mu = 3))
  s$spec$y <- as.double(bnnmc:::encode_count_response(y, lik, s$off)$y)
  sf <- bnnmc:::spec_set_precision(s$spec, "single")
  old <- .Call(C_simd, NULL)
  on.exit(.Call(C_simd, old))
  kinds <- unique(vapply(c("generic", "avx2+fma", "avx512"), function(k) .Call(C_simd, k), ""))
  for (k in kinds) {
    .Call(C_simd, k)
    for (lphi in c(-1, 2, 17, 40)) {
      set.seed(7)
      theta <- matrix(c(rnorm(bnn_n_parameters(s$sizes), 0, 0.5), lphi))
      d <- .Call(C_model_logpost, s$spec, theta)
      f <- .Call(C_model_logpost, sf, theta)
      expect_equal(f$lp, d$lp, tolerance = 1e-5, label = paste(k, lphi))
      expect_lt(sqrt(sum((f$grad - d$grad)^2)) / sqrt(sum(d$grad^2)), 1e-4,
                label = paste(k, lphi))
      # the gradient in log phi alone, which sums a term over every row
      np <- length(theta)
      expect_equal(f$grad[np], d$grad[np], tolerance = 1e-5, label = paste(k, lphi))
    }
  }
})

test_that("family = poisson(), binomial(), gaussian() and the names map to likelihoods", {
  expect_equal(bnnmc:::family_likelihood(poisson())$family, "poisson")
  expect_equal(bnnmc:::family_likelihood(poisson)$family, "poisson")
  expect_equal(bnnmc:::family_likelihood(binomial())$family, "binomial")
  expect_equal(bnnmc:::family_likelihood(gaussian())$family, "gaussian")
  expect_equal(bnnmc:::family_likelihood("negbinomial")$family, "negbinomial")
  expect_equal(bnnmc:::family_likelihood(student(nu = 4))[["nu"]], 4)
  # MASS's family fixes theta, which bnnmc cannot hold fixed: refused, not dropped
  expect_error(bnnmc:::family_likelihood(MASS::negative.binomial(2)), "cannot hold fixed")
  expect_error(bnnmc:::family_likelihood(poisson(link = "sqrt")), "link \"sqrt\"")
  expect_error(bnnmc:::family_likelihood(binomial(link = "probit")), "link \"probit\"")
  expect_error(negbinomial(link = "identity"), "link \"identity\"")
  expect_error(bnnmc:::family_likelihood(Gamma()), "'family' must be")
  expect_error(bnn_fit(breaks ~ tension, warpbreaks, family = poisson(),
                       likelihood = "poisson"), "not both")
})

test_that("a numeric 0/1 response is fitted as a Bernoulli, with a message", {
  expect_message(
    fit <- bnn_fit(am ~ wt + hp, data = mtcars, hidden = integer(0), sampler = "nuts",
                   chains = 1, warmup = 100, iter = 50, seed = 1, progress = FALSE),
    "only the values 0 and 1: fitting a Bernoulli")
  expect_equal(fit$likelihood$family, "bernoulli")
  p <- predict(fit)
  expect_true(all(p >= 0 & p <= 1))
  expect_true(all(posterior_predict(fit) %in% c(0, 1)))
  # glm's family = binomial() on the same response: the Bernoulli, no message
  expect_message(fit2 <- suppressWarnings(
    bnn_fit(am ~ wt + hp, data = mtcars, hidden = integer(0), family = binomial(),
            sampler = "nuts", chains = 1, warmup = 50, iter = 20, seed = 1, progress = FALSE)),
    NA)
  expect_equal(fit2$likelihood$family, "bernoulli")
  # asked for explicitly, a Gaussian stays one
  fit3 <- bnn_fit(am ~ wt + hp, data = mtcars, hidden = integer(0), family = gaussian(),
                  sampler = "nuts", chains = 1, warmup = 50, iter = 20, seed = 1,
                  progress = FALSE)
  expect_equal(fit3$likelihood$family, "gaussian")
})

test_that("counts under the default Gaussian get a note that count families exist", {
  d <- data.frame(y = rpois(30, 4), x = rnorm(30))
  msgs <- character(0)
  withCallingHandlers(
    bnn_fit(y ~ x, data = d, hidden = 2, sampler = "nuts", chains = 1, warmup = 30,
            iter = 10, seed = 1, progress = FALSE),
    message = function(m) {
      msgs <<- c(msgs, conditionMessage(m))
      invokeRestart("muffleMessage")
    })
  expect_equal(sum(grepl("family = poisson\\(\\)", msgs)), 1L)
})

test_that("a Poisson fit by NUTS predicts integer counts >= 0, expected counts and intervals", {
  # (warpbreaks vary more than a Poisson allows: the fit says so)
  expect_warning(fit <- bnn_fit(breaks ~ wool + tension, data = warpbreaks, family = poisson(),
                                hidden = 3, sampler = "nuts", chains = 1, warmup = 150,
                                iter = 60, seed = 1, progress = FALSE),
                 class = "bnnmc_overdispersion")
  expect_equal(fit$likelihood$family, "poisson")
  yr <- posterior_predict(fit)
  expect_equal(dim(yr), c(60L, nrow(warpbreaks)))
  expect_true(all(yr >= 0 & yr == round(yr)))
  mu <- predict(fit)
  expect_true(all(mu > 0))
  # the linear predictor is the log of the expected count, draw by draw
  expect_equal(exp(posterior_linpred(fit)), posterior_epred(fit), ignore_attr = TRUE)
  expect_equal(colMeans(posterior_epred(fit)), mu, ignore_attr = TRUE)
  # the expected counts are near the group means (the data's scale, not a standardised one)
  gm <- ave(warpbreaks$breaks, warpbreaks$wool, warpbreaks$tension)
  expect_lt(mean(abs(mu - gm) / gm), 0.2)
  iv <- predict(fit, type = "interval", level = 0.9)
  expect_true(all(iv$lower == round(iv$lower) & iv$lower <= iv$upper))
  ll <- log_lik(fit)
  expect_equal(dim(ll), c(60L, nrow(warpbreaks)))
  expect_true(all(is.finite(ll)))
  m <- bnn_metrics(fit, newdata = warpbreaks)
  expect_true(all(c("rmse", "lppd", "coverage_90") %in% names(m)))
  expect_equal(m$lppd, mean(log(colMeans(exp(ll)))), tolerance = 1e-8)
})

test_that("the offset of a count model enters the log mean", {
  d <- data.frame(x = rnorm(80), expo = runif(80, 1, 10))
  set.seed(2)
  d$y <- rpois(80, d$expo * exp(0.3 * d$x))
  fit <- bnn_fit(y ~ x + offset(log(expo)), data = d, family = poisson(), hidden = integer(0),
                 sampler = "nuts", chains = 1, warmup = 150, iter = 60, seed = 1,
                 progress = FALSE)
  nd <- data.frame(x = c(0, 0), expo = c(1, 10))   # no response needed
  mu <- predict(fit, newdata = nd)
  expect_equal(unname(mu[2] / mu[1]), 10, tolerance = 1e-8)   # predict() keeps row names
})

test_that("negative binomial and Student-t fits run through MILE, MCLMC and SGLD", {
  set.seed(3)
  d <- data.frame(x = rnorm(120))
  d$y <- rnbinom(120, size = 3, mu = exp(1 + 0.5 * d$x))
  d$z <- d$x + rt(120, df = 3)
  for (smp in list("mile", "mclmc", bnn_sgld(1e-4, batch_size = 30))) {
    nb <- bnn_fit(y ~ x, data = d, family = "negbinomial", hidden = 3, sampler = smp,
                  chains = 1, warmup = 100, iter = 40, seed = 2, progress = FALSE)
    expect_true("phi" %in% dimnames(nb$draws)[[3]])
    expect_true(all(nb$draws[, , "phi"] > 0))
    yr <- posterior_predict(nb, ndraws = 10)
    expect_true(all(yr >= 0 & yr == round(yr)))
    st <- bnn_fit(z ~ x, data = d, family = student(), hidden = 3, sampler = smp,
                  chains = 1, warmup = 100, iter = 40, seed = 2, progress = FALSE)
    expect_true(all(c("sigma", "nu") %in% dimnames(st$draws)[[3]]))
    expect_true(all(is.finite(log_lik(st))))
  }
  st4 <- bnn_fit(z ~ x, data = d, likelihood = bnn_likelihood("student", nu = 4), hidden = 2,
                 sampler = "nuts", chains = 1, warmup = 100, iter = 30, seed = 2,
                 progress = FALSE)
  expect_false("nu" %in% dimnames(st4$draws)[[3]])
})

test_that("a binomial fit takes cbind(successes, failures) and draws successes within trials", {
  set.seed(4)
  d <- data.frame(x = rnorm(60), n = rbinom(60, 20, 0.5) + 1)
  d$s <- rbinom(60, d$n, plogis(d$x))
  fit <- bnn_fit(cbind(s, n - s) ~ x, data = d, family = binomial(), hidden = integer(0),
                 sampler = "nuts", chains = 1, warmup = 150, iter = 50, seed = 1,
                 progress = FALSE)
  expect_equal(fit$likelihood$family, "binomial")
  yr <- posterior_predict(fit)
  expect_true(all(yr >= 0 & yr <= rep(d$n, each = nrow(yr)) & yr == round(yr)))
  expect_equal(dim(log_lik(fit)), c(50L, 60L))
  expect_error(bnn_fit(cbind(s, n - s) ~ x, data = d, family = poisson(), hidden = 2),
               "family = binomial")
})

test_that("the count likelihoods refuse responses that are not counts", {
  d <- data.frame(y = c(1.5, 2, 3, 4), x = 1:4)
  expect_error(bnn_fit(y ~ x, data = d, family = poisson()), "non-negative whole numbers")
  expect_error(bnn_likelihood("poisson", nu = 3), "'nu'")
  expect_error(bnn_likelihood("negbinomial", phi_prior = c(1, -1)), "'phi_prior'")
})

test_that("count fits follow loo(), family() and pp_check() as bars", {
  fit <- bnn_fit(breaks ~ wool + tension, data = warpbreaks, family = "negbinomial",
                 hidden = 2, sampler = "nuts", chains = 2, warmup = 150, iter = 60,
                 seed = 3, progress = FALSE)
  lo <- suppressWarnings(loo::loo(fit))
  expect_equal(dim(lo$pointwise)[1], nrow(warpbreaks))
  expect_true(is.finite(lo$estimates["elpd_loo", "Estimate"]))
  expect_equal(family(fit)$link, "log")
  # the draws' phi back on the sampler's log scale, and the log posterior there
  th <- bnn_unconstrain(fit, coef(fit))
  expect_equal(unname(th[length(th)]), log(unname(coef(fit)["phi"])))
  expect_true(is.finite(bnn_log_posterior(fit, th)$lp))
  p <- bayesplot::pp_check(fit, seed = 1)
  expect_s3_class(p, "ggplot")
  expect_true(any(vapply(p$layers, function(l) inherits(l$geom, "GeomBar") ||
                           inherits(l$geom, "GeomRect") || inherits(l$geom, "GeomCol"),
                         logical(1))))
})

test_that("a count likelihood keeps the default's check against its linear (GLM) model", {
  fit <- suppressWarnings(suppressMessages(
    bnn_fit(breaks ~ wool + tension, data = warpbreaks, family = negbinomial(), chains = 2,
            iter = 200, seed = 1, progress = FALSE)))
  mc <- fit$model_choice
  expect_s3_class(mc, "data.frame")
  expect_equal(mc$model, c("network", "linear"))
  expect_equal(mc$network[2], "3-1")
  expect_true(all(is.finite(mc$elpd_loo)))
  expect_equal(fit$likelihood$family, "negbinomial")
  # a model given beyond the family: no check
  fit2 <- suppressWarnings(bnn_fit(breaks ~ wool + tension, data = warpbreaks,
                                   family = negbinomial(), hidden = 2, sampler = "nuts",
                                   chains = 1, warmup = 100, iter = 30, seed = 1,
                                   progress = FALSE))
  expect_null(fit2$model_choice)
})

test_that("CES and the Laplace approximation refuse the new likelihoods by name", {
  d <- data.frame(x = rnorm(30), y = rpois(30, 3))
  expect_error(bnn_fit_laplace(y ~ x, d, likelihood = "poisson", hidden = 2),
               "bnn_fit_laplace\\(\\) is not available for the poisson likelihood")
  expect_error(bnn_fit(y ~ x, d, family = "negbinomial", hidden = 2, sampler = bnn_ces(),
                       chains = 1, progress = FALSE),
               "bnn_ces\\(\\) is not available for the negbinomial likelihood")
})

test_that("a count model's validation data carry the fit's centre and offset", {
  set.seed(7)
  d <- data.frame(x = rnorm(40), e = runif(40, 1, 3))
  d$y <- rpois(40, d$e * exp(d$x / 2))
  m <- bnnmc:::prepare_model(quote(stats::model.frame(formula = y ~ x + offset(log(e)), data = d)),
                             environment(), y ~ x + offset(log(e)), d, 2L, "tanh", "poisson",
                             NULL, TRUE)
  vy <- bnnmc:::model_response(m, d[1:5, ], offset = TRUE)
  expect_equal(vy, m$y_model[1:5, ])
  expect_equal(bnnmc:::model_response(m, d[1:5, ]), d$y[1:5], ignore_attr = TRUE)
  # and a deep ensemble with early stopping on them runs
  ens <- bnn_fit_ensemble(y ~ x + offset(log(e)), data = d[1:30, ], likelihood = "poisson",
                          members = 2, valid_data = d[31:40, ], seed = 1)
  expect_true(all(is.finite(ens$draws)))
})

test_that("count quantiles are the first k with F(k) >= p, found by bisection over a wide support", {
  set.seed(7)
  scan_quantile <- function(pp, p, i) {   # the definition, k by k
    qs <- stats::qnbinom(p, size = pp$phi, mu = pp$mu[, i])
    ks <- seq(min(qs), max(qs))
    Fk <- vapply(ks, function(k) mean(stats::pnbinom(k, size = pp$phi, mu = pp$mu[, i])), 1)
    ks[which(Fk >= p - 1e-12)[1L]]
  }
  S <- 200L
  pp <- list(family = "negbinomial", mu = matrix(exp(rnorm(S * 4, 2, 0.5)), S, 4),
             phi = exp(rnorm(S, 1, 0.5)))
  probs <- c(0.025, 0.25, 0.5, 0.95)
  q <- bnnmc:::family_quantiles(pp, probs)
  ref <- outer(1:4, seq_along(probs), Vectorize(function(i, j) scan_quantile(pp, probs[j], i)))
  expect_identical(q, matrix(as.double(ref), 4))
  # bnn_metrics()'s coverage of counts from the CDF at y and y - 1: the
  # same as from the quantiles, at every level (y at and around the bounds)
  lv <- c(0.1, 0.5, 0.8, 0.9, 0.95)
  qq <- lapply(lv, function(l) bnnmc:::family_quantiles(pp, c((1 - l) / 2, 1 - (1 - l) / 2)))
  for (y in list(c(0, 3, 7, 40), qq[[2]][, 1], qq[[2]][, 2], qq[[4]][, 2] + 1, qq[[5]][, 1] - 1)) {
    y <- pmax(y, 0)
    expect_identical(bnnmc:::count_covered(pp, y, lv),
                     vapply(qq, function(q) mean(y >= q[, 1] & y <= q[, 2]), 1))
  }
  # a draw of a tiny dispersion puts its 97.5% quantile above 200,000: the
  # search over the support between the components' quantiles must not visit
  # every count (that took about a minute for a 29-row test set)
  pp$phi[1:5] <- 0.01
  pp$mu[1:5, ] <- 5e4
  expect_gt(stats::qnbinom(0.975, size = 0.01, mu = 5e4), 2e5)
  t <- system.time(qw <- bnnmc:::family_quantiles(pp, c(0.025, 0.975)))[["elapsed"]]
  expect_lt(t, 5)
  for (i in 1:2) {
    Fq <- mean(stats::pnbinom(qw[i, 2], size = pp$phi, mu = pp$mu[, i]))
    Fq1 <- mean(stats::pnbinom(qw[i, 2] - 1, size = pp$phi, mu = pp$mu[, i]))
    expect_true(Fq >= 0.975 - 1e-12 && Fq1 < 0.975 - 1e-12)
  }
})

# PSIS-LOO's relative efficiencies (fit_relative_eff(), relative_eff_chains()
# in C) equal loo::relative_eff(exp(ll - column maxima), chain_id).

loo_reff <- function(ll, n_chain) {
  chain_id <- rep(seq_len(n_chain), each = nrow(ll) / n_chain)
  loo::relative_eff(exp(sweep(ll, 2L, apply(ll, 2L, max), "-")), chain_id = chain_id)
}

# S = n_iter * n_chain draws of log-likelihoods, chain by chain: independent,
# AR(1) with strong and with negative correlation, antithetic pairs, chains
# with different means, one constant column and one with a -Inf draw
reff_test_matrix <- function(n_iter, n_chain) {
  S <- n_iter * n_chain
  ar <- function(phi) unlist(lapply(seq_len(n_chain), function(k)
    as.numeric(stats::arima.sim(list(ar = phi), n_iter))))
  z <- rnorm(ceiling(S / 2))
  anti <- as.vector(rbind(z, -z))[seq_len(S)]
  cbind(
    -0.5 * rnorm(S)^2,
    -0.5 * ar(0.95)^2,
    ar(0.6),
    ar(-0.5),
    anti + 0.01 * rnorm(S),
    rep(rnorm(n_chain), each = n_iter) + 0.1 * rnorm(S),
    rep(-2.5, S),
    c(-Inf, rnorm(S - 1)))
}

test_that("relative efficiencies equal loo::relative_eff() for 1 to 4 chains", {
  skip_if_not_installed("loo")
  set.seed(20240611)
  # 250 and 1000 draws per chain are sizes loo transforms without padding,
  # 101 and 999 sizes it pads (its autocovariances then carry a factor)
  for (n_chain in 1:4) for (n_iter in c(20L, 101L, 250L, 999L, 1000L)) {
    ll <- reff_test_matrix(n_iter, n_chain)
    got <- bnnmc:::relative_eff_chains(ll, n_chain)
    expect_equal(got, loo_reff(ll, n_chain), tolerance = 1e-10,
                 info = sprintf("%d chains of %d draws", n_chain, n_iter))
  }
})

test_that("the OpenMP threads do not change the relative efficiencies", {
  set.seed(3)
  ll <- reff_test_matrix(500L, 4L)
  ll <- cbind(ll, ll, ll, ll)
  with_threads <- function(n) {
    old <- options(bnnmc.threads = n)
    on.exit(options(old))
    bnnmc:::relative_eff_chains(ll, 4L)
  }
  expect_identical(with_threads(1L), with_threads(2L))
})

test_that("degenerate columns get loo's values", {
  skip_if_not_installed("loo")
  set.seed(7)
  ll <- matrix(rnorm(400 * 6), 400, 6)
  ll[, 1] <- 3        # constant: tau = 2
  ll[5, 2] <- NaN     # NaN in exp(ll - max)
  ll[7, 3] <- Inf     # Inf - Inf
  ll[, 4] <- -Inf     # -Inf - -Inf
  got <- bnnmc:::relative_eff_chains(ll, 4L)
  expect_equal(got, loo_reff(ll, 4L), tolerance = 1e-10)
  expect_equal(got[1:4], rep(0.5, 4))
  # 2 draws per chain: Geyer's loop never runs; few draws: tau is at least
  # 1 / log10(S)
  ll <- matrix(rnorm(4 * 3), 4, 3)
  expect_equal(bnnmc:::relative_eff_chains(ll, 2L), loo_reff(ll, 2L), tolerance = 1e-10)
  expect_equal(bnnmc:::relative_eff_chains(ll, 1L), loo_reff(ll, 1L), tolerance = 1e-10)
  # one iteration per chain: loo stops with an error, here NA
  expect_identical(bnnmc:::relative_eff_chains(matrix(rnorm(8), 4, 2), 4L), c(NA_real_, NA_real_))
  expect_identical(bnnmc:::relative_eff_chains(matrix(0, 10, 0), 2L), numeric(0))
  expect_error(bnnmc:::relative_eff_chains(matrix(0, 10, 2), 3L), "chains of equal length")
})

test_that("loo() of a fit uses loo::relative_eff()'s relative efficiencies", {
  skip_if_not_installed("loo")
  fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2, warmup = 200,
                 iter = 200, sampler = "nuts", seed = 1, progress = FALSE)
  ll <- bnnmc:::pointwise_loglik(fit)
  ref <- loo_reff(ll, 2L)
  expect_equal(bnnmc:::fit_relative_eff(fit, ll), ref, tolerance = 1e-10)
  lo <- suppressWarnings(loo(fit, moment_match = FALSE, save_psis = TRUE))
  expect_equal(attr(lo$psis_object, "r_eff"), ref, tolerance = 1e-10)
  expect_equal(lo$estimates, suppressWarnings(loo::loo(ll, r_eff = ref))$estimates)
})

test_that("loo() keeps the PSIS-LOO estimate, with a warning, when moment matching fails", {
  skip_if_not_installed("loo")
  fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2, warmup = 200,
                 iter = 200, sampler = "nuts", seed = 1, progress = FALSE)
  lo <- suppressWarnings(loo(fit, moment_match = FALSE))
  # loo's moment matching stops with a missing Pareto k when a point's
  # likelihood underflows to 0 in every draw (seen on a heteroscedastic
  # airfoil fit): the error it gave then
  failing <- function(x, lo, cores) stop("missing value where TRUE/FALSE needed")
  expect_warning(out <- bnnmc:::moment_match_or_keep(fit, lo, 1L, mm = failing),
                 "moment matching failed \\(missing value where TRUE/FALSE needed\\); the PSIS-LOO",
                 class = "bnnmc_loo_moment_match")
  expect_identical(out, lo)
  # a working moment matching is returned as it is
  same <- function(x, lo, cores) { lo$marker <- TRUE; lo }
  expect_true(bnnmc:::moment_match_or_keep(fit, lo, 1L, mm = same)$marker)
})

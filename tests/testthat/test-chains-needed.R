# The chain-count bound of Wiese et al. (2023), Proposition 2.

test_that("the half-normal scheme gives the paper's 1274 chains", {
  pr <- bnn_paper_mode_probs_halfnormal(3)
  expect_equal(pr, c(0.5665, 0.3505, 0.0830), tolerance = 2e-4)
  r <- bnn_chains_needed(pr, p = 0.99)
  expect_identical(r$chains, 1274L)
  expect_equal(r$expected, 12.7309, tolerance = 1e-5)
  # the printed, rounded probabilities need more
  expect_identical(bnn_chains_needed(c(0.57, 0.35, 0.08))$chains, 1317L)
  expect_equal(bnn_chains_needed(c(0.57, 0.35, 0.08))$expected, 13.1605, tolerance = 1e-5)
  expect_identical(bnn_paper_mode_probs_halfnormal(1), 1)
  expect_identical(bnn_chains_needed(1)$chains, 100L)
  # the table of the research notes
  chk <- c(`2` = 798L, `4` = 1805L, `5` = 2385L, `6` = 3009L, `8` = 4367L, `10` = 5844L)
  for (nu in names(chk))
    expect_identical(bnn_chains_needed(bnn_paper_mode_probs_halfnormal(as.integer(nu)))$chains,
                     chk[[nu]])
})

test_that("uniform modes give the coupon collector's nu * H_nu", {
  expect_equal(bnn_chains_needed(rep(1, 3))$expected, 5.5, tolerance = 1e-12)
  expect_identical(bnn_chains_needed(rep(1, 3))$chains, 550L)
  e48 <- bnn_chains_needed(rep(1 / 48, 48))$expected
  expect_equal(e48, 48 * sum(1 / (1:48)), tolerance = 1e-8)
  expect_equal(round(e48, 2), 214.02)
  # the integral form agrees with inclusion-exclusion where both apply
  pr <- bnn_paper_mode_probs_halfnormal(12)
  expect_equal(bnnmc:::expected_chains(pr),
               stats::integrate(function(t) 1 - vapply(t, function(s)
                 prod(1 - exp(-pr * s)), 0), 0, Inf, rel.tol = 1e-12)$value,
               tolerance = 1e-8)
})

test_that("the exact coupon-collector quantile is far below Markov's bound", {
  r <- bnn_chains_needed(c(0.57, 0.35, 0.08), p = 0.99)
  # P(G > 56) = 0.0094 < 0.01 and P(G > 55) > 0.01 (research notes)
  miss <- function(k) 0.43^k + 0.65^k + 0.92^k - 0.08^k - 0.35^k - 0.57^k
  expect_lt(miss(56), 0.01)
  expect_gt(miss(55), 0.01)
  expect_identical(r$chains_exact, 56L)
  expect_output(print(r), "1317 \\(Markov bound")
})

test_that("bad input is a clear error", {
  expect_error(bnn_chains_needed(c(0.5, -0.5)), "'probs'")
  expect_error(bnn_chains_needed(c(0.5, 0.5), p = 1), "'p'")
  expect_error(bnn_paper_mode_probs_halfnormal(0), "'nu'")
})

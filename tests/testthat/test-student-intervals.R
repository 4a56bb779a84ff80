# Intervals and coverage of Student-t fits: the mixture quantiles by
# safeguarded Newton iteration, the coverage from the PIT.

student_pp <- function(S = 300, n = 7, seed = 1) {
  set.seed(seed)
  list(family = "student", mu = matrix(rnorm(S * n, rep(seq_len(n), each = S), 0.5), S, n),
       sigma = exp(rnorm(S, -0.5, 0.2)), nu = exp(rnorm(S, 1.5, 0.5)))
}

test_that("the Student-t mixture quantiles are the roots of the mixture CDF", {
  pp <- student_pp()
  for (p in c(0.025, 0.05, 0.5, 0.9, 0.975)) {
    q <- bnnmc:::student_mixture_quantile(pp, p)
    for (i in seq_len(ncol(pp$mu))) {
      cdf <- function(x) mean(pt((x - pp$mu[, i]) / pp$sigma, df = pp$nu)) - p
      r <- uniroot(cdf, range(pp$mu[, i]) + c(-50, 50), tol = 1e-12)$root
      expect_equal(q[i], r, tolerance = 1e-8)
      expect_lt(abs(cdf(q[i])), 1e-9)
    }
  }
  # family_quantiles() gives them for several probabilities at once
  fq <- bnnmc:::family_quantiles(pp, c(0.05, 0.95))
  expect_equal(fq[, 2], bnnmc:::student_mixture_quantile(pp, 0.95))
})

test_that("a Student-t fit's coverage from the PIT equals that of its intervals", {
  set.seed(3)
  d <- data.frame(x = runif(150, -2, 2))
  d$y <- sin(2 * d$x) + 0.3 * rt(150, df = 3)
  fit <- quiet_verdict(bnn_fit(y ~ x, data = d, family = student(), hidden = 4, chains = 2,
                           warmup = 2000, iter = 300, seed = 1, progress = FALSE,
                           sampler = "mile"))
  nd <- d[1:60, ]
  m <- bnn_metrics(fit, newdata = nd, levels = c(0.5, 0.8, 0.9))
  for (l in c(0.5, 0.8, 0.9)) {
    iv <- predict(fit, newdata = nd, type = "interval", level = l)
    expect_equal(m$coverage$coverage[abs(m$coverage$nominal - l) < 1e-9],
                 mean(nd$y >= iv$lower & nd$y <= iv$upper))
  }
})

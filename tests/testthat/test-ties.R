# Responses with many ties (exact zeros): the default likelihood, and the
# heteroscedastic one's warning.

ties_data <- function(n = 100, seed = 3) {
  set.seed(seed)
  d <- data.frame(x1 = rnorm(n), x2 = rnorm(n))
  d$y <- ifelse(d$x1 < 0, 0, exp(d$x1) + 0.3 * rnorm(n)^2)
  d
}

test_that("a response with many ties defaults to the homoscedastic Gaussian", {
  # (every numeric response does; the default once changed only for one
  # with many ties, with a message)
  d <- ties_data()
  fit <- suppressWarnings(bnn_fit(y ~ ., data = d, hidden = 2, chains = 1, warmup = 20,
                                  iter = 5, seed = 1, progress = FALSE, sampler = "nuts"))
  expect_identical(fit$likelihood$family, "gaussian")
  # asking for it keeps the heteroscedastic likelihood
  expect_silent(m <- bnnmc:::response_likelihood(d$y, "hetero_gaussian"))
  expect_identical(m$family, "hetero_gaussian")
  # so does a response with few ties (mtcars' mpg: 2 of 32 values at most)
  expect_identical(bnnmc:::response_likelihood(mtcars$mpg, NULL)$family, "gaussian")
  # the papers' regression data sets stay far below the threshold
  skip_if_no_uci()
  dir <- bnn_test_uci_dir()
  for (nm in c("airfoil", "concrete", "energy", "yacht")) {   # (bikesharing 1.5%, protein 0.6%)
    f <- file.path(dir, paste0(nm, ".data"))
    if (file.exists(f)) expect_false(bnnmc:::many_ties(bnn_read_uci(nm, dir = dir)$y))
  }
})

test_that("a fit with near-zero predictive sd on training points warns, naming the cause", {
  d <- ties_data()
  sizes <- c(2, 2, 2)
  th <- rep(0, bnn_n_parameters(sizes))
  th[length(th)] <- -12    # output bias of log sd: sd = 6e-6 response sds everywhere
  got <- NULL
  withCallingHandlers(
    bnn_fit(y ~ ., data = d, hidden = 2, likelihood = "hetero_gaussian", chains = 1,
            warmup = 0, iter = 5, init = list(th), seed = 1, progress = FALSE,
            sampler = bnn_hmc(stepsize = 1e-13, trajectory_length = 1e-12)),
    warning = function(w) {
      if (inherits(w, "bnnmc_sd_collapse")) got <<- conditionMessage(w)
      invokeRestart("muffleWarning")
    })
  expect_match(got, "100 of 100 training points have a predictive sd below 0.001 times")
  # without many ties the threshold is 1e-4 response sds (the collapse here is 6e-6)
  d2 <- d
  d2$y[d2$y == 0] <- rnorm(sum(d2$y == 0), 0, 0.01)
  got2 <- NULL
  withCallingHandlers(
    bnn_fit(y ~ ., data = d2, hidden = 2, chains = 1, warmup = 0, iter = 5,
            init = list(th), seed = 1, progress = FALSE, likelihood = "hetero_gaussian",
            sampler = bnn_hmc(stepsize = 1e-13, trajectory_length = 1e-12)),
    warning = function(w) {
      if (inherits(w, "bnnmc_sd_collapse")) got2 <<- conditionMessage(w)
      invokeRestart("muffleWarning")
    })
  expect_match(got2, "below 1e-04 times")
  expect_match(got, "collapsing onto them.*0 makes up 49% of the data|hurdle model")
  # an ordinary fit does not warn
  fm <- suppressWarnings(bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 1, warmup = 50,
                                 iter = 20, seed = 1, progress = FALSE, sampler = "nuts",
                                 likelihood = "hetero_gaussian"))
  expect_silent(bnnmc:::check_sd_collapse(fm))
})

# Predictions are computed in row blocks: the same numbers as all rows at
# once, in memory of the order of the result, and results above
# getOption("bnnmc.max_memory") are refused with their size.

# The computation of the predictive parameters for all rows at once, as the
# package did before it worked in blocks (the reference the blocks must
# reproduce exactly).
all_rows_params <- function(fit, newdata = NULL) {
  X <- bnnmc:::new_design(fit, newdata)
  th <- bnnmc:::draws_matrix(fit)
  out <- .Call(bnnmc:::C_model_forward, fit$spec, th, X, 1L)
  S <- dim(out)[3]
  n <- dim(out)[1]
  mu <- t(matrix(out[, 1, ], n, S))
  if (fit$likelihood$family == "hetero_gaussian") {
    sd <- exp(pmin(pmax(t(matrix(out[, 2, ], n, S)), log(1e-6)), log(1e6)))
  } else {
    sd <- matrix(exp(th[nrow(th), ]), S, n)
  }
  mu <- mu * fit$y_scale + fit$y_center
  list(mu = mu, sd = sd * fit$y_scale)
}

test_that("block-wise predictions equal the all-rows computation exactly", {
  set.seed(2)
  # 600 rows: three blocks of the smallest size (256 rows) and one
  nd <- mtcars[sample.int(32, 600, replace = TRUE), ]
  nd$wt <- nd$wt + rnorm(600, sd = 0.1)
  for (what in c("reg", "gauss")) {
    fit <- eco_fits(what)
    ref <- all_rows_params(fit, nd)
    ref_train <- all_rows_params(fit)
    y <- nd$mpg
    for (bytes in c(1, 1e9)) {   # the smallest blocks, and all rows in one block
      op <- options(bnnmc.block_bytes = bytes)
      expect_identical(unname(predict(fit, nd)), colMeans(ref$mu))
      expect_identical(unname(predict(fit)), colMeans(ref_train$mu))
      expect_identical(unname(posterior_epred(fit, newdata = nd)), ref$mu)
      iv <- predict(fit, nd, type = "interval", level = 0.8)
      a <- (1 - 0.8) / 2
      q <- bnn_mixture_quantile(ref$mu, ref$sd, c(a, 1 - a))
      expect_identical(iv$lower, q[, 1])
      expect_identical(iv$upper, q[, 2])
      dr <- predict(fit, nd, type = "draws", seed = 7)
      ref_dr <- bnnmc:::with_seed(7, matrix(rnorm(length(ref$mu), ref$mu, ref$sd),
                                            nrow(ref$mu)))
      expect_identical(unname(dr), ref_dr)
      expect_identical(unname(posterior_predict(fit, newdata = nd, seed = 7)), ref_dr)
      ll <- log_lik(fit, newdata = nd)
      expect_identical(unname(ll), dnorm(matrix(y, nrow(ref$mu), 600L, byrow = TRUE), ref$mu,
                                         ref$sd, log = TRUE))
      m <- bnn_metrics(fit, newdata = nd)
      options(op)
      m_ref <- bnn_metrics_gaussian(ref$mu, ref$sd, y, levels = union((1:19) / 20,
                                                                      c(0.5, 0.9, 0.95)))
      expect_identical(m$lppd, m_ref$lppd)
      expect_identical(m$rmse, m_ref$rmse)
      expect_identical(m$cal_error, m_ref$cal_error)
    }
  }
})

test_that("block-wise class predictions, log-likelihood and loo are unchanged by the block size", {
  fit <- eco_fits("bern")
  d <- transform(mtcars, am = am == 1)[sample.int(32, 600, replace = TRUE), ]
  d$wt <- d$wt + rnorm(600, sd = 0.1)
  run <- function(bytes) {
    op <- options(bnnmc.block_bytes = bytes)
    on.exit(options(op))
    list(predict(fit, d), predict(fit, d, type = "draws", seed = 2),
         posterior_predict(fit, d, seed = 3), posterior_epred(fit, d), posterior_linpred(fit, newdata = d),
         log_lik(fit, newdata = d), suppressWarnings(suppressMessages(loo(fit, moment_match = FALSE)))$pointwise,
         bnn_metrics(fit, newdata = d)$lppd)
  }
  expect_identical(run(1), run(1e9))
  cf <- eco_fits("cat")
  di <- iris[sample.int(150, 600, replace = TRUE), ]
  cat_run <- function(bytes) {
    op <- options(bnnmc.block_bytes = bytes)
    on.exit(options(op))
    list(posterior_predict(cf, di, seed = 1), posterior_epred(cf, di), log_lik(cf, newdata = di),
         predict(cf, di, type = "mean_draws"))
  }
  expect_identical(cat_run(1), cat_run(1e9))
})

test_that("a prediction larger than bnnmc.max_memory is refused with its size", {
  fit <- eco_fits("gauss")
  op <- options(bnnmc.max_memory = 1000)
  on.exit(options(op), add = TRUE)
  expect_error(predict(fit, type = "draws"),
               "predictive draws would hold 960 values \\(about 8 kB of memory\\)")
  expect_error(posterior_epred(fit), "above the limit of 1 kB")
  expect_error(log_lik(fit), "The pointwise log-likelihood would hold")
  # a mean needs no rows x draws matrix: it is not refused
  expect_length(predict(fit), nrow(mtcars))
})

test_that("predict() peaks at a small multiple of its result, not of rows x draws", {
  set.seed(1)
  n <- 3000
  d <- data.frame(x1 = rnorm(n), x2 = rnorm(n))
  d$y <- sin(d$x1) + rnorm(n, sd = 0.3)
  fit <- suppressWarnings(bnn_fit(y ~ x1 + x2, data = d, hidden = c(8, 8), chains = 2,
                                  warmup = 5, iter = 10, seed = 1, progress = FALSE,
                                  sampler = "nuts"))
  # 2 chains x 1000 draws: a rows x draws matrix is 48 MB
  fit$draws <- fit$draws[rep_len(seq_len(dim(fit$draws)[1]), 1000), , , drop = FALSE]
  # rows x draws is 48 MB here.  Where R can profile allocations
  # (capabilities("profmem"), as on Debian's and CRAN's builds), count the
  # allocations of at least a quarter of that: a deterministic measure, where
  # gc()'s peak also counts block garbage the collector has not reached yet.
  rd_bytes <- 8 * n * 2000
  big_allocs <- function(expr) {
    f <- tempfile()
    on.exit({ utils::Rprofmem(NULL); unlink(f) })
    utils::Rprofmem(f, threshold = rd_bytes / 4)
    force(expr)
    utils::Rprofmem(NULL)
    l <- grep("^[0-9]+ ?:", readLines(f), value = TRUE)
    as.numeric(sub(" ?:.*", "", l))
  }
  peak_mb <- function(expr) {
    invisible(gc(reset = TRUE))
    before <- sum(gc()[, 2])
    force(expr)
    sum(gc()[, 6]) - before
  }
  if (capabilities("profmem")) {
    # a mean needs no rows x draws matrix at all (the old code made 5)
    a <- big_allocs(p <- predict(fit))
    expect_length(p, n)
    expect_length(a, 0L)
    # log_lik()'s only one is its result (the old code made at least 5)
    a <- big_allocs(ll <- log_lik(fit))
    expect_equal(dim(ll), c(2000L, n))
    expect_length(a, 1L)
    expect_lte(max(a), rd_bytes + 1000)
  } else {
    # gc()'s peak: the result, the fit's draws and blocks not yet collected
    mb_mean <- peak_mb(p <- predict(fit))
    expect_length(p, n)
    expect_lt(mb_mean, 96)
    mb_ll <- peak_mb(ll <- log_lik(fit))
    expect_lt(mb_ll, 4.5 * 48)
  }
})

test_that("the forward pass gives the same outputs on any number of threads", {
  fit <- eco_fits("reg")
  X <- bnnmc:::new_design(fit, NULL)
  th <- bnnmc:::draws_matrix(fit)
  # more draws than one block of 64 per thread, and a last partial block
  th <- th[, rep(seq_len(ncol(th)), length.out = 300L), drop = FALSE]
  one <- .Call(bnnmc:::C_model_forward, fit$spec, th, X, 1L)
  for (k in c(2L, 3L, 8L))
    expect_identical(.Call(bnnmc:::C_model_forward, fit$spec, th, X, k), one)
  expect_error(.Call(bnnmc:::C_model_forward, fit$spec, th, X, 0L), "threads")
  # and what users see: predictions under options(bnnmc.threads)
  nd <- mtcars[c(1:32, 1:32), ]
  old <- options(bnnmc.threads = 1L)
  on.exit(options(old))
  p1 <- predict(fit, newdata = nd)
  e1 <- posterior_epred(fit, newdata = nd)
  options(bnnmc.threads = 2L)
  expect_identical(predict(fit, newdata = nd), p1)
  expect_identical(posterior_epred(fit, newdata = nd), e1)
})

test_that("the predictive mean is the mean over draws of the draws' means, exactly", {
  set.seed(3)
  d <- data.frame(x = rnorm(30), e = runif(30, 1, 3))
  d$y <- sin(d$x) + log(d$e) + rnorm(30, sd = 0.1)
  nd <- data.frame(x = rnorm(700), e = runif(700, 1, 3))
  fits <- list(
    gauss = eco_fits("gauss"),
    # (short runs: a divergence on another platform's rounding is no matter here)
    hetero = suppressWarnings(bnn_fit(y ~ x, data = d, hidden = 3,
                                      likelihood = "hetero_gaussian", sampler = "nuts",
                                      chains = 2, iter = 100, warmup = 60, seed = 1,
                                      progress = FALSE)),
    offset = suppressWarnings(bnn_fit(y ~ x + offset(log(e)), data = d, hidden = 3,
                                      sampler = "nuts", chains = 2, iter = 100, warmup = 60,
                                      seed = 1, progress = FALSE)))
  for (nm in names(fits)) {
    f <- fits[[nm]]
    newd <- if (nm == "gauss") mtcars[rep(1:32, 25), ] else nd
    ps <- bnnmc:::pred_setup(f, newd)
    idx <- seq_len(nrow(ps$X))
    expect_identical(bnnmc:::block_mean(f, ps, idx),
                     colMeans(bnnmc:::block_params(f, ps, idx, sd = FALSE)$mu), info = nm)
    expect_identical(unname(predict(f, newdata = newd)),
                     colMeans(bnnmc:::block_params(f, ps, idx, sd = FALSE)$mu), info = nm)
  }
})

test_that("predictions in a forked child of a process that ran OpenMP threads finish", {
  # the OpenMP runtime is not fork-safe: a child made by fork() after the
  # parent started its threads would wait for them forever, so forked
  # children compute on one thread (parallel::mclapply(), future's
  # multicore workers)
  skip_on_os("windows")
  fit <- eco_fits("reg")
  old <- options(bnnmc.threads = 2L)
  on.exit(options(old))
  nd <- mtcars[rep(1:32, 10), ]
  p0 <- predict(fit, newdata = nd)                     # the threads start here
  job <- parallel::mcparallel(list(p = predict(fit, newdata = nd), rhat = bnn_rhat(fit)))
  res <- parallel::mccollect(job, wait = FALSE, timeout = 60)
  if (is.null(res)) {
    tools::pskill(job$pid)
    parallel::mccollect(job, wait = FALSE)
  }
  expect_false(is.null(res))
  expect_identical(res[[1]]$p, p0)
  expect_identical(res[[1]]$rhat, bnn_rhat(fit))
})

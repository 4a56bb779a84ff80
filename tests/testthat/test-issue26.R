# Issue #26: a crash and silent failures found under sanitizers and
# adversarial input.

# Runs `code` in a fresh R process with this session's library paths and
# returns its exit status and output: a crash (free() of R memory at the
# next gc) would otherwise kill the test run itself.
run_in_child <- function(code) {
  f <- tempfile(fileext = ".R")
  on.exit(unlink(f))
  writeLines(c("suppressMessages(library(bnnmc))", code), f)
  libs <- paste(.libPaths(), collapse = .Platform$path.sep)
  out <- suppressWarnings(system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", f),
                                  stdout = TRUE, stderr = TRUE,
                                  env = c(paste0("R_LIBS=", libs), "R_LIBS_USER=")))
  list(status = attr(out, "status") %||% 0L, output = out)
}
`%||%` <- function(a, b) if (is.null(a)) b else a

# a spec with a network but no rows of data
zero_row_spec <- function() {
  list(type = "bnn", sizes = c(1L, 2L, 1L), act = 0L, lik = 0L, sigma_fixed = 0.3,
       sigma_prior = 0L, sigma_prior_scale = 1, prior = 0L, prior_scale = rep(1, 7),
       X = matrix(numeric(0), 0, 1), y = numeric(0))
}

test_that("a CES emulator without training pairs is an error naming holdout and J", {
  expect_error(bnn_ces(calibration = bnn_pcn(), calibration_iter = 30, J = 2,
                       emulator = bnn_emulator(holdout = 0.75)),
               "holdout = 0.75.*J = 2.*lower 'holdout' or raise 'J'")
  expect_s3_class(bnn_ces(J = 4, emulator = bnn_emulator(holdout = 0.75)), "bnn_ces")
  # the issue's reproduction, and the same settings reaching bnn_fit()
  # past the constructor, in a child process: before, R aborted at the
  # next gc with "free(): invalid pointer"
  res <- run_in_child(c(
    "set.seed(1); d <- data.frame(x = rnorm(20)); d$y <- d$x + rnorm(20)",
    "r1 <- tryCatch(bnn_fit(y ~ x, d, hidden = 2,",
    "  likelihood = bnn_likelihood('gaussian', sigma = 0.3),",
    "  sampler = bnn_ces(calibration = bnn_pcn(), calibration_iter = 30, J = 2,",
    "    emulator = bnn_emulator(holdout = 0.75)), chains = 1, warmup = 10, iter = 10),",
    "  error = conditionMessage)",
    "ces <- bnn_ces(calibration = bnn_pcn(), calibration_iter = 30, J = 4,",
    "  emulator = bnn_emulator(holdout = 0.25))",
    "ces$emulator$holdout <- 0.9",
    "r2 <- tryCatch(bnn_fit(y ~ x, d, hidden = 2,",
    "  likelihood = bnn_likelihood('gaussian', sigma = 0.3), sampler = ces,",
    "  chains = 1, warmup = 10, iter = 10, progress = FALSE), error = conditionMessage)",
    "invisible(gc()); invisible(gc())",
    "cat('R1:', r1, '\\n'); cat('R2:', r2, '\\n'); cat('SURVIVED\\n')"))
  expect_equal(res$status, 0L, info = paste(res$output, collapse = "\n"))
  out <- paste(res$output, collapse = "\n")
  expect_match(out, "SURVIVED")
  expect_match(out, "R1: bnn_emulator\\(holdout = 0.75\\).*J = 2")
  expect_match(out, "R2: bnn_emulator\\(holdout = 0.9\\).*J = 4")
})

test_that("zero-row specs through the internal paths do not free R's memory", {
  # each call copies the (empty) data and is then garbage collected; before,
  # the model claimed to own R's REAL() pointers and free()d them
  res <- run_in_child(c(
    sprintf("spec <- %s", paste(deparse(body(zero_row_spec)), collapse = "\n")),
    "ini <- rep(0.1, 7); th <- matrix(ini, 7)",
    "try1 <- function(expr) tryCatch({ expr; 'ok' }, error = conditionMessage)",
    "r <- c(",
    "  kchain = try1(.Call(bnnmc:::C_kchain_new, 'rwm', spec, ini, 1, 1L, list(stepsize = 0.1))),",
    "  sgld = try1(.Call(bnnmc:::C_kchain_new, 'sgld', spec, ini, 1, 1L, list(stepsize = 1e-3))),",
    "  minibatch = try1(.Call(bnnmc:::C_minibatch_eval, spec, list(batch_size = 1L), 1, 1L, th, NULL)),",
    "  optimize = try1(bnnmc:::.bnn_optimize(spec)),",
    "  nuts = try1(bnnmc:::run_chain(spec, ini, 1, 1L, bnn_nuts(), 5L, 5L, 1L)),",
    "  mclmc = try1(.Call(bnnmc:::C_mclmc_new, spec, ini, 1, 1L,",
    "    bnnmc:::.mclmc_c_settings(bnn_mclmc(n_tune = c(10, 5, 4), n_samples = 10), dim = 7))))",
    "for (i in 1:3) invisible(gc())",
    "print(r); cat('SURVIVED\\n')"))
  expect_equal(res$status, 0L, info = paste(res$output, collapse = "\n"))
  out <- paste(res$output, collapse = "\n")
  expect_match(out, "SURVIVED")
  # the optimiser refuses the empty spec (after copying it), the chains
  # are built on the prior alone
  expect_match(out, "no training rows")
})

test_that("the memory guard counts every stage of a CES fit", {
  set.seed(1)
  d <- data.frame(matrix(rnorm(40 * 8), 40, 8))
  d$y <- rnorm(40)
  lik <- bnn_likelihood("gaussian", sigma = 0.3)
  # 8-32-32-1: the issue's 1,377 parameters.  calibration_iter = 5e6 would
  # allocate 51 GB, 1.5e6 about 16 GB (twice that while assembled); both
  # are refused before anything runs, naming calibration_iter
  for (ci in c(5e6, 1.5e6))
    expect_error(bnn_fit(y ~ ., data = d, hidden = c(32, 32), likelihood = lik,
                         sampler = bnn_ces(calibration = bnn_pcn(), calibration_iter = ci,
                                           J = 20, emulator = "exact"),
                         chains = 1, warmup = 10, iter = 10, progress = FALSE),
                 "This CES fit would need about .* GB .*Reduce calibration_iter")
  expect_gt(bnn_model_size(c(8, 32, 32, 1), chains = 1, iter = 10,
                           sampler = bnn_ces(calibration_iter = 5e6))$bytes, 5e10)
  # under a small limit: a calibration run that alone exceeds it (the
  # sampling stage is tiny), and J pairs whose outputs exceed it
  old <- options(bnnmc.max_memory = 2e6)
  on.exit(options(old))
  d2 <- d[, c("X1", "X2", "y")]
  expect_error(bnn_fit(y ~ X1 + X2, data = d2, hidden = 4, likelihood = lik,
                       sampler = bnn_ces(calibration = bnn_pcn(), calibration_iter = 2e4,
                                         J = 20, emulator = "exact"),
                       chains = 1, warmup = 10, iter = 10, progress = FALSE),
               "calibration draws 5.4 MB.*Reduce calibration_iter \\(20,000 iterations x 1 chain x 17")
  d3 <- data.frame(X1 = rnorm(5000), X2 = rnorm(5000), y = rnorm(5000))
  expect_error(bnn_fit(y ~ X1 + X2, data = d3, hidden = 4, likelihood = lik,
                       sampler = bnn_ces(calibration = bnn_pcn(), calibration_iter = 100,
                                         J = 100, emulator = "exact"),
                       chains = 1, warmup = 10, iter = 10, progress = FALSE),
               "Reduce J \\(100 training pairs of 17 parameters and 5,000 outputs\\)")
  # the sampling stage still counts
  expect_error(bnn_fit(y ~ X1 + X2, data = d2, hidden = 4, likelihood = lik,
                       sampler = bnn_ces(calibration = bnn_pcn(), calibration_iter = 100,
                                         J = 20, emulator = "exact"),
                       chains = 1, warmup = 10, iter = 2e4, progress = FALSE),
               "fewer chains or draws \\(thin\\)")
})

test_that("bnn_combine_chains() refuses to mix symmetry-removed and raw fits", {
  p <- lapply(list(1L, 2L), function(id) suppressWarnings(
    bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 2, chain_id = id, seed = 3,
            sampler = bnn_rwm(), warmup = 20, iter = 10, progress = FALSE)))
  raw <- p[[2]]
  can <- bnn_remove_symmetries(p[[1]])
  expect_identical(can$symmetries, "canonical")
  # before: accepted in both orders, labelled "canonical" in one only
  expect_error(bnn_combine_chains(can, raw),
               "Argument 1 of '...' has draws with the symmetries removed \\(\"canonical\"\\) but argument 2 raw draws")
  expect_error(bnn_combine_chains(raw, can),
               "Argument 1 of '...' has raw draws but argument 2 draws with the symmetries removed")
  # one parametrisation: fine, in either order
  both <- bnn_combine_chains(p[[1]], raw)
  expect_null(both$symmetries)
  expect_identical(bnn_combine_chains(can, bnn_remove_symmetries(raw))$symmetries, "canonical")
})

test_that("emulator widths that do not parse are refused by bnn_emulator()", {
  # before: "3,1e10" and "Inf" became NA with a coercion warning and failed
  # later with "invalid 'times' argument"; "3,,32" became c(3, 32)
  expect_error(bnn_emulator(hidden = "3,1e10"),
               "'hidden' = \"3,1e10\" is not valid: .*positive whole numbers up to 1,000,000")
  expect_error(bnn_emulator(hidden = "Inf"), "'hidden' = \"Inf\" does not parse")
  expect_error(bnn_emulator(hidden = "3,,32"), "'hidden' = \"3,,32\" has an empty field")
  expect_error(bnn_emulator(hidden = "3,32,"), "has an empty field")
  expect_error(bnn_emulator(hidden = c(3, Inf)), "'hidden' = c\\(3, Inf\\) is not valid")
  expect_error(bnn_emulator(hidden = 2.5), "'hidden' = 2.5 is not valid")
  expect_error(bnn_emulator(hidden = 1e7), "is not valid")
  expect_error(bnn_emulator(hidden = "-3"), "does not parse")
  expect_no_warning(expect_error(bnn_emulator(hidden = "3,1e10")))
  expect_identical(bnn_emulator(hidden = "3,32")$hidden, c(3L, 32L))
  expect_identical(bnn_emulator(hidden = "3 32")$hidden, c(3L, 32L))
  expect_identical(bnn_emulator(hidden = " 8; 64, 32 ")$hidden, c(8L, 64L, 32L))
  expect_identical(bnn_emulator(hidden = c(3, 32))$hidden, c(3L, 32L))
})

test_that("MMD thinning, MMD and KSD are right for draws beyond 1e154", {
  set.seed(2)
  x <- matrix(rnorm(300), 100, 3)
  y <- matrix(rnorm(240, mean = 0.5), 80, 3)
  th <- bnn_thin_mmd(x, 10)
  # a power of 2 scales exactly: the same selection, mmd2 scaled
  for (s in c(2^700, 2^-700)) {
    ts <- bnn_thin_mmd(x * s, 10)
    expect_identical(attr(ts, "index"), attr(th, "index"))
    expect_equal(attr(ts, "mmd2"), attr(th, "mmd2") * s, tolerance = 1e-12)
  }
  # before: index 1 every time
  expect_identical(attr(bnn_thin_mmd(x * 1e200, 10), "index"), attr(th, "index"))
  m <- bnn_mmd(x, y)
  expect_equal(bnn_mmd(x * 1e200, y * 1e200), m * 1e200, tolerance = 1e-12)  # was NaN
  expect_equal(bnn_mmd(x * 2^-700, y * 2^-700), m * 2^-700, tolerance = 1e-12)
  expect_equal(bnn_mmd(x * 1e300, y * 1e300, squared = FALSE), sqrt(m * 1e300),
               tolerance = 1e-12)
  expect_identical(bnn_mmd(x, y), m)   # ordinary draws: computed as before
  # KSD(c w, s / c, c l) = KSD(w, s, l) / c (every Stein-kernel term scales
  # by 1 / c^2); before: NaN (the squares overflowed)
  k <- bnn_ksd(x, score = -x)
  l <- attr(k, "lengthscale")
  for (s in c(2^600, 2^-600, 1e200)) {
    ks <- bnn_ksd(x * s, score = -x / s)
    expect_equal(as.numeric(ks), as.numeric(k) / s, tolerance = 1e-10)
    expect_equal(attr(ks, "lengthscale"), l * s, tolerance = 1e-12)
  }
  # scores alone huge (draws ordinary): the term u^-1/2 s's' dominates
  U <- 1 + as.matrix(stats::dist(x))^2 / l^2
  ref <- sqrt(sum(U^-0.5 * tcrossprod(x))) / nrow(x) * 1e200
  expect_equal(as.numeric(bnn_ksd(x, score = -x * 1e200, lengthscale = l)), ref,
               tolerance = 1e-10)
  expect_true(is.finite(bnn_ksd(x * 1e200, score = -x * 1e200)))
})

test_that("Inf draws are an error for bnn_remove_symmetries()", {
  sizes <- c(1, 3, 1)
  th <- matrix(rnorm(5 * bnn_n_parameters(sizes)), 5)
  expect_silent(bnn_remove_symmetries(th, sizes = sizes, activation = "tanh"))
  th[2, 3] <- Inf   # before: that draw came back unchanged, without a word
  expect_error(bnn_remove_symmetries(th, sizes = sizes, activation = "tanh"),
               "'x' has infinite values")
  th[2, 3] <- NA
  expect_error(bnn_remove_symmetries(th, sizes = sizes, activation = "tanh"),
               "missing \\(NA\\)")
})

test_that("bnn_rescale_neurons() refuses a c that makes weights infinite", {
  fit <- suppressWarnings(bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, activation = "relu",
                                  sampler = bnn_rwm(), chains = 1, warmup = 10, iter = 5,
                                  seed = 1, progress = FALSE))
  expect_error(bnn_rescale_neurons(fit, 1, 1, c = 1e-320),
               "'c' = 1e-320 would make weights of neuron 1 of layer 1 infinite or zero")
  expect_error(bnn_rescale_neurons(fit, 1, 1, c = c(1e-310)), "infinite or zero")
  ok <- bnn_rescale_neurons(fit, 1, 1, c = 2)
  expect_true(all(is.finite(ok$draws)))
})

test_that("bnn_ksd() with one draw and bnn_fit_laplace() with a huge fd_step give clear errors", {
  # before: "missing value where TRUE/FALSE needed"
  expect_error(bnn_ksd(matrix(rnorm(3), 1, 3), score = matrix(rnorm(3), 1, 3)),
               "'x' must hold at least 2 draws for the KSD, not 1")
  expect_error(bnn_ksd(matrix(rnorm(3), 1, 3), score = matrix(rnorm(3), 1, 3),
                       lengthscale = 1), "at least 2 draws")
  # before: "infinite or missing values in 'x'" from deep inside
  for (h in c(1e300, 0.5, 1e-300))
    expect_error(bnn_fit_laplace(mpg ~ wt, data = mtcars, hidden = 2, fd_step = h),
                 "'fd_step' \\(the relative step of the central differences\\) must be between 1e-10 and 0.1")
})

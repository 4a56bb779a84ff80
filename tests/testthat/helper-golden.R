# Golden draws: every sampler and approximation fitted on tiny data with
# fixed seeds, reduced to fingerprints (an MD5 of the raw bytes of every
# numeric component, plus a few raw values) that test-golden.R compares
# with the values recorded in tests/testthat/golden/.  A refactoring that
# leaves the numbers alone leaves every fingerprint `identical()`; chains
# are chaotic, so a change of rounding anywhere shows up here.
#
# To record (only after a deliberate numerical change, saying which
# benchmark rows it affects): Rscript tools/record-golden.R

golden_data <- function() {
  set.seed(7)
  n <- 40
  d <- data.frame(x1 = runif(n, -2, 2), x2 = rnorm(n))
  d$y <- sin(2 * d$x1) + 0.5 * d$x2 + rnorm(n, sd = 0.2)
  d
}

# Each entry fits one sampler or approximation; all quiet and small.
golden_configs <- function() {
  d <- golden_data()
  # the likelihood is always named, so that a change of the package's
  # defaults does not change what these fits are
  het <- "hetero_gaussian"
  fit <- function(sampler, ..., likelihood = het, hidden = 3, chains = 2, warmup = 40,
                  iter = 30)
    suppressWarnings(suppressMessages(
      bnn_fit(y ~ x1 + x2, data = d, hidden = hidden, sampler = sampler,
              likelihood = likelihood, chains = chains, warmup = warmup, iter = iter,
              seed = 11, progress = FALSE, ...)))
  gauss <- bnn_likelihood("gaussian", sigma = 0.3)
  quiet <- function(x) suppressWarnings(suppressMessages(x))
  sg <- function(s, ...) fit(s, likelihood = gauss, warmup = 30, iter = 40, ...)
  list(
    nuts = function() fit("nuts"),
    nuts_relu = function() fit("nuts", activation = "relu"),
    nuts_gauss_sigma = function() fit("nuts", likelihood = "gaussian"),
    hmc = function() fit(bnn_hmc(stepsize = 0.02, trajectory_length = 0.3,
                                 adapt_stepsize = TRUE)),
    rwm = function() fit("rwm", warmup = 60, iter = 60),
    dei = function() fit("dei", warmup = 20, iter = 20),
    # iter is the number of draws kept (60, 30 and 30 transitions thinned
    # by 10, 3 and 10: the runs recorded before iter had one meaning)
    mile = function() fit("mile", warmup = 200, iter = 6),
    mclmc_blackjax = function() fit(bnn_mclmc(tuning = "blackjax", n_tune = c(150, 30, 30),
                                              n_samples = 60, thin = 3), iter = 10),
    mclmc_naive = function() fit(bnn_mclmc(tuning = "naive", n_tune = c(100, 30, 30),
                                           n_samples = 60, stepsize = 0.5), iter = 3,
                                 init = quiet(bnn_fit_ensemble(
                                   y ~ x1 + x2, d, members = 2, hidden = 3, likelihood = het,
                                   activation = "tanh", seed = 3, progress = FALSE,
                                   optimizer = bnn_optimizer_preset("mile")))),
    ensemble = function() quiet(bnn_fit_ensemble(
      y ~ x1 + x2, d, members = 3, hidden = 3, seed = 5, likelihood = het, progress = FALSE,
      optimizer = bnn_optimizer("adamw", lr = 1e-2, epochs = 150))),
    sgld = function() sg(bnn_sgld(2e-3, batch_size = 8)),
    sgld_cv = function() sg(bnn_sgld(2e-3, batch_size = 8, gradient = "cv")),
    sgld_svrg = function() sg(bnn_sgld(2e-3, batch_size = 8, gradient = "svrg",
                                       svrg_period = 10)),
    csgld = function() sg(bnn_sgld(2e-3, batch_size = 8, cycles = 4)),
    psgld = function() sg(bnn_psgld(1e-3, batch_size = 8)),
    sghmc = function() sg(bnn_sghmc(1e-4, friction = 0.1, batch_size = 8)),
    sghmc_cv = function() sg(bnn_sghmc(1e-4, friction = 0.1, batch_size = 8,
                                       gradient = "cv")),
    sghmc_svrg = function() sg(bnn_sghmc(1e-4, friction = 0.1, batch_size = 8,
                                         gradient = "svrg", svrg_period = 10)),
    csghmc = function() sg(bnn_sghmc(1e-4, friction = 0.1, batch_size = 8, cycles = 3,
                                     batch = "iteration")),
    pcn = function() fit("pcn", likelihood = gauss, warmup = 60, iter = 60),
    # single precision (float network arithmetic): the heteroscedastic and
    # the Gaussian likelihood (sigma sampled), MCLMC on ReLU, and the
    # minibatch path (rows converted to float per chunk)
    nuts_single = function() fit("nuts", precision = "single"),
    nuts_gauss_single = function() fit("nuts", likelihood = "gaussian", precision = "single"),
    mile_relu_single = function() fit("mile", activation = "relu", warmup = 200, iter = 6,
                                      precision = "single"),
    sgld_single = function() sg(bnn_sgld(2e-3, batch_size = 8), precision = "single"),
    ces = function() fit(bnn_ces(calibration = bnn_pcn(), calibration_warmup = 30,
                                 calibration_iter = 60, J = 40,
                                 emulator = bnn_emulator(hidden = c(8, 8), holdout = 0.25,
                                   optimizer = bnn_optimizer("adam", lr = 3e-3,
                                                             weight_decay = 0, epochs = 60,
                                                             batch_size = 10))),
                         likelihood = gauss, chains = 1, warmup = 30, iter = 30),
    swag = function() quiet(bnn_fit_swag(
      y ~ x1 + x2, d, hidden = 3, likelihood = het, rank = 5, epochs = 20, collect_every = 2, draws = 30,
      seed = 4, optimizer = bnn_optimizer("adam", weight_decay = 0, epochs = 100,
                                          loss = "posterior"))),
    mc_dropout = function() quiet(bnn_fit_mc_dropout(
      y ~ x1 + x2, d, hidden = c(6, 6), likelihood = het, dropout = 0.2, draws = 30, seed = 3,
      optimizer = bnn_optimizer("adam", weight_decay = 0, epochs = 100, batch_size = 8,
                                loss = "posterior"))),
    laplace = function() quiet(bnn_fit_laplace(
      y ~ x1 + x2, d, hidden = 3, likelihood = het, draws = 30, seed = 2,
      optimizer = bnn_optimizer("adam", weight_decay = 0, epochs = 200, loss = "posterior"))),
    laplace_kfac = function() quiet(bnn_fit_laplace(
      y ~ x1 + x2, d, hidden = 3, hessian = "kfac", draws = 30, seed = 2, likelihood = gauss,
      optimizer = bnn_optimizer("adam", weight_decay = 0, epochs = 200, loss = "posterior")))
  )
}

# Only the numbers a run produces are compared: not its settings (which a
# redesign may store differently), its data or its timing.
golden_settings <- c("spec", "sampler", "likelihood", "prior", "optimizer",
                     "calibration_sampler", "c_settings", "warmup", "iter", "thin",
                     "seed", "chains", "chain_id", "hidden", "members", "J", "rank",
                     "dropout", "input_dropout", "x_center", "x_scale", "y_center",
                     "y_scale", "timing", "elapsed", "call", "formula", "terms",
                     "model_frame", "data", "X", "y", "y_model", "failed_at",
                     # derived from the draws, or timed: not part of a run's numbers
                     "convergence", "cost_estimate")
golden_skip <- function(path) {
  seg <- strsplit(path, "$", fixed = TRUE)[[1]]
  any(seg %in% golden_settings) || any(grepl("time", seg, fixed = TRUE))
}

golden_md5 <- function(x) {
  f <- tempfile()
  on.exit(unlink(f))
  con <- file(f, "wb")
  writeBin(as.double(x), con)
  writeBin(as.double(dim(x) %||% length(x)), con)
  close(con)
  unname(tools::md5sum(f))
}

# A named list: component path -> fingerprint string ("md5 first values").
golden_fingerprint <- function(obj, prefix = "") {
  out <- list()
  if (is.environment(obj) || is.function(obj) || is.null(obj)) return(out)
  if (is.list(obj)) {
    nms <- names(obj) %||% rep("", length(obj))
    for (i in seq_along(obj)) {
      nm <- if (nzchar(nms[i])) nms[i] else paste0("[[", i, "]]")
      path <- if (nzchar(prefix)) paste0(prefix, "$", nm) else nm
      if (golden_skip(path)) next
      out <- c(out, golden_fingerprint(obj[[i]], path))
    }
    return(out)
  }
  if (is.factor(obj)) obj <- as.integer(obj)
  if (!(is.numeric(obj) || is.logical(obj)) || !length(obj)) return(out)
  v <- as.double(obj)
  head_vals <- paste(sprintf("%a", utils::head(v, 3)), collapse = " ")
  out[[prefix]] <- paste(golden_md5(obj), head_vals)
  out
}

# The SIMD levels (kinds of compute kernels) whose goldens are compared,
# portable first.  By default only the level
# this session uses (BNNMC_SIMD / options(bnnmc.simd), else the best
# this CPU has), so that no kind is computed twice in CI: the check's run
# compares the SIMD kernels the CPU selects, CI's second pass
# (tools/test-portable.sh) the portable and the AVX2 ones.
# BNNMC_GOLDEN_KINDS: "all" (every kind this CPU runs: what
# tools/record-golden.R records) or a comma-separated list of kinds
# ("generic", "avx2+fma", "avx512"); kinds this CPU cannot run are left out.
golden_simd_kinds <- function(which = Sys.getenv("BNNMC_GOLDEN_KINDS", "in_use")) {
  if (identical(which, "in_use") || !nzchar(which)) return(.Call(C_simd, NULL))
  old <- .Call(C_simd, NULL)
  on.exit(.Call(C_simd, old))
  kinds <- "generic"
  for (k in c("avx2+fma", "avx512")) {
    got <- .Call(C_simd, k)
    if (identical(got, k)) kinds <- c(kinds, k)
  }
  if (identical(which, "all")) return(kinds)
  want <- trimws(strsplit(which, ",", fixed = TRUE)[[1]])
  bad <- setdiff(want, c("generic", "avx2+fma", "avx512"))
  if (length(bad)) stop("BNNMC_GOLDEN_KINDS: unknown SIMD level(s) ", paste(bad, collapse = ", "))
  intersect(kinds, want)
}

golden_file <- function(kind, dir) file.path(dir, paste0("golden-", sub("+fma", "", kind, fixed = TRUE), ".csv"))

# Fingerprints of every config under one kind of kernels, as a data frame.
golden_compute <- function(kind, configs = golden_configs()) {
  old <- .Call(C_simd, NULL)
  old_opt <- options(bnnmc.simd = c(generic = "portable", "avx2+fma" = "avx2",
                                    avx512 = "avx512")[[kind]])
  on.exit({
    options(old_opt)
    .Call(C_simd, old)
  })
  # bnn_fit() applies options(bnnmc.simd); the approximations run on the
  # kernels in use
  .Call(C_simd, if (kind == "generic") FALSE else kind)
  rows <- lapply(names(configs), function(nm) {
    fp <- golden_fingerprint(unclass(configs[[nm]]()))
    data.frame(config = nm, component = names(fp), fingerprint = unlist(fp, use.names = FALSE),
               stringsAsFactors = FALSE)
  })
  do.call(rbind, rows)
}

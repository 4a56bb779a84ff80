# Not the package's single-precision path: bnn_fit(precision = "single")
# runs only the network's forward and backward pass in float32 and
# keeps the sampler in double.  This replay computes everything (sampler
# state, energies, tuning) in float32, as MILE's JAX code does, to study
# MILE's chain failures; it stays for inst/benchmarks/papers/mile/mclmc_failures.R.
#
# Build and run the MCLMC replay of inst/benchmarks/f32 (sourced by
# inst/benchmarks/papers/mile/mclmc_failures.R; run from the repository root).
#
# f32_build(single): compiles f32_core.c (the package's src/ core with
# `double` meaning `float` when single = TRUE) and f32_glue.c with
# R CMD SHLIB in a temporary directory (nothing is written into the
# repository), loads it and returns the .Call symbol.
# f32_chain(sym, spec, init, seed, chain, sampler, lr): runs one chain
# exactly as bnn_fit() runs chain number `chain` (bnnmc:::.mclmc_chain with
# the settings of bnnmc:::.mclmc_c_settings), in the build's precision.
#
# Internals (bnnmc:::.mclmc_chain(), .mclmc_c_settings(), fit_spec(),
# C_simd): the replay must reproduce the package's own chains bit for bit.

f32_build <- function(single, repo = ".", flags = "", quiet = TRUE) {
  src <- normalizePath(file.path(repo, "inst", "benchmarks", "f32"), mustWork = TRUE)
  core <- normalizePath(file.path(repo, "src"), mustWork = TRUE)
  dir <- file.path(tempdir(), if (single) "f32_single" else "f32_double")
  unlink(dir, recursive = TRUE)
  dir.create(dir)
  file.copy(file.path(src, c("f32_core.c", "f32_glue.c", "f32_iface.h")), dir)
  so <- file.path(dir, "f32.so")
  inc <- paste0("-I", file.path(core, c("numerics", "simd", "model", "mcmc")), collapse = " ")
  env <- c(sprintf("PKG_CPPFLAGS='%s -DBNNMC_F32=%d'", inc, as.integer(single)),
           sprintf("PKG_CFLAGS='-Wall -Wextra%s %s'",
                   if (single) " -fsingle-precision-constant" else "", flags))
  owd <- setwd(dir)
  on.exit(setwd(owd))
  out <- system2(file.path(R.home("bin"), "R"),
                 c("CMD", "SHLIB", "-o", "f32.so", "f32_core.c", "f32_glue.c"),
                 env = env, stdout = TRUE, stderr = TRUE)
  st <- attr(out, "status")
  if (!is.null(st) && st != 0L || !file.exists(so))
    stop("building the replay failed:\n", paste(out, collapse = "\n"))
  warn <- grep("warning", out, value = TRUE)
  if (length(warn)) message("compiler warnings:\n", paste(warn, collapse = "\n"))
  if (!quiet) message(paste(out, collapse = "\n"))
  dll <- dyn.load(so)
  getNativeSymbolInfo("f32_run_chain", dll)
}

# spec: a model spec with data (bnnmc:::fit_spec(fit)); sampler: bnn_mclmc();
# lr: the ensemble's learning rate (MILE's initial step size) or NULL.
# Returns list(res = named vector: status (0 ok, 1 bad init, 2 step size,
# 3 non-finite), fail_phase (1-3 stage, 4 sampling), fail_step, fail_reason
# (1 state, 2 step size), stepsize, L, tuned_stepsize, tuned_L, n_grad,
# n_reverted, sample_steps, kept, last_stage, last_energy_change,
# last_stepsize, last_L, last_logdens, last_reverted (the last tuning step
# taken: the failing one for a chain that failed in tuning); lp = lp__ of
# the kept draws; draws; trace = the first n_trace tuning steps).
f32_chain <- function(sym, spec, init, seed, chain, sampler, lr = NULL,
                      want_draws = FALSE, n_trace = 0L) {
  cs <- bnnmc:::.mclmc_c_settings(sampler, length(init), lr)
  X <- spec$X
  storage.mode(X) <- "double"
  .Call(sym, X, as.double(spec$y), as.integer(spec$sizes),
        as.integer(c(spec$act, spec$lik, spec$prior, spec$sigma_prior)),
        as.double(c(spec$sigma_fixed, spec$sigma_prior_scale)),
        as.double(spec$prior_scale), as.double(init), as.double(seed),
        as.integer(chain), cs, as.integer(sampler$n_samples),
        as.integer(sampler$thin), want_draws, as.integer(n_trace))
}

# Starting points, data spec and learning rate of a bnn_fit() call without
# running it: a "shell" fit with no tuning and one sampling step gives
# fit$inits (the same per chain number as the real fit: ensemble members,
# or make_inits(init, chains, ...) with the same seed) and the spec.
f32_setup <- function(formula, data, hidden, activation, chains, init, seed) {
  shell <- suppressWarnings(bnnmc::bnn_fit(
    likelihood = "hetero_gaussian",
    formula, data = data, hidden = hidden, activation = activation,
    sampler = bnnmc::bnn_mclmc(n_tune = c(0, 0, 0), n_samples = 1, thin = 1,
                               stepsize = 1e-6, safeguard = "revert"),
    chains = chains, init = init, seed = seed, progress = FALSE))
  list(spec = bnnmc:::fit_spec(shell), inits = shell$inits,
       lr = if (!is.null(shell$ensemble)) shell$ensemble$optimizer$lr else NULL)
}

# The replay compiled in double precision must give the package's draws
# (kernels forced to the generic ones) for the same seed, chain and start:
# naive and MILE tuning on yacht, shortened.  Returns the table of maximum
# absolute differences; stops if any exceeds tol.
f32_validate <- function(sym_double, data_dir, seed = 4, tol = 1e-10,
                         n_tune = c(2000, 500, 500), n_samples = 1000,
                         sym_single = NULL) {
  d <- bnnmc::bnn_read_uci("yacht", dir = data_dir)
  sp <- bnnmc::bnn_split(d, protocol = "mile", rep = 4)
  ens <- bnnmc::bnn_fit_ensemble(y ~ ., data = sp$train, members = 2, hidden = c(16, 16, 16),
                                 likelihood = "hetero_gaussian",
                                 activation = "relu",
                                 optimizer = bnnmc::bnn_optimizer_preset("mile", lr = 0.01),
                                 valid_data = sp$valid, seed = seed, progress = FALSE)
  st <- f32_setup(y ~ ., sp$train, c(16, 16, 16), "relu", 2, ens, seed)
  samplers <- list(
    naive = bnnmc::bnn_mclmc(tuning = "naive", stepsize = 26, n_tune = n_tune,
                             n_samples = n_samples),
    mile = bnnmc::bnn_mclmc(safeguard = "blackjax", n_tune = n_tune, n_samples = n_samples))
  old <- .Call(bnnmc:::C_simd, NULL)
  on.exit(.Call(bnnmc:::C_simd, old), add = TRUE)
  out <- NULL
  for (nm in names(samplers)) for (k in 1:2) {
    .Call(bnnmc:::C_simd, "generic")
    pk <- suppressWarnings(bnnmc:::.mclmc_chain(st$spec, st$inits[[k]], seed, k,
                                                samplers[[nm]], lr = st$lr))
    .Call(bnnmc:::C_simd, old)
    rp <- f32_chain(sym_double, st$spec, st$inits[[k]], seed, k, samplers[[nm]],
                    st$lr, want_draws = TRUE)
    status_pk <- match(pk$info$status, c("ok", "bad_init", "stepsize", "nonfinite")) - 1L
    both <- !is.na(pk$draws)
    out <- rbind(out, data.frame(
      tuning = nm, chain = k, status_package = status_pk,
      status_replay = rp$res[["status"]],
      na_pattern_same = identical(is.na(pk$draws), is.na(rp$draws)),
      max_diff_draws = if (any(both)) max(abs(pk$draws[both] - rp$draws[both])) else 0,
      max_diff_lp = if (any(!is.na(pk$stats[, "logdens"])))
        max(abs(pk$stats[, "logdens"] - rp$lp), na.rm = TRUE) else 0,
      diff_stepsize = abs(pk$info$stepsize - rp$res[["stepsize"]]),
      diff_L = abs(pk$info$L - rp$res[["L"]]),
      n_grad_same = pk$n_grad == rp$res[["n_grad"]],
      lp_median = stats::median(rp$lp)))
  }
  ok <- all(out$status_package == out$status_replay) && all(out$na_pattern_same) &&
    all(out$n_grad_same) &&
    all(c(out$max_diff_draws, out$max_diff_lp, out$diff_stepsize, out$diff_L) <= tol)
  print(out, row.names = FALSE)
  if (!ok) stop("validation failed: the double-precision replay does not reproduce ",
                "the package's draws (generic kernels)")
  sanity <- NULL
  if (!is.null(sym_single)) {
    # sanity of the float build: MILE chains on yacht should give lp__ close
    # to the double ones (not equal: the trajectories differ)
    for (k in 1:2) {
      f <- f32_chain(sym_single, st$spec, st$inits[[k]], seed, k, samplers$mile, st$lr)
      sanity <- rbind(sanity, data.frame(
        chain = k, status_float = f$res[["status"]],
        lp_q10_float = unname(stats::quantile(f$lp, 0.1, na.rm = TRUE)),
        lp_median_float = stats::median(f$lp),
        lp_median_double = out$lp_median[out$tuning == "mile" & out$chain == k],
        lp_q90_float = unname(stats::quantile(f$lp, 0.9, na.rm = TRUE))))
    }
    cat("float32 sanity (MILE, shortened tuning, yacht):\n")
    print(sanity, row.names = FALSE)
    if (any(sanity$status_float != 0) ||
        any(abs(sanity$lp_median_float - sanity$lp_median_double) >
            0.25 * abs(sanity$lp_median_double)))
      warning("the float32 MILE chains on yacht differ much from the double ones", call. = FALSE)
  }
  invisible(list(table = out, sanity = sanity, setup = st, samplers = samplers))
}

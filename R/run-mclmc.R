# One MCLMC chain through the chain runner, for the tests: .mclmc_chain()
# and .mclmc_gaussian() (its settings constructor and kernel are
# R/sampler-mclmc.R).

# Run one MCLMC chain (run_chain(), the chain driver's "mclmc" kernel):
# tuning stage by stage, then sampling, in blocks of `block` steps (R
# checks interrupts between blocks; `progress`, if a function, is called
# after each block as progress(phase, done, total) with phase "stage1",
# "stage2", "stage3" or "sampling").
#
# spec: model spec (list(type = "bnn", ...)) or list(type = "gaussian", mean,
# prec, upper = NULL); init: start (e.g. a deep-ensemble member); the RNG is
# seeded by (seed, chain_id). trace = TRUE keeps the per-step tuning trace.
#
# Returns list(draws = [kept x dim], stats = [kept x 6]: energy_change,
# kinetic_change, logdens, stepsize, L, reverted; info = list(stepsize, L,
# sqrt_diag_cov, n_grad, n_reverted, status ("ok", "bad_init", "stepsize",
# "nonfinite"), eevpd (mean energy_change^2 / dim over the sampling steps),
# failed_at = NULL or list(phase = "stage1".."stage3" / "sampling", step
# (from 1 within the phase), reason = "state" / "stepsize"), ...), n_grad,
# tune = list(stepsize, L) after tuning, trace = NULL or the tuning trace
# [steps x 6]: stage, energy_change, stepsize, L, logdens, reverted).
# A chain whose tuning fails (status "stepsize") returns no draws, with a
# warning.  A chain that turns non-finite (status "nonfinite", only with
# safeguard "blackjax") stops there; its draws are all NA (kept x dim), and
# the caller reports it.
.mclmc_chain <- function(spec, init, seed, chain_id, settings = bnn_mclmc(),
                         lr = NULL, block = 1000L, progress = NULL,
                         trace = FALSE) {
  if (!inherits(settings, "bnn_mclmc"))
    stop("'settings' must come from bnn_mclmc()", call. = FALSE)
  if (!is.numeric(init) || anyNA(init))
    stop("'init' must be a numeric vector without NA", call. = FALSE)
  seed <- .omc_check_seed(seed)
  chain_id <- .omc_check_count(chain_id, "chain_id", 0)
  block <- .omc_check_count(block, "block", 1)
  if (!is.null(progress) && !is.function(progress))
    stop("'progress' must be NULL or a function", call. = FALSE)
  stages <- mclmc_tune_steps(settings)
  n_tune <- sum(stages)
  prog <- NULL
  if (!is.null(progress)) {
    # run_chain() reports in the fit's units (without the preconditioning
    # steps): one call per stage (or sampling) that the block reached
    nt <- as.integer(settings$n_tune)
    ends <- cumsum(nt)
    last <- 0L
    prog <- function(chain, done, total) {
      for (st in 1:3) if (nt[st] > 0L && done > c(0L, ends)[st] && last < ends[st])
        progress(paste0("stage", st), min(done, ends[st]) - c(0L, ends)[st], nt[st])
      if (done > ends[3L]) progress("sampling", done - ends[3L], settings$n_samples)
      last <<- done
    }
  }
  r <- run_chain(spec, init, seed, chain_id, settings, NULL, NULL, NULL,
                 block = block, lr = lr, progress = prog)
  info <- r$mclmc
  if (r$status == "bad_init")
    stop(sprintf("chain %d: the log density or its gradient is not finite at 'init'",
                 chain_id), call. = FALSE)
  stat_names <- c("energy_change", "kinetic_change", "logdens", "stepsize",
                  "L", "reverted")
  draws <- r$draws
  stats <- r$stats
  colnames(stats) <- stat_names
  if (r$status == "stepsize") {
    warning(sprintf("chain %d: tuning gave a non-finite or zero step size or L; no draws",
                    chain_id), call. = FALSE)
    draws <- draws[0L, , drop = FALSE]
    stats <- stats[0L, , drop = FALSE]
  }
  tr <- NULL
  if (trace) {
    # the tuning steps done, and the one that failed (if tuning failed)
    n <- min(r$n_done, n_tune)
    tr <- r$tuning_stats[seq_len(n), , drop = FALSE]
    if (r$status != "ok" && r$n_done < n_tune && !is.null(r$failed_stats)) {
      tr <- rbind(tr, r$failed_stats)
      n <- n + 1L
    }
    tr <- cbind(stage = rep(1:3, stages)[seq_len(n)], tr[, c(1L, 4L, 5L, 3L, 6L), drop = FALSE])
    dimnames(tr) <- list(NULL, c("stage", "energy_change", "stepsize", "L", "logdens", "reverted"))
    if (!n) tr <- NULL
  }
  tune <- info$tune
  info$tune <- NULL
  list(draws = draws, stats = stats, info = info, n_grad = info$n_grad,
       tune = tune, trace = tr)
}

# MCLMC on the Gaussian test target N(mean, cov) (or given its precision
# matrix), optionally with log density -Inf where x > upper (a hard wall for
# testing the handling of non-finite steps). Same value as .mclmc_chain().
.mclmc_gaussian <- function(mean, cov = NULL, prec = NULL, init = mean,
                            seed = 1, chain_id = 1L, settings = bnn_mclmc(),
                            upper = NULL, ...) {
  mean <- as.double(mean)
  d <- length(mean)
  if (is.null(prec)) {
    if (is.null(cov)) stop("give 'cov' or 'prec'", call. = FALSE)
    prec <- solve(cov)
  }
  prec <- as.matrix(prec)
  if (!identical(dim(prec), c(d, d)))
    stop(sprintf("'cov' or 'prec' must be a %d x %d matrix", d, d), call. = FALSE)
  storage.mode(prec) <- "double"
  spec <- list(type = "gaussian", mean = mean, prec = prec,
               upper = if (is.null(upper)) NULL else rep_len(as.double(upper), d))
  .mclmc_chain(spec, init, seed, chain_id, settings, ...)
}

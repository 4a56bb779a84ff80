# The chain driver: chains run in blocks of iterations with their state kept
# in C, so that R can show progress, respond to interrupts and (later) stop
# early without changing the draws.  Chains are independent and each has its
# own RNG stream from (seed, chain id), so they can run in any order or in
# parallel and give the same draws.

.stat_names <- c("accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__",
                 "divergent__", "energy__", "lp__")

.chain_status <- c("ok", "initial values have a non-finite log density",
                   "step-size search failed (step size reached 0 or 1e7)",
                   "adapted metric not finite",
                   "non-finite state (NaN/Inf): the chain diverged",
                   "the chain never moved (every transition rejected)")

# Run one chain; returns a list with the kept draws, stats and timings.
run_chain <- function(spec, init, seed, chain_id, sampler, warmup, iter, thin,
                      block = 50L, progress = NULL) {
  settings <- sampler_c_settings(sampler, warmup)
  dim <- length(init)
  n_keep <- if (iter > 0) (iter - 1L) %/% thin + 1L else 0L
  res <- list(chain = chain_id, draws = matrix(NA_real_, n_keep, dim),
              stats = matrix(NA_real_, n_keep, length(.stat_names)),
              warmup_stats = matrix(NA_real_, warmup, length(.stat_names)),
              time_warmup = 0, time_sampling = 0, status = 0L, n_grad = 0,
              stepsize = NA_real_, inv_metric = rep(NA_real_, dim))
  t0 <- proc.time()[[3]]
  xp <- .Call(C_chain_new, spec, as.double(init), as.double(seed),
              as.integer(chain_id), settings)
  info <- .Call(C_chain_info, xp)
  if (info$status == 1L) {
    res$status <- 1L
    res$n_grad <- info$n_grad
    return(res)
  }
  done <- 0L
  kept <- 0L
  total <- warmup + iter
  while (done < total) {
    # blocks never straddle the end of warm-up, so timings are exact
    limit <- if (done < warmup) warmup else total
    n <- min(block, limit - done)
    out <- .Call(C_chain_run, xp, n)
    idx <- done + seq_len(n)          # 1-based iteration numbers
    w <- idx <= warmup
    if (any(w)) res$warmup_stats[idx[w], ] <- out$stats[w, , drop = FALSE]
    m <- idx[!w] - warmup - 1L        # 0-based sampling index
    keep <- which(!w)[m %% thin == 0L]
    if (length(keep)) {
      rows <- kept + seq_along(keep)
      res$draws[rows, ] <- out$draws[keep, , drop = FALSE]
      res$stats[rows, ] <- out$stats[keep, , drop = FALSE]
      kept <- kept + length(keep)
    }
    done <- done + n
    if (done == warmup) {
      t1 <- proc.time()[[3]]
      res$time_warmup <- t1 - t0
      t0 <- t1
    }
    info <- out$info
    if (!is.null(progress)) progress(chain_id, done, total)
    if (info$status != 0L) {
      # a failed adaptation ends the chain: its remaining draws stay NA
      res$draws[] <- NA_real_
      res$stats[] <- NA_real_
      break
    }
  }
  if (warmup == 0L) res$time_warmup <- 0
  res$time_sampling <- proc.time()[[3]] - t0
  res$status <- info$status
  # a chain still at its initial values after every transition (all
  # rejected, e.g. NaN momenta or a step size far too large) has no draws of
  # the posterior: a failed chain, not draws equal to the init
  # (its sampler statistics are kept: they show why, e.g. divergent__ = 1)
  if (res$status == 0L && done >= 2L && identical(as.double(info$position), as.double(init))) {
    res$status <- 5L
    res$draws[] <- NA_real_
  }
  res$n_grad <- info$n_grad
  res$stepsize <- info$stepsize
  res$inv_metric <- info$inv_metric
  res
}

# Run one MCLMC chain (R/mclmc.R) and return it in run_chain()'s shape.
run_chain_mclmc <- function(spec, init, seed, chain_id, settings, lr = NULL,
                            progress = NULL) {
  n_tune <- sum(settings$n_tune)
  total <- n_tune + settings$n_samples
  t0 <- proc.time()[[3]]
  t_tuned <- NA_real_
  cb <- function(phase, done, tot) {
    if (phase == "sampling" && is.na(t_tuned)) t_tuned <<- proc.time()[[3]]
    if (!is.null(progress)) {
      offs <- switch(phase, stage1 = 0, stage2 = settings$n_tune[1],
                     stage3 = sum(settings$n_tune[1:2]), sampling = n_tune)
      progress(chain_id, offs + done, total)
    }
  }
  snames <- c("energy_change__", "kinetic_change__", "lp__", "stepsize__", "L__",
              "reverted__")
  n_keep <- ceiling(settings$n_samples / settings$thin)
  out <- tryCatch(
    .mclmc_chain(spec, init, seed, chain_id, settings, lr = lr, progress = cb),
    error = function(e) e)
  res <- list(chain = chain_id, stat_names = snames,
              draws = matrix(NA_real_, n_keep, length(init)),
              stats = matrix(NA_real_, n_keep, length(snames)),
              warmup_stats = matrix(NA_real_, 0L, length(snames)),
              time_warmup = 0, time_sampling = 0, status = 0L, n_grad = 0,
              stepsize = NA_real_, L = NA_real_, n_reverted = NA_real_,
              failed_at = NULL, inv_metric = rep(NA_real_, length(init)))
  t1 <- proc.time()[[3]]
  if (inherits(out, "error")) {
    res$status <- 1L
    return(res)
  }
  if (is.na(t_tuned)) t_tuned <- t1
  res$time_warmup <- t_tuned - t0
  res$time_sampling <- t1 - t_tuned
  res$n_grad <- out$n_grad
  res$stepsize <- out$info$stepsize
  res$L <- out$info$L
  res$n_reverted <- out$info$n_reverted
  sdc <- out$info$sqrt_diag_cov
  if (length(sdc) == length(init)) res$inv_metric <- sdc^2
  if (out$info$status == "nonfinite") {
    # safeguard "blackjax": the chain diverged; its draws stay NA
    res$status <- 4L
    res$failed_at <- out$info$failed_at
    return(res)
  }
  if (out$info$status != "ok" || nrow(out$draws) < n_keep) {
    res$status <- 2L
    return(res)
  }
  res$draws <- out$draws
  res$stats <- out$stats
  res
}

# Apply fun to each chain index.
#
# Whenever future and future.apply are installed the chains go through
# future.apply::future_lapply(), whatever the plan (sequential included), so
# progress reporting and the handling of conditions are the same on one core,
# on several (plan(multisession)), on a PSOCK cluster or on a scheduler
# (future.batchtools); without them, lapply() runs the chains in turn.
# The draws do not depend on the plan: each chain has its own C RNG stream
# from (seed, chain id), and nothing in a chain uses R's RNG.  That is why
# future.seed = FALSE: no L'Ecuyer streams are set up (TRUE would consume the
# caller's R RNG state, so the caller's random numbers after bnn_fit() would
# depend on whether future is installed), and future checks that the chains
# indeed do not touch R's RNG (it warns if they did).  Workers load bnnmc from
# their own library paths; multisession workers get the caller's .libPaths(),
# for other plans the package must be installed where the workers look (see
# ?bnnmc-parallel).
dispatch_chains <- function(ids, fun) {
  prog <- .progress_env$pending
  .progress_env$pending <- NULL
  use_future <- requireNamespace("future.apply", quietly = TRUE) &&
    requireNamespace("future", quietly = TRUE)
  run <- function() {
    # the progressor lives as long as this call (progressr finishes it on exit)
    if (!is.null(prog)) prog$p <- progressr::progressor(steps = prog$steps)
    if (use_future) {
      # one future per chain: with fewer workers than chains, a worker takes
      # the next chain as soon as it is free, which balances chains of
      # unequal length (NUTS trees vary), and a scheduler gets one job each
      future.apply::future_lapply(ids, fun, future.seed = FALSE,
                                  future.packages = "bnnmc",
                                  future.chunk.size = 1L,
                                  future.label = "bnnmc-chain-%d")
    } else {
      lapply(ids, fun)
    }
  }
  # Render the progress with the user's progressr handlers (progressr::handlers())
  # unless the user already reports progress globally (handlers(global = TRUE)).
  if (is.null(prog) || isTRUE(progressr::handlers(global = NA))) run() else
    progressr::with_progress(run(), enable = TRUE)
}

# The progress reporter announced by make_progress() and taken by the next
# dispatch_chains() call, which creates its progressr progressor.
.progress_env <- new.env(parent = emptyenv())

# Progress through progressr: returns NULL (no reporting) when disabled or
# when progressr is not installed, otherwise the callback run_chain() calls
# as progress(chain_id, done, total) after each block of iterations.  The
# callback signals progressr "progression" conditions, which future relays
# from workers to the calling session, so the same bar follows chains run
# sequentially, on several cores or on other machines.  Steps are
# iterations (chains x total in all); the message names the chain, its
# phase and an estimate of the chain's remaining time from its iteration
# budget and its own speed so far.  `phases` are the phases' lengths in
# iterations, in order and summing to `total`, e.g.
# c("warm-up" = 1000, sampling = 1000) (later: ensemble training, tuning);
# by default they are taken from the caller's `warmup` (bnn_fit()).
make_progress <- function(enabled, chains, total, phases = NULL) {
  .progress_env$pending <- NULL
  if (!isTRUE(enabled) || !requireNamespace("progressr", quietly = TRUE)) return(NULL)
  if (is.null(phases)) {
    w <- get0("warmup", envir = parent.frame(), inherits = FALSE)
    phases <- if (is.numeric(w) && length(w) == 1L && w >= 0 && w <= total)
      c("warm-up" = w, sampling = total - w) else c(sampling = total)
  }
  if (!is.numeric(phases) || is.null(names(phases)) || sum(phases) != total)
    stop("'phases' must be named phase lengths summing to 'total'.", call. = FALSE)
  ends <- cumsum(phases[phases > 0])
  state <- new.env(parent = emptyenv())
  state$p <- NULL
  state$steps <- chains * total
  state$done <- numeric(chains)
  state$t_first <- rep(NA_real_, chains)
  state$done_first <- numeric(chains)
  .progress_env$pending <- state
  function(chain, done, total) {
    p <- state$p
    if (is.null(p)) return(invisible(NULL))
    now <- proc.time()[[3]]
    step <- done - state$done[chain]
    state$done[chain] <- done
    if (is.na(state$t_first[chain])) {
      state$t_first[chain] <- now
      state$done_first[chain] <- done
      eta <- ""
    } else {
      rate <- (now - state$t_first[chain]) / (done - state$done_first[chain])
      eta <- if (done >= total) ", done" else
        sprintf(", about %s left", format_seconds(rate * (total - done)))
    }
    phase <- names(ends)[which(done <= ends)[1L]]
    p(message = sprintf("chain %d: %s, iteration %d/%d%s", chain, phase, done, total, eta),
      amount = step)
    invisible(NULL)
  }
}

format_seconds <- function(s) {
  if (!is.finite(s)) return("?")
  s <- round(s)
  if (s < 60) return(sprintf("%ds", s))
  if (s < 3600) return(sprintf("%dm%02ds", s %/% 60, s %% 60))
  sprintf("%dh%02dm", s %/% 3600, (s %% 3600) %/% 60)
}

# The chain driver: chains run in blocks of iterations with their state kept
# in C, so that R can show progress, respond to interrupts and (later) stop
# early without changing the draws.  Chains are independent and each has its
# own RNG stream from (seed, chain id), so they can run in any order or in
# parallel and give the same draws.

.stat_names <- c("accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__",
                 "divergent__", "energy__", "lp__")

.chain_status <- c("ok", "initial values have a non-finite log density",
                   "step-size search failed (step size reached 0 or 1e7)",
                   "adapted metric not finite")

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
              inv_metric = rep(NA_real_, length(init)))
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
  if (out$info$status != "ok" || nrow(out$draws) < n_keep) {
    res$status <- 2L
    return(res)
  }
  res$draws <- out$draws
  res$stats <- out$stats
  res
}

# Apply fun to each chain index.  Uses future.apply when it is installed and
# a non-sequential future plan is set; the draws do not depend on it.
dispatch_chains <- function(ids, fun) {
  use_future <- requireNamespace("future.apply", quietly = TRUE) &&
    requireNamespace("future", quietly = TRUE) &&
    !inherits(future::plan(), "sequential")
  if (use_future) {
    future.apply::future_lapply(ids, fun, future.seed = NULL,
                                future.packages = "bnnmc")
  } else {
    lapply(ids, fun)
  }
}

# Text progress for interactive sessions.
make_progress <- function(enabled, chains, total) {
  if (!enabled) return(NULL)
  last <- 0
  function(chain, done, total) {
    now <- proc.time()[[3]]
    if (now - last > 0.5 || done == total) {
      last <<- now
      message(sprintf("\rchain %d: %d/%d (%3.0f%%)%s", chain, done, total,
                      100 * done / total, if (done == total) "" else ""),
              appendLF = done == total)
    }
  }
}

# The chain runner: chains run in blocks of iterations with their state kept
# in C, so that R can show progress, respond to interrupts and (later) stop
# early without changing the draws.  Chains are independent and each has its
# own RNG stream from (seed, chain id), so they can run in any order or in
# parallel and give the same draws.

.stat_names <- c("accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__",
                 "divergent__", "energy__", "lp__")

# Run one chain of any sampler (every sampler is a kernel of the chain
# driver): NUTS, static HMC, MCLMC, RWM, pCN, SGLD/pSGLD/SGHMC.  For MCLMC,
# warmup, iter and thin come from its settings (the tuning's steps,
# n_samples and thin; the arguments are ignored) and `lr` is the learning
# rate of the ensemble that gave the start (MILE's initial step size).
# `block` is the first block's length; blocks that take under 0.2 s (the
# progress reports' period) are doubled (up to 1e5 transitions).  Returns a list with the kept draws
# (n_keep x dim; with fit_shape = TRUE and a BNN spec, already in the shape
# and with the names of a one-chain fit's draws, which assemble_fit() then
# takes without a copy), the sampler and warm-up statistics and their names,
# timings, the status (its name, chain_status_name()), gradients, step size,
# inverse metric and, for a failed chain, where and why it failed
# ($failed_at: phase "warm-up" or "sampling", step from 1 within the phase,
# reason).  A failed chain's draws are all NA, never partial.
run_chain <- function(spec, init, seed, chain_id, sampler, warmup, iter, thin,
                      block = 50L, progress = NULL, fit_shape = FALSE, lr = NULL) {
  # the chain's phases as the sampler runs them (MCLMC: from its settings)
  sch <- sampler_chain_schedule(sampler, warmup, iter, thin)
  warmup <- sch$warmup
  iter <- sch$iter
  thin <- sch$thin
  report <- if (!is.null(progress)) sch$report(progress, chain_id)
  kern <- sampler_kernel(sampler, warmup, iter, length(init), lr)
  snames <- .Call(C_kchain_stat_names, kern$name)
  dim <- length(init)
  n_keep <- if (iter > 0) (iter - 1L) %/% thin + 1L else 0L
  res <- list(chain = chain_id, stat_names = snames,
              draws = NULL,
              stats = matrix(NA_real_, n_keep, length(snames)),
              warmup_stats = matrix(NA_real_, warmup, length(snames)),
              time_warmup = 0, time_sampling = 0, status = "ok", n_grad = 0,
              stepsize = NA_real_, failed_at = NULL,
              inv_metric = rep(NA_real_, dim))
  t0 <- proc.time()[[3]]
  xp <- .Call(C_kchain_new, kern$name, spec, as.double(init), as.double(seed),
              as.integer(chain_id), kern$settings)
  on.exit(.Call(C_kchain_free, xp), add = TRUE)
  info <- .Call(C_kchain_info, xp)
  ok <- chain_status_code("ok")
  done <- 0L
  kept <- 0L
  total <- warmup + iter
  # the kept draws are written by C straight into one matrix that the chain
  # handle owns (its "sink"), taken once at the end: a matrix per block,
  # bound and copied again in R, cost a tenth of a 10^5-step SGLD run of a
  # 10,000-parameter network, most of it in touching fresh memory
  .Call(C_kchain_sink, xp, as.integer(n_keep))
  while (info$status == ok && done < total) {
    # blocks never straddle the end of warm-up, so timings are exact
    limit <- if (done < warmup) warmup else total
    n <- min(block, limit - done)
    t_block <- proc.time()[[3]]
    # only the draws that are kept cross into R (block-relative, 0-based)
    it <- done + seq_len(n)
    want <- which(it > warmup & (it - warmup - 1L) %% thin == 0L)
    out <- .Call(C_kchain_run, xp, n, as.integer(want - 1L))
    info <- out$info
    idx <- done + seq_len(out$n_done)
    w <- idx <= warmup
    if (any(w)) res$warmup_stats[idx[w], ] <- out$stats[which(w), , drop = FALSE]
    keep <- want[want <= out$n_done]
    if (length(keep)) {
      rows <- kept + seq_along(keep)
      res$stats[rows, ] <- out$stats[keep, , drop = FALSE]
      kept <- kept + length(keep)
    }
    done <- done + out$n_done
    if (done == warmup && info$status == ok) {
      t1 <- proc.time()[[3]]
      res$time_warmup <- t1 - t0
      t0 <- t1
    }
    if (!is.null(progress)) report(done, total)
    if (info$status != ok && nrow(out$stats) > out$n_done)
      res$failed_stats <- out$stats[out$n_done + 1L, ]
    # cheap transitions (minibatch kernels): longer blocks, so that R's work
    # per block stays small against the chain's; the draws do not depend
    # on the blocks, and interrupts are checked in C by time
    if (proc.time()[[3]] - t_block < 0.2 && n == block) block <- min(2L * block, 100000L)
  }
  res$time_sampling <- proc.time()[[3]] - t0
  draws <- .Call(C_kchain_take, xp)
  if (fit_shape && !is.null(spec$sizes)) {
    # already in the shape and with the names of a one-chain fit's draws
    # (assemble_fit() then takes it as it is, without a copy)
    pars <- spec_par_names(spec)
    if (length(pars) == dim) {
      dim(draws) <- c(n_keep, 1L, dim)
      dimnames(draws) <- list(iteration = NULL, chain = NULL, variable = pars)
    }
  }
  res$draws <- draws
  rm(draws)
  res$n_grad <- info$n_grad
  res$stepsize <- info$stepsize
  if (!is.null(info$inv_metric)) res$inv_metric <- info$inv_metric
  if (info$status != ok) {
    res$status <- chain_status_name(info$status)
    res$draws[] <- NA_real_
    res$stats[] <- NA_real_
    it <- info$failed_iter + 1L        # 1-based over warm-up and sampling
    res$failed_at <- list(
      phase = if (it <= warmup) "warm-up" else "sampling",
      step = if (it <= warmup) it else it - warmup, reason = info$reason)
  } else if (sampler_unmoved_fails(sampler) && done >= 2L &&
             identical(as.double(info$position), as.double(init))) {
    # a chain still at its initial values after every transition (all
    # rejected, e.g. NaN momenta or a step size far too large) has no draws
    # of the posterior: a failed chain, not draws equal to the init (its
    # sampler statistics are kept: they show why, e.g. divergent__ = 1)
    res$status <- "stuck"
    res$draws[] <- NA_real_
  }
  res$n_done <- done
  sampler_chain_result(sampler, res, info, sch)
}

# The chain runner: chains run in blocks of iterations with their state kept
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
                   "the sampler failed (see $failed_at)",
                   "the chain never moved (every transition rejected)")

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
# timings, the status (a position in .chain_status), gradients, step size,
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
              time_warmup = 0, time_sampling = 0, status = 0L, n_grad = 0,
              stepsize = NA_real_, failed_at = NULL,
              inv_metric = rep(NA_real_, dim))
  t0 <- proc.time()[[3]]
  xp <- .Call(C_kchain_new, kern$name, spec, as.double(init), as.double(seed),
              as.integer(chain_id), kern$settings)
  on.exit(.Call(C_kchain_free, xp), add = TRUE)
  info <- .Call(C_kchain_info, xp)
  done <- 0L
  kept <- 0L
  total <- warmup + iter
  # the kept draws are written by C straight into one matrix that the chain
  # handle owns (its "sink"), taken once at the end: a matrix per block,
  # bound and copied again in R, cost a tenth of a 10^5-step SGLD run of a
  # 10,000-parameter network, most of it in touching fresh memory
  .Call(C_kchain_sink, xp, as.integer(n_keep))
  while (info$status == 0L && done < total) {
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
    if (done == warmup && info$status == 0L) {
      t1 <- proc.time()[[3]]
      res$time_warmup <- t1 - t0
      t0 <- t1
    }
    if (!is.null(progress)) report(done, total)
    if (info$status != 0L && nrow(out$stats) > out$n_done)
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
    pars <- bnn_parameter_names(spec$sizes, sigma = has_sigma(spec))
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
  if (info$status != 0L) {
    res$status <- info$status
    res$draws[] <- NA_real_
    res$stats[] <- NA_real_
    it <- info$failed_iter + 1L        # 1-based over warm-up and sampling
    res$failed_at <- list(
      phase = if (it <= warmup) "warm-up" else "sampling",
      step = if (it <= warmup) it else it - warmup, reason = info$reason)
  } else if (kern$name %in% c("nuts", "hmc") && done >= 2L &&
             identical(as.double(info$position), as.double(init))) {
    # a chain still at its initial values after every transition (all
    # rejected, e.g. NaN momenta or a step size far too large) has no draws
    # of the posterior: a failed chain, not draws equal to the init (its
    # sampler statistics are kept: they show why, e.g. divergent__ = 1)
    res$status <- 6L
    res$draws[] <- NA_real_
  }
  res$n_done <- done
  sampler_chain_result(sampler, res, info, sch)
}

# Run one chain of a fit (run_chain(), draws in the fit's shape).
run_chain_any <- function(spec, init, seed, chain_id, sampler, warmup, iter, thin,
                          progress = NULL, lr = NULL) {
  run_chain(spec, init, seed, chain_id, sampler, warmup, iter, thin,
            progress = progress, fit_shape = TRUE, lr = lr)
}

# Apply fun to each chain index.
#
# Whenever future and future.apply are installed the chains go through
# future.apply::future_lapply(), whatever the plan (sequential included), so
# progress reporting and the handling of conditions are the same on one core,
# on several (plan(multisession)), on a PSOCK cluster or on a scheduler
# (future.batchtools); without them, lapply() runs the chains in turn.
# Chains go to the workers in batches (chain_batches()): each future runs
# several chains in turn, so that thousands of short chains (the symmetry
# paper's one draw per chain) do not pay a future's overhead each.
# The draws do not depend on the plan nor on the batches: each chain has its
# own C RNG stream from (seed, chain id), and nothing in a chain uses R's RNG.
# That is why future.seed = FALSE: no L'Ecuyer streams are set up (TRUE would
# consume the caller's R RNG state, so the caller's random numbers after
# bnn_fit() would depend on whether future is installed), and future checks
# that the chains indeed do not touch R's RNG (it warns if they did).
# Workers load bnnmc from their own library paths; multisession workers get
# the caller's .libPaths(), for other plans the package must be installed
# where the workers look (see ?bnnmc-parallel).
dispatch_chains <- function(ids, fun) {
  prog <- .progress_env$pending
  .progress_env$pending <- NULL
  use_future <- requireNamespace("future.apply", quietly = TRUE) &&
    requireNamespace("future", quietly = TRUE)
  # the kernels: options(bnnmc.kernels) of this session, applied here and
  # passed with every batch to the worker that runs it (a worker is another
  # R process with its own options and its own selection)
  kern <- kernels_option()
  kern_here <- apply_kernels(kern)
  run <- function() {
    # the progressor lives as long as this call (progressr finishes it on exit)
    if (!is.null(prog)) prog$p <- progressr::progressor(steps = prog$steps)
    if (use_future) {
      workers <- suppressWarnings(as.numeric(future::nbrOfWorkers()))
      batches <- chain_batches(ids, workers)
      if (!is.null(prog)) prog$workers <- max(1, min(workers, length(batches)), na.rm = TRUE)
      out <- future.apply::future_lapply(batches, function(b, kern) {
        used <- apply_kernels(kern)
        if (!is.null(prog) && is.na(prog$local_t0)) prog$local_t0 <- progress_clock()
        res <- lapply(b, fun)
        if (!is.null(prog)) prog$flush()
        list(res = res, kernels = used)
      }, kern = kern, future.seed = FALSE, future.packages = "bnnmc",
      future.chunk.size = 1L, future.label = "bnnmc-chains-%d")
      structure(unlist(lapply(out, `[[`, "res"), recursive = FALSE, use.names = FALSE),
                kernels = unique(vapply(out, `[[`, "", "kernels")))
    } else {
      structure(lapply(ids, fun), kernels = kern_here)
    }
  }
  # Render the progress with the user's progressr handlers (progressr::handlers())
  # when asked to, unless the user already reports progress globally
  # (handlers(global = TRUE)); otherwise the signals reach whatever handlers
  # the user set up around the call (with_progress()), or nothing.
  if (is.null(prog) || !prog$render || isTRUE(progressr::handlers(global = NA))) run() else
    progressr::with_progress(run(), enable = TRUE)
}

# Chains per future: by default about 4 futures per worker (a worker that
# finishes early takes the next batch, which balances chains of unequal
# length; with at most 4 chains per worker every chain is its own future, as
# before), or options(bnnmc.chains_per_future = n).
chain_batches <- function(ids, workers) {
  n <- length(ids)
  size <- getOption("bnnmc.chains_per_future")
  if (is.null(size)) {
    if (!is.finite(workers) || workers < 1) workers <- n
    size <- ceiling(n / min(n, 4 * workers))
  } else {
    size <- check_count(size, "options(bnnmc.chains_per_future)", 1L)
  }
  unname(split(ids, ceiling(seq_along(ids) / size)))
}

# The progress reporter announced by make_progress() and taken by the next
# dispatch_chains() call, which creates its progressr progressor.
.progress_env <- new.env(parent = emptyenv())

progress_clock <- function() as.numeric(Sys.time())

# Progress through progressr: returns NULL (no reporting) when disabled or
# when progressr is not installed (`render`: show it with the user's
# handlers, see dispatch_chains()), otherwise the callback run_chain() calls
# as progress(chain_id, done, total) after each block of iterations.  The
# callback signals progressr "progression" conditions, which future relays
# from workers to the calling session, so the same bar follows chains run
# sequentially, on several cores or on other machines.  There is one bar for
# the whole fit: its steps are iterations (chains x total in all).
# Signals are cheap: at most one every 0.2 s per process (the iterations in
# between are added to the next one), plus one when a batch of chains ends.
# The message (under 80 characters) gives the chains done out of all, the
# chain running and its phase, and the time left for the whole fit,
# estimated from this process's speed times the number of workers (the
# counts are exact when the chains run in this session, and marked "~" when
# estimated on one of several workers).  `phases` are the phases' lengths in
# iterations, in order and summing to `total`, e.g.
# c("warm-up" = 1000, sampling = 1000); by default they are taken from the
# caller's `warmup` (bnn_fit()).
make_progress <- function(enabled, chains, total, phases = NULL, render = TRUE) {
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
  state$render <- isTRUE(render)
  state$steps <- chains * total
  state$n_chains <- chains
  state$workers <- 1
  state$t_start <- progress_clock()
  state$local_t0 <- NA_real_
  state$local_done <- 0
  state$chains_done <- 0L
  state$done <- numeric(chains)
  state$pending <- 0
  state$last <- NA_real_
  state$message <- NULL
  state$signal <- function(now) {
    if (is.null(state$p) || (state$pending <= 0 && is.null(state$message))) return()
    state$p(message = state$message, amount = state$pending)
    state$pending <- 0
    state$last <- now
  }
  state$flush <- function() state$signal(progress_clock())
  .progress_env$pending <- state
  function(chain, done, total) {
    if (is.null(state$p)) return(invisible(NULL))
    now <- progress_clock()
    if (is.na(state$local_t0)) state$local_t0 <- now
    # chains are numbered from 1 in a fit, from the first id of a wave on in
    # bnn_fit(chains = bnn_waves())
    prev <- state$done[chain]
    step <- done - (if (is.na(prev)) 0 else prev)
    state$done[chain] <- done
    state$pending <- state$pending + step
    state$local_done <- state$local_done + step
    if (done >= total) state$chains_done <- state$chains_done + 1L
    final <- state$local_done >= state$steps
    if (!final && !is.na(state$last) && now - state$last < 0.2) return(invisible(NULL))
    w <- state$workers
    rate <- state$local_done / max(now - state$local_t0, 1e-6) * w   # whole fit
    est <- if (w > 1) min(state$steps, max(state$local_done, (now - state$t_start) * rate)) else
      state$local_done
    n_done <- if (w > 1) sprintf("~%d", as.integer(est %/% total)) else
      as.character(state$chains_done)
    left <- if (final) "done" else if (now - state$local_t0 < 0.01) "estimating time left" else
      sprintf("about %s left", format_seconds((state$steps - est) / rate))
    phase <- if (done >= total) "finished" else names(ends)[which(done <= ends)[1L]]
    state$message <- sprintf("%s/%d chains done; chain %d %s; %s", n_done, state$n_chains,
                             chain, phase, left)
    state$signal(now)
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

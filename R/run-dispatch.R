# Chains to workers: dispatch_chains() through future (when installed) in
# batches, with the SIMD option and the progress display passed along.

# Apply fun to each chain index.
#
# Whenever future and future.apply are installed the chains go through
# futures (future_batches(), one future per batch), whatever the plan (sequential included), so
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
#
# `keep` (an environment, or NULL): each chain's result is put in
# keep$res[[j]] as soon as it is here (a finished chain run in this session,
# or a future's value), and a parallel run sets keep$collect() to fetch the
# values of futures that have finished but were not yet waited for: what
# an interrupt keeps (R/run-interrupt.R).
dispatch_chains <- function(ids, fun, keep = NULL) {
  # `fun` evaluated here: a promise not yet forced would be shipped to the
  # workers with its caller's whole frame (e.g. run_plans()'s plans, with
  # the model frame and the data) and evaluated there
  force(fun)
  prog <- .progress_env$pending
  .progress_env$pending <- NULL
  use_future <- requireNamespace("future.apply", quietly = TRUE) &&
    requireNamespace("future", quietly = TRUE)
  # the SIMD level: options(bnnmc.simd) of this session, applied here and
  # passed with every batch to the worker that runs it (a worker is another
  # R process with its own options and its own selection)
  kern <- simd_option()
  kern_here <- apply_simd(kern)
  if (!is.null(keep)) keep$simd <- kern_here
  # options(mc.cores = n), as rstan, rstanarm and brms read it: with the
  # default (sequential) plan, the chains run on n cores for this call
  # (forked workers where the platform has them, R sessions otherwise);
  # a plan the user has set is used as it is
  if (use_future && mc_cores_plan(length(ids))) {
    old_plan <- future::plan(mc_cores_strategy(), workers = min(mc_cores(), length(ids)))
    on.exit(restore_plan(old_plan), add = TRUE)
  } else if (use_future && inherits(future::plan(), "sequential")) {
    # the sequential plan (the default) runs the chains here, one after
    # another, as futures would: the same draws, without a future's set-up
    # per chain (its globals' scan and the relay of its conditions)
    use_future <- FALSE
  }
  run <- function() {
    # the progressor lives as long as this call (progressr finishes it on exit)
    if (!is.null(prog)) prog$p <- progressr::progressor(steps = prog$steps)
    if (use_future) {
      workers <- suppressWarnings(as.numeric(future::nbrOfWorkers()))
      # a plan with no worker left would wait for one forever (future.mirai
      # queues the chains until a mirai daemon connects, and daemons that
      # died are not started again)
      if (identical(workers, 0) || identical(mirai_connections(), 0))
        stop(paste0("The future plan has no worker to run the chains on (future::nbrOfWorkers() ",
                    "is 0): its worker processes have stopped or, with mirai, no daemon is ",
                    "connected (see mirai::status()). Set the plan again (e.g. future::plan(",
                    "future.mirai::mirai_multisession, workers = 2) after future::plan(",
                    "future::sequential)), or start the daemons again (mirai::daemons()), ",
                    "and run the fit again."), call. = FALSE)
      batches <- chain_batches(ids, workers, shipped_bytes(fun))
      if (!is.null(prog)) prog$workers <- max(1, min(workers, length(batches)), na.rm = TRUE)
      out <- future_batches(batches, batch_runner(fun, prog), kern, keep)
      structure(unlist(lapply(out, `[[`, "res"), recursive = FALSE, use.names = FALSE),
                simd = unique(vapply(out, `[[`, "", "simd")))
    } else {
      structure(lapply(ids, function(j) {
        r <- fun(j)
        if (!is.null(keep)) keep$res[j] <- list(r)
        r
      }), simd = kern_here)
    }
  }
  # Render the progress with the user's progressr handlers (progressr::handlers())
  # when asked to, unless the user already reports progress globally
  # (handlers(global = TRUE)); otherwise the signals reach whatever handlers
  # the user set up around the call (with_progress()), or nothing.
  # In lines (a session that is not interactive: make_progress()), the
  # progress goes to progress_line_handler(), unless the user has chosen
  # handlers (progressr::handlers(...), which sets options(progressr.handlers)).
  if (is.null(prog) || !(prog$render || prog$lines) || isTRUE(progressr::handlers(global = NA)))
    run() else if (prog$lines && is.null(getOption("progressr.handlers")))
      progressr::with_progress(run(), handlers = progress_line_handler(prog$n_chains),
                               enable = TRUE, delay_terminal = FALSE) else
    progressr::with_progress(run(), enable = TRUE)
}

# The number of mirai daemons connected, under a plan of future.mirai
# (mirai_multisession, mirai_cluster); NA under other plans.
mirai_connections <- function() {
  if (!inherits(future::plan(), "mirai") || !requireNamespace("mirai", quietly = TRUE))
    return(NA_real_)
  tryCatch(as.numeric(mirai::status()$connections), error = function(e) NA_real_)
}

# Would dispatch_chains() run `chains` chains more than one at a time?
# (options(mc.cores) above 1 with the default plan, or a plan of more
# than one worker the user has set.)
chains_in_parallel <- function(chains) {
  if (chains < 2L || !requireNamespace("future", quietly = TRUE) ||
      !requireNamespace("future.apply", quietly = TRUE)) return(FALSE)
  if (mc_cores_plan(chains)) return(TRUE)
  !inherits(future::plan(), "sequential") &&
    isTRUE(suppressWarnings(as.numeric(future::nbrOfWorkers())) > 1)
}

# getOption("mc.cores"), checked: a whole number of at least 1 (1 when unset).
mc_cores <- function() {
  n <- getOption("mc.cores", 1L)
  if (is.null(n)) return(1L)
  if (!is.numeric(n) || length(n) != 1L || is.na(n) || n < 1 || n != round(n))
    stop(sprintf("options(mc.cores) must be a whole number of cores of at least 1, not %s.",
                 paste(format(n), collapse = " ")), call. = FALSE)
  as.integer(n)
}

# Whether this call should run its chains on mc_cores() cores: more than
# one core asked for, more than one chain, and no plan set by the user.
mc_cores_plan <- function(chains) {
  chains > 1L && mc_cores() > 1L && requireNamespace("future", quietly = TRUE) &&
    inherits(future::plan(), "sequential")
}

# Forked workers (future's multicore: no start-up cost, shared memory)
# where future supports them -- not on Windows nor in RStudio -- and
# background R sessions otherwise.
mc_cores_strategy <- function() {
  if (future::supportsMulticore()) future::multicore else future::multisession
}

# Chains per future.  Every future carries the chains' function, and with
# it the data (`bytes`, shipped_bytes()): when that is more than
# ship_once_bytes(), the chains are split evenly into one future per
# worker, so that each worker receives the data once; otherwise about 4
# futures per worker (a worker that finishes early takes the next batch,
# which balances chains of unequal length; with at most 4 chains per worker
# every chain is its own future).  options(bnnmc.chains_per_future = n)
# sets the batch size instead.
chain_batches <- function(ids, workers, bytes = 0) {
  n <- length(ids)
  size <- getOption("bnnmc.chains_per_future")
  if (is.null(size)) {
    if (!is.finite(workers) || workers < 1) workers <- n
    per_worker <- if (bytes > ship_once_bytes()) 1 else 4
    size <- ceiling(n / min(n, per_worker * workers))
  } else {
    size <- check_count(size, "options(bnnmc.chains_per_future)", 1L)
  }
  unname(split(ids, ceiling(seq_along(ids) / size)))
}

# Above this many bytes, the chains' function (with its data) goes to each
# worker once rather than with every chain (chain_batches()): 1 MB, about
# 12,000 rows of 10 inputs, which a local worker receives in milliseconds.
ship_once_bytes <- function() 1e6

# The bytes a future carries with the chains' function `fun`: its
# serialised size (its environment's data included), or 0 where the
# workers are forked (options(mc.cores) on Linux and macOS, plan(multicore)):
# they share this session's memory and receive nothing.
shipped_bytes <- function(fun) {
  if (inherits(future::plan(), "multicore")) return(0)
  as.numeric(length(serialize(fun, NULL)))
}

# fun(batch, kern) for each batch, one future each (as
# future.apply::future_lapply() with future.chunk.size = 1, which gives no
# handle on its futures), the values in order.  If the wait ends early -- the
# user interrupts (Ctrl-C), a chain fails, a time limit is reached -- the
# futures still running are cancelled, so that their chains do not go on
# running in the workers after bnn_fit() has returned.  `keep`: as in
# dispatch_chains(), each batch's chain results go to keep$res as its value
# arrives, and keep$collect() fetches those of the futures that have
# finished but were not yet waited for.
# The function a future runs: the chains of batch `b` by `fun`, on SIMD
# level `kern`, reporting to `prog`.  Made here so that its environment
# holds only these (not dispatch_chains()'s frame, whose `keep` gathers the
# chains' results as they arrive).
batch_runner <- function(fun, prog) {
  force(fun)
  force(prog)
  function(b, kern) {
    used <- apply_simd(kern)
    if (!is.null(prog) && is.na(prog$local_t0)) prog$local_t0 <- progress_clock()
    res <- lapply(b, fun)
    if (!is.null(prog)) prog$flush()
    list(res = res, simd = used)
  }
}

# future (1.40 and later) also warns, "[FUTURE INTERRUPTED]: ...", when it
# collects the future of a worker that died, from future() or value():
# those warnings are muffled, as the error below names the chains lost.
future_batches <- function(batches, fun, kern, keep = NULL) {
  withCallingHandlers(send_batches(batches, fun, kern, keep), warning = function(w) {
    if (startsWith(conditionMessage(w), "[FUTURE INTERRUPTED]")) invokeRestart("muffleWarning")
  })
}

send_batches <- function(batches, fun, kern, keep = NULL) {
  fs <- vector("list", length(batches))
  got <- logical(length(batches))
  put <- function(i, v) {
    got[i] <<- TRUE
    if (!is.null(keep) && is.list(v) && length(v$res) == length(batches[[i]]))
      keep$res[batches[[i]]] <- v$res
  }
  if (!is.null(keep)) keep$collect <- function() {
    for (i in which(!got)) {
      f <- fs[[i]]
      if (inherits(f, "Future") && isTRUE(tryCatch(future::resolved(f), error = function(e) FALSE)))
        put(i, tryCatch(future::value(f), error = function(e) NULL))
    }
  }
  finished <- FALSE
  on.exit(if (!finished) cancel_futures(fs), add = TRUE)
  for (i in seq_along(batches)) {
    b <- batches[[i]]
    # a worker that died in an earlier fit may fail the launch (a PSOCK
    # cluster's node with older versions of future): name the chains
    # not sent
    f <- tryCatch(future::future(fun(b, kern), globals = list(fun = fun, b = b, kern = kern),
                                 packages = "bnnmc", seed = FALSE,
                                 label = sprintf("bnnmc-chains-%d", i)),
                  FutureError = function(e) e)
    if (inherits(f, "FutureError")) {
      ch <- unlist(batches[i:length(batches)])
      stop(sprintf(paste0(
        "%s %s could not be sent to a worker: a worker process of the future plan has stopped ",
        "(killed, or out of memory?) or cannot be reached. Set the plan up again (e.g. ",
        "future::plan() with a new cluster) and run the fit again. (future: %s.)"),
        if (length(ch) > 1L) "Chains" else "Chain", paste(ch, collapse = ", "),
        sub("\\. .*", "", conditionMessage(f))), call. = FALSE)
    }
    fs[[i]] <- f
  }
  out <- vector("list", length(fs))
  lost <- integer(0)
  why <- NULL
  for (i in seq_along(fs)) {
    # a worker that dies (killed, out of memory) leaves its future without
    # a value: name its chains, and those of the other futures lost with it
    out[i] <- list(tryCatch(future::value(fs[[i]]), FutureError = function(e) {
      lost <<- c(lost, i)
      why <<- c(why, sub("\\. .*", "", conditionMessage(e)))
      NULL
    }))
    put(i, out[[i]])
    if (length(lost)) break
  }
  if (length(lost)) {
    for (k in setdiff(seq_along(fs), seq_len(lost[1L]))) {
      done <- isTRUE(tryCatch(future::resolved(fs[[k]]), error = function(e) TRUE))
      if (done && inherits(tryCatch(future::value(fs[[k]]), error = function(e) e), "FutureError"))
        lost <- c(lost, k)
    }
    ch <- unlist(batches[lost])
    stop(sprintf(paste0(
      "%s %s ended without a result: the worker process running %s stopped (killed, ",
      "or out of memory?), and the fit with it. Run the fit again, with fewer cores ",
      "(options(mc.cores)) or workers if memory is short. (future: %s.)"),
      if (length(ch) > 1L) "Chains" else "Chain", paste(ch, collapse = ", "),
      if (length(ch) > 1L) "them" else "it", why[1L]), call. = FALSE)
  }
  finished <- TRUE
  out
}

# Set the future plan `p` again after dispatch_chains(); if future refuses
# (e.g. while a future of a dead worker counts as running), the chains'
# own error must not be masked by that one: it becomes a warning.
restore_plan <- function(p) {
  tryCatch(future::plan(p), error = function(e)
    warning("bnn_fit() could not set the earlier future plan again: ", conditionMessage(e),
            call. = FALSE))
  invisible(NULL)
}

# Stop the futures in `fs` that are still running.  With future's cancel()
# (future >= 1.40) they are cancelled and their workers interrupted where
# the backend allows it (multisession, cluster, callr, mirai); with older
# versions of future, the worker processes on this machine that still run a
# chain are ended and the plan is set again, which starts fresh workers for
# the next fit.  Jobs of a scheduler (future.batchtools) are not cancelled
# by older versions of future.
cancel_futures <- function(fs) {
  fs <- Filter(function(f) inherits(f, "Future"), fs)
  if (!length(fs)) return(invisible(NULL))
  ns <- asNamespace("future")
  if (exists("cancel", envir = ns, inherits = FALSE)) {
    try(get("cancel", envir = ns)(fs, interrupt = TRUE), silent = TRUE)
    return(invisible(NULL))
  }
  running <- Filter(function(f)
    !isTRUE(tryCatch(future::resolved(f), error = function(e) TRUE)), fs)
  pids <- unlist(lapply(running, function(f) tryCatch({
    node <- f$workers[[f$node]]
    local <- isTRUE(attr(node$host, "localhost")) ||
      as.character(node$host) %in% c("localhost", "127.0.0.1")
    if (local) as.integer(node$session_info$process$pid) else NULL
  }, error = function(e) NULL)))
  if (!length(pids)) return(invisible(NULL))
  tools::pskill(pids, tools::SIGTERM)
  # (a variable, not a nested call: plan() substitutes its argument)
  stack <- future::plan("list")
  try(future::plan(stack), silent = TRUE)
  invisible(NULL)
}

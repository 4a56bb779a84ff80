# Chains to workers: dispatch_chains() through future (when installed) in
# batches, with the kernels option and the progress display passed along.

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
  # the SIMD level: options(bnnmc.simd) of this session, applied here and
  # passed with every batch to the worker that runs it (a worker is another
  # R process with its own options and its own selection)
  kern <- simd_option()
  kern_here <- apply_simd(kern)
  run <- function() {
    # the progressor lives as long as this call (progressr finishes it on exit)
    if (!is.null(prog)) prog$p <- progressr::progressor(steps = prog$steps)
    if (use_future) {
      workers <- suppressWarnings(as.numeric(future::nbrOfWorkers()))
      batches <- chain_batches(ids, workers)
      if (!is.null(prog)) prog$workers <- max(1, min(workers, length(batches)), na.rm = TRUE)
      out <- future.apply::future_lapply(batches, function(b, kern) {
        used <- apply_simd(kern)
        if (!is.null(prog) && is.na(prog$local_t0)) prog$local_t0 <- progress_clock()
        res <- lapply(b, fun)
        if (!is.null(prog)) prog$flush()
        list(res = res, simd = used)
      }, kern = kern, future.seed = FALSE, future.packages = "bnnmc",
      future.chunk.size = 1L, future.label = "bnnmc-chains-%d")
      structure(unlist(lapply(out, `[[`, "res"), recursive = FALSE, use.names = FALSE),
                simd = unique(vapply(out, `[[`, "", "simd")))
    } else {
      structure(lapply(ids, fun), simd = kern_here)
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

# The progress display of a fit: one progressr bar for all chains, warm-up and
# sampling, with the chains done and the time left.

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

# The progress display of a fit: one progressr bar for all chains, warm-up and
# sampling, with the chains done and the time left; in a session that is
# not interactive (Rscript), one line every bnnmc.progress_interval
# seconds instead (progress_line_handler()), for a long fit or when asked.

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
# `lines`: report by progress_line_handler() (one message line every
# bnnmc.progress_interval seconds) instead of the user's handlers.
make_progress <- function(enabled, chains, total, phases = NULL, render = TRUE, lines = FALSE) {
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
  state$lines <- isTRUE(lines)
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

# Estimated seconds above which a fit in a session that is not interactive
# (Rscript, a batch job) reports its progress in lines when `progress` is
# not given: a minute, so that examples, tests and short scripts print
# none.
.progress_lines_min_seconds <- 60

# Does a fit with `progress` and the cost estimate `cost` (fit_cost(), or
# NULL) report its progress in lines (progress_line_handler())?  In a
# session that is not interactive: with progress = TRUE always, with
# progress = NULL when the estimate is above .progress_lines_min_seconds.
progress_lines <- function(progress, cost, session_interactive = interactive()) {
  if (session_interactive || isFALSE(progress)) return(FALSE)
  isTRUE(progress) ||
    (is.null(progress) && !is.null(cost) && isTRUE(cost$total > .progress_lines_min_seconds))
}

# Seconds between two progress lines: options(bnnmc.progress_interval),
# 30 by default.
progress_interval <- function() {
  s <- getOption("bnnmc.progress_interval", 30)
  if (!is.numeric(s) || length(s) != 1L || is.na(s) || s < 0)
    stop(sprintf(paste0("options(bnnmc.progress_interval) must be a number of seconds of at ",
                        "least 0, not %s."), paste(format(s), collapse = " ")), call. = FALSE)
  as.double(s)
}

# A progressr handler that writes the fit's progress as one line (a
# message) at most every `interval` seconds, e.g.
#   bnn_fit: 2/4 chains done; chain 3 sampling; about 1m20s left (elapsed 2m05s)
# for logs of Rscript and batch jobs, where a bar's carriage returns are
# noise.  It takes the progress conditions as the bar does, so the lines
# follow chains run in this session and those of workers that relay their
# progress (multisession, multicore, cluster).  The chains done and the
# time left come from the steps of all the chains together (progressr adds
# up the amounts relayed from every worker; `chains` chains of equal
# length), the chain and its phase from the last report (its message,
# make_progress()); the elapsed time counts from the start of the chains.
progress_line_handler <- function(chains, interval = progress_interval()) {
  t0 <- progress_clock()
  last <- t0
  reporter <- list(
    update = function(config, state, progression, ...) {
      now <- progress_clock()
      if (now - last < interval) return(invisible(NULL))
      last <<- now
      message(progress_line(state$step, config$max_steps, chains, state$message, now - t0))
      invisible(NULL)
    })
  progressr::make_progression_handler("bnnmc_lines", reporter = reporter, enable = TRUE,
                                      interval = 0, times = Inf, intrusiveness = 0,
                                      clear = FALSE, target = "file")
}

# The line of progress_line_handler(): `step` of `max_steps` steps of
# `chains` chains done after `elapsed` seconds; `msg` the last report's
# message ("... chain 3 sampling; ...").
progress_line <- function(step, max_steps, chains, msg, elapsed) {
  per_chain <- max_steps / max(chains, 1)
  done <- min(chains, floor(step / per_chain + 1e-9))
  at <- regmatches(msg, regexpr("chain [0-9]+ [^;]+", msg))
  if (length(at) && endsWith(at, " finished")) at <- character(0)
  left <- if (step <= 0) "estimating time left" else
    sprintf("about %s left", format_seconds((max_steps - step) * elapsed / step))
  sprintf("bnn_fit: %d/%d chains done; %s%s (elapsed %s)", as.integer(done), as.integer(chains),
          if (length(at) && done < chains) paste0(at, "; ") else "", left,
          format_seconds(elapsed))
}

format_seconds <- function(s) {
  if (!is.finite(s)) return("?")
  s <- round(s)
  if (s < 60) return(sprintf("%ds", s))
  if (s < 3600) return(sprintf("%dm%02ds", s %/% 60, s %% 60))
  sprintf("%dh%02dm", s %/% 3600, (s %% 3600) %/% 60)
}

# What an interrupted fit keeps: the chains that had finished when bnn_fit()
# was interrupted (Ctrl-C), stored for bnn_interrupted().
#
# fit_plans() watches its run (new_interrupt_watch()): run_plans() records
# each chain's result as it finishes (in this session, or as a future's
# value arrives), and a calling handler for the interrupt condition stores
# the finished chains with their started plan before the interrupt goes on
# (a script still stops).  The fit is assembled only when asked for, by
# bnn_interrupted() (R/fit-interrupted.R), through complete_plan() as a
# finished fit is.
# Only a fit of one model keeps its chains: the default model's checks
# (two models, or a refit with a wider prior) and fits in waves keep
# nothing, and the message says so.

.interrupt_env <- new.env(parent = emptyenv())

# The watch of one fit_plans() run over `plans`: run_plans() fills `res`
# (one slot per chain of the run, NULL until it has finished), `plans`,
# `pos` and `t0`, dispatch_chains() `simd` (the SIMD level of this session);
# a parallel run sets `collect`, which fetches the values of futures that
# have finished but were not yet waited for.
new_interrupt_watch <- function(plans) {
  w <- new.env(parent = emptyenv())
  w$all_plans <- plans
  w$plans <- NULL
  w$res <- list()
  w$collect <- NULL
  w$simd <- NULL
  w$t0 <- NA_real_
  w
}

# The calling handler of an interrupt during fit_plans(): stores what can
# be kept (or nothing) and says so in one message; the interrupt then goes
# on.  Never fails: an error here would mask the interrupt.
interrupt_keep <- function(watch) {
  tryCatch({
    .interrupt_env$stored <- NULL
    msg <- interrupt_store(watch)
    message(msg)
  }, error = function(e) NULL, interrupt = function(e) NULL)
  invisible(NULL)
}

# The calling handler of an interrupt in a fit that keeps nothing (`what`,
# e.g. "the CES pipeline"): what an earlier interrupt kept is dropped, and
# one message says so.
interrupt_keep_nothing <- function(what) {
  tryCatch({
    .interrupt_env$stored <- NULL
    message(sprintf(paste0("bnn_fit() interrupted: %s keeps no finished chains; nothing can ",
                           "be returned (bnn_interrupted() returns NULL)."), what))
  }, error = function(e) NULL, interrupt = function(e) NULL)
  invisible(NULL)
}

# Stores the finished chains of the watched run when they can make a fit;
# returns the message that says what was kept.
interrupt_store <- function(watch) {
  plans <- watch$all_plans
  nothing <- "nothing can be returned (bnn_interrupted() returns NULL)"
  if (length(plans) != 1L || !isTRUE(plans[[1L]]$keep_interrupted))
    return(paste0("bnn_fit() interrupted: the default model's check fits more than one ",
                  "model and keeps no finished chains of an interrupted fit; ", nothing,
                  ". A fit of one model (e.g. options(bnnmc.likelihood_check = FALSE, ",
                  "bnnmc.linear_check = FALSE), or a model or sampler argument given) ",
                  "keeps them."))
  if (!is.null(plans[[1L]]$waves))
    return(paste0("bnn_fit() interrupted: a fit in waves (chains = bnn_waves()) keeps no ",
                  "finished chains; ", nothing, "."))
  asked <- plans[[1L]]$chains
  if (!is.null(watch$collect)) try(watch$collect(), silent = TRUE)
  done <- which(!vapply(watch$res, is.null, NA))
  if (is.null(watch$plans) || !length(done))
    return(sprintf("bnn_fit() interrupted before any of its %d chain%s had finished: %s.",
                   asked, if (asked > 1L) "s" else "", nothing))
  .interrupt_env$stored <- list(plan = watch$plans[[1L]], kept = watch$pos[[1L]][done],
                                res = watch$res[done], asked = asked, simd = watch$simd,
                                elapsed = proc.time()[[3]] - watch$t0)
  sprintf(paste0("bnn_fit() interrupted: %d of %d chains had finished; bnn_interrupted() ",
                 "returns a fit of %s."), length(done), asked,
          if (length(done) > 1L) sprintf("those %d chains", length(done)) else "that chain")
}

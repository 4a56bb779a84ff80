# What an interrupted fit keeps: the chains that had finished when bnn_fit()
# was interrupted (Ctrl-C), stored for bnn_interrupted().
#
# fit_plans() watches its run (new_interrupt_watch()): run_plans() records
# each chain's result as it finishes (in this session, or as a future's
# value arrives), and a calling handler for the interrupt condition stores
# the finished chains with their started plan before the interrupt goes on
# (a script still stops).  The fit is assembled only when asked for, by
# bnn_interrupted(), through complete_plan() as a finished fit is.
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

#' The finished chains of an interrupted fit
#'
#' When [bnn_fit()] is interrupted (Ctrl-C, or SIGINT in a script) after at
#' least one of its chains has finished, it keeps those chains, says so in
#' a message, and lets the interrupt go on (a script still stops).
#' `bnn_interrupted()` returns them as a fit, assembled as a finished fit
#' is (its convergence verdict included), with a warning (class
#' `bnnmc_partial_fit`) and a line of its print that it has fewer chains
#' than were asked for.
#'
#' Only the last interrupted fit is kept, in this R session, until another
#' fit is interrupted (one interrupted before any chain finished leaves
#' nothing).  Chains run one after another keep every chain that had
#' finished; under `options(mc.cores)` or a parallel \pkg{future} plan, the
#' chains whose futures had returned their value when the interrupt came
#' (a future runs one chain, or several with many chains per worker: see
#' [bnnmc-parallel]).  A fit of one model keeps its chains: the default
#' model's checks on small and mid-sized data (up to 2,000 rows), which fit
#' two models ([bnn_default]), the refit with a wider prior, fits in waves
#' ([bnn_waves()]) and the CES pipeline ([bnn_ces()]) keep nothing, and
#' the message says so.
#'
#' @return A `bnnfit` of the finished chains, or `NULL` (with a message)
#'   when no interrupted fit is kept.
#' @seealso [bnn_fit()], [bnnmc-parallel] (section "Interrupting a fit"),
#'   [bnn_combine_chains()] to join it with chains run later (`chain_id`).
#' @export
#' @examples
#' # nothing kept in this session: NULL, with a message
#' bnn_interrupted()
bnn_interrupted <- function() {
  st <- .interrupt_env$stored
  if (is.null(st)) {
    message("bnn_interrupted(): no interrupted fit is kept in this session (it keeps the ",
            "chains that had finished when the last bnn_fit() was interrupted).")
    return(invisible(NULL))
  }
  plan <- st$plan
  plan$inits <- plan$inits[st$kept]
  plan$ids <- plan$ids[st$kept]
  plan$chains <- length(st$kept)
  done <- complete_plan(plan, list(res = st$res, elapsed = st$elapsed,
                                   simd = st$simd))
  fit <- bnnfit_with(done$fit, partial = list(chains = length(st$kept), asked = st$asked))
  warn_cond(sprintf(paste0("This fit is partial: %d of the %d chains asked for had finished when ",
                           "bnn_fit() was interrupted."), length(st$kept), st$asked),
            "bnnmc_partial_fit")
  warn_overdispersion(fit)
}

# bnn_interrupted(): the chains an interrupted bnn_fit() kept
# (R/run-interrupt.R stores them), completed into a fit by complete_plan()
# (R/fit-plan.R) as a finished fit is.

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

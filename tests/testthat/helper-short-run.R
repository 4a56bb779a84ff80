# Test fits kept short on purpose (a few draws per chain) warn that their
# summaries need at least 100 draws (class bnnmc_short_run).  short_run()
# expects that warning and lets every other warning through; `also` names
# further classes a test expects of its tiny run, e.g. "bnnmc_not_converged"
# where a test compares draws one for one and not their convergence.
short_run <- function(expr, also = character(0))
  suppressWarnings(expr, classes = c("bnnmc_short_run", also))

# `expr` with the verdict's warning about its predictions muffled (class
# bnnmc_unreliable_predictions), for fits that are deliberately small or
# misspecified; every other warning still reaches the test.
quiet_verdict <- function(expr) {
  withCallingHandlers(expr, bnnmc_unreliable_predictions = function(w)
    invokeRestart("muffleWarning"))
}


# Test fits kept short on purpose (a few draws per chain) warn that their
# summaries need at least 100 draws (class bnnmc_short_run).  short_run()
# expects that warning and lets every other warning through.
short_run <- function(expr) suppressWarnings(expr, classes = "bnnmc_short_run")

# The cost estimate of bnn_fit()'s default fit on large data against the
# fit's true wall time: Friedman's first function (10 inputs of which 5 are
# used, noise sd 1; bench_friedman() in default_sets.R), the default call
# bnn_fit(y ~ ., data, seed = 1) on one core (sequential plan,
# mc.cores = 1, nice'd when the committed run was made), one row per size.
# Recorded: the estimate the fit carries (fit$cost_estimate) and its parts
# (the deep ensemble's, one chain's, the work after the chains), the
# elapsed time of the whole bnn_fit() call, of the ensemble and of the
# chains (fit$elapsed), the ratio estimate / elapsed, the 1-minute load
# average before the fit and the 5-minute one after it, the share of a
# core the estimate assumed and the one the fit got (its CPU time over its
# elapsed time).
#   BNNMC_DATA_DIR=/path/uci Rscript inst/benchmarks/speed/cost_estimate_large.R ROWS [ROWS ...]
# Appends to (or replaces the rows of the same size and code in)
# inst/benchmarks/speed/cost_estimate_large.csv; `code` labels the
# estimate's version (environment variable BNNMC_BENCH_CODE, default
# "current").
suppressPackageStartupMessages(library(bnnmc))
source(file.path("inst", "benchmarks", "speed", "default_sets.R"))   # bench_friedman()
args <- commandArgs(TRUE)
sizes <- if (length(args)) as.integer(args) else c(16000L, 100000L)
code <- Sys.getenv("BNNMC_BENCH_CODE", "current")
out <- file.path("inst", "benchmarks", "speed", "cost_estimate_large.csv")
loadavg <- function(k) tryCatch(as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][k]),
                                error = function(e) NA_real_)
options(mc.cores = 1L)
if (requireNamespace("future", quietly = TRUE)) future::plan("sequential")
ns <- asNamespace("bnnmc")
seen <- new.env()
# the estimate's parts and the ensemble's time, as the fit computes them
invisible(trace("plan_cost", exit = quote(assign("cost", returnValue(), envir = seen)),
      where = ns, print = FALSE))
invisible(trace("train_ensemble", tracer = quote(assign("t_ens0", proc.time()[[3]], envir = seen)),
      exit = quote(assign("t_ens1", proc.time()[[3]], envir = seen)), where = ns, print = FALSE))
for (n in sizes) {
  d <- bench_friedman(n, p = 10, seed = 1)
  rm(list = ls(seen), envir = seen)
  l0 <- loadavg(1L)
  st <- system.time(fit <- suppressWarnings(bnn_fit(y ~ ., data = d, seed = 1)))
  t <- st[["elapsed"]]
  cost <- seen$cost
  row <- data.frame(code = code, rows = n, estimate_s = round(fit$cost_estimate, 1),
                    elapsed_s = round(t, 1), ratio = round(fit$cost_estimate / t, 3),
                    load = l0, load5_after = loadavg(2L),
                    est_ensemble_s = round(cost$ensemble, 1),
                    ensemble_s = round(seen$t_ens1 - seen$t_ens0, 1),
                    est_chain_s = round(cost$per_chain, 1), chains = fit$chains,
                    chains_s = round(fit$elapsed, 1), est_post_s = round(cost$post, 1),
                    cpu_share = round(cost$cpu_share, 3),
                    fit_cpu_share = round((st[["user.self"]] + st[["sys.self"]]) / t, 3))
  print(row)
  old <- if (file.exists(out)) utils::read.csv(out) else NULL
  if (!is.null(old)) {
    old <- old[!(old$rows == n & old$code == code), , drop = FALSE]
    # (rows of an earlier version of this script lack the newer columns)
    for (nm in setdiff(names(row), names(old))) old[[nm]] <- rep(NA, nrow(old))
    old <- old[names(row)]
  }
  utils::write.csv(rbind(old, row), out, row.names = FALSE)
}

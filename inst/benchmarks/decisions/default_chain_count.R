# What more chains buy the default, and whether its verdict can reach
# "reliable" by spending them.  On the four UCI sets of the comparison with
# BART (their one 80/20 split, set.seed(100)) and on Friedman's function at
# 1,000 training rows (2,000 test rows, seed 1), the default call with
# `chains` = 4 (the default), 8 and 16 on the default's run, and two runs of
# about the cost of 4 chains spread over more, shorter chains (8 chains with
# half the tuning steps, 16 with a quarter).  Per fit: test log predictive
# density and 90% coverage (bnn_metrics()), the verdict's predictions part
# (Monte Carlo error and drift of the pooled predictive mean in predictive
# sds, LOO-PIT coverage of 90% intervals, reliable or not), and the wall
# seconds on one core.  BART (dbarts, as in default_sets.R) beside it on
# the same split, once per set.
#   Rscript inst/benchmarks/decisions/default_chain_count.R [sets...]
# One core: the chains run one after another (no mc.cores, sequential
# plan) and the C diagnostics on one thread.  Writes default_chain_count.csv
# (the rows of the sets run replace those of an earlier run).
suppressPackageStartupMessages(library(bnnmc))
source(file.path("inst", "benchmarks", "speed", "default_sets.R"))
args <- commandArgs(trailingOnly = TRUE)
sets_all <- c("yacht", "energy", "concrete", "airfoil", "friedman1000")
sets_run <- if (length(args)) args else sets_all
out_csv <- file.path("inst", "benchmarks", "decisions", "default_chain_count.csv")
options(bnnmc.threads = 1L, mc.cores = 1L)
uci <- default_bench_sets()
runs <- list(list(chains = 4L, warmup = NA), list(chains = 8L, warmup = NA),
             list(chains = 16L, warmup = NA), list(chains = 8L, warmup = 10000L),
             list(chains = 16L, warmup = 5000L))
rows <- list()
for (set in sets_run) {
  s <- bench_named_split(set, uci)
  bart <- if (requireNamespace("dbarts", quietly = TRUE)) bart_test_draws(s$train, s$test)
  for (r in runs) {
    args_fit <- list(y ~ ., data = s$train, seed = 1, progress = FALSE, chains = r$chains)
    if (!is.na(r$warmup)) args_fit$warmup <- r$warmup
    t0 <- proc.time()[["elapsed"]]
    fit <- suppressMessages(suppressWarnings(do.call(bnn_fit, args_fit)))
    secs <- proc.time()[["elapsed"]] - t0
    m <- bnn_metrics(fit, s$test)
    pr <- fit$convergence$predictions
    row <- data.frame(set = set, n_train = nrow(s$train), chains = r$chains,
                      warmup = if (is.na(r$warmup)) 20000L else r$warmup,
                      seconds = secs, lppd = m$lppd, cov90 = m$coverage_90,
                      mc_error = pr$mc_error, drift = pr$drift, loo_cov90 = pr$loo_coverage,
                      reliable = isTRUE(pr$reliable),
                      seconds_bart = if (is.null(bart)) NA_real_ else bart$seconds,
                      lppd_bart = if (is.null(bart)) NA_real_ else bart$lppd)
    print(row, row.names = FALSE)
    rows[[length(rows) + 1L]] <- row
  }
}
write_replacing_sets(do.call(rbind, rows), out_csv, sets_run, sets_all)

# bnn_importance() and bnn_effects() on a default fit of Friedman's function
# (n = 1,000 rows, 10 inputs, x6..x10 pure noise; y = 10 sin(pi x1 x2) +
# 20 (x3 - 0.5)^2 + 10 x4 + 5 x5 + N(0, 1), x ~ U(0, 1)^10; data seed 2026,
# fit seed 1: the default's homoscedastic network, the noise's spread being
# flat) on one thread.
# Speed: elapsed seconds of bnn_importance(fit), bnn_effects(fit) (its
# default: the three most important predictors, chosen by an importance on
# 200 draws), bnn_effects(fit, "x1:x2") (a surface), summary(fit) and, as
# the unit, log_lik(fit) (one forward pass over every row and draw), `reps`
# times in turn; their medians, the ratios to log_lik() and the largest
# R heap each call needed (gc()'s "max used" above what was in use before;
# one [draw, row] matrix of log_lik() is 8 MB).
# Accuracy (the feature's acceptance figures): the importance ranks, the
# noise inputs' lower bounds against the smallest of x1..x5, the range of
# x4's partial dependence over [0, 1] (truth: 10) and the share of the grid
# where the centred band covers the centred true term, for x4 (10 x4) and
# x3 (20 (x3 - 0.5)^2).
#   Rscript inst/benchmarks/speed/importance_effects.R [reps]
# Writes inst/benchmarks/speed/importance_effects.csv (timings) and
# importance_effects_accuracy.csv.
suppressPackageStartupMessages(library(bnnmc))
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[1]) else 3L
options(bnnmc.threads = 1L)
source(file.path("inst", "benchmarks", "speed", "default_sets.R"))   # bench_friedman()
n <- 1000
d <- bench_friedman(n, p = 10, seed = 2026)
fit_time <- system.time(fit <- suppressMessages(suppressWarnings(
  bnn_fit(y ~ ., data = d, seed = 1, progress = FALSE))))[["elapsed"]]
calls <- list(log_lik = function() log_lik(fit),
              importance = function() bnn_importance(fit),
              effects = function() bnn_effects(fit),
              surface = function() bnn_effects(fit, "x1:x2"),
              summary = function() summary(fit))
# elapsed seconds and the R heap a call needed beyond what was in use
measure <- function(f) {
  g0 <- gc(reset = TRUE)
  used <- sum(g0[, 2L])                       # Mb in use
  t <- system.time(v <- f())[["elapsed"]]
  g1 <- gc()
  list(value = v, seconds = t, heap_mb = sum(g1[, ncol(g1)]) - used)
}
S <- nrow(log_lik(fit))
rows <- list()
res <- list()
for (r in seq_len(reps)) for (nm in names(calls)) {
  m <- measure(calls[[nm]])
  res[[nm]] <- m$value
  rows[[length(rows) + 1L]] <- data.frame(date = format(Sys.Date()), call = nm, rows = n,
                                          draws = S,
                                          rep = r, seconds = m$seconds, heap_mb = m$heap_mb)
}
tab <- do.call(rbind, rows)
med <- stats::aggregate(cbind(seconds, heap_mb) ~ call, tab, stats::median)
unit <- med$seconds[med$call == "log_lik"]
cat(sprintf("default fit: %.1f s\n", fit_time))
for (i in seq_len(nrow(med)))
  cat(sprintf("%-11s median %.2f s (%.1f x log_lik), heap %.0f MB\n", med$call[i], med$seconds[i],
              med$seconds[i] / unit, med$heap_mb[i]))

imp <- res$importance
eff <- bnn_effects(fit, c("x3", "x4"))
covers <- function(r, truth) {
  off <- mean(r$estimate) - mean(truth)
  mean(r$lower - off <= truth & truth <= r$upper - off)
}
acc <- data.frame(
  date = format(Sys.Date()), fit_seconds = fit_time,
  ranking = paste(imp$variable, collapse = " "),
  signal_above_noise = all(imp$variable[1:5] %in% paste0("x", 1:5)),
  min_signal_estimate = min(imp$estimate[imp$variable %in% paste0("x", 1:5)]),
  min_signal_lower = min(imp$lower[imp$variable %in% paste0("x", 1:5)]),
  max_noise_estimate = max(imp$estimate[imp$variable %in% paste0("x", 6:10)]),
  max_noise_lower = max(imp$lower[imp$variable %in% paste0("x", 6:10)]),
  x4_range = diff(range(eff$x4$estimate)) / diff(range(eff$x4$x4)),
  x4_coverage = covers(eff$x4, 10 * eff$x4$x4),
  x3_coverage = covers(eff$x3, 20 * (eff$x3$x3 - 0.5)^2))
print(imp)
print(t(acc))
utils::write.csv(tab, file.path("inst", "benchmarks", "speed", "importance_effects.csv"),
                 row.names = FALSE)
utils::write.csv(acc, file.path("inst", "benchmarks", "speed",
                                "importance_effects_accuracy.csv"), row.names = FALSE)

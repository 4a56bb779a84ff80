# bnn_metrics() against predict(type = "interval") on the same test rows:
# the metrics need 38 quantiles of each row's predictive mixture (the
# coverage table's 19 levels and the calibration levels), the interval two.
# A default fit (seed 1) to 600 rows of Friedman's first function
# (y = 10 sin(pi x1 x2) + 20 (x3 - 0.5)^2 + 10 x4 + 5 x5 + N(0, 1), five
# uniform predictors), then both calls on 20,000 new rows, alternating,
# `reps` times; elapsed seconds, their medians and the ratio metrics /
# interval.
#   Rscript inst/benchmarks/speed/metrics_speed.R [reps]
# Writes inst/benchmarks/speed/metrics_speed.csv.
suppressPackageStartupMessages(library(bnnmc))
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[1]) else 3L
source(file.path("inst", "benchmarks", "speed", "default_sets.R"))   # bench_friedman()
friedman <- function(n, seed) bench_friedman(n, p = 5, seed = seed)
train <- friedman(600, 1)
test <- friedman(20000, 2)
fit <- suppressMessages(bnn_fit(y ~ ., data = train, seed = 1, progress = FALSE))
S <- sum(fit$chain_status == "ok") * dim(fit$draws)[1]
calls <- list(interval = function() predict(fit, newdata = test, type = "interval"),
              metrics = function() bnn_metrics(fit, test))
rows <- list()
for (r in seq_len(reps)) for (nm in if (r %% 2) names(calls) else rev(names(calls))) {
  t <- system.time(calls[[nm]]())[["elapsed"]]
  rows[[length(rows) + 1]] <- data.frame(date = format(Sys.Date()), call = nm,
                                         rows = nrow(test), draws = S, rep = r, seconds = t)
}
res <- do.call(rbind, rows)
med <- tapply(res$seconds, res$call, stats::median)
cat(sprintf("predict(type = \"interval\") %.2f s, bnn_metrics() %.2f s (medians of %d): ratio %.2f\n",
            med[["interval"]], med[["metrics"]], reps, med[["metrics"]] / med[["interval"]]))
utils::write.csv(res, file.path("inst", "benchmarks", "speed", "metrics_speed.csv"), row.names = FALSE)

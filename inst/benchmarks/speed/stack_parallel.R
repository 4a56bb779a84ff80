# The default's stack of two likelihoods under options(mc.cores): wall time
# of the default call on yacht (246 training rows, the split of
# default_vs_bart.R) with one core and with two (options(mc.cores = 2),
# forked workers), for 2 chains (one per model) and 4 (two per model).
# Run once with each version of the package to compare (the label names
# the version): before the two models' chains ran together, each model's
# chains waited for the other's, so 2 chains on 2 cores ran one at a time.
# The draws are the same with one core and with two (checked here).
#   Rscript inst/benchmarks/speed/stack_parallel.R <label> [reps]
# Appends to inst/benchmarks/speed/stack_parallel.csv.
suppressPackageStartupMessages(library(bnnmc))
stopifnot(requireNamespace("future", quietly = TRUE),
          requireNamespace("future.apply", quietly = TRUE))
options(bnnmc.threads = 1L)
args <- commandArgs(trailingOnly = TRUE)
label <- if (length(args) >= 1) args[1] else "current"
reps <- if (length(args) >= 2) as.integer(args[2]) else 3L
here <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))))
source(file.path(here, "default_sets.R"))
sp <- default_bench_split(default_bench_sets()[["yacht"]]())
out_csv <- file.path("inst", "benchmarks", "speed", "stack_parallel.csv")
fit_with <- function(cores, chains) {
  options(mc.cores = cores)
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressMessages(suppressWarnings(bnn_fit(y ~ ., data = sp$train, seed = 1,
                                                   chains = chains, progress = FALSE)))
  list(seconds = proc.time()[["elapsed"]] - t0, fit = fit)
}
for (chains in c(2L, 4L)) {
  one <- two <- numeric(reps)
  for (r in seq_len(reps)) {
    a <- fit_with(1L, chains)
    b <- fit_with(2L, chains)
    stopifnot(identical(a$fit$draws, b$fit$draws),
              identical(a$fit$mixture$fit$draws, b$fit$mixture$fit$draws))
    one[r] <- a$seconds
    two[r] <- b$seconds
  }
  row <- data.frame(version = label, set = "yacht", chains = chains, reps = reps,
                    seconds_1core = stats::median(one), seconds_2cores = stats::median(two),
                    speedup = stats::median(one) / stats::median(two),
                    load1 = as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1]))
  print(row)
  utils::write.table(row, out_csv, sep = ",", row.names = FALSE, append = file.exists(out_csv),
                     col.names = !file.exists(out_csv))
}

# Should the default network's likelihood be the Student-t (robust
# regression) rather than the Gaussian?  The default call against the same
# call with family = student() (location from the network, scale sigma and
# degrees of freedom nu sampled; nu ~ gamma(2, 0.1)), on the one 80/20
# split of default_vs_bart.R (speed/default_sets.R), several seeds: test log
# predictive density per point and 90% coverage on the response scale, test
# RMSE of the posterior mean, the model the default's linear check returned
# (sets of at most 500 training rows), wall time (one core: the chains one
# after another in this process).  The two variants of a seed run back to
# back, so their times are paired.
#   Rscript inst/benchmarks/decisions/default_student.R [seeds] [sets] [variants]
# e.g. Rscript default_student.R 1,2,3 yacht,energy gaussian,student
# Rows are appended to default_student.csv as each fit finishes.
#
# `Rscript default_student.R panel [splits]` runs the same two calls on the
# numeric responses (at least 10 distinct values) of default_panel.R's sets
# of at most 500 training rows, on its splits and seeds, where the
# default's linear check runs (with family = student() the check's linear
# model is a Student-t one too): test log predictive density and 90%
# coverage, the model returned (network, linear, or the stack of the two),
# and lm's test log density on the same split (default_panel.R's fit_lm()).
# Rows go to default_student_panel.csv.
suppressPackageStartupMessages(library(bnnmc))
options(bnnmc.threads = 1L, mc.cores = 1L)
args <- commandArgs(trailingOnly = TRUE)
here <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))))
source(file.path(here, "..", "speed", "default_sets.R"))
split_arg <- function(i, default) bench_list_arg(args, i, default)
all_sets <- default_bench_sets()
variants <- list(gaussian = list(), student = list(family = student()))

if (identical(args[1], "panel")) {
  dd <- file.path("inst", "benchmarks", "decisions")
  source(file.path(dd, "panel_defs.R"))
  panel_env <- panel_definitions(dd)
  splits <- if (length(args) >= 2) as.integer(strsplit(args[2], ",")[[1]]) else 1L
  pn <- names(panel_env$sets)
  n_tr <- vapply(pn, function(s) round(0.8 * nrow(panel_env$sets[[s]]$d())), 0)
  out <- file.path(dd, "default_student_panel.csv")
  for (split in splits) for (nm in pn[n_tr <= 500]) {
    sp <- panel_env$panel_split(nm, split)
    if (!is.numeric(sp$train$y) || length(unique(sp$train$y)) < 10) next
    lm_s <- panel_env$fit_lm(sp$train, sp$test)
    for (v in names(variants)) {
      t0 <- proc.time()[["elapsed"]]
      fit <- suppressMessages(suppressWarnings(do.call(bnn_fit, c(list(y ~ ., data = sp$train,
                               seed = sp$seed, progress = FALSE), variants[[v]]))))
      secs <- proc.time()[["elapsed"]] - t0
      m <- bnn_metrics(fit, newdata = sp$test)
      row <- data.frame(set = nm, split = split, n_train = nrow(sp$train), variant = v,
                        model = if (!length(fit$hidden)) "linear" else
                          if (is.null(fit$mixture)) "network" else "stack",
                        lppd = m$lppd, cov90 = m$coverage_90, lppd_lm = lm_s[["lpd"]],
                        seconds = secs)
      print(row)
      utils::write.table(row, out, sep = ",", row.names = FALSE, append = file.exists(out),
                         col.names = !file.exists(out))
    }
  }
  quit(save = "no")
}
seeds <- as.integer(split_arg(1, "1"))
sets <- split_arg(2, names(all_sets))
vars <- split_arg(3, names(variants))
out_csv <- Sys.getenv("BNNMC_STUDENT_CSV",
                      file.path("inst", "benchmarks", "decisions", "default_student.csv"))
for (seed in seeds) for (nm in sets) {
  sp <- default_bench_split(all_sets[[nm]]())
  for (v in vars) {
    t0 <- proc.time()[["elapsed"]]
    fit <- suppressMessages(suppressWarnings(do.call(bnn_fit, c(list(y ~ ., data = sp$train,
                             seed = seed, progress = FALSE), variants[[v]]))))
    secs <- proc.time()[["elapsed"]] - t0
    m <- bnn_metrics(fit, newdata = sp$test)
    row <- data.frame(set = nm, n_train = nrow(sp$train), seed = seed, variant = v,
                      model = if (length(fit$hidden)) "network" else "linear",
                      lppd = m$lppd, cov90 = m$coverage_90, rmse = m$rmse, seconds = secs,
                      load1 = as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1]))
    print(row)
    utils::write.table(row, out_csv, sep = ",", row.names = FALSE, append = file.exists(out_csv),
                       col.names = !file.exists(out_csv))
  }
}

# The default fit against BART on several random 80/20 splits of the four
# UCI sets users try first (yacht, energy, concrete, airfoil), as the UCI
# regression benchmarks are reported (a mean over splits, with its standard
# error), next to the one split of speed/default_vs_bart.R.  Split k is
# default_bench_split(d, seed = 99 + k) (speed/default_sets.R), so split 1
# is default_vs_bart.R's.
# Per fit: test log predictive density per point and the coverage of the
# central 50%, 80% and 90% predictive intervals, on the response scale,
# RMSE of the predictive mean, wall seconds (one core: chains one after
# another), and the stack's weight of the heteroscedastic network.
#   default: bnn_fit(y ~ ., data = train, seed = 1);
#   BART:    dbarts::bart() as speed/default_sets.R runs it; its intervals
#            are the exact quantiles of the Gaussian mixture over its draws
#            of the mean and sigma (bnn_metrics_gaussian(), the same
#            computation as the default's).
# dbarts is needed (benchmark only).  Rows are appended to
# uci_splits_vs_bart.csv as each set and split finishes (a run can be
# resumed: the splits already there are skipped).
#   Rscript inst/benchmarks/decisions/uci_splits_vs_bart.R [splits] [sets]
# e.g. Rscript uci_splits_vs_bart.R 1,2,3,4,5 yacht,energy
suppressPackageStartupMessages(library(bnnmc))
if (!requireNamespace("dbarts", quietly = TRUE)) stop("dbarts is needed for this benchmark.")
options(bnnmc.threads = 1L, mc.cores = 1L)
args <- commandArgs(trailingOnly = TRUE)
here <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))))
source(file.path(here, "..", "speed", "default_sets.R"))
splits <- as.integer(bench_list_arg(args, 1, as.character(1:5)))
sets <- bench_list_arg(args, 2, c("yacht", "energy", "concrete", "airfoil"))
all_sets <- default_bench_sets()
out <- file.path("inst", "benchmarks", "decisions", "uci_splits_vs_bart.csv")
levels <- c(0.5, 0.8, 0.9)

scores <- function(m) {
  cv <- m$coverage
  cov <- vapply(levels, function(l) cv$coverage[abs(cv$nominal - l) < 1e-9][1], 0)
  c(lppd = m$lppd, cov50 = cov[1], cov80 = cov[2], cov90 = cov[3], rmse = m$rmse)
}

done <- if (file.exists(out)) utils::read.csv(out) else NULL
for (nm in sets) for (k in splits) {
  if (!is.null(done) && any(done$set == nm & done$split == k)) next
  sp <- default_bench_split(all_sets[[nm]](), seed = 99 + k)
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressMessages(suppressWarnings(bnn_fit(y ~ ., data = sp$train, seed = 1,
                                                   progress = FALSE)))
  secs <- proc.time()[["elapsed"]] - t0
  d <- scores(bnn_metrics(fit, sp$test, levels = levels))
  w_het <- if (identical(fit$mixture$kind, "likelihood"))
    fit$mixture$weights[["heteroscedastic"]] else NA_real_
  b <- bart_test_draws(sp$train, sp$test)
  a <- scores(bnn_metrics_gaussian(b$mu, matrix(b$sigma, nrow(b$mu), ncol(b$mu)),
                                   sp$test$y, levels = levels))
  row <- rbind(
    data.frame(set = nm, n_train = nrow(sp$train), split = k, model = "default",
               t(d), seconds = secs, w_het = w_het),
    data.frame(set = nm, n_train = nrow(sp$train), split = k, model = "BART",
               t(a), seconds = b$seconds, w_het = NA_real_))
  row$load1 <- as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
  print(row, digits = 3)
  utils::write.table(row, out, sep = ",", append = file.exists(out),
                     col.names = !file.exists(out), row.names = FALSE, qmethod = "double")
}

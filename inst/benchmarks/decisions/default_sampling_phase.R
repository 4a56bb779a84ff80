# How long a sampling phase, and how many kept draws, does the default need?
# The default network (bnn_fit(y ~ ., data = train, seed = seed) without the
# linear check: MILE's tuning, 16,000/2,000/2,000 steps, then 5,000 sampling
# steps thinned by 5, single precision) is fitted once per set and seed; the
# shorter sampling phases and coarser thinnings below are subsets of its
# kept draws (a chain's first steps do not depend on how many follow, and
# thinning draws no random numbers), so each variant is exactly the fit that
# variant would give.  For each: test log predictive density (response
# scale), 90% coverage, and the verdict on the predictions
# (bnn_convergence(): reliable, Monte Carlo error, drift).  The share of a
# chain's gradients a variant saves is (5,000 - steps) / 25,000.
#   variants: s<steps>_t<thin>, e.g. s3000_t10 = the first 3,000 sampling
#   steps, every 10th kept (300 draws per chain); steps 5,000 to 2,000,
#   thin 5 or 10
# Split: set.seed(100), 20% test (as default_vs_bart.R).  Rows are appended
# to default_sampling_phase.csv.gz (gzip, appended to) as each fit finishes.
#   Rscript inst/benchmarks/decisions/default_sampling_phase.R [seeds] [sets] [csv]
# (csv: another file to append to, e.g. for a second process; default
# default_sampling_phase.csv.gz)
suppressPackageStartupMessages(library(bnnmc))
options(bnnmc.linear_check = FALSE)
args <- commandArgs(trailingOnly = TRUE)
here <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))))
source(file.path(here, "..", "speed", "default_sets.R"))
split_arg <- function(i, default) bench_list_arg(args, i, default)
all_sets <- default_bench_sets()
seeds <- as.integer(split_arg(1, "1"))
sets <- split_arg(2, names(all_sets))
out_csv <- if (length(args) >= 3) args[3] else
  file.path("inst", "benchmarks", "decisions", "default_sampling_phase.csv.gz")
# (sampling steps, thin) of each variant; the fit keeps every 5th of 5,000
variants <- list(s5000_t5 = c(5000, 5), s5000_t10 = c(5000, 10), s4000_t5 = c(4000, 5),
                 s4000_t10 = c(4000, 10), s3000_t5 = c(3000, 5), s3000_t10 = c(3000, 10),
                 s2500_t5 = c(2500, 5), s2000_t5 = c(2000, 5))
for (nm in sets) {
  sp <- default_bench_split(all_sets[[nm]]())
  train <- sp$train
  test <- sp$test
  for (seed in seeds) {
    t0 <- proc.time()[["elapsed"]]
    fit <- suppressMessages(suppressWarnings(
      bnn_fit(y ~ ., data = train, seed = seed, progress = FALSE)))
    secs <- proc.time()[["elapsed"]] - t0
    stopifnot(fit$thin == 5L, dim(fit$draws)[1L] == 1000L)
    rows <- lapply(names(variants), function(v) {
      steps <- variants[[v]][1]
      thin <- variants[[v]][2]
      it <- seq(thin / 5, steps / 5, by = thin / 5)
      sub <- bnnmc:::bnnfit_subset_chains(fit, iterations = it)
      m <- bnn_metrics(sub, newdata = test)
      cv <- bnn_convergence(sub)
      data.frame(set = nm, n_train = nrow(train), seed = seed, variant = v,
                 sampling_steps = steps, thin = thin, draws_per_chain = length(it),
                 grad_share_saved = (5000 - steps) / 25000,
                 lppd = m$lppd, cov90 = m$coverage_90,
                 reliable = isTRUE(cv$predictions$reliable),
                 mc_error = cv$predictions$mc_error, drift = cv$predictions$drift,
                 seconds_full_fit = secs)
    })
    res <- do.call(rbind, rows)
    print(res[, c("set", "seed", "variant", "lppd", "cov90", "reliable", "mc_error", "drift")])
    append_csv_gz(res, out_csv)
  }
}

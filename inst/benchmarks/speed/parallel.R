# Cost of dispatching chains to parallel workers through future: a 4-chain
# fit of the papers' network (16-16, tanh, heteroscedastic head) on airfoil,
# about a minute sequentially, timed under plan(sequential) and under
# plan(multisession, workers = 2).  The ideal with 2 workers is half the
# sequential time; the overhead is how much the parallel run exceeds it.
# Also reported: the best 2-worker split of the chains' own run times (the
# ideal given that chains differ in length) and the overhead over it; and the
# dispatch cost proper: the parallel wall time minus the time the workers
# spent in the chains (each chain's own timing, measured in its worker,
# scheduled as future.apply does: the next chain to the first free worker).
# The last one is insensitive to other processes slowing the chains down on
# a shared machine, which the wall-clock figures are not (the load average
# before each run is recorded).
#
# Run from the repository's top folder after installing the package:
#   Rscript inst/benchmarks/speed/parallel.R [data_dir] [reps]
# Uses BNNMC_DATA_DIR or ../shared/data/uci for airfoil.data, or a
# simulated data set of the same size when it is missing.
# Writes inst/benchmarks/speed/parallel.csv (one row per repetition).
library(bnnmc)
args <- commandArgs(trailingOnly = TRUE)
data_dir <- if (length(args) >= 1) args[1] else
  Sys.getenv("BNNMC_DATA_DIR", file.path("..", "shared", "data", "uci"))
reps <- if (length(args) >= 2) as.integer(args[2]) else 2L
stopifnot(requireNamespace("future", quietly = TRUE),
          requireNamespace("future.apply", quietly = TRUE))

path <- file.path(data_dir, "airfoil.data")
if (file.exists(path)) {
  d <- utils::read.table(path)
  dataset <- "airfoil"
} else {
  message(path, " not found: using simulated data of the same size")
  set.seed(1)
  X <- matrix(stats::runif(1503 * 5, -2, 2), 1503, 5)
  d <- data.frame(X, V6 = sin(X[, 1]) + X[, 2] * X[, 3] + stats::rnorm(1503, 0, 0.3))
  dataset <- "simulated"
}
names(d) <- c(paste0("x", 1:5), "y")

# Tree depth capped at 6 (63 leapfrog steps per iteration at most) so that
# chains cost about the same and the run takes about a minute on one core.
settings <- list(hidden = c(16L, 16L), activation = "tanh", likelihood = "hetero_gaussian",
                 sampler = bnn_nuts(max_treedepth = 6), chains = 4L,
                 warmup = 500L, iter = 500L, seed = 1L)
fit_once <- function() {
  suppressWarnings(do.call(bnn_fit, c(list(y ~ ., data = d, progress = FALSE), settings)))
}

# Best split of the chains' times over 2 workers (brute force over subsets).
best_split <- function(t) {
  n <- length(t)
  best <- Inf
  for (m in 0:(2^n - 1)) {
    on1 <- bitwAnd(m, 2^(seq_len(n) - 1)) > 0
    best <- min(best, max(sum(t[on1]), sum(t[!on1])))
  }
  best
}

# Makespan of chains started in order on the first free of 2 workers.
in_order_makespan <- function(t, workers = 2L) {
  free <- numeric(workers)
  for (x in t) {
    k <- which.min(free)
    free[k] <- free[k] + x
  }
  max(free)
}

load_avg <- function() {
  if (file.exists("/proc/loadavg")) as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
  else NA_real_
}

rows <- list()
for (r in seq_len(reps)) {
  future::plan(future::sequential)
  load_before <- load_avg()
  t_seq <- system.time(f_seq <- fit_once())[["elapsed"]]
  chain_times <- f_seq$timing$warmup + f_seq$timing$sampling

  t_start <- system.time(future::plan(future::multisession, workers = 2))[["elapsed"]]
  # load bnnmc in both workers before timing (a one-off cost per session)
  t_load <- system.time(future.apply::future_lapply(1:2, function(i) {
    loadNamespace("bnnmc")
    Sys.getpid()
  }))[["elapsed"]]
  load_par <- load_avg()
  t_par <- system.time(f_par <- fit_once())[["elapsed"]]
  future::plan(future::sequential)
  busy <- in_order_makespan(f_par$timing$warmup + f_par$timing$sampling)

  ideal <- t_seq / 2
  split <- best_split(chain_times)
  rows[[r]] <- data.frame(
    dataset = dataset, n = nrow(d), network = "16-16 tanh hetero", chains = settings$chains,
    warmup = settings$warmup, iter = settings$iter, max_treedepth = 6L, rep = r,
    sequential_s = t_seq, parallel2_s = t_par, speedup = t_seq / t_par,
    ideal_s = ideal, overhead_pct = 100 * (t_par - ideal) / ideal,
    best_split_s = split, overhead_vs_split_pct = 100 * (t_par - split) / split,
    workers_busy_s = busy, dispatch_s = t_par - busy,
    dispatch_pct = 100 * (t_par - busy) / busy,
    worker_start_s = t_start, worker_load_s = t_load,
    identical_draws = identical(f_seq$draws, f_par$draws),
    load_avg_before_seq = load_before, load_avg_before_par = load_par, cores = parallel::detectCores(),
    r_version = paste(R.version$major, R.version$minor, sep = "."),
    date = format(Sys.time(), "%Y-%m-%d %H:%M"))
  cat(sprintf(paste0("rep %d: sequential %.1f s, 2 workers %.1f s, speed-up %.2f, ",
                     "overhead over ideal (sequential/2 = %.1f s) %+.1f%%, ",
                     "over the best split of chain times (%.1f s) %+.1f%%; ",
                     "dispatch %.2f s (%.1f%% of the workers' %.1f s in chains); ",
                     "identical draws: %s; load average %.2f / %.2f\n"),
              r, t_seq, t_par, t_seq / t_par, ideal, rows[[r]]$overhead_pct, split,
              rows[[r]]$overhead_vs_split_pct, t_par - busy, rows[[r]]$dispatch_pct, busy,
              rows[[r]]$identical_draws, load_before, load_par))
}
res <- do.call(rbind, rows)
cat(sprintf(paste0("median over %d repetitions: sequential %.1f s, 2 workers %.1f s, ",
                   "speed-up %.2f, overhead %+.1f%% over sequential/2, dispatch %.1f%%\n"),
            reps, stats::median(res$sequential_s), stats::median(res$parallel2_s),
            stats::median(res$speedup), stats::median(res$overhead_pct),
            stats::median(res$dispatch_pct)))
out_dir <- file.path("inst", "benchmarks", "speed")
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
utils::write.csv(res, file.path(out_dir, "parallel.csv"), row.names = FALSE)

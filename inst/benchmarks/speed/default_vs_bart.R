# The default fit against BART (dbarts), the flexible Bayesian regression a
# statistician weighs a BNN against: wall time on one core each and test
# log predictive density and 90% coverage on the same 80/20 split.
#   default: bnn_fit(y ~ ., data = train, seed = 1): MILE on the default
#            budget (20,000 tuning and 5,000 sampling steps, every 10th
#            kept) in single precision, with its check against a linear
#            model (at most 200 rows: mcycle) or, on 201 to 2,000 rows of a
#            continuous response (Boston, faithful, yacht, energy,
#            concrete, airfoil), the heteroscedastic and the homoscedastic
#            network on two chains each, stacked (quakes' response has
#            ties: the network alone); where the verdict's model-fit check
#            finds structure left (mcycle), also the network with a prior
#            three times wider, one of the two kept (?bnn_default);
#   before:  the network of the default of earlier versions: MILE's budget
#            (50,000 tuning and 10,000 sampling steps, thinned by 10) in
#            double precision, sampler = "mile", precision = "double".  The
#            earlier default also ran the linear check, which chose the
#            network on every set here, so its test scores are these; its
#            time was the check's longer (about a second, on the sets of at
#            most 500 rows).
#   BART:    dbarts::bart(), 4 chains x (500 burn-in + 2,000 kept draws),
#            nthread = 1; its predictive density from the draws of the mean
#            and sigma.
# One core each: the chains run one after another (sequential future plan,
# no mc.cores) and the C diagnostics on one thread (bnnmc.threads = 1).
# Sets: MASS::mcycle, datasets::quakes (mag from the rest), MASS::Boston,
# datasets::faithful, and the UCI sets yacht, energy, concrete and airfoil
# (BNNMC_DATA_DIR).  Each set's fits run `reps` times in turn (default,
# before, BART, default, ...); the CSV has the median wall times and their
# ratios, and the scores of the first repetition (the fits are
# deterministic given the seed).  dbarts is needed (benchmark only; not a
# dependency of the package).  Writes default_vs_bart.csv, replacing the
# rows of the sets run and keeping the others; a run of all eight sets is
# also appended to default_vs_bart_runs.csv (run, set, times, ratio, LPPD).
# With --keep-before the earlier default is not fitted again: its columns
# (time, ratio, test scores) are the set's row of the existing CSV, and
# before_rerun says so (FALSE).  Its scores are deterministic given the
# seed; its time and ratio are those of the run that measured them.
#   Rscript inst/benchmarks/speed/default_vs_bart.R [--keep-before] [reps] [sets...]
suppressPackageStartupMessages(library(bnnmc))
if (!requireNamespace("dbarts", quietly = TRUE)) stop("dbarts is needed for this benchmark.")
options(bnnmc.threads = 1L, mc.cores = 1L)
args <- commandArgs(trailingOnly = TRUE)
keep_before <- "--keep-before" %in% args
args <- setdiff(args, "--keep-before")
reps <- if (length(args) >= 1) as.integer(args[1]) else 1L
here <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))))
source(file.path(here, "default_sets.R"))
all_sets <- default_bench_sets()
sets <- if (length(args) >= 2) args[-1] else names(all_sets)
out_csv <- file.path("inst", "benchmarks", "speed", "default_vs_bart.csv")

bart_fit <- function(train, test) {
  b <- bart_test_draws(train, test)
  set.seed(1)
  q <- apply(bart_predictive(b), 2, stats::quantile, c(0.05, 0.95))
  c(seconds = b$seconds, lppd = b$lppd, cov90 = mean(test$y >= q[1, ] & test$y <= q[2, ]))
}

bnn_run <- function(train, test, ...) {
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressMessages(suppressWarnings(bnn_fit(y ~ ., data = train, seed = 1,
                                                   progress = FALSE, ...)))
  secs <- proc.time()[["elapsed"]] - t0
  m <- bnn_metrics(fit, newdata = test)
  c(seconds = secs, lppd = m$lppd, cov90 = m$coverage_90,
    linear = as.numeric(!length(fit$hidden)))
}

rows <- list()
for (nm in sets) {
  sp <- default_bench_split(all_sets[[nm]]())
  train <- sp$train
  test <- sp$test
  prev <- if (file.exists(out_csv)) utils::read.csv(out_csv) else NULL
  prev <- prev[prev$set == nm, , drop = FALSE]
  if (keep_before && nrow(prev) != 1L) stop("--keep-before: no earlier row for ", nm)
  b <- o <- a <- list()
  for (r in seq_len(reps)) {
    b[[r]] <- bnn_run(train, test)
    if (!keep_before) o[[r]] <- bnn_run(train, test, sampler = "mile", precision = "double")
    a[[r]] <- bart_fit(train, test)
  }
  med <- function(l, k) stats::median(vapply(l, `[[`, numeric(1), k))
  if (keep_before)
    o <- list(c(seconds = prev$seconds_before, lppd = prev$lppd_before, cov90 = prev$cov90_before))
  rows[[nm]] <- data.frame(
    set = nm, n_train = nrow(train), reps = reps,
    seconds_default = med(b, "seconds"), seconds_before = med(o, "seconds"),
    seconds_bart = med(a, "seconds"),
    ratio = med(b, "seconds") / med(a, "seconds"),
    ratio_before = if (keep_before) prev$ratio_before else med(o, "seconds") / med(a, "seconds"),
    lppd_default = b[[1]][["lppd"]], lppd_before = o[[1]][["lppd"]],
    lppd_bart = a[[1]][["lppd"]],
    cov90_default = b[[1]][["cov90"]], cov90_before = o[[1]][["cov90"]],
    cov90_bart = a[[1]][["cov90"]], linear_default = b[[1]][["linear"]] == 1,
    before_rerun = !keep_before,
    load1 = as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1]))
  print(rows[[nm]])
  # the rows of sets not run this time stay (their load1 says when they ran)
  old <- if (file.exists(out_csv)) utils::read.csv(out_csv) else NULL
  old <- old[!old$set %in% names(rows), , drop = FALSE]
  new <- do.call(rbind, rows)
  for (v in setdiff(names(new), names(old))) old[[v]] <- rep(NA, nrow(old))
  all <- rbind(old[names(new)], new)
  all <- all[order(match(all$set, names(all_sets))), ]
  utils::write.csv(all, out_csv, row.names = FALSE)
}
# every run of all eight sets is also kept in default_vs_bart_runs.csv (a
# run number each), so that the spread of the ratios between runs on this
# shared machine is on record, not only the last run's
if (setequal(sets, names(all_sets))) {
  runs_csv <- file.path("inst", "benchmarks", "speed", "default_vs_bart_runs.csv")
  keep <- c("set", "n_train", "reps", "seconds_default", "seconds_bart", "ratio",
            "lppd_default", "lppd_bart", "load1")
  prev_runs <- if (file.exists(runs_csv)) utils::read.csv(runs_csv) else NULL
  run <- if (is.null(prev_runs)) 1L else max(prev_runs$run) + 1L
  this <- cbind(run = run, do.call(rbind, rows)[keep])
  utils::write.csv(rbind(prev_runs, this), runs_csv, row.names = FALSE)
}
cat("wrote", out_csv, "\n")

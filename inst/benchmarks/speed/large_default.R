# The default on large data: its warm-up on a subsample of the rows against
# the same default on all rows, with BART beside it, on Friedman's first
# function (10 uniform inputs of which 5 enter, noise sd 1; bench_friedman()
# of default_sets.R), training rows as given, 2,000 test rows (seed 1001).
#   default:     bnn_fit(y ~ ., data = train, seed = 1): on more than 2,000
#                rows the deep ensemble and all but the last 500 tuning
#                steps on a subsample of an eighth of the rows (2,000 to
#                8,000), then those 500 steps (stage 2's last, adapting the
#                step size) and 2,000 sampling steps on all rows
#                (R/run-warm-subsample.R);
#   stage3_full: the variant weighed against it, with tuning stage 3 (L,
#                2,000 steps) on all rows too;
#   all_rows:    the same call with options(bnnmc.warm_subsample = FALSE):
#                the default of earlier versions (tuning and 5,000 sampling
#                steps on all rows);
#   stochtree:   stochtree::bart() with its defaults (on CRAN; BART with
#                grow-from-root warm starts) and random_seed = 1 (rows of
#                runs before the seed was set differ run to run), predictive
#                density from its test draws and sigma^2 draws;
#   dbarts:      dbarts::bart(), 4 chains x (500 + 2,000), as
#                default_vs_bart.R (bart_test_draws()).
# Per fit: wall seconds, test log predictive density per point, 90%
# coverage, RMSE, and for bnnmc the verdict (Monte Carlo error of the
# predictions, reliable or not, the fit level stationary or not) and the
# announced cost estimate.  One core (chains one after another, the C
# diagnostics on one thread) unless `cores=2` is given, which sets
# options(mc.cores = 2) for the bnnmc fits (the 1e6-row run).  The
# methods run in turn, one fit at a time.
#   Rscript inst/benchmarks/speed/large_default.R rows=16000 \
#     methods=default,all_rows,stochtree [cores=2] [label=...]
# or, with `sets=protein,bikesharing`, the UCI sets (BNNMC_DATA_DIR) on
# their one 80/20 split instead of Friedman's function.
# Appends to inst/benchmarks/speed/large_default.csv (a row per fit, with
# the date, the 1-minute load average before the fit and the label).
suppressPackageStartupMessages(library(bnnmc))
source(file.path("inst", "benchmarks", "speed", "default_sets.R"))
kv <- commandArgs(trailingOnly = TRUE)
arg <- function(key, default) {
  hit <- grep(paste0("^", key, "="), kv, value = TRUE)
  if (length(hit)) sub(paste0("^", key, "="), "", hit[1L]) else default
}
rows <- as.integer(strsplit(arg("rows", "16000"), ",")[[1]])
# UCI sets instead of Friedman's function (sets=protein,bikesharing): their
# one 80/20 split (default_bench_split()), the response renamed y
uci_sets <- strsplit(arg("sets", ""), ",")[[1]]
methods <- strsplit(arg("methods", "default,all_rows,stochtree"), ",")[[1]]
cores <- as.integer(arg("cores", "1"))
label <- arg("label", "")
out_csv <- file.path("inst", "benchmarks", "speed", "large_default.csv")
options(bnnmc.threads = 1L, mc.cores = cores)
load1 <- function() tryCatch(as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1]),
                             error = function(e) NA_real_)
lme <- function(a) { m <- max(a); m + log(mean(exp(a - m))) }
# test scores from predictive draws of the mean `mu` [draw, point] and
# sigma per draw
draw_scores <- function(mu, sigma, y) {
  ll <- stats::dnorm(matrix(y, nrow(mu), ncol(mu), byrow = TRUE), mu, sigma, log = TRUE)
  set.seed(1)
  pp <- mu + sigma * matrix(stats::rnorm(length(mu)), nrow(mu))
  q <- apply(pp, 2, stats::quantile, c(0.05, 0.95))
  c(lppd = mean(apply(ll, 2, lme)), cov90 = mean(y >= q[1, ] & y <= q[2, ]),
    rmse = sqrt(mean((colMeans(mu) - y)^2)))
}
run_bnn <- function(train, test, all_rows, stage3_sub = TRUE) {
  old <- options(bnnmc.warm_subsample = !all_rows)
  old3 <- set_bnnmc_constant(".warm_stage3_sub", stage3_sub)
  on.exit({
    options(old)
    set_bnnmc_constant(".warm_stage3_sub", old3)
  })
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressMessages(suppressWarnings(bnn_fit(y ~ ., data = train, seed = 1,
                                                   progress = FALSE)))
  secs <- proc.time()[["elapsed"]] - t0
  m <- bnn_metrics(fit, test)
  cv <- fit$convergence
  c(seconds = secs, lppd = m$lppd, cov90 = m$coverage_90, rmse = m$rmse,
    mc_error = cv$predictions$mc_error, reliable = isTRUE(cv$predictions$reliable),
    stationary = isTRUE(cv$fit_level$stationary), estimate = fit$cost_estimate %||% NA_real_)
}
run_stochtree <- function(train, test) {
  x <- as.matrix(train[, setdiff(names(train), "y")])
  xt <- as.matrix(test[, setdiff(names(test), "y")])
  t0 <- proc.time()[["elapsed"]]
  b <- stochtree::bart(X_train = x, y_train = train$y, X_test = xt,
                       general_params = list(random_seed = 1L))
  secs <- proc.time()[["elapsed"]] - t0
  s <- draw_scores(t(b$y_hat_test), sqrt(b$sigma2_global_samples), test$y)
  c(seconds = secs, s)
}
run_dbarts <- function(train, test) {
  b <- bart_test_draws(train, test)
  s <- draw_scores(b$mu, b$sigma, test$y)
  c(seconds = b$seconds, s)
}
`%||%` <- function(a, b) if (is.null(a)) b else a
data_sets <- if (length(uci_sets)) {
  dir <- Sys.getenv("BNNMC_DATA_DIR", file.path("..", "shared", "data", "uci"))
  lapply(stats::setNames(uci_sets, uci_sets), function(set) {
    d <- bnn_read_uci(set, dir = dir)
    names(d)[ncol(d)] <- "y"
    default_bench_split(d)
  })
} else {
  test <- bench_friedman(2000, seed = 1001)
  lapply(stats::setNames(rows, paste0("friedman", rows)), function(n)
    list(train = bench_friedman(n, seed = 1), test = test))
}
for (set in names(data_sets)) {
  train <- data_sets[[set]]$train
  test <- data_sets[[set]]$test
  n <- nrow(train)
  for (meth in methods) {
    l1 <- load1()
    r <- switch(meth,
                default = run_bnn(train, test, FALSE),
                stage3_full = run_bnn(train, test, FALSE, FALSE),
                all_rows = run_bnn(train, test, TRUE),
                stochtree = run_stochtree(train, test),
                dbarts = run_dbarts(train, test),
                stop("unknown method ", meth))
    row <- data.frame(date = format(Sys.Date()), label = label, set = set, rows = n,
                      method = meth,
                      cores = if (meth %in% c("default", "stage3_full", "all_rows")) cores else 1L,
                      seconds = r[["seconds"]], lppd = r[["lppd"]], cov90 = r[["cov90"]],
                      rmse = r[["rmse"]],
                      mc_error = if ("mc_error" %in% names(r)) r[["mc_error"]] else NA_real_,
                      reliable = if ("reliable" %in% names(r)) as.logical(r[["reliable"]]) else NA,
                      stationary = if ("stationary" %in% names(r)) as.logical(r[["stationary"]])
                                   else NA,
                      estimate = if ("estimate" %in% names(r)) r[["estimate"]] else NA_real_,
                      load1 = l1)
    print(row, row.names = FALSE)
    utils::write.table(row, out_csv, append = file.exists(out_csv), sep = ",",
                       col.names = !file.exists(out_csv), row.names = FALSE)
  }
}

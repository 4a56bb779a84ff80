# Predictions and checks of a fit on many rows: time and peak memory of
# predict(), predict(type = "interval"), bnn_metrics(), log_lik(), loo()
# and waic() on 1e4, 1e5 and (with `full`) 1e6 rows, each call in a fresh
# R process, one at a time, on one thread.
#
# The fit: the default network (hidden = c(16, 16), 4 chains x 500 kept
# draws = 2,000 draws) on 2,000 rows of Friedman's first function (10
# uniform predictors, bench_friedman() of default_sets.R), a short run
# (sampler = "mile" with a short warm-up) since only its size matters
# here.  predict(), bnn_metrics() and log_lik() get `rows` new rows; loo()
# and waic() the same fit with its training data replaced by `rows` rows
# (a fit of 1e6 rows would take hours; what loo() costs depends on the
# rows and draws, not on how the draws were found).
#
# Peak memory: the maximum resident set size of the process
# (/usr/bin/time -v) minus that of the same process which only loads the
# fit and the data (call "none"; for loo() and waic() "none_train", which
# also makes the fit with `rows` training rows), in MB.
#
#   Rscript inst/benchmarks/speed/large_predictions.R [label] [full] [calls]
# `label` (default "after") names the build measured; the rows of other
# labels already in the CSV are kept, so a run with the previous build
# (label "before") and one with this build sit side by side.  `full` adds
# 1e6 rows; `calls` (comma-separated, all by default) limits the calls.  A
# call is stopped after BNNMC_BENCH_LIMIT seconds (300): its row then says
# so, with the peak memory until then.
# Writes inst/benchmarks/speed/large_predictions.csv.
args <- commandArgs(trailingOnly = TRUE)
script <- file.path("inst", "benchmarks", "speed", "large_predictions.R")
cache <- Sys.getenv("BNNMC_BENCH_CACHE", file.path(dirname(tempdir()), "bnnmc-large-predictions"))
dir.create(cache, showWarnings = FALSE)
fit_file <- file.path(cache, "fit.rds")

data_of <- function(rows) {
  source(file.path("inst", "benchmarks", "speed", "default_sets.R"))   # bench_friedman()
  bench_friedman(rows, p = 10, seed = 2)
}

if (length(args) && args[1] == "measure") {
  # one measurement: Rscript large_predictions.R measure <call> <rows>
  suppressPackageStartupMessages(library(bnnmc))
  options(bnnmc.threads = 1L)
  call <- args[2]
  rows <- as.numeric(args[3])
  fit <- readRDS(fit_file)
  nd <- data_of(rows)
  if (call %in% c("loo", "waic", "none_train")) {
    # the fit with `rows` training rows (the design and response as
    # bnn_fit() keeps them)
    fit <- bnnmc:::bnnfit_with(fit, X = bnnmc:::new_design(fit, nd),
                               y = bnnmc:::response_values(fit, nd), data = nd)
    rm(nd)
  }
  f <- switch(call,
    none = , none_train = function() NULL,
    predict = function() predict(fit, nd),
    interval = function() predict(fit, nd, type = "interval"),
    metrics = function() bnn_metrics(fit, nd),
    log_lik = function() log_lik(fit, nd),
    loo = function() suppressWarnings(suppressMessages(loo::loo(fit, moment_match = FALSE))),
    waic = function() suppressWarnings(loo::waic(fit)))
  status <- "ok"
  t <- system.time(res <- tryCatch(f(), error = function(e) {
    status <<- paste("error:", gsub("[\n,]", " ", conditionMessage(e)))
    NULL
  }))[["elapsed"]]
  cat(sprintf("RESULT,%s,%.3f,%s\n", call, t, substr(status, 1, 200)))
  quit(save = "no")
}

label <- if (length(args)) args[1] else "after"
full <- length(args) > 1L && args[2] == "full"
if (!file.exists(fit_file)) {
  suppressPackageStartupMessages(library(bnnmc))
  train <- {
    source(file.path("inst", "benchmarks", "speed", "default_sets.R"))
    bench_friedman(2000, p = 10, seed = 1)
  }
  fit <- suppressMessages(bnn_fit(y ~ ., data = train, hidden = c(16, 16), chains = 4,
                                  warmup = 100, iter = 500, seed = 1, progress = FALSE))
  saveRDS(fit, fit_file)
}

limit <- as.numeric(Sys.getenv("BNNMC_BENCH_LIMIT", "300"))
measure <- function(call, rows) {
  out <- suppressWarnings(system2("/usr/bin/time",
                                  c("-v", "timeout", limit, "Rscript", script, "measure", call,
                                    format(rows, scientific = FALSE)),
                                  stdout = TRUE, stderr = TRUE))
  res <- grep("^RESULT,", out, value = TRUE)
  res <- if (length(res)) strsplit(res, ",")[[1]] else
    c("", call, NA, sprintf("stopped after %g s", limit))
  rss <- as.numeric(sub(".*: ", "", grep("Maximum resident set size", out, value = TRUE)))
  data.frame(label = label, call = call, rows = rows, seconds = as.numeric(res[3]),
             rss_mb = rss / 1024, status = res[4])
}

calls <- c("predict", "interval", "metrics", "log_lik", "loo", "waic")
if (length(args) > 2L) calls <- intersect(calls, strsplit(args[3], ",")[[1]])
sizes <- c(1e4, 1e5, if (full) 1e6)
if (full && length(args) > 2L) sizes <- 1e6
rows <- list()
for (n in sizes) {
  base <- measure("none", n)
  if (any(c("loo", "waic") %in% calls)) base_train <- measure("none_train", n)
  for (cl in calls) {
    m <- measure(cl, n)
    b <- if (cl %in% c("loo", "waic")) base_train else base
    m$rss_mb <- round(m$rss_mb - b$rss_mb, 1)
    names(m)[names(m) == "rss_mb"] <- "peak_rss_mb"
    cat(sprintf("%-8s %-9s %8.0f rows: %7.2f s, peak RSS +%8.1f MB %s\n",
                label, cl, n, m$seconds, m$peak_rss_mb,
                if (m$status == "ok") "" else m$status))
    rows[[length(rows) + 1L]] <- m
  }
}
res <- do.call(rbind, rows)
res$date <- format(Sys.Date())
res$draws <- 2000L
csv <- file.path("inst", "benchmarks", "speed", "large_predictions.csv")
if (file.exists(csv)) {
  old <- utils::read.csv(csv, stringsAsFactors = FALSE)
  old <- old[!(old$label == label & old$rows %in% sizes & old$call %in% calls), ,
             drop = FALSE]
  res <- rbind(old[, names(res)], res)
}
res <- res[order(res$rows, match(res$call, c("predict", "interval", "metrics", "log_lik",
                                              "loo", "waic")), res$label), ]
# the ratios after / before of the same call and rows, where both were measured
if (all(c("before", "after") %in% res$label)) {
  key <- paste(res$call, res$rows)
  # (only where both ran to the end)
  b <- res[res$label == "before" & res$status == "ok", ]
  a <- res[res$label == "after" & res$status == "ok", ]
  both <- intersect(paste(b$call, b$rows), paste(a$call, a$rows))
  for (k in both) {
    rb <- b[paste(b$call, b$rows) == k, ]
    ra <- a[paste(a$call, a$rows) == k, ]
    cat(sprintf("%-22s time after/before %5.2f, peak RSS %8.1f -> %8.1f MB\n", k,
                ra$seconds / rb$seconds, rb$peak_rss_mb, ra$peak_rss_mb))
  }
}
utils::write.csv(res, csv, row.names = FALSE)

# What a parallel fit sends its workers with large data: a 4-chain fit on
# 100,000 rows x 10 inputs (short chains: 10 warm-up and 10 sampling
# transitions of NUTS with tree depth at most 3, a 10-2-1 network), on 2
# workers, under plan(multisession), a PSOCK cluster
# (parallelly::makeClusterPSOCK()) and, when future.mirai is installed,
# plan(future.mirai::mirai_multisession).  Each plan is timed with the
# default batches (one future per worker when the data pass 1 MB) and with
# one chain per future (options(bnnmc.chains_per_future = 1), how every
# fit of at most 4 chains per worker was sent before); reported per run:
# the futures made, the bytes serialised for them (the globals each future
# is given: the chains' function with the data, the batch, the SIMD
# level), the elapsed seconds, and whether the draws equal the sequential
# fit's.  The ratios (per-chain futures over the default) are of the
# medians over the repetitions, measured in the same run.
#
# Run from the repository's top folder after installing the package:
#   Rscript inst/benchmarks/speed/parallel_data.R [reps]
# Writes inst/benchmarks/speed/parallel_data.csv (one row per plan, batching
# and repetition).
library(bnnmc)
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args) >= 1) as.integer(args[1]) else 3L
stopifnot(requireNamespace("future", quietly = TRUE),
          requireNamespace("future.apply", quietly = TRUE),
          requireNamespace("parallelly", quietly = TRUE))

set.seed(1)
n <- 100000L
X <- matrix(stats::rnorm(n * 10), n, 10)
d <- data.frame(X, y = sin(X[, 1]) + X[, 2] * X[, 3] + stats::rnorm(n, 0, 0.3))
fit_once <- function() suppressWarnings(
  bnn_fit(y ~ ., data = d, hidden = 2, chains = 4, warmup = 10, iter = 10, seed = 1,
          sampler = bnn_nuts(max_treedepth = 3), init = "random", progress = FALSE))

# the globals of every future future_batches() makes, recorded as it makes them
sent <- new.env()
trace(bnnmc:::future_batches, print = FALSE, tracer = bquote({
  assign("bytes", vapply(batches, function(b)
    as.numeric(length(serialize(list(fun = fun, b = b, kern = kern), NULL))), 0),
    envir = .(sent))
}))

load_avg <- function() {
  if (file.exists("/proc/loadavg")) as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
  else NA_real_
}

future::plan(future::sequential)
ref <- fit_once()
data_bytes <- length(serialize(list(ref$X, ref$y_model), NULL))

plans <- list(
  multisession = function() future::plan(future::multisession, workers = 2),
  psock_cluster = function() {
    cl <- parallelly::makeClusterPSOCK(2L, rscript_libs = .libPaths(), verbose = FALSE)
    future::plan(future::cluster, workers = cl)
    function() parallel::stopCluster(cl)
  })
if (requireNamespace("future.mirai", quietly = TRUE))
  plans$mirai_multisession <- function() future::plan(future.mirai::mirai_multisession, workers = 2)

rows <- list()
for (p in names(plans)) {
  stop_fn <- plans[[p]]()
  # bnnmc loaded in both workers before timing (a one-off cost per session)
  invisible(future.apply::future_lapply(1:2, function(i) loadNamespace("bnnmc")))
  for (r in seq_len(reps)) for (batching in c("default", "one_chain_per_future")) {
    op <- options(bnnmc.chains_per_future = if (batching == "default") NULL else 1L)
    sent$bytes <- NULL
    load_before <- load_avg()
    t <- system.time(f <- fit_once())[["elapsed"]]
    options(op)
    rows[[length(rows) + 1L]] <- data.frame(
      plan = p, batching = batching, rep = r, rows = n, inputs = 10L, chains = 4L, workers = 2L,
      data_mb = data_bytes / 1e6, futures = length(sent$bytes),
      sent_mb = sum(sent$bytes) / 1e6, sent_per_data = sum(sent$bytes) / data_bytes,
      elapsed_s = t, identical_draws = identical(f$draws, ref$draws),
      load_avg_before = load_before, cores = parallel::detectCores(),
      r_version = paste(R.version$major, R.version$minor, sep = "."),
      future_version = as.character(utils::packageVersion("future")),
      date = format(Sys.time(), "%Y-%m-%d %H:%M"))
    cat(sprintf("%s, %s, rep %d: %d futures, %.1f MB sent (%.2f x the data), %.2f s, identical draws: %s\n",
                p, batching, r, length(sent$bytes), sum(sent$bytes) / 1e6,
                sum(sent$bytes) / data_bytes, t, identical(f$draws, ref$draws)))
  }
  future::plan(future::sequential)
  if (is.function(stop_fn)) stop_fn()
}
res <- do.call(rbind, rows)
med <- stats::aggregate(cbind(sent_mb, elapsed_s) ~ plan + batching, data = res, FUN = stats::median)
for (p in unique(med$plan)) {
  a <- med[med$plan == p & med$batching == "default", ]
  b <- med[med$plan == p & med$batching == "one_chain_per_future", ]
  cat(sprintf(paste0("%s (medians of %d): default %.1f MB in %.2f s; one chain per future %.1f MB ",
                     "in %.2f s; bytes ratio %.2f, time ratio %.2f\n"),
              p, reps, a$sent_mb, a$elapsed_s, b$sent_mb, b$elapsed_s,
              b$sent_mb / a$sent_mb, b$elapsed_s / a$elapsed_s))
}
out_dir <- file.path("inst", "benchmarks", "speed")
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
utils::write.csv(res, file.path(out_dir, "parallel_data.csv"), row.names = FALSE)

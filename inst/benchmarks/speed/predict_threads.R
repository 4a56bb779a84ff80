# Predictions on one thread and on two (options(bnnmc.threads)): the
# forward pass over the posterior draws is shared out over OpenMP threads,
# with the same numbers.  A default fit of MASS::Boston (medv ~ ., seed 1,
# 4 chains x 1,000 draws; the network alone, hidden = c(16, 16)), then
# predict(), posterior_epred() on 2,024 rows (Boston four times) and
# log_lik() of the training data, one thread and two in turn, `reps`
# times; elapsed seconds, their medians and the ratio two / one threads.
#   Rscript inst/benchmarks/speed/predict_threads.R [reps]
# Writes inst/benchmarks/speed/predict_threads.csv.
suppressPackageStartupMessages(library(bnnmc))
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[1]) else 3L
d <- transform(MASS::Boston, y = medv, medv = NULL)
fit <- suppressMessages(suppressWarnings(bnn_fit(y ~ ., data = d, seed = 1, hidden = c(16, 16),
                                                 progress = FALSE)))
big <- d[rep(seq_len(nrow(d)), 4), ]
calls <- list(predict = function() predict(fit, newdata = big),
              posterior_epred = function() posterior_epred(fit, newdata = big),
              log_lik = function() log_lik(fit))
rows <- list()
ref <- list()
for (r in seq_len(reps)) for (th in if (r %% 2) 1:2 else 2:1) {
  options(bnnmc.threads = th)
  for (nm in names(calls)) {
    t <- system.time(v <- calls[[nm]]())[["elapsed"]]
    if (is.null(ref[[nm]])) ref[[nm]] <- v
    stopifnot(identical(v, ref[[nm]]))      # the same numbers on any number of threads
    rows[[length(rows) + 1]] <- data.frame(date = format(Sys.Date()), call = nm, rows = nrow(big),
                                           draws = 4000L, threads = th, rep = r, seconds = t)
  }
}
res <- do.call(rbind, rows)
med <- stats::aggregate(seconds ~ call + threads, res, stats::median)
for (nm in names(calls)) {
  m <- med[med$call == nm, ]
  cat(sprintf("%-16s 1 thread %.2f s, 2 threads %.2f s: ratio %.2f\n", nm,
              m$seconds[m$threads == 1], m$seconds[m$threads == 2],
              m$seconds[m$threads == 2] / m$seconds[m$threads == 1]))
}
utils::write.csv(res, file.path("inst", "benchmarks", "speed", "predict_threads.csv"), row.names = FALSE)

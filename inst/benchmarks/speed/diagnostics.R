# Benchmark: convergence diagnostics of bnnmc against posterior.
#
# 12 chains x 8000 draws x 500 parameters.  bnnmc computes, in one call,
# rank-normalised R-hat (bulk and tail), bulk and tail ESS, MCSE of the mean
# and the chain-wise R-hat cR^(4) (plus mean, median, sd, q5, q95), i.e.
# bnn_summarize_draws(x); posterior computes summarise_draws(x, "rhat",
# "ess_bulk", "ess_tail", "mcse_mean") on the same array in the same R
# session.  Times are the median of 3 runs of system.time()[["elapsed"]].
# bnnmc is timed with 1 OpenMP thread and with 2 (the package default,
# options(bnnmc.threads)); posterior is single-threaded.
#
# The draws are AR(1) chains with autocorrelation phi ~ U(0, 0.95) per
# parameter and chain offsets N(0, 0.1^2), so the effective sample sizes and
# the lags read by Geyer's truncation vary as in real output.
#
# Run from the package root after installing bnnmc:
#   Rscript inst/benchmarks/speed/diagnostics.R
# The results are appended to inst/benchmarks/speed/diagnostics.csv.
suppressPackageStartupMessages({
  library(bnnmc)
  library(posterior)
})

n_iter <- 8000L
n_chain <- 12L
n_var <- 500L
n_rep <- 3L

set.seed(20240229)
phi <- stats::runif(n_var, 0, 0.95)
x <- array(0, c(n_iter, n_chain, n_var),
           dimnames = list(NULL, NULL, sprintf("W1[%d,1]", seq_len(n_var))))
for (v in seq_len(n_var)) {
  e <- matrix(stats::rnorm(n_iter * n_chain), n_iter, n_chain)
  ar <- stats::filter(e, phi[v], method = "recursive")
  x[, , v] <- sweep(as.matrix(ar), 2L, stats::rnorm(n_chain, 0, 0.1), "+")
}
xd <- posterior::as_draws_array(x)

# median elapsed and CPU (user + system) seconds of n_rep runs
time_median <- function(f) {
  tt <- vapply(seq_len(n_rep), function(i) {
    gc()
    st <- system.time(f())
    c(st[["elapsed"]], st[["user.self"]] + st[["sys.self"]])
  }, numeric(2))
  apply(tt, 1, stats::median)
}

options(bnnmc.threads = 1L)
tb1 <- time_median(function() suppressWarnings(bnn_summarize_draws(x)))
options(bnnmc.threads = 2L)
tb <- time_median(function() suppressWarnings(bnn_summarize_draws(x)))
tp <- time_median(function() {
  suppressWarnings(posterior::summarise_draws(xd, "rhat", "ess_bulk", "ess_tail",
                                              "mcse_mean"))
})
t_bnn <- tb[1]
t_post <- tp[1]

# the two agree (posterior's values are the reference)
a <- suppressWarnings(bnn_summarize_draws(x))
b <- suppressWarnings(posterior::summarise_draws(xd, "rhat", "ess_bulk", "ess_tail",
                                                 "mcse_mean"))
rel <- function(u, v) max(abs(u - v) / abs(v))
cat(sprintf("max relative difference: rhat %.2g, ess_bulk %.2g, ess_tail %.2g, mcse_mean %.2g\n",
            rel(a$rhat, b$rhat), rel(a$ess_bulk, b$ess_bulk),
            rel(a$ess_tail, b$ess_tail), rel(a$mcse_mean, b$mcse_mean)))

ratio <- t_post / t_bnn
cat(sprintf("%d iterations x %d chains x %d variables\n", n_iter, n_chain, n_var))
cat(sprintf("bnnmc (rhat, ess_bulk, ess_tail, mcse_mean, chain-wise rhat, summaries): %.3f s with 2 threads, %.3f s with 1\n",
            t_bnn, tb1[1]))
cat(sprintf("posterior::summarise_draws(rhat, ess_bulk, ess_tail, mcse_mean):        %.3f s\n",
            t_post))
cat(sprintf("ratio: %.1fx (2 threads), %.1fx (1 thread)\n", ratio, t_post / tb1[1]))
cat(sprintf("CPU seconds (user + system): bnnmc %.3f, posterior %.3f; machine load average %s\n",
            tb[2], tp[2], tryCatch(readLines("/proc/loadavg", warn = FALSE),
                                   error = function(e) "unknown")))

load <- tryCatch(strsplit(readLines("/proc/loadavg", warn = FALSE), " ")[[1]][1],
                 error = function(e) NA)
what <- "summarise_draws: rhat, ess_bulk, ess_tail, mcse_mean (+ chainwise rhat in bnnmc)"
out <- data.frame(date = format(Sys.time(), "%Y-%m-%d %H:%M:%S"), what = what,
                  n_iter = n_iter, n_chain = n_chain, n_var = n_var,
                  threads = c(1L, 2L),
                  seconds_bnnmc = round(c(tb1[1], t_bnn), 3),
                  seconds_posterior = round(t_post, 3),
                  ratio = round(t_post / c(tb1[1], t_bnn), 1),
                  load_average = load)
dir.create(file.path("inst", "benchmarks", "speed"), recursive = TRUE,
           showWarnings = FALSE)
f <- file.path("inst", "benchmarks", "results", "diagnostics.csv")
if (file.exists(f)) {
  old <- utils::read.csv(f)
  # rows written before the threads column existed were single-threaded
  if (is.null(old$threads)) old$threads <- 1L
  if (is.null(old$load_average)) old$load_average <- NA
  out <- rbind(old[, names(out)], out)
}
utils::write.table(out, f, sep = ",", row.names = FALSE, qmethod = "double")
cat("written to", f, "\n")

# The cost estimate that bnn_fit() announces against the fit's true wall
# time, on a machine loaded by other jobs.  For each small set, one chain of
# the default model and sampler (hidden = c(16, 16) given, so no linear
# check: MILE with its deep-ensemble start, the default budget in single
# precision), sequential plan: the estimate (fit$cost_estimate, gradients
# and the sampler's own steps timed by CPU time over the core share,
# R/run-cost.R), the estimate the former method gives
# (gradients timed by elapsed time over about 10 ms, replicated here on a
# model of the same size), and the elapsed time of the whole bnn_fit() call;
# the fit's own CPU seconds, the core share the estimate assumed, the
# 1-minute load average before each fit and the number of cores.  Then
# the single/double gradient-time ratio, 8 repeats by each method (a spec of
# 300 rows x 5 inputs, 16-16 tanh network), as the long-fit announcement
# uses it.
# With --load N, N busy R processes load the machine while it runs (the
# committed run: --load 4 on 2 cores).
#   BNNMC_DATA_DIR=/path/uci Rscript inst/benchmarks/speed/cost_estimate.R [--load N]
# Writes inst/benchmarks/speed/cost_estimate.csv and cost_estimate_ratio.csv.
suppressPackageStartupMessages(library(bnnmc))
dir <- Sys.getenv("BNNMC_DATA_DIR", file.path("..", "shared", "data", "uci"))
load1 <- function() tryCatch(as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1]),
                             error = function(e) NA_real_)
# the former timing: elapsed seconds over at least 10 ms, median of 3
time_elapsed <- function(spec, theta) {
  reps <- 2L
  repeat {
    t <- system.time(.Call(bnnmc:::C_model_grad_loop, spec, theta, reps), gcFirst = FALSE)[["elapsed"]]
    if (t >= 0.01 || reps >= 4096L) break
    reps <- reps * 4L
  }
  times <- vapply(1:3, function(i) system.time(.Call(bnnmc:::C_model_grad_loop, spec, theta, reps),
                                               gcFirst = FALSE)[["elapsed"]], 0)
  max(stats::median(times) / reps, 1e-7)
}
size_spec <- function(n, p, precision = "double") {
  s <- bnnmc:::make_spec(c(p, 16L, 16L, 1L), "tanh", bnn_likelihood("gaussian"), bnn_prior(),
                         X = matrix(stats::rnorm(n * p), n), y = stats::rnorm(n))
  bnnmc:::spec_set_precision(s, precision)
}
args <- commandArgs(TRUE)
n_load <- if ("--load" %in% args) as.integer(args[match("--load", args) + 1L]) else 0L
if (n_load > 0) {
  # (each stops by itself after 15 minutes, should this script fail)
  t_end <- Sys.time() + 900
  busy <- lapply(seq_len(n_load), function(i)
    parallel::mcparallel(quote(while (Sys.time() < t_end) sum(stats::runif(1e5))), silent = TRUE))
  Sys.sleep(20)   # let the load average rise
}
set.seed(1)
sets <- list(
  mcycle = MASS::mcycle,
  faithful = datasets::faithful,
  Boston = MASS::Boston[sample(nrow(MASS::Boston), 300), ],
  airfoil = local({ d <- bnn_read_uci("airfoil", dir = dir); d[sample(nrow(d), 300), ] }))
resp <- c(mcycle = "accel", faithful = "eruptions", Boston = "medv", airfoil = "y")
rows <- list()
for (nm in names(sets)) {
  d <- sets[[nm]]
  f <- stats::reformulate(".", resp[[nm]])
  p <- ncol(d) - 1L
  spec <- size_spec(nrow(d), p)
  theta <- 0.1 * sin(seq_len(bnnmc:::spec_dim(spec)))
  tg_new <- bnnmc:::time_gradient(spec, theta)
  tg_old <- time_elapsed(spec, theta)
  l0 <- load1()
  st <- system.time(fit <- suppressWarnings(suppressMessages(
    bnn_fit(f, data = d, hidden = c(16, 16), chains = 1, seed = 1, progress = FALSE))))
  t <- st[["elapsed"]]
  est <- fit$cost_estimate
  rows[[nm]] <- data.frame(data = nm, n = nrow(d), p = p, chains = 1L, precision = fit$precision,
                           estimate_s = est,
                           estimate_elapsed_method_s = est * tg_old / as.double(tg_new),
                           elapsed_s = t, ratio = est / t,
                           ratio_elapsed_method = est * tg_old / as.double(tg_new) / t,
                           fit_cpu_s = st[["user.self"]] + st[["sys.self"]],
                           cpu_share = attr(tg_new, "share"), load_before = l0,
                           cores = parallel::detectCores())
  print(rows[[nm]])
}
res <- do.call(rbind, rows)
utils::write.csv(res, file.path("inst", "benchmarks", "speed", "cost_estimate.csv"), row.names = FALSE)
# single/double ratio, 8 repeats by each method
sd_ <- size_spec(300, 5)
ss_ <- bnnmc:::spec_set_precision(sd_, "single")
theta <- 0.1 * sin(seq_len(bnnmc:::spec_dim(sd_)))
rat <- do.call(rbind, lapply(1:8, function(r) {
  l0 <- load1()
  cpu <- attr(bnnmc:::time_gradient(ss_, theta), "cpu") / attr(bnnmc:::time_gradient(sd_, theta), "cpu")
  el <- time_elapsed(ss_, theta) / time_elapsed(sd_, theta)
  data.frame(rep = r, single_over_double_cpu = cpu, single_over_double_elapsed = el,
             load_before = l0)
}))
print(rat)
utils::write.csv(rat, file.path("inst", "benchmarks", "speed", "cost_estimate_ratio.csv"),
                 row.names = FALSE)
if (n_load > 0) tools::pskill(vapply(busy, `[[`, 0L, "pid"))

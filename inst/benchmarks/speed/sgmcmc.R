# Speed of the stochastic-gradient samplers (bnn_sgld(), bnn_sghmc()).
#
# 1. AF#1 surrogate of Staber & Da Veiga (2022): f(x) = cos(2x) + sin(x),
#    x ~ U(-3, 3), N = 100, sigma = 0.2, a 1-100-100-1 ReLU network
#    (d = 10,401), batch 32: microseconds per minibatch gradient, per SGLD
#    step and per SGHMC leapfrog step, their ratios, and the time of 10^5
#    SGLD iterations (median of 3 runs, each in a fresh R process; 5 x 10^4
#    burn-in, 5 x 10^4 kept thinned by 25, the
#    paper's protocol before MMD thinning) through bnn_fit(), from the MAP.
# 2. Protein (45,730 rows, 9 inputs; the same 2 x 100 ReLU network,
#    d = 11,201): the full-batch gradient against an SGLD step of batch 32.
# 3. Time per SGLD step for batches of 32, 128 and 512 rows on protein and on
#    a synthetic set of 500,000 rows (9 inputs): proportional to the batch
#    size, not to N.
#
# Times are processor times of this R process (user + system), medians of
# `reps` repeats, so that a loaded machine inflates them less than elapsed
# times (which are recorded too); ratios are measured in the same run.
# Steps are timed on a chain created beforehand and minibatch gradients by
# differencing runs of 2n and n, so the one-time copy of the data and first
# shuffle (tens of milliseconds for 500,000 rows) are not counted.
#
# Run from the repository's top folder after installing the package:
#   nice -n 10 Rscript inst/benchmarks/speed/sgmcmc.R [data_dir] [reps]
# Writes inst/benchmarks/speed/sgmcmc.csv.
#
# Internals (bnnmc:::make_spec(), spec_dim(), .bnn_optimize(),
# C_kchain_*, C_model_grad_loop, C_minibatch_grad_loop, C_simd): it
# measures gradients and single steps below bnn_fit().
library(bnnmc)
args <- commandArgs(trailingOnly = TRUE)
data_dir <- if (length(args) >= 1L) args[1] else
  Sys.getenv("BNNMC_DATA_DIR", file.path("..", "shared", "data", "uci"))
reps <- if (length(args) >= 2L) as.integer(args[2]) else 5L
out_file <- file.path("inst", "benchmarks", "speed", "sgmcmc.csv")

cpu <- function(expr) {
  t <- system.time(expr)
  c(cpu = t[["user.self"]] + t[["sys.self"]], elapsed = t[["elapsed"]])
}
# median processor and elapsed time per unit of f(n) over reps repeats
per_unit <- function(f, n) {
  tt <- vapply(seq_len(reps), function(i) cpu(f(n)), numeric(2))
  c(cpu = stats::median(tt["cpu", ]) / n, elapsed = stats::median(tt["elapsed", ]) / n)
}
relu_spec <- function(X, y, sigma)
  bnnmc:::make_spec(c(ncol(X), 100L, 100L, 1L), "relu",
                    bnn_likelihood("gaussian", sigma = sigma), bnn_prior(), X = X, y = y)
# the same for a function with a one-time setup (copying the data, the first
# shuffle), cancelled by differencing runs of 2n and n units
per_unit_diff <- function(f, n) {
  tt <- vapply(seq_len(reps), function(i) cpu(f(2 * n)) - cpu(f(n)), numeric(2))
  c(cpu = stats::median(tt["cpu", ]) / n, elapsed = stats::median(tt["elapsed", ]) / n)
}
grad_mb <- function(spec, theta, B) function(n)
  .Call(bnnmc:::C_minibatch_grad_loop, spec, list(batch_size = as.integer(B)), theta,
        as.integer(n))
grad_full <- function(spec, theta) function(n)
  .Call(bnnmc:::C_model_grad_loop, spec, theta, as.integer(n))
# n transitions of a chain created once (outside the timing), keeping no
# draw (as for the thinned-out transitions of a run)
steps <- function(spec, theta, sampler) {
  settings <- c(sampler$c_settings, list(warmup = 0L, iter = 100000000L))
  xp <- .Call(bnnmc:::C_kchain_new, sampler$driver, spec, as.double(theta), 1, 1L, settings)
  .Call(bnnmc:::C_kchain_run, xp, 10L, integer(0))
  function(n) {
    out <- .Call(bnnmc:::C_kchain_run, xp, as.integer(n), integer(0))
    stopifnot(out$info$status == 0L)
  }
}

rows <- list()
add <- function(data, N, B, d, what, t, ratio_to = NA_character_, ratio = NA_real_,
                total = c(cpu = NA_real_, elapsed = NA_real_))
  rows[[length(rows) + 1L]] <<- data.frame(
    data = data, N = N, batch = B, d = d, what = what,
    us_cpu = 1e6 * t[["cpu"]], us_elapsed = 1e6 * t[["elapsed"]],
    ratio_to = ratio_to, ratio = ratio, total_s_cpu = total[["cpu"]],
    total_s_elapsed = total[["elapsed"]], simd = .Call(bnnmc:::C_simd, NULL),
    stringsAsFactors = FALSE)

## 1. AF#1 ------------------------------------------------------------------
set.seed(1)
x <- stats::runif(100, -3, 3)
af1 <- data.frame(x = x, y = cos(2 * x) + sin(x) + stats::rnorm(100, sd = 0.2))
spec <- relu_spec(matrix(af1$x), af1$y, 0.2)
d <- bnnmc:::spec_dim(spec)
theta <- stats::rnorm(d, sd = 0.1)
t_g <- per_unit_diff(grad_mb(spec, theta, 32), 2000)
add("AF#1", 100, 32, d, "minibatch gradient", t_g)
t_f <- per_unit(grad_full(spec, theta), 1000)
add("AF#1", 100, 100, d, "full-batch gradient", t_f, "minibatch gradient", t_f[["cpu"]] / t_g[["cpu"]])
t_s <- per_unit(steps(spec, theta, bnn_sgld(1e-6, batch_size = 32)), 4000)
add("AF#1", 100, 32, d, "SGLD step", t_s, "minibatch gradient", t_s[["cpu"]] / t_g[["cpu"]])
t_h <- per_unit(steps(spec, theta, bnn_sghmc(1e-7, batch_size = 32)), 400)
t_h <- t_h / 10   # per leapfrog step (10 per transition)
add("AF#1", 100, 32, d, "SGHMC leapfrog step", t_h, "minibatch gradient", t_h[["cpu"]] / t_g[["cpu"]])
t_hi <- per_unit(steps(spec, theta, bnn_sghmc(1e-7, batch_size = 32, batch = "iteration")), 400) / 10
add("AF#1", 100, 32, d, "SGHMC leapfrog step (a batch per iteration)", t_hi,
    "minibatch gradient", t_hi[["cpu"]] / t_g[["cpu"]])
# from the MAP (Adam, decaying learning rate), as the paper's chains start
t_map <- cpu(map <- bnnmc:::.bnn_optimize(spec, seed = 1, member = 0L, optimizer = "adam",
                                          lr = 1e-2, weight_decay = 0, epochs = 2000,
                                          loss = "posterior", lr_decay = 0.999))
add("AF#1", 100, 100, d, "MAP: 2000 full-batch Adam epochs", t_map / 2000, total = t_map)
# each of 3 runs in a fresh R process, as a user's session would run it
# (after the allocations of the measurements above, the same process pays
# more for the fresh memory of the 2,000 kept draws of 10,401 parameters);
# the median of their processor times
fit_code <- sprintf(paste(
  "suppressPackageStartupMessages(library(bnnmc))",
  "af1 <- readRDS('%s'); init <- readRDS('%s')",
  "t <- system.time(f <- bnn_fit(y ~ x, data = af1, hidden = c(100, 100), activation = 'relu',",
  "  likelihood = bnn_likelihood('gaussian', sigma = 0.2), standardize = FALSE,",
  "  init = list(init), sampler = bnn_sgld(1e-6, batch_size = 32), chains = 1,",
  "  warmup = 50000, iter = 2000, thin = 25, seed = 1, progress = FALSE))",
  "stopifnot(all(f$chain_status == 'ok'))",
  "cat(t[['user.self']] + t[['sys.self']], t[['elapsed']], '\\n')", sep = "\n"),
  tmp_af1 <- tempfile(fileext = ".rds"), tmp_init <- tempfile(fileext = ".rds"))
saveRDS(af1, tmp_af1)
saveRDS(map$par, tmp_init)
tmp_script <- tempfile(fileext = ".R")
writeLines(fit_code, tmp_script)
rscript <- file.path(R.home("bin"), "Rscript")
runs <- vapply(1:3, function(i) {
  o <- system2(rscript, tmp_script, stdout = TRUE,
               env = paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep)))
  as.numeric(strsplit(utils::tail(o, 1), " ")[[1]])
}, numeric(2))
run <- c(cpu = stats::median(runs[1, ]), elapsed = stats::median(runs[2, ]))
cat("1e5-iteration fits, CPU seconds of each run:", runs[1, ], "\n")
add("AF#1", 100, 32, d, "SGLD iteration of a 1e5-iteration bnn_fit()", run / 1e5,
    "minibatch gradient", run[["cpu"]] / 1e5 / t_g[["cpu"]], total = run)

## 2, 3. protein and 500,000 synthetic rows --------------------------------
sets <- list()
path <- file.path(data_dir, "protein.data")
if (file.exists(path)) {
  p <- bnn_read_uci("protein", dir = data_dir)
  sets$protein <- list(X = scale(as.matrix(p[, -ncol(p)])), y = c(scale(p$y)))
} else message("skipping protein: ", path, " not found")
set.seed(2)
Xs <- matrix(stats::rnorm(500000 * 9), ncol = 9)
sets$synthetic_500k <- list(X = Xs, y = sin(Xs[, 1]) + Xs[, 2] * Xs[, 3] +
                              stats::rnorm(500000, sd = 0.5))
rm(Xs)
for (nm in names(sets)) {
  s <- sets[[nm]]
  spec <- relu_spec(s$X, s$y, 0.5)
  d <- bnnmc:::spec_dim(spec)
  N <- length(s$y)
  theta <- stats::rnorm(d, sd = 0.1)
  t_g <- per_unit_diff(grad_mb(spec, theta, 32), 1000)
  add(nm, N, 32, d, "minibatch gradient", t_g)
  t_s <- list()
  for (B in c(32L, 128L, 512L))
    t_s[[as.character(B)]] <- per_unit(steps(spec, theta, bnn_sgld(1e-7, batch_size = B)),
                                       2000L %/% (B %/% 32L))
  t32 <- t_s[["32"]]
  add(nm, N, 32, d, "SGLD step", t32, "minibatch gradient", t32[["cpu"]] / t_g[["cpu"]])
  for (B in c(32L, 128L, 512L))
    add(nm, N, B, d, "SGLD step", t_s[[as.character(B)]], "SGLD step, batch 32",
        t_s[[as.character(B)]][["cpu"]] / t32[["cpu"]])
  t_f <- per_unit(grad_full(spec, theta), if (N > 100000) 1 else 3)
  add(nm, N, N, d, "full-batch gradient", t_f, "SGLD step, batch 32", t_f[["cpu"]] / t32[["cpu"]])
}
res <- do.call(rbind, rows)
res$date <- format(Sys.time(), "%Y-%m-%d")
res$reps <- reps
print(res[, c("data", "N", "batch", "what", "us_cpu", "us_elapsed", "ratio_to", "ratio",
              "total_s_cpu")],
      digits = 4, row.names = FALSE)
utils::write.csv(res, out_file, row.names = FALSE)
message("wrote ", out_file)

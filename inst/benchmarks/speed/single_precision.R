# Single against double precision (bnn_fit(precision = "single")), in
# the same run, precisions alternating rep by rep (the first of each pair
# alternates too), medians over the reps and ratios double / single:
#
#  1. gradient: one log-posterior gradient of the 16-16 tanh network with
#     the heteroscedastic head (N(0, 1) priors) on airfoil (1,052 rows x 5,
#     drawn with seed 1 as in driver.R) and protein (32,011 rows x 9, 70% of
#     the rows, seed 1), at one random point, evaluated in a C loop
#     (C_model_grad_loop, no R in between);
#  2. fit: the default bnn_fit() (MILE: a 4-member deep ensemble, then 4
#     MCLMC chains) on airfoil's 1,052 rows, seed = rep, end to end, with
#     RMSE and LPPD on the other 451 rows (bnn_metrics(), standardised
#     scale), to compare the accuracy of the two precisions against the
#     seed-to-seed spread.
#
# Times are CPU seconds of the R process (user + system; the machine is
# shared, so the wall clock mostly measures the others; elapsed seconds in
# their own column) and which kernels ran.
#
#   BNNMC_DATA_DIR=/path/uci Rscript inst/benchmarks/speed/single_precision.R \
#     [--reps 5] [--fit-reps 5] [--out inst/benchmarks/speed/single_precision.csv]
#
# Results (single_precision.csv): a 2-core AMD EPYC (AVX2 and FMA, no
# AVX-512), kernels avx2+fma, after the faster single-precision AVX2
# kernels; gradient 7 reps, fit 3 reps, medians, CPU seconds:
#   gradient airfoil 1,052 x 5:  double 237 us, single 86 us: 2.76x
#   gradient protein 32,011 x 9: double 8390 us, single 2733 us: 3.07x
#   default fit (MILE on the default budget, 4 chains, 200,004
#     gradients), airfoil 1,052 rows: double 46.5 s, single 16.6 s CPU:
#     2.81x
#   test (451 rows, standardised): RMSE double 0.2084 (sd over seeds
#     0.003), single 0.2094 (0.003); LPPD double 0.201 (0.023), single
#     0.195 (0.011): within the seed-to-seed spread.
# An earlier run on a 2-core AVX-512 machine (kernels avx512, before the
# faster AVX2 kernels) gave 2.08x (airfoil) and 2.15x (protein) on the
# gradient and 1.92x on MILE's full budget.
#
# The default sampler runs in single precision since these measurements and
# those of decisions/default_budget.R (vignette("benchmarks"), "The
# default's budget and precision"); a sampler given by name runs in double,
# whose draws are bit-identical per kernel and pinned by the goldens.
#
# Internals (bnnmc:::make_spec(), spec_dim(), spec_set_precision(),
# C_model_grad_loop, C_simd): the gradient part is timed in a C loop,
# without R in between.
args <- commandArgs(TRUE)
opt <- function(name, default = NULL) {
  i <- match(paste0("--", name), args)
  if (is.na(i)) default else args[i + 1L]
}
reps <- as.integer(opt("reps", "5"))
fit_reps <- as.integer(opt("fit-reps", "5"))
out <- opt("out", file.path("inst", "benchmarks", "speed", "single_precision.csv"))
suppressMessages(library(bnnmc))
dir <- Sys.getenv("BNNMC_DATA_DIR", "")
if (!nzchar(dir) || !file.exists(file.path(dir, "airfoil.data")))
  stop("set BNNMC_DATA_DIR to the folder with airfoil.data and protein.data")
kernels <- .Call(bnnmc:::C_simd, NULL)
cpu <- function(t) t[["user.self"]] + t[["sys.self"]]

rows <- list()
add <- function(...) rows[[length(rows) + 1L]] <<- data.frame(..., kernels = kernels)

# ---- 1. gradient ----
hetero <- list(family = "hetero_gaussian", sigma = NULL, sigma_prior = "half_normal",
               sigma_prior_scale = 1)
shape <- function(name, n_rows) {
  d <- bnn_read_uci(name, dir = dir)
  set.seed(1)
  d <- d[sample(nrow(d), n_rows), ]
  X <- scale(as.matrix(d[, setdiff(names(d), "y")]))
  y <- as.double(scale(d$y))
  spec <- bnnmc:::make_spec(c(ncol(X), 16, 16, 2), "tanh", hetero, bnn_prior(), X = X, y = y)
  list(name = name, n = nrow(X), p = ncol(X), spec = spec,
       theta = rnorm(bnnmc:::spec_dim(spec), sd = 0.3))
}
for (sh in list(shape("airfoil", 1052L), shape("protein", 32011L))) {
  n_loop <- max(20L, as.integer(round(1e8 / (sh$n * 16))))   # ~0.5 s per measurement
  specs <- list(double = sh$spec, single = bnnmc:::spec_set_precision(sh$spec, "single"))
  .Call(bnnmc:::C_model_grad_loop, specs$single, sh$theta, 10L)   # warm up
  for (r in seq_len(reps)) {
    ord <- if (r %% 2L) c("double", "single") else c("single", "double")
    for (pr in ord) {
      t <- system.time(.Call(bnnmc:::C_model_grad_loop, specs[[pr]], sh$theta, n_loop))
      add(part = "gradient", data = sh$name, n = sh$n, p = sh$p, precision = pr, rep = r,
          cpu_s = cpu(t), elapsed_s = t[["elapsed"]], n_grad = n_loop,
          us_per_grad = 1e6 * cpu(t) / n_loop, rmse = NA_real_, lppd = NA_real_)
    }
  }
  cat(sh$name, "done\n")
}

# ---- 2. the default fit, end to end ----
d <- bnn_read_uci("airfoil", dir = dir)
set.seed(1)
idx <- sample(nrow(d), 1052L)
train <- d[idx, ]
test <- d[-idx, ]
for (r in seq_len(fit_reps)) {
  ord <- if (r %% 2L) c("double", "single") else c("single", "double")
  for (pr in ord) {
    t <- system.time(fit <- suppressWarnings(
      bnn_fit(y ~ ., data = train, seed = r, progress = FALSE, precision = pr)))
    m <- bnn_metrics(fit, test, scale = "standardized")
    add(part = "fit", data = "airfoil", n = nrow(train), p = ncol(train) - 1L, precision = pr,
        rep = r, cpu_s = cpu(t), elapsed_s = t[["elapsed"]], n_grad = sum(fit$n_grad),
        us_per_grad = NA_real_, rmse = m$rmse, lppd = m$lppd)
    cat("fit", r, pr, round(cpu(t), 1), "s\n")
  }
}

res <- do.call(rbind, rows)
# summary: medians and ratios double / single (rep = 0)
summ <- list()
for (key in unique(paste(res$part, res$data))) {
  s <- res[paste(res$part, res$data) == key, ]
  med <- function(pr, col) stats::median(s[s$precision == pr, col])
  for (pr in c("double", "single"))
    summ[[length(summ) + 1L]] <- data.frame(
      part = s$part[1], data = s$data[1], n = s$n[1], p = s$p[1], precision = pr, rep = 0L,
      cpu_s = med(pr, "cpu_s"), elapsed_s = med(pr, "elapsed_s"), n_grad = med(pr, "n_grad"),
      us_per_grad = med(pr, "us_per_grad"), rmse = mean(s[s$precision == pr, "rmse"]),
      lppd = mean(s[s$precision == pr, "lppd"]), kernels = kernels)
  col <- if (s$part[1] == "gradient") "us_per_grad" else "cpu_s"
  cat(sprintf("%-9s %-8s median %s double %.2f single %.2f  ratio double/single %.2f\n",
              s$part[1], s$data[1], col, med("double", col), med("single", col),
              med("double", col) / med("single", col)))
  if (s$part[1] == "fit")
    cat(sprintf("   test RMSE double %.4f (sd %.4f) single %.4f (sd %.4f); LPPD double %.4f (sd %.4f) single %.4f (sd %.4f)\n",
                mean(s$rmse[s$precision == "double"]), stats::sd(s$rmse[s$precision == "double"]),
                mean(s$rmse[s$precision == "single"]), stats::sd(s$rmse[s$precision == "single"]),
                mean(s$lppd[s$precision == "double"]), stats::sd(s$lppd[s$precision == "double"]),
                mean(s$lppd[s$precision == "single"]), stats::sd(s$lppd[s$precision == "single"])))
}
res <- rbind(res, do.call(rbind, summ))
utils::write.csv(res, out, row.names = FALSE)
cat("written:", out, "\n")

# Time per log-posterior gradient of the papers' network (16-16, tanh and
# relu, heteroscedastic head, N(0, 1) priors) on airfoil and protein (70% of
# the rows for training), for bnnmc and, when rstan is installed, for the
# same model in Stan (bnn_hetero.stan), measured in the same run.
#
# Run from the repository's top folder after installing the package:
#   Rscript inst/benchmarks/speed/gradient.R [data_dir]
# Appends to inst/benchmarks/speed/gradient.csv.
#
# Internals (bnnmc:::make_spec(), spec_dim(), C_model_grad_loop,
# C_model_logpost, C_simd): it measures the gradient in a C loop, without R
# in between.
library(bnnmc)
args <- commandArgs(trailingOnly = TRUE)
data_dir <- if (length(args)) args[1] else
  Sys.getenv("BNNMC_DATA_DIR", file.path("..", "shared", "data", "uci"))
bench_dir <- file.path("inst", "benchmarks", "speed")
have_stan <- requireNamespace("rstan", quietly = TRUE)
if (!have_stan) message("rstan is not installed: timing bnnmc only.")

time_per_call <- function(f, min_time = 2, reps = c(1, 3)) {
  # repeat until at least min_time seconds, then take the median of 5 runs
  n <- 1
  repeat {
    t <- system.time(f(n))[["elapsed"]]
    if (t >= min_time / 5 || n > 1e6) break
    n <- n * 4
  }
  times <- vapply(1:5, function(i) system.time(f(n))[["elapsed"]], numeric(1))
  median(times) / n
}

flops_per_gradient <- function(n, sizes) {
  L <- length(sizes) - 1
  mm <- sum(sizes[-(L + 1)] * sizes[-1])                      # forward
  back <- mm + sum(sizes[2:L] * sizes[3:(L + 1)])             # dW and dA
  2 * n * (mm + back)
}

if (have_stan) {
  # Debian's r-cran-bh uses the system's Boost headers
  if (!nzchar(rstan::rstan_options("boost_lib")) && dir.exists("/usr/include/boost"))
    rstan::rstan_options(boost_lib = "/usr/include")
  sm <- rstan::stan_model(file.path(bench_dir, "bnn_hetero.stan"))
}

rows <- list()
for (ds in c("airfoil", "protein")) {
  path <- file.path(data_dir, paste0(ds, ".data"))
  if (!file.exists(path)) {
    message("skipping ", ds, ": ", path, " not found")
    next
  }
  a <- as.matrix(utils::read.table(path))
  set.seed(1)
  idx <- sample(nrow(a), round(0.7 * nrow(a)))
  X <- scale(a[idx, -ncol(a)])
  y <- c(scale(a[idx, ncol(a)]))
  sizes <- c(ncol(X), 16L, 16L, 2L)
  for (act in c("tanh", "relu")) {
    spec <- bnnmc:::make_spec(sizes, act, bnn_likelihood(), bnn_prior(), X = X, y = y)
    theta <- stats::rnorm(bnnmc:::spec_dim(spec), 0, 0.5)
    kern <- .Call(bnnmc:::C_simd, NULL)
    s_bnnmc <- time_per_call(function(n) .Call(bnnmc:::C_model_grad_loop, spec, theta, as.integer(n)))
    s_stan <- NA_real_
    if (have_stan) {
      fit <- rstan::sampling(sm, data = list(N = nrow(X), P = ncol(X), H1 = 16L, H2 = 16L,
                                             act = if (act == "tanh") 1L else 2L,
                                             X = X, y = y),
                             chains = 1, iter = 1, algorithm = "Fixed_param",
                             refresh = 0, seed = 1)
      # Stan's parameter order: W1 (column-major), b1, W2, b2, W3, b3: the
      # same flat layout as bnnmc's
      g_stan <- rstan::grad_log_prob(fit, theta, adjust_transform = FALSE)
      g_ours <- .Call(bnnmc:::C_model_logpost, spec, matrix(theta))$grad[, 1]
      stopifnot(isTRUE(all.equal(as.numeric(g_stan), g_ours, tolerance = 1e-8)))
      s_stan <- time_per_call(function(n) for (i in seq_len(n))
        rstan::grad_log_prob(fit, theta, adjust_transform = FALSE))
    }
    fl <- flops_per_gradient(nrow(X), sizes)
    row <- data.frame(date = format(Sys.Date()), dataset = ds, activation = act,
                      n_train = nrow(X), n_params = length(theta), kernels = kern,
                      us_per_grad_bnnmc = 1e6 * s_bnnmc,
                      us_per_grad_stan = 1e6 * s_stan,
                      ratio_stan_over_bnnmc = s_stan / s_bnnmc,
                      gflops_bnnmc = fl / s_bnnmc / 1e9)
    print(row, row.names = FALSE)
    rows[[length(rows) + 1]] <- row
  }
}
res <- do.call(rbind, rows)
dir.create(bench_dir, showWarnings = FALSE, recursive = TRUE)
# runs accumulate (machines are shared and noisy: quote medians over runs)
out <- file.path(bench_dir, "gradient.csv")
if (file.exists(out)) res_all <- rbind(utils::read.csv(out), res) else res_all <- res
utils::write.csv(res_all, out, row.names = FALSE)
cat("\nSeconds per gradient, Stan / bnnmc (higher is better for bnnmc):\n")
print(res[, c("dataset", "activation", "us_per_grad_bnnmc", "us_per_grad_stan",
              "ratio_stan_over_bnnmc", "gflops_bnnmc")], row.names = FALSE)

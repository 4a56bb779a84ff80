# How many MCLMC steps, and which precision, does the default need?  The
# default call against cheaper budgets, on the same split of each set, with
# several seeds: test log predictive density (response scale), 90%
# coverage, the verdict on the predictions, wall and CPU time (chains run
# one after another in this process, so CPU time is what one core pays even
# when the machine is shared).
#   variants (bnn_fit() arguments beside y ~ ., data = train, seed = seed):
#     default     : the default call as it is now (its rows were run with the
#                   half budget in single precision and the ziggurat's
#                   normals; the half_single rows predate the ziggurat)
#     full_double : MILE's budget (40,000/5,000/5,000 tuning steps,
#                   10,000 sampling steps thinned by 10), double precision:
#                   sampler = "mile", the default of earlier versions
#                   draw for draw (without its linear check, which chose
#                   the network on these sets)
#     full_single : the same in single precision
#     half_single : 16,000/2,000/2,000 tuning, 5,000 sampling steps (thin 5)
#     half_double : the half budget in double precision
#     tt_single   : 24,000/3,000/3,000 tuning, 5,000 sampling steps (thin 5)
#     quarter_single: 8,000/1,000/1,000 tuning, 4,000 sampling steps (thin 4)
#     quarter_double: the quarter budget in double precision
#     eight_quarter: 8 chains (and ensemble members) on the quarter budget,
#                   single precision: about the half budget's gradients
#     ensemble_1500: the default (half budget, single) with its deep
#                   ensemble trained for 1,500 epochs instead of MILE's 500
# Split: set.seed(100), 20% test (as default_vs_bart.R).  Rows are appended
# to default_budget.csv as each fit finishes (a partial run is usable).
#   Rscript inst/benchmarks/decisions/default_budget.R [seeds] [sets] [variants]
# e.g. Rscript default_budget.R 1,2 yacht,energy quarter_single,full_double
suppressPackageStartupMessages(library(bnnmc))
args <- commandArgs(trailingOnly = TRUE)
here <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))))
source(file.path(here, "..", "speed", "default_sets.R"))
split_arg <- function(i, default) bench_list_arg(args, i, default)
all_sets <- default_bench_sets()
all_sets <- all_sets[c("mcycle", "quakes", "yacht", "energy", "concrete", "airfoil")]
variants <- list(
  default = list(),
  full_double = list(sampler = "mile", precision = "double"),
  full_single = list(sampler = "mile", precision = "single"),
  half_single = list(precision = "single", warmup = 20000, thin = 5),
  half_double = list(precision = "double", warmup = 20000, thin = 5),
  tt_single = list(precision = "single", warmup = 30000, thin = 5),
  quarter_single = list(precision = "single", warmup = 10000, thin = 4),
  quarter_double = list(precision = "double", warmup = 10000, thin = 4),
  eight_quarter = list(precision = "single", warmup = 10000, thin = 4, chains = 8),
  ensemble_1500 = list(precision = "single", warmup = 20000, thin = 5,
                       ensemble = bnn_optimizer_preset("mile", epochs = 1500)))
seeds <- as.integer(split_arg(1, "1"))
sets <- split_arg(2, names(all_sets))
vars <- split_arg(3, names(variants))
out_csv <- Sys.getenv("BNNMC_BUDGET_CSV", file.path("inst", "benchmarks", "decisions", "default_budget.csv"))

for (seed in seeds) for (nm in sets) {
  sp <- default_bench_split(all_sets[[nm]]())
  train <- sp$train
  test <- sp$test
  for (v in vars) {
    t0 <- proc.time()
    fit <- suppressMessages(suppressWarnings(do.call(bnn_fit, c(list(y ~ ., data = train,
                             seed = seed, progress = FALSE), variants[[v]]))))
    t1 <- proc.time() - t0
    m <- bnn_metrics(fit, newdata = test)
    cv <- fit$convergence
    row <- data.frame(set = nm, n_train = nrow(train), seed = seed, variant = v,
                      model = if (is.null(fit$hidden) || !length(fit$hidden)) "linear" else "network",
                      n_grad = sum(fit$n_grad), lppd = m$lppd, cov90 = m$coverage_90,
                      reliable = isTRUE(cv$predictions$reliable),
                      mc_error = if (is.null(cv$predictions$mc_error)) NA else cv$predictions$mc_error,
                      seconds = t1[["elapsed"]], cpu = t1[["user.self"]] + t1[["sys.self"]],
                      load1 = as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1]))
    print(row)
    utils::write.table(row, out_csv, sep = ",", row.names = FALSE, append = file.exists(out_csv),
                       col.names = !file.exists(out_csv))
  }
}

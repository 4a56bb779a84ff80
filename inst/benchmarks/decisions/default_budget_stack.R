# How many steps does the default need now that it stacks two likelihoods?
# The default call (bnn_fit(y ~ ., data = train, seed = seed): on 201 to
# 2,000 rows of a continuous response the heteroscedastic and homoscedastic
# networks on two chains each, stacked) against the same call with fewer
# kept draws or a shorter tuning phase, given as a user would (warmup,
# iter, thin: the default's model and check stay as they are).  For each
# fit: test log predictive density (response scale), 90% coverage, the
# verdict on the predictions, and wall and CPU time of bnn_fit().
#   variants (bnn_fit() arguments beside y ~ ., data = train, seed = seed):
#     default : 16,000/2,000/2,000 tuning steps, 5,000 sampling steps
#               thinned by 5 (1,000 draws per chain)
#     t10     : the same steps thinned by 10 (500 draws per chain):
#               iter = 500, thin = 10
#     w15_t10 : 15,000 tuning steps (12,000/1,500/1,500), 5,000 sampling
#               steps thinned by 10: a fifth fewer gradients
#     w12_t10 : 12,000 tuning steps (9,600/1,200/1,200), 5,000 sampling
#               steps thinned by 10: 28% fewer gradients
# Split: set.seed(100), 20% test (as default_vs_bart.R).  One core: chains
# one after another, the C diagnostics on one thread.  Rows are appended
# to default_budget_stack.csv as each fit finishes (a partial run is
# usable).  Times are only comparable within a run on an idle machine; the
# ratio against BART is default_vs_bart.R's.
#   Rscript inst/benchmarks/decisions/default_budget_stack.R [seeds] [sets] [variants]
suppressPackageStartupMessages(library(bnnmc))
options(bnnmc.threads = 1L, mc.cores = 1L)
args <- commandArgs(trailingOnly = TRUE)
here <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))))
source(file.path(here, "..", "speed", "default_sets.R"))
split_arg <- function(i, default) bench_list_arg(args, i, default)
all_sets <- default_bench_sets()
variants <- list(
  default = list(),
  t10 = list(iter = 500, thin = 10),
  w15_t10 = list(warmup = 15000, iter = 500, thin = 10),
  w12_t10 = list(warmup = 12000, iter = 500, thin = 10))
seeds <- as.integer(split_arg(1, "1"))
sets <- split_arg(2, names(all_sets))
vars <- split_arg(3, names(variants))
out_csv <- Sys.getenv("BNNMC_BUDGET_CSV",
                      file.path("inst", "benchmarks", "decisions", "default_budget_stack.csv"))

for (seed in seeds) for (nm in sets) {
  sp <- default_bench_split(all_sets[[nm]]())
  for (v in vars) {
    t0 <- proc.time()
    fit <- suppressMessages(suppressWarnings(do.call(bnn_fit, c(list(y ~ ., data = sp$train,
                             seed = seed, progress = FALSE), variants[[v]]))))
    t1 <- proc.time() - t0
    m <- bnn_metrics(fit, newdata = sp$test)
    cv <- fit$convergence
    w_het <- if (identical(fit$mixture$kind, "likelihood"))
      fit$mixture$weights[["heteroscedastic"]] else NA_real_
    row <- data.frame(set = nm, n_train = nrow(sp$train), seed = seed, variant = v,
                      model = if (!length(fit$hidden)) "linear" else
                        if (is.finite(w_het)) "stack" else "network",
                      w_het = w_het, lppd = m$lppd, cov90 = m$coverage_90,
                      reliable = isTRUE(cv$predictions$reliable),
                      mc_error = if (is.null(cv$predictions$mc_error)) NA_real_ else cv$predictions$mc_error,
                      seconds = t1[["elapsed"]], cpu = t1[["user.self"]] + t1[["sys.self"]],
                      load1 = as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1]))
    print(row)
    utils::write.table(row, out_csv, sep = ",", row.names = FALSE, append = file.exists(out_csv),
                       col.names = !file.exists(out_csv))
  }
}

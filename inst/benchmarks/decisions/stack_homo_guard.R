# Two settings of the default's stack of the heteroscedastic and the
# homoscedastic Gaussian network (R/fit-choice.R), on the sets where it is
# made (201 to 2,000 rows of a continuous response):
#   homo_tune : the share of the default's 20,000 tuning steps that the
#               homoscedastic model's chains take (1 = all, 0.6 = 12,000,
#               0.5 = 10,000; its 5,000 sampling steps stay).  Where its
#               weight is the floor (energy, concrete, airfoil), its chains
#               only shape the tails of the predictive; its posterior is
#               the easier of the two to settle in.
#   guard     : the least weight of the homoscedastic model (0, 0.02, 0.05,
#               0.10).  The fits are made with no floor (the raw PSIS-LOO
#               stacking weights, recorded as w_het_raw) and each floor is
#               applied to the same draws afterwards, as bnn_fit() applies
#               it: the heteroscedastic weight min(w, 1 - guard).
# Sets: the six of default_vs_bart.R where the stack is made and the
# panel's ChickWeight (run with `1,2,3 ChickWeight 1,0.5`).
# For each set, seed and homo_tune: the wall and CPU seconds of bnn_fit()
# (one core) and, for each guard, the test log predictive density per
# point and 90% coverage (bnn_metrics(), response scale).  Split:
# set.seed(100), 20% test (default_vs_bart.R's).  Rows are appended to
# stack_homo_guard.csv.gz (gzip, appended to) as each fit finishes.
#   BNNMC_DATA_DIR=/work/shared/data/uci Rscript inst/benchmarks/decisions/stack_homo_guard.R [seeds] [sets] [homo_tune]
suppressPackageStartupMessages(library(bnnmc))
options(bnnmc.threads = 1L, mc.cores = 1L)
args <- commandArgs(trailingOnly = TRUE)
here <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))))
source(file.path(here, "..", "speed", "default_sets.R"))
all_sets <- default_bench_sets()
# and the panel's ChickWeight (weight ~ Time + Diet, 462 training rows, as
# default_panel.R defines it), where the heteroscedastic model has most of
# the weight
source(file.path(here, "panel_defs.R"))
all_sets$ChickWeight <- panel_definitions(here)$sets$ChickWeight$d
seeds <- as.integer(bench_list_arg(args, 1, c("1", "2", "3")))
sets <- bench_list_arg(args, 2, c("Boston", "faithful", "yacht", "energy", "concrete", "airfoil"))
tunes <- as.numeric(bench_list_arg(args, 3, c("1", "0.6", "0.5")))
guards <- c(0, 0.02, 0.05, 0.10)
out_csv <- Sys.getenv("BNNMC_GUARD_CSV",
                      file.path("inst", "benchmarks", "decisions", "stack_homo_guard.csv.gz"))
set_bnnmc_constant(".likelihood_guard", 0)

for (seed in seeds) for (nm in sets) {
  sp <- default_bench_split(all_sets[[nm]]())
  for (tune in tunes) {
    set_bnnmc_constant(".likelihood_homo_tune", tune)
    t0 <- proc.time()
    fit <- suppressMessages(suppressWarnings(bnn_fit(y ~ ., data = sp$train, seed = seed,
                                                     progress = FALSE)))
    t1 <- proc.time() - t0
    stacked <- identical(fit$mixture$kind, "likelihood")
    raw <- if (stacked) fit$mixture$weights else NULL
    for (g in guards) {
      f <- fit
      if (stacked) {
        w_het <- min(raw[["heteroscedastic"]], 1 - g)
        f$mixture$weights[c("heteroscedastic", "homoscedastic")] <- c(w_het, 1 - w_het)
      }
      m <- bnn_metrics(f, newdata = sp$test)
      row <- data.frame(set = nm, n_train = nrow(sp$train), seed = seed, homo_tune = tune,
                        guard = g, model = if (stacked) "stack" else
                          if (identical(fit$likelihood$family, "hetero_gaussian"))
                            "heteroscedastic" else "homoscedastic",
                        w_het_raw = if (stacked) raw[["heteroscedastic"]] else NA_real_,
                        lppd = m$lppd, cov90 = m$coverage_90,
                        seconds = t1[["elapsed"]], cpu = t1[["user.self"]] + t1[["sys.self"]],
                        load1 = as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1]))
      print(row)
      append_csv_gz(row, out_csv)
    }
  }
}

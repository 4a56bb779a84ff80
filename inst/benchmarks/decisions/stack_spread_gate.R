# The default's likelihood stack asks first whether the noise varies
# (R/fit-choice.R, spread_is_flat(); R/diag-adequacy.R, residual_spread()):
# where the homoscedastic network's leave-one-out quantile residuals keep
# one spread across every input and the fitted values (smooths of |z|,
# Holm-adjusted p of at least 0.1), the heteroscedastic network is not
# stacked and the homoscedastic network is returned.  On Friedman's
# function (noise of one sd everywhere) the heteroscedastic network's
# PSIS-LOO, with a quarter of its points above Pareto k 0.7, overrated it
# and the stack took 0.9 of its weight for it, 0.19 nats per test point
# below the homoscedastic network alone.  Here, on the sets where the
# default stacks (201 to 2,000 training rows of a continuous response):
#   friedman  Friedman's function (10 inputs, 5 used), 1,000 training and
#             2,000 test rows, data seeds 1 to 3, and 500 and 2,000
#             training rows, seeds 1 and 2, with BART beside it;
#   uci       yacht, energy, concrete and airfoil on the ten splits of
#             uci_splits_vs_bart.R (split k: default_bench_split(seed = 99 + k));
#   panel     default_panel.R's continuous sets of 201 to 2,000 training
#             rows, splits 1 to 3 (their own seeds).
# Per fit: the smallest Holm-adjusted p of the spread test, whether the
# stack was kept (`flat` FALSE: the fit is the stack as before, draws and
# all) and the test log density and 90% coverage of the default; where the
# gate fired, also of the previous default (options(bnnmc.stack_spread =
# FALSE)).  One core.  Rows are appended to stack_spread_gate.csv.gz as each
# fit finishes.
#   Rscript inst/benchmarks/decisions/stack_spread_gate.R [groups]
# groups: comma-separated of friedman,uci,panel (default all).

suppressPackageStartupMessages(library(bnnmc))
options(bnnmc.threads = 1L, mc.cores = 1L)
dir <- file.path("inst", "benchmarks", "decisions")
source(file.path("inst", "benchmarks", "speed", "default_sets.R"))
source(file.path(dir, "panel_defs.R"))
args <- commandArgs(trailingOnly = TRUE)
groups <- bench_list_arg(args, 1L, c("friedman", "uci", "panel"))
out_csv <- file.path(dir, "stack_spread_gate.csv.gz")  # gzip: keeps the installed package small
uci_dir <- Sys.getenv("BNNMC_DATA_DIR", "/work/shared/data/uci")
quiet <- function(e) suppressMessages(suppressWarnings(e))

add <- function(row) {
  print(row, row.names = FALSE, digits = 4)
  append_csv_gz(row, out_csv)
}

one <- function(set, group, split, train, test, seed, bart = FALSE) {
  t0 <- proc.time()[[3]]
  f <- quiet(bnn_fit(y ~ ., data = train, seed = seed, progress = FALSE))
  sec <- proc.time()[[3]] - t0
  mc <- f$model_choice
  flat <- isTRUE(attr(mc, "spread_flat"))
  m <- bnn_metrics(f, newdata = test)
  row <- data.frame(set = set, group = group, split = split, n_train = nrow(train),
                    stacked_by_loo = !is.null(mc) && identical(attr(mc, "check"), "likelihood"),
                    spread_p = attr(mc, "spread_p") %||% NA_real_, flat = flat,
                    lppd = m$lppd, cov90 = m$coverage_90, seconds = sec,
                    lppd_previous = NA_real_, cov90_previous = NA_real_,
                    lppd_bart = NA_real_, cov90_bart = NA_real_, stringsAsFactors = FALSE)
  if (flat) {
    old <- options(bnnmc.stack_spread = FALSE)
    p <- quiet(bnn_fit(y ~ ., data = train, seed = seed, progress = FALSE))
    options(old)
    mp <- bnn_metrics(p, newdata = test)
    row$lppd_previous <- mp$lppd
    row$cov90_previous <- mp$coverage_90
  }
  if (bart && requireNamespace("dbarts", quietly = TRUE)) {
    b <- bart_test_draws(train, test)
    row$lppd_bart <- b$lppd
    row$cov90_bart <- bart_cov90(b, test$y)
  }
  add(row)
}
`%||%` <- function(a, b) if (is.null(a)) b else a

if ("friedman" %in% groups) for (n in c(1000L, 500L, 2000L)) for (k in if (n == 1000L) 1:3 else 1:2) {
  d <- bench_friedman(n + 2000L, p = 10, seed = k)
  one(sprintf("friedman%d", n), "friedman", k, d[seq_len(n), ], d[n + 1:2000, ], 1L, bart = TRUE)
}
if ("uci" %in% groups) {
  bench <- default_bench_sets(uci_dir)
  for (nm in c("yacht", "energy", "concrete", "airfoil")) for (k in 1:10) {
    sp <- default_bench_split(bench[[nm]](), seed = 99 + k)
    one(nm, "uci", k, sp$train, sp$test, 1L)
  }
}
if ("panel" %in% groups) {
  panel <- panel_definitions(dir)
  pn <- names(panel$sets)
  n_tr <- vapply(pn, function(s) round(0.8 * nrow(panel$sets[[s]]$d())), 0)
  for (split in 1:3) for (nm in pn[n_tr > 200 & n_tr <= 2000]) {
    sp <- panel$panel_split(nm, split)
    if (!bnnmc:::continuous_response(sp$train$y)) next
    one(nm, "panel", split, sp$train, sp$test, sp$seed)
  }
}
res <- utils::read.csv(out_csv)
cat(sprintf("gate fired on %d of %d stacked fits\n", sum(res$flat), sum(res$stacked_by_loo)))
print(res[res$flat, c("set", "split", "spread_p", "lppd", "lppd_previous", "lppd_bart")],
      row.names = FALSE, digits = 4)

# What prior_scale_panel.R, prior_step_panel.R and wider_prior_warm.R
# share: their set-up (bnnmc and mgcv loaded, one core, panel_defs.R and
# speed/default_sets.R sourced, `dir` the decisions folder), the sets they
# fit and the references fitted on the same rows.  Each script sources this
# file first, from the package's top folder.
suppressPackageStartupMessages({
  library(bnnmc)
  library(mgcv)
})
options(bnnmc.threads = 1L, mc.cores = 1L)
dir <- file.path("inst", "benchmarks", "decisions")
source(file.path(dir, "panel_defs.R"))
source(file.path("inst", "benchmarks", "speed", "default_sets.R"))

# The references on the rows of one set and split: lm() and mgcv::gam()
# (`panel`: default_panel.R's fit_lm(), fit_gam()), loess() and
# smooth.spline() test RMSE (`refs`: adequacy_panel.R's reference_rmse()),
# and with `bart` dbarts::bart() (speed/default_sets.R).  A data frame of
# method, rmse, lppd, cov90 and seconds (NA where a reference has none).
reference_rows <- function(train, test, panel, refs, bart = FALSE) {
  row <- function(method, rmse, lppd = NA_real_, cov90 = NA_real_, seconds = NA_real_)
    data.frame(method = method, rmse = rmse, lppd = lppd, cov90 = cov90, seconds = seconds,
               stringsAsFactors = FALSE)
  out <- list()
  ref <- refs$reference_rmse(train, test)
  for (r in c("lm", "gam")) {
    t0 <- proc.time()[[3]]
    s <- tryCatch(suppressWarnings(panel[[paste0("fit_", r)]](train, test)),
                  error = function(e) NULL)
    out[[r]] <- if (is.null(s)) row(r, NA_real_) else
      row(r, s$rmse, s$lpd, s$cov90, proc.time()[[3]] - t0)
  }
  for (r in c("loess", "smooth_spline")) if (is.finite(ref[[r]])) out[[r]] <- row(r, ref[[r]])
  if (bart && requireNamespace("dbarts", quietly = TRUE)) {
    b <- bart_test_draws(train, test)
    out$BART <- row("BART", sqrt(mean((test$y - colMeans(b$mu))^2)), b$lppd,
                    bart_cov90(b, test$y), b$seconds)
  }
  do.call(rbind, out)
}

# Calls run_set(set, group, split, train, test, seed, bart) on the groups
# asked for, in this order: (a) mcycle, the README's splits
# bnn_split(mcycle, "mile", seed = k), k = 1..10; (b) yacht, energy,
# concrete, airfoil on their benchmark split; (c) Friedman's function (10
# inputs of which 5 are used, noise sd 1), 1,000 training and 2,000 test
# rows, data seeds 1 and 2, with BART; (d) split 1 of default_panel.R's
# 22 regression sets (with the panel's own seed when fit_seed is 1).
prior_panel_sets <- function(groups, fit_seed, run_set, panel, uci_dir) {
  if ("mcycle" %in% groups) {
    mc <- transform(MASS::mcycle, y = accel, accel = NULL)
    for (k in 1:10) {
      s <- bnn_split(mc, "mile", seed = k)
      run_set("mcycle", "mcycle", paste("mile", k), s$train, s$test, fit_seed)
    }
  }
  if ("uci" %in% groups) {
    bench <- default_bench_sets(uci_dir)
    for (nm in c("yacht", "energy", "concrete", "airfoil")) {
      sp <- default_bench_split(bench[[nm]]())
      run_set(nm, "uci", "benchmark", sp$train, sp$test, fit_seed)
    }
  }
  if ("friedman" %in% groups) {
    if (!requireNamespace("dbarts", quietly = TRUE))
      message("dbarts is not installed: Friedman without BART")
    for (k in 1:2) {
      d <- bench_friedman(3000, p = 10, seed = k)
      run_set("friedman", "friedman", paste("seed", k), d[1:1000, ], d[1001:3000, ], fit_seed,
              bart = TRUE)
    }
  }
  if ("panel" %in% groups) {
    for (nm in names(panel$sets)) {
      sp <- panel$panel_split(nm, 1L)
      run_set(nm, "panel", "panel 1", sp$train, sp$test,
              if (fit_seed == 1L) sp$seed else fit_seed)
    }
  }
}

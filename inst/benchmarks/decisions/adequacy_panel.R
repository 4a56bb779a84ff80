# The verdict's third part, "does the model fit?" (R/diag-adequacy.R):
# how often it fires on fits that are adequate, and whether it fires on
# fits that are not.
#
# Fits: the default call bnn_fit(y ~ ., data = train, seed = seed) on
#   * split 1 of every set of the panel (default_panel.R, via panel_defs.R:
#     22 regression sets, random 80/20 split, the panel's seed);
#   * the four UCI sets yacht, energy, concrete and airfoil on their
#     benchmark split (speed/default_sets.R, default_bench_split());
#   * the README's mcycle split (bnn_split(mcycle, "mile", seed = 1), seed 1)
#     with the default, the linear model (hidden = integer(0)) and the
#     check's advice (prior = bnn_prior(scale = 3, fan_in = TRUE)).
# "Adequate" is defined without the check: the fit's test RMSE is at most
# 1.15 times the best test RMSE of lm(), mgcv::gam() (REML; smooths of the
# numeric inputs with at least 10 distinct values, as default_panel.R's
# gam), loess() (at most 4 numeric inputs and no factor) and
# smooth.spline() (one numeric input) fitted on the same training rows.
# `fires` is the check's verdict (the verdict computed by bnn_fit()),
# `check_s` the time of the check alone (model_adequacy() on the verdict's
# forward pass, which the verdict makes anyway; mean of 5 runs) and `fit_s`
# the fit's time.  `fires_gam` is the same
# check with a penalised mgcv::gam() (REML, k <= 10) of the same residuals
# in place of the package's natural splines, and `spline_s` / `gam_s` the
# time of the two sets of regressions alone.
#
# Run (about 10 minutes of one core):
#   BNNMC_DATA_DIR=/work/shared/data/uci Rscript inst/benchmarks/decisions/adequacy_panel.R
# It prints the false-alarm rate (fires among adequate fits) and the
# detection rate (fires among inadequate fits).

suppressPackageStartupMessages({
  library(bnnmc)
  library(mgcv)
})
dir <- file.path("inst", "benchmarks", "decisions")
out_csv <- file.path(dir, "adequacy_panel.csv")
source(file.path(dir, "panel_defs.R"))
source(file.path("inst", "benchmarks", "speed", "default_sets.R"))
panel <- panel_definitions(dir)
uci_dir <- Sys.getenv("BNNMC_DATA_DIR", "/work/shared/data/uci")

rmse <- function(y, m) sqrt(mean((y - m)^2))

# test RMSEs of the non-network references on the same rows
reference_rmse <- function(train, test) {
  preds <- setdiff(names(train), "y")
  num <- preds[vapply(preds, function(v) is.numeric(train[[v]]), logical(1))]
  out <- c(lm = rmse(test$y, predict(lm(y ~ ., data = train), test)))
  smooth <- vapply(preds, function(v) is.numeric(train[[v]]) &&
                     length(unique(train[[v]])) >= 10, logical(1))
  k <- if (any(smooth)) min(10L, floor((nrow(train) / 2 - sum(!smooth)) / sum(smooth))) else 0L
  if (any(smooth) && k < 4L) smooth[] <- FALSE
  terms <- ifelse(smooth, sprintf("s(%s, k = %d)", preds, k), preds)
  g <- tryCatch(mgcv::gam(stats::as.formula(paste("y ~", paste(terms, collapse = " + "))),
                          data = train, method = "REML"), error = function(e) NULL)
  out["gam"] <- if (is.null(g)) NA else rmse(test$y, predict(g, test))
  out["loess"] <- if (length(num) == length(preds) && length(num) <= 4L) {
    lo <- tryCatch(suppressWarnings(stats::loess(y ~ ., data = train[c(num, "y")],
                                                 control = stats::loess.control(surface = "direct"))),
                   error = function(e) NULL)
    if (is.null(lo)) NA else rmse(test$y, predict(lo, test))
  } else NA
  out["smooth_spline"] <- if (length(preds) == 1L && length(num) == 1L) {
    ss <- stats::smooth.spline(train[[num]], train$y)
    rmse(test$y, predict(ss, test[[num]])$y)
  } else NA
  out
}

run_one <- function(set, split, train, test, seed, ...) {
  t0 <- proc.time()[[3]]
  fit <- suppressMessages(suppressWarnings(bnn_fit(y ~ ., data = train, seed = seed,
                                                   progress = FALSE, ...)))
  fit_s <- proc.time()[[3]] - t0
  cv <- fit$convergence
  base <- if (is.null(fit$mixture)) fit else bnnmc:::network_only(fit)
  cmp <- compare_tests(base)
  ref <- reference_rmse(train, test)
  r <- rmse(test$y, as.vector(predict(fit, test)))
  ad <- cv$adequacy
  best <- min(ref, na.rm = TRUE)
  tab <- ad$tests
  data.frame(set = set, split = split, n_train = nrow(train), inputs = ncol(train) - 1L,
             model = if (!is.null(fit$mixture)) "stack" else if (!length(fit$hidden)) "linear"
                     else "network",
             rmse = r, rmse_lm = ref[["lm"]], rmse_gam = ref[["gam"]],
             rmse_loess = ref[["loess"]], rmse_smooth_spline = ref[["smooth_spline"]],
             ratio = r / best, adequate = r <= 1.15 * best,
             fires = if (is.null(ad)) NA else !ad$adequate,
             terms = if (is.null(ad)) NA_character_ else paste(tab$term[tab$structure], collapse = "; "),
             max_r2 = if (is.null(ad)) NA else max(tab$r2, na.rm = TRUE),
             min_p_holm = if (is.null(ad)) NA else min(tab$p_holm, na.rm = TRUE),
             fires_gam = as.logical(cmp[["fires_gam"]]),
             fit_s = fit_s, check_s = cmp[["check_s"]],
             spline_s = cmp[["spline_s"]], gam_s = cmp[["gam_s"]],
             stringsAsFactors = FALSE)
}

# the check's regressions on the fit's residuals, by the package's splines
# and by mgcv::gam() (REML): whether each fires, and its time
gam_test <- function(z, x) {
  ok <- is.finite(z) & is.finite(x)
  z <- z[ok]
  x <- x[ok]
  nu <- length(unique(x))
  if (nu < 5L) return(bnnmc:::smooth_residual_test(z, x))
  g <- mgcv::gam(z ~ s(x, k = min(10L, nu - 1L)), method = "REML")
  c(p = summary(g)$s.table[1L, "p-value"], r2 = max(0, 1 - g$deviance / g$null.deviance))
}
compare_tests <- function(base) {
  n <- nrow(base$X)
  idx <- if (n > 500) unique(round(seq(1, n, length.out = 500))) else seq_len(n)
  fs <- bnnmc:::function_draws(base, idx)
  z <- bnnmc:::loo_quantile_residuals(base, fs, idx, base$seed %||% 1L)
  cols <- c(lapply(seq_len(ncol(base$X)), function(j) base$X[idx, j]), list(fs$fitted))
  run <- function(test) {
    t0 <- proc.time()[[3]]
    r <- vapply(cols, function(x) test(z, x), numeric(2))
    holm <- stats::p.adjust(r["p", ], "holm")
    list(fires = any(holm < 0.001 & r["r2", ] >= 0.1, na.rm = TRUE),
         s = proc.time()[[3]] - t0)
  }
  sp <- run(bnnmc:::smooth_residual_test)
  ga <- run(gam_test)
  # the whole check (residuals, regressions, words), 5 times for resolution
  t0 <- proc.time()[[3]]
  for (i in 1:5) bnnmc:::model_adequacy(base, fs, idx)
  c(fires_gam = ga$fires, spline_s = sp$s, gam_s = ga$s, check_s = (proc.time()[[3]] - t0) / 5)
}
`%||%` <- function(a, b) if (is.null(a)) b else a

rows <- list()
add <- function(x) {
  rows[[length(rows) + 1L]] <<- x
  print(x[, c("set", "split", "model", "ratio", "adequate", "fires", "fires_gam", "max_r2",
              "fit_s", "check_s", "gam_s")], row.names = FALSE)
  utils::write.csv(do.call(rbind, rows), out_csv, row.names = FALSE)
}
for (nm in names(panel$sets)) {
  sp <- panel$panel_split(nm, 1L)
  add(run_one(nm, "panel 1", sp$train, sp$test, sp$seed))
}
bench <- default_bench_sets(uci_dir)
for (nm in c("yacht", "energy", "concrete", "airfoil")) {
  sp <- default_bench_split(bench[[nm]]())
  add(run_one(nm, "benchmark", sp$train, sp$test, 1L))
}
mc <- bnn_split(transform(MASS::mcycle, y = accel, accel = NULL), "mile", seed = 1)
add(run_one("mcycle", "README", mc$train, mc$test, 1L))
add(run_one("mcycle", "README, linear", mc$train, mc$test, 1L, hidden = integer(0)))
add(run_one("mcycle", "README, advice followed", mc$train, mc$test, 1L,
            prior = bnn_prior(scale = 3, fan_in = TRUE)))

res <- do.call(rbind, rows)
utils::write.csv(res, out_csv, row.names = FALSE)
ok <- !is.na(res$fires)
cat(sprintf("adequate fits: %d, of which the check fires on %d (false-alarm rate %.1f%%)\n",
            sum(res$adequate & ok), sum(res$adequate & ok & res$fires),
            100 * mean(res$fires[res$adequate & ok])))
cat(sprintf("inadequate fits: %d, of which the check fires on %d\n",
            sum(!res$adequate & ok), sum(!res$adequate & ok & res$fires)))
cat(sprintf("check time / fit time: median %.3f, max %.3f\n",
            stats::median(res$check_s / res$fit_s), max(res$check_s / res$fit_s)))
cat(sprintf("mgcv::gam() in place of the splines: fires on %d adequate and %d inadequate fits; it agrees with the splines on %d of %d; its regressions take %.0f times as long (median ratio)\n",
            sum(res$adequate & ok & res$fires_gam), sum(!res$adequate & ok & res$fires_gam),
            sum(res$fires_gam == res$fires, na.rm = TRUE), sum(ok),
            stats::median(res$gam_s / pmax(res$spline_s, 1e-3))))

# Stacking the default fit's chains against their equal-weight mixture, and
# the two-part convergence verdict, on the UCI sets every user tries first
# (yacht, energy, concrete, airfoil), with BART (dbarts, when installed)
# beside it on the same split.
#
# For each set: one 80/20 split (set.seed(100)), the default call
# bnn_fit(y ~ ., data = train, seed = 1), and on the test set the log
# predictive density (LPPD, response scale) and 90% coverage of
#   * equal:      the default's equal-weight mixture of its chains;
#   * loo:        bnn_stack_chains(fit, method = "loo") (PSIS-LOO on the
#                 points whose Pareto k is reliable in every chain);
#   * validation: bnn_stack_chains(fit, newdata = half of the test set),
#                 scored on the other half and the other way round
#                 (cross-fitted), which measures what a validation set of
#                 that size would give without scoring on its own points;
#   * bart:       dbarts::bart(), 4 chains x (500 burn-in + 2,000 kept
#                 draws), one thread, predictive density from its draws of
#                 the mean and sigma.
# and the verdict's parts (bnn_convergence()).  Fits are cached in
# BNNMC_FIT_CACHE (a folder; none by default) so that the comparison can be
# recomputed without refitting.  Writes chain_stacking.csv.
#   Rscript inst/benchmarks/decisions/chain_stacking.R [sets...]
suppressPackageStartupMessages(library(bnnmc))
args <- commandArgs(trailingOnly = TRUE)
sets <- if (length(args)) args else c("yacht", "energy", "concrete", "airfoil")
dir <- Sys.getenv("BNNMC_DATA_DIR", file.path("..", "shared", "data", "uci"))
cache <- Sys.getenv("BNNMC_FIT_CACHE")
out_csv <- file.path("inst", "benchmarks", "decisions", "chain_stacking.csv")
# BART as every comparison runs it: bart_test_draws(), bart_predictive()
source(file.path("inst", "benchmarks", "speed", "default_sets.R"))


# test LPPD and 90% coverage of a fit (its own weights) on `test`
scores <- function(fit, test) {
  m <- bnn_metrics(fit, newdata = test)
  c(lppd = m$lppd, cov90 = m$coverage_90)
}

# validation stacking, cross-fitted over the two halves of the test set
cross_fitted <- function(fit, test) {
  set.seed(7)
  half <- sample(nrow(test)) <= nrow(test) / 2
  parts <- list(test[half, ], test[!half, ])
  s <- lapply(1:2, function(i) {
    st <- bnn_stack_chains(fit, newdata = parts[[i]])
    c(scores(st, parts[[3 - i]]) * nrow(parts[[3 - i]]), w = st$stacking$weights)
  })
  k <- length(s[[1]]) - 2
  c(lppd = (s[[1]][["lppd"]] + s[[2]][["lppd"]]) / nrow(test),
    cov90 = (s[[1]][["cov90"]] + s[[2]][["cov90"]]) / nrow(test),
    w_max = max(c(s[[1]][-(1:2)], s[[2]][-(1:2)])))
}

bart_scores <- function(train, test) {
  if (!requireNamespace("dbarts", quietly = TRUE)) return(c(lppd = NA, cov90 = NA, seconds = NA))
  b <- bart_test_draws(train, test)
  q <- apply(bart_predictive(b), 2, stats::quantile, c(0.05, 0.95))
  c(lppd = b$lppd, cov90 = mean(test$y >= q[1, ] & test$y <= q[2, ]), seconds = b$seconds)
}

rows <- list()
for (nm in sets) {
  d <- bnn_read_uci(nm, dir = dir)
  set.seed(100)
  te <- sample(nrow(d), round(0.2 * nrow(d)))
  train <- d[-te, ]
  test <- d[te, ]
  cached <- if (nzchar(cache)) file.path(cache, paste0(nm, ".rds")) else ""
  if (nzchar(cached) && file.exists(cached)) {
    r <- readRDS(cached)
    fit <- r$fit
    secs <- r$time
  } else {
    t0 <- proc.time()[["elapsed"]]
    fit <- suppressWarnings(bnn_fit(y ~ ., data = train, seed = 1, progress = FALSE))
    secs <- proc.time()[["elapsed"]] - t0
    if (nzchar(cached)) saveRDS(list(fit = fit, train = train, test = test, time = secs), cached)
  }
  cv <- bnn_convergence(fit)
  eq <- scores(fit, test)
  lo <- tryCatch(withCallingHandlers(bnn_stack_chains(fit, method = "loo"),
                                     bnnmc_stacking_unreliable = function(w) invokeRestart("muffleWarning")),
                 error = function(e) NULL)
  lo_s <- if (is.null(lo$stacking)) c(lppd = NA, cov90 = NA) else scores(lo, test)
  va <- cross_fitted(fit, test)
  ba <- bart_scores(train, test)
  rows[[nm]] <- data.frame(
    set = nm, n_train = nrow(train), n_test = nrow(test), seconds_default = round(secs, 1),
    lppd_equal = eq[["lppd"]], cov90_equal = eq[["cov90"]],
    lppd_loo = lo_s[["lppd"]], cov90_loo = lo_s[["cov90"]],
    loo_weights = if (is.null(lo$stacking)) "equal (unreliable)" else
      paste(formatC(lo$stacking$weights, digits = 2, format = "f"), collapse = " "),
    lppd_validation = va[["lppd"]], cov90_validation = va[["cov90"]],
    lppd_bart = ba[["lppd"]], cov90_bart = ba[["cov90"]], seconds_bart = round(ba[["seconds"]], 1),
    predictions_reliable = cv$predictions$reliable, mc_error = cv$predictions$mc_error,
    drift = cv$predictions$drift, loo_coverage90 = cv$predictions$loo_coverage,
    fit_level_stationary = cv$fit_level$stationary,
    rhat_loglik_max = max(cv$chains$rhat_loglik), remedy = if (is.null(cv$remedy)) "" else cv$remedy,
    stringsAsFactors = FALSE)
  print(rows[[nm]][, c("set", "lppd_equal", "lppd_loo", "lppd_validation", "lppd_bart",
                       "cov90_equal", "predictions_reliable", "mc_error", "drift")])
}
res <- do.call(rbind, rows)
old <- if (file.exists(out_csv)) utils::read.csv(out_csv, stringsAsFactors = FALSE)
if (!is.null(old)) res <- rbind(old[!old$set %in% res$set, names(res), drop = FALSE], res)
utils::write.csv(res, out_csv, row.names = FALSE)
cat("wrote", out_csv, "\n")

# Stacking on the panel, both kinds the default could use:
# (1) the default's check against a linear model: choose the model with the
#     larger PSIS-LOO elpd (what bnn_fit() does), or stack the two (Yao,
#     Vehtari, Simpson and Gelman 2018: weights that maximise the PSIS-LOO
#     log score of their mixture, loo::stacking_weights())?
# (2) the network's chains: their equal-weight mixture (the default) or
#     bnn_stack_chains() by PSIS-LOO or by a validation set?
#
# On the panel of default_panel.R (its sets, splits and seeds), the sets
# where the check runs (at most 500 training rows), on three 80/20 splits:
#   network: bnn_fit(y ~ ., seed = seed, hidden = c(16, 16)), the default's
#            network as the check fits it;
#   linear:  bnn_fit(y ~ ., seed = seed, hidden = integer(0),
#            sampler = "nuts"), the check's linear model (NUTS, 1,000
#            warm-up iterations, 4 chains);
#   choice:  the one with the larger PSIS-LOO elpd on the training data
#            (the default call returns it);
#   stack:   the mixture of the two predictive distributions with the
#            PSIS-LOO stacking weights (w_linear is the linear model's);
#   chains_loo: the network's chains stacked by bnn_stack_chains(method =
#            "loo");
#   chains_val: the network's chains stacked on one half of the test set
#            and scored on the other, both ways (cross-fitted, as
#            chain_stacking.R);
#   bart:    dbarts::bart(), 4 chains x (500 + 2,000), one thread;
#   lm, gam: as default_panel.R scores them.
# Scores on the response scale: test log predictive density per point
# (lpd), 90% coverage of the predictive draws (the stack: draws of each
# model in proportion to its weight), and the training points with Pareto k
# above 0.7 for each model.
#   BNNMC_DATA_DIR=/work/shared/data/uci Rscript inst/benchmarks/decisions/panel_stacking.R
# Rows are appended to panel_stacking.csv as each split finishes;
# `... panel_stacking.R summary` writes panel_stacking_summary.csv.
suppressPackageStartupMessages({
  library(bnnmc)
  library(mgcv)
})
args <- commandArgs(trailingOnly = TRUE)
dd <- file.path("inst", "benchmarks", "decisions")
out_csv <- file.path(dd, "panel_stacking.csv")
sum_csv <- file.path(dd, "panel_stacking_summary.csv")

# chain_stacking.R's scores, cross-fitted validation stacking and BART
# (its bart_scores() calls speed/default_sets.R's bart_test_draws())
source(file.path("inst", "benchmarks", "speed", "default_sets.R"))
chain_env <- new.env()
local({
  for (e in parse(file.path(dd, "chain_stacking.R"))) {
    if (is.call(e) && identical(e[[1]], as.name("<-")) && is.call(e[[3]]) &&
        identical(e[[3]][[1]], as.name("function")))
      eval(e, chain_env)
  }
})

# the panel's sets, splits and scoring: default_panel.R's definitions (its
# assignments of functions and of `sets`, `uci_dir`), without its run
source(file.path(dd, "panel_defs.R"))
panel_env <- panel_definitions(dd)
sets <- panel_env$sets
panel_split <- panel_env$panel_split
logmeanexp <- panel_env$logmeanexp
cover <- panel_env$cover

if (!identical(args[1], "summary")) {
  n_train <- vapply(names(sets), function(s) round(0.8 * nrow(sets[[s]]$d())), numeric(1))
  use <- names(sets)[n_train <= 500]
  only <- Sys.getenv("BNNMC_PANEL_SETS")
  if (nzchar(only)) use <- intersect(use, strsplit(only, ",")[[1]])
  done <- if (file.exists(out_csv)) with(utils::read.csv(out_csv), paste(set, split)) else character()
  for (split in 1:3) for (nm in use) {
    if (paste(nm, split) %in% done) next
    sp <- panel_split(nm, split)
    t0 <- proc.time()[[3]]
    fits <- list(
      network = suppressMessages(suppressWarnings(bnn_fit(y ~ ., data = sp$train, seed = sp$seed,
                                                          hidden = c(16, 16), progress = FALSE))),
      linear = suppressMessages(suppressWarnings(bnn_fit(y ~ ., data = sp$train, seed = sp$seed,
                                                         hidden = integer(0), sampler = "nuts",
                                                         progress = FALSE))))
    secs <- proc.time()[[3]] - t0
    # PSIS-LOO on the training data, as the check computes it
    loo_pw <- lapply(fits, function(f) {
      ll <- log_lik(f)
      bnnmc:::psis_loo_pointwise(ll, bnnmc:::fit_relative_eff(f, ll))
    })
    elpd <- vapply(loo_pw, function(p) sum(p[, "elpd_loo"]), 0)
    w <- as.numeric(loo::stacking_weights(cbind(loo_pw$network[, "elpd_loo"],
                                                loo_pw$linear[, "elpd_loo"])))
    # test: per-point log predictive density of each model, and the mixtures
    lp <- vapply(fits, function(f) apply(log_lik(f, newdata = sp$test), 2, logmeanexp),
                 numeric(nrow(sp$test)))
    choice <- if (elpd[["linear"]] > elpd[["network"]]) "linear" else "network"
    lpd_stack <- mean(apply(lp, 1, function(a) logmeanexp(a + log(pmax(w, 1e-300))) + log(2)))
    pp <- lapply(fits, function(f) posterior_predict(f, newdata = sp$test, seed = sp$seed))
    S <- nrow(pp$network)
    n_net <- round(w[1] * S)
    rows <- function(k) if (k) round(seq(1, S, length.out = k)) else integer(0)
    mix <- rbind(pp$network[rows(n_net), , drop = FALSE], pp$linear[rows(S - n_net), , drop = FALSE])
    net <- fits$network
    c_loo <- tryCatch(suppressWarnings(chain_env$scores(bnn_stack_chains(net, method = "loo"),
                                                        sp$test)),
                      error = function(e) c(lppd = NA, cov90 = NA))
    c_val <- tryCatch(chain_env$cross_fitted(net, sp$test),
                      error = function(e) c(lppd = NA, cov90 = NA, w_max = NA))
    c_eq <- chain_env$scores(net, sp$test)
    # BART on the numeric design (factors as indicator columns)
    mm <- stats::model.matrix(y ~ ., rbind(sp$train, sp$test))[, -1L, drop = FALSE]
    tr_rows <- seq_len(nrow(sp$train))
    bart <- chain_env$bart_scores(data.frame(mm[tr_rows, , drop = FALSE], y = sp$train$y),
                                  data.frame(mm[-tr_rows, , drop = FALSE], y = sp$test$y))
    lm_s <- panel_env$fit_lm(sp$train, sp$test)
    gam_s <- tryCatch(panel_env$fit_gam(sp$train, sp$test), error = function(e) NULL)
    row <- data.frame(
      set = nm, split = split, n_train = nrow(sp$train),
      elpd_network = elpd[["network"]], elpd_linear = elpd[["linear"]],
      khigh_network = sum(loo_pw$network[, "pareto_k"] > 0.7),
      khigh_linear = sum(loo_pw$linear[, "pareto_k"] > 0.7),
      choice = choice, w_linear = w[2],
      lpd_network = mean(lp[, "network"]), lpd_linear = mean(lp[, "linear"]),
      lpd_choice = mean(lp[, choice]), lpd_stack = lpd_stack,
      lpd_lm = lm_s$lpd, lpd_gam = if (is.null(gam_s)) NA_real_ else gam_s$lpd,
      cov90_choice = cover(pp[[choice]], sp$test$y, 0.9), cov90_stack = cover(mix, sp$test$y, 0.9),
      cov90_lm = lm_s$cov90, seconds = secs,
      chains_equal = c_eq[["lppd"]], chains_loo = c_loo[["lppd"]], chains_val = c_val[["lppd"]],
      cov90_chains_equal = c_eq[["cov90"]], cov90_chains_val = c_val[["cov90"]],
      lpd_bart = bart[["lppd"]], cov90_bart = bart[["cov90"]])
    print(row, digits = 3)
    utils::write.csv(rbind(if (file.exists(out_csv)) utils::read.csv(out_csv), row), out_csv,
                     row.names = FALSE)
  }
}

r <- utils::read.csv(out_csv)
s <- do.call(rbind, lapply(split(r, r$set), function(x) data.frame(
  set = x$set[1], n_train = x$n_train[1], splits = nrow(x),
  w_linear = mean(x$w_linear), linear_chosen = sum(x$choice == "linear"),
  choice_vs_lm = mean(x$lpd_choice - x$lpd_lm), stack_vs_lm = mean(x$lpd_stack - x$lpd_lm),
  stack_minus_choice = mean(x$lpd_stack - x$lpd_choice),
  stack_minus_choice_se = stats::sd(x$lpd_stack - x$lpd_choice) / sqrt(nrow(x)),
  # bnn_fit()'s rule: the stack when both weights are at least 0.05
  default_vs_lm = mean(ifelse(pmin(x$w_linear, 1 - x$w_linear) >= 0.05, x$lpd_stack,
                              x$lpd_choice) - x$lpd_lm),
  gam_vs_lm = mean(x$lpd_gam - x$lpd_lm),
  cov90_choice = mean(x$cov90_choice), cov90_stack = mean(x$cov90_stack),
  chains_loo_minus_equal = mean(x$chains_loo - x$chains_equal),
  chains_val_minus_equal = mean(x$chains_val - x$chains_equal),
  bart_vs_lm = mean(x$lpd_bart - x$lpd_lm))))
s <- s[order(s$n_train), ]
utils::write.csv(s, sum_csv, row.names = FALSE)
print(s, digits = 3, row.names = FALSE)

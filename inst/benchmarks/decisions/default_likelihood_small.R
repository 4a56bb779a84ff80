# Where should the default's stack of the two Gaussian likelihoods begin,
# and how much weight must the homoscedastic model keep?
#
# The default stacks the heteroscedastic and the homoscedastic Gaussian
# network on a continuous response of enough rows (R/fit-choice.R,
# choose_default_likelihood()); on fewer rows it is checked against a
# linear model instead.  When these rows were run the stack began above
# 500 training rows.  This compares, on the sets of default_panel.R with
# 100 to 500 training rows (its splits 1 to 3 and seeds):
#   linear_check: the default with options(bnnmc.likelihood_check = FALSE),
#            i.e. the network checked against the linear model (the
#            default's rule on at most 500 rows before);
#   stack:   the stack made on every set of more than 100 rows (the rows
#            above which it is made, bnnmc:::.likelihood_check_min_rows,
#            set to 100 for this call);
#   stack_g05: the same fit, the homoscedastic model's least weight 0.05
#            instead of 0.10 (its weights changed after the fit; `w_raw` is
#            the heteroscedastic model's unguarded stacking weight, known
#            when the guard did not bind; `w_applied` the weight used);
#   lm, bart: as default_panel.R and speed/default_sets.R score them (BART
#            on the numeric design, factors as indicator columns).
# With `guard` as the first argument it runs the stack (guard 0.10, as
# fitted) and stack_g05 on energy, concrete and airfoil, on the splits of
# default_likelihood_stack.R (seeds 100 to 102, seed 1 for the fit).
# Scores on the response scale: test log predictive density per point,
# 90% coverage of the predictive draws, RMSE of the predictive mean, wall
# seconds of the call (one core, while other work shared the machine:
# compare within a split only).
#   BNNMC_DATA_DIR=/work/shared/data/uci Rscript inst/benchmarks/decisions/default_likelihood_small.R [guard]
# Rows are appended to default_likelihood_small.csv as each split finishes;
# a set and split already there is not run again.
suppressPackageStartupMessages(library(bnnmc))
here <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))))
source(file.path(here, "..", "speed", "default_sets.R"))   # bart_test_draws()
options(bnnmc.threads = 1L, mc.cores = 1L)
args <- commandArgs(trailingOnly = TRUE)
out_csv <- file.path(here, "default_likelihood_small.csv")

# the panel's sets, splits and scoring: default_panel.R's definitions (its
# assignments of functions and of `sets`, `uci_dir`), without its run
source(file.path(here, "panel_defs.R"))
panel_env <- panel_definitions(here)
panel_env$uci_dir <- Sys.getenv("BNNMC_DATA_DIR", panel_env$uci_dir)
logmeanexp <- panel_env$logmeanexp
cover90 <- function(draws, y) panel_env$cover(draws, y, 0.9)

# a default call with the stack's lower bound set to `min_rows` (NULL: as
# the package has it) and the likelihood check on or off
default_call <- function(train, seed, check = TRUE, min_rows = NULL) {
  old <- options(bnnmc.likelihood_check = check)
  on.exit(options(old))
  if (!is.null(min_rows)) {
    keep <- set_bnnmc_constant(".likelihood_check_min_rows", as.integer(min_rows))
    on.exit(set_bnnmc_constant(".likelihood_check_min_rows", keep), add = TRUE)
  }
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressMessages(suppressWarnings(bnn_fit(y ~ ., data = train, seed = seed,
                                                   progress = FALSE)))
  list(fit = fit, seconds = proc.time()[["elapsed"]] - t0)
}
# the stack's weights with the homoscedastic model keeping at least `guard`
reguard <- function(fit, guard) {
  w <- fit$mixture$weights
  if (is.null(w) || !identical(fit$mixture$kind, "likelihood")) return(fit)
  het <- w[["heteroscedastic"]]
  if (het < 1 - bnnmc:::.likelihood_guard - 1e-9) return(fit)   # the guard did not bind
  w[["heteroscedastic"]] <- 1 - guard
  w[["homoscedastic"]] <- guard
  fit$mixture$weights <- w
  fit
}
score_fit <- function(fit, seconds, test, seed) {
  ll <- log_lik(fit, newdata = test)
  mc <- fit$model_choice
  lik <- identical(attr(mc, "check"), "likelihood")
  w <- fit$mixture$weights
  data.frame(seconds = seconds, lpd = mean(apply(ll, 2, logmeanexp)),
             cov90 = cover90(posterior_predict(fit, newdata = test, seed = seed), test$y),
             rmse = sqrt(mean((predict(fit, newdata = test) - test$y)^2)),
             w_het = if (lik) mc$weight[1] else NA_real_,
             w_raw = if (lik && mc$weight[1] < 1 - bnnmc:::.likelihood_guard - 1e-9)
               mc$weight[1] else NA_real_,
             w_applied = if (!is.null(w) && "heteroscedastic" %in% names(w))
               w[["heteroscedastic"]] else NA_real_)
}
bart_score <- function(train, test) {
  mm <- stats::model.matrix(y ~ ., rbind(train, test))[, -1L, drop = FALSE]
  tr <- seq_len(nrow(train))
  b <- bart_test_draws(data.frame(mm[tr, , drop = FALSE], y = train$y),
                       data.frame(mm[-tr, , drop = FALSE], y = test$y))
  set.seed(1)
  yrep <- bart_predictive(b)
  data.frame(seconds = b$seconds, lpd = b$lppd, cov90 = cover90(yrep, test$y),
             rmse = sqrt(mean((colMeans(b$mu) - test$y)^2)), w_het = NA_real_,
             w_raw = NA_real_, w_applied = NA_real_)
}
na_w <- function(s) { s$w_het <- NA_real_; s$w_raw <- NA_real_; s$w_applied <- NA_real_; s }

guard_run <- identical(args[1], "guard")
jobs <- if (guard_run) {
  expand.grid(set = c("energy", "concrete", "airfoil"), split = 100:102,
              stringsAsFactors = FALSE)
} else {
  expand.grid(set = c("mcycle", "birthwt", "cpus", "faithful", "yacht", "Boston",
                      "ChickWeight"), split = 1:3, stringsAsFactors = FALSE)
}
rows <- if (file.exists(out_csv)) utils::read.csv(out_csv) else NULL
for (j in seq_len(nrow(jobs))) {
  nm <- jobs$set[j]
  split <- jobs$split[j]
  if (!is.null(rows) && any(rows$set == nm & rows$split == split)) next
  if (guard_run) {
    d <- bnn_read_uci(nm, dir = panel_env$uci_dir)
    set.seed(split)
    te <- sample(nrow(d), round(0.2 * nrow(d)))
    sp <- list(train = d[-te, ], test = d[te, ], seed = 1L)
  } else {
    sp <- panel_env$panel_split(nm, split)
  }
  r <- list()
  if (!guard_run) {
    l <- default_call(sp$train, sp$seed, check = FALSE)
    r$linear_check <- score_fit(l$fit, l$seconds, sp$test, sp$seed)
  }
  f <- default_call(sp$train, sp$seed, min_rows = 100L)
  r$stack <- score_fit(f$fit, f$seconds, sp$test, sp$seed)
  r$stack_g05 <- score_fit(reguard(f$fit, 0.05), f$seconds, sp$test, sp$seed)
  if (!guard_run) {
    r$lm <- na_w(panel_env$fit_lm(sp$train, sp$test)[c("lpd", "cov90", "rmse")])
    r$lm$seconds <- NA_real_
    if (requireNamespace("dbarts", quietly = TRUE)) r$bart <- bart_score(sp$train, sp$test)
  }
  r <- lapply(r, function(x) x[c("seconds", "lpd", "cov90", "rmse", "w_het", "w_raw", "w_applied")])
  out <- cbind(data.frame(set = nm, split = split, n_train = nrow(sp$train), method = names(r)),
               do.call(rbind, r),
               load1 = as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1]))
  print(out, digits = 3, row.names = FALSE)
  rows <- rbind(rows, out)
  utils::write.csv(rows, out_csv, row.names = FALSE)
}

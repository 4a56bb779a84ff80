# The default on more than 500 training rows of a continuous response:
# the heteroscedastic and the homoscedastic Gaussian network, half the
# chains each, stacked by PSIS-LOO with the homoscedastic model keeping at
# least 10% of the weight (R/fit-choice.R, choose_default_likelihood()),
# against the homoscedastic network alone with all four chains (the default
# before, options(bnnmc.likelihood_check = FALSE)) and BART, one core each.
#
# Sets: energy, concrete and airfoil on the split of default_vs_bart.R
# (seed 100) and the two of default_likelihood.R (seeds 101, 102); protein
# and bikesharing (2,000 random rows, as default_likelihood.R) on seeds 101
# and 102; wine_white (2,000 random rows; its response takes seven values,
# so the check does not apply and the two defaults are the same fit) on
# seed 101.  80/20 splits.  Scores: test log predictive density per point
# (response scale), 90% coverage of the predictive draws, RMSE of the
# predictive mean, wall seconds of the whole call, the heteroscedastic
# model's weight.
#   BNNMC_DATA_DIR=/work/shared/data/uci Rscript inst/benchmarks/decisions/default_likelihood_stack.R [sets]
# Rows are appended to default_likelihood_stack.csv as each split finishes;
# a set and split already there is not run again.
suppressPackageStartupMessages(library(bnnmc))
here <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))))
source(file.path(here, "..", "speed", "default_sets.R"))   # bart_test_draws(), bench_subsample()
options(bnnmc.threads = 1L, mc.cores = 1L)
dir <- Sys.getenv("BNNMC_DATA_DIR", file.path("..", "shared", "data", "uci"))
out_csv <- file.path("inst", "benchmarks", "decisions", "default_likelihood_stack.csv")
sets <- list(
  energy = list(function() bnn_read_uci("energy", dir = dir), 100:102),
  concrete = list(function() bnn_read_uci("concrete", dir = dir), 100:102),
  airfoil = list(function() bnn_read_uci("airfoil", dir = dir), 100:102),
  protein = list(function() bench_subsample(bnn_read_uci("protein", dir = dir), 2000), 101:102),
  bikesharing = list(function() bench_subsample(bnn_read_uci("bikesharing", dir = dir), 2000), 101:102),
  wine_white = list(function() bench_subsample(bnn_read_uci("wine_white_proc", dir = dir,
                                                classification = FALSE), 2000), 101))
args <- commandArgs(trailingOnly = TRUE)
if (length(args)) sets <- sets[strsplit(args[1], ",")[[1]]]
logmeanexp <- function(a) { m <- max(a); m + log(mean(exp(a - m))) }
cover90 <- function(draws, y) {
  q <- apply(draws, 2, stats::quantile, c(0.05, 0.95))
  mean(y >= q[1, ] & y <= q[2, ])
}
bnn_score <- function(train, test, check) {
  old <- options(bnnmc.likelihood_check = check)
  on.exit(options(old))
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressMessages(suppressWarnings(bnn_fit(y ~ ., data = train, seed = 1,
                                                   progress = FALSE)))
  secs <- proc.time()[["elapsed"]] - t0
  ll <- log_lik(fit, newdata = test)
  mc <- fit$model_choice
  data.frame(seconds = secs, lpd = mean(apply(ll, 2, logmeanexp)),
             cov90 = cover90(posterior_predict(fit, newdata = test, seed = 1), test$y),
             rmse = sqrt(mean((predict(fit, newdata = test) - test$y)^2)),
             w_het = if (identical(attr(mc, "check"), "likelihood")) mc$weight[1] else NA_real_)
}
bart_score <- function(train, test) {
  b <- bart_test_draws(train, test)
  set.seed(1)
  yrep <- bart_predictive(b)
  data.frame(seconds = b$seconds, lpd = b$lppd, cov90 = cover90(yrep, test$y),
             rmse = sqrt(mean((colMeans(b$mu) - test$y)^2)), w_het = NA_real_)
}
rows <- if (file.exists(out_csv)) utils::read.csv(out_csv) else NULL
for (nm in names(sets)) for (split in sets[[nm]][[2]]) {
  if (!is.null(rows) && any(rows$set == nm & rows$split == split)) next
  d <- sets[[nm]][[1]]()
  set.seed(split)
  te <- sample(nrow(d), round(0.2 * nrow(d)))
  train <- d[-te, ]
  test <- d[te, ]
  r <- list(default = bnn_score(train, test, TRUE), homoscedastic = bnn_score(train, test, FALSE))
  if (requireNamespace("dbarts", quietly = TRUE)) r$bart <- bart_score(train, test)
  out <- cbind(data.frame(set = nm, split = split, n_train = nrow(train), method = names(r)),
               do.call(rbind, r), load1 = as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1]))
  print(out, digits = 3, row.names = FALSE)
  rows <- rbind(rows, out)
  utils::write.csv(rows, out_csv, row.names = FALSE)
}

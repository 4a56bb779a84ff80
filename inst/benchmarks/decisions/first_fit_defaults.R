# Candidate defaults for a first fit: test LPPD
# (standardised scale, as the papers report), test RMSE (original scale) and
# CPU and wall time of a few samplers and settings on UCI regression sets
# (CPU time is the fairer measure on a shared machine), one MILE
# 70/10/20 split (rep 1) each, all chains run one after another (sequential
# future plan) so that the times are comparable within the run.  MILE uses
# the validation rows for its ensemble's early stopping; the NUTS fits and
# the linear model train on the training rows only.  Rows are appended to
# the CSV as they finish, so a time-limited run keeps what it did.
#
#   Rscript inst/benchmarks/decisions/first_fit_defaults.R [data_dir] [datasets] [out.csv] [candidates]
# e.g. Rscript inst/benchmarks/decisions/first_fit_defaults.R /path/uci yacht,energy
# Writes inst/benchmarks/decisions/first_fit_defaults.csv by default.
library(bnnmc)
args <- commandArgs(trailingOnly = TRUE)
data_dir <- if (length(args) >= 1) args[1] else
  Sys.getenv("BNNMC_DATA_DIR", file.path("..", "shared", "data", "uci"))
sets <- if (length(args) >= 2) strsplit(args[2], ",")[[1]] else c("yacht", "energy", "concrete")
out <- if (length(args) >= 3) args[3] else
  file.path("inst", "benchmarks", "decisions", "first_fit_defaults.csv")
if (requireNamespace("future", quietly = TRUE)) future::plan(future::sequential)

# cheapest first, so that a time-limited run gets the most rows
candidates <- list(
  lm = NULL,
  nuts_short = list(warmup = 300, iter = 300),
  nuts_short_gaussian = list(warmup = 300, iter = 300, likelihood = "gaussian"),
  mile_default = list(sampler = "mile", activation = "relu"),  # the paper's MILE, 4 chains
  mile_tanh = list(sampler = "mile"),                          # MILE with bnn_fit()'s tanh
  mile_gaussian = list(sampler = "mile", activation = "relu", likelihood = "gaussian"),
  mile_wide = list(sampler = "mile", activation = "relu", hidden = c(32, 32)),
  nuts_default = list()                                        # 16-16 tanh, 4 x (1000 + 1000)
)
cpu <- function() {
  p <- proc.time()
  sum(p[c("user.self", "sys.self")]) + sum(p[c("user.child", "sys.child")], na.rm = TRUE)
}

if (length(args) >= 4) candidates <- candidates[strsplit(args[4], ",")[[1]]]

for (nm in sets) {
  d <- bnn_read_uci(nm, dir = data_dir)
  sp <- bnn_split(d, protocol = "mile", rep = 1)
  ysd <- stats::sd(sp$train$y)
  for (cand in names(candidates)) {
    t0 <- proc.time()[["elapsed"]]
    c0 <- cpu()
    if (cand == "lm") {
      fit <- bnn_paper_lm_baseline(y ~ ., sp$train)
      m <- bnn_metrics(fit, sp$test, scale = "standardized")           # on the response's scale
      lppd <- m$lppd + log(ysd)                # standardised by the training sd
      rmse <- m$rmse
      extra <- list(divergent = NA, treedepth_hits = NA, min_stepsize = NA)
    } else {
      a <- c(list(formula = y ~ ., data = sp$train, seed = 1, progress = FALSE),
             candidates[[cand]])
      # the candidates without a likelihood ran under the then default, the
      # heteroscedastic Gaussian: named here so that a later default does
      # not change them
      if (is.null(a$likelihood)) a$likelihood <- "hetero_gaussian"
      if (identical(a$sampler, "mile")) a$valid_data <- sp$valid
      fit <- suppressWarnings(suppressMessages(do.call(bnn_fit, a)))
      m <- bnn_metrics(fit, sp$test, scale = "standardized")
      mo <- bnn_metrics(fit, sp$test, scale = "original")
      lppd <- m$lppd
      rmse <- mo$rmse
      st <- fit$sampler_stats
      extra <- list(
        divergent = if ("divergent__" %in% dimnames(st)[[3]]) sum(st[, , "divergent__"], na.rm = TRUE) else NA,
        treedepth_hits = if ("treedepth__" %in% dimnames(st)[[3]])
          mean(st[, , "treedepth__"] >= fit$sampler$max_treedepth, na.rm = TRUE) else NA,
        min_stepsize = min(fit$stepsize, na.rm = TRUE))
    }
    secs <- proc.time()[["elapsed"]] - t0
    row <- data.frame(date = format(Sys.Date()), dataset = nm, n_train = nrow(sp$train),
                      candidate = cand, test_lppd_std = lppd, test_rmse = rmse,
                      cpu_seconds = cpu() - c0, wall_seconds = secs, extra,
                      stringsAsFactors = FALSE)
    print(row)
    utils::write.table(row, out, sep = ",", row.names = FALSE,
                       col.names = !file.exists(out), append = file.exists(out))
  }
}

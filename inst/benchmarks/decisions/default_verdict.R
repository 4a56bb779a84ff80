# Does the default fit pass its own convergence verdict (bnn_convergence())?
# One 80/20 split of each data set of the default panel (the sets of
# default_panel.R that ship with R, MASS and the UCI folder), the default
# call bnn_fit(y ~ ., data = train, seed = 1).  Writes default_verdict.csv:
# the verdict, the chain-wise R-hat of the training log-likelihood and the
# 90% quantile of the predictions' (worst chain), the across-chain values,
# test RMSE/LPPD/90% coverage on the response scale and the time.
#   Rscript inst/benchmarks/decisions/default_verdict.R [out.csv] [likelihood] [fan_in]
# The committed CSV: "... default_verdict.csv gaussian TRUE" (the default chosen
# by default_panel.R, named explicitly): 8 of 12 sets pass; the
# four UCI sets (yacht, energy, concrete, airfoil) fail on the chain-wise
# R-hat of the training log-likelihood (1.16-1.90): MILE's 10,000 sampling
# steps drift in the noise level there.  Longer runs help slowly (energy with
# thin = 50: 1.10-1.43), and the heteroscedastic head fails on energy too.
# Why, and what was tried (none passes): default_verdict_diagnosis.R/.csv:
# the verdict is computed correctly; the training
# log-likelihood of MILE's chains has an autocorrelation time of 40-270 kept
# draws (passing needs about 20) that more steps per draw, L, diagonal
# preconditioning, the biases' prior, a fixed sigma or an 8-8 network do not
# bring down enough; a cooler (less biased) MCLMC drifts more and overfits.
suppressPackageStartupMessages(library(bnnmc))
# expr under set.seed(seed), leaving the script's own random stream as it was
with_seed <- function(seed, expr) {
  old <- get0(".Random.seed", envir = globalenv(), inherits = FALSE)
  on.exit(if (is.null(old)) rm(".Random.seed", envir = globalenv()) else
    assign(".Random.seed", old, envir = globalenv()))
  set.seed(seed, kind = "Mersenne-Twister", normal.kind = "Inversion", sample.kind = "Rejection")
  expr
}
args <- commandArgs(trailingOnly = TRUE)
out <- if (length(args) >= 1) args[1] else file.path("inst", "benchmarks", "decisions", "default_verdict.csv")
lik <- if (length(args) >= 2 && args[2] != "default") args[2] else NULL
fan <- if (length(args) >= 3) as.logical(args[3]) else NA
dir <- Sys.getenv("BNNMC_DATA_DIR", file.path("..", "shared", "data", "uci"))
uci <- function(nm, n_max = 2000) {
  d <- bnnmc::bnn_read_uci(nm, dir = dir)
  if (nrow(d) > n_max) d <- d[with_seed(1, sample(nrow(d), n_max)), ]
  d
}
sets <- list(
  mtcars = function() transform(mtcars, y = mpg, mpg = NULL),
  airquality = function() { d <- na.omit(airquality); transform(d, y = Ozone, Ozone = NULL) },
  boston = function() { d <- MASS::Boston; transform(d, y = medv, medv = NULL) },
  mcycle = function() transform(MASS::mcycle, y = accel, accel = NULL),
  faithful = function() transform(faithful, y = eruptions, eruptions = NULL),
  trees = function() transform(trees, y = Volume, Volume = NULL),
  cpus = function() { d <- MASS::cpus[, c("syct", "mmin", "mmax", "cach", "chmin", "chmax", "perf")]
                      transform(d, y = perf, perf = NULL) },
  quakes = function() transform(quakes, y = mag, mag = NULL),
  yacht = function() uci("yacht"),
  energy = function() uci("energy"),
  concrete = function() uci("concrete"),
  airfoil = function() uci("airfoil"))
rows <- list()
for (nm in names(sets)) {
  d <- tryCatch(sets[[nm]](), error = function(e) NULL)
  if (is.null(d)) { cat("skip", nm, "\n"); next }
  i <- with_seed(1, sample(nrow(d), round(0.8 * nrow(d))))
  train <- d[i, ]; test <- d[-i, ]
  args_fit <- list(y ~ ., data = train, seed = 1, progress = FALSE)
  if (!is.null(lik)) args_fit$likelihood <- lik
  if (!is.na(fan)) args_fit$prior <- bnn_prior(fan_in = fan)
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressWarnings(do.call(bnn_fit, args_fit))
  el <- proc.time()[["elapsed"]] - t0
  cv <- fit$convergence
  m <- bnn_metrics(fit, test)
  rows[[nm]] <- data.frame(set = nm, n_train = nrow(train), likelihood = fit$likelihood$family,
    fan_in = isTRUE(fit$prior$fan_in), converged = cv$converged,
    cw_rhat_loglik_max = max(cv$chains$rhat_loglik), cw_rhat_f_q90_max = max(cv$chains$rhat_f_q90),
    outliers = sum(cv$chains$outlier),
    between_rhat_loglik = cv$between[["rhat_loglik"]], between_rhat_f = cv$between[["rhat_f_median"]],
    rmse = m$rmse, lppd = m$lppd, coverage_90 = m$coverage_90, seconds = el)
  print(rows[[nm]])
  utils::write.csv(do.call(rbind, rows), out, row.names = FALSE)
}

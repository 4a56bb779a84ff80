# Which likelihood should bnn_fit() use by default for a numeric response?
# (The heteroscedastic default's predictive distribution was too wide and
# heavy-tailed on small/noisy data.)
#
# Panel: 21 regression data sets of 30 to 1,503 rows (datasets, MASS and the
# UCI sets of the papers), several random 80/20 splits each (5 for the sets
# under 100 rows, 3 for the others).  On every split:
#   hetero   : MILE, 16-16 tanh, likelihood = "hetero_gaussian" (the old default)
#   gaussian : MILE, 16-16 tanh, likelihood = "gaussian" (one sigma,
#              half-normal(1) prior on the standardised scale)
#   loo_select: hetero or gaussian per split, whichever has the larger
#              PSIS-LOO elpd on the training data (from the two fits above)
#   loo_select_fanin (computed in the summary): hetero or gaussian_fanin
#              per split by the larger PSIS-LOO elpd on the training data
#   gaussian_fanin: as gaussian, with the weights' prior scaled by
#              1/sqrt(fan-in) (bnn_prior(fan_in = TRUE); biases Normal(0, 1)):
#              the Normal(0, 1) weights of a 16-16 network put prior
#              functions of many response sds on standardised data, which
#              small data sets do not tame
#   linear   : the same family's linear model (no hidden layer, fan-in
#              prior, homoscedastic Gaussian), sampled by NUTS with Stan's
#              defaults: the model the default is checked against
#   default  : the default call bnn_fit(y ~ ., data = train, seed = seed):
#              gaussian_fanin's network, or the linear model when that has
#              the larger PSIS-LOO elpd on the training data (R/fit-choice.R;
#              sets of at most 500 training rows; `chosen` says which)
#   lm       : Gaussian linear model; predictive = Student t with n - p df,
#              location x'b, scale sqrt(se.fit^2 + s^2) (the flat-prior
#              Bayesian predictive); log density of the t predictive, t
#              intervals, 4000 draws from it for the max-distance column
#   gam      : mgcv::gam (REML), s() on numeric predictors with >= 10 unique
#              values, linear otherwise; predictive Normal(fit, se.fit^2 +
#              scale) (plug-in); skipped on error
# Scores on the RESPONSE scale: test log predictive density per point
# (mean over test points of log mean over draws of the density; bnnmc's
# log_lik() is already on the response scale), coverage of the central
# 50/90/95% intervals of posterior_predict() draws (test; and 90% on the
# training data), RMSE of the posterior mean, max |draw - median| / sd(y_train)
# over the predictive draws of test and training points, wall time.
#
# Run (one process, about an hour of one core):
#   BNNMC_DATA_DIR=/work/shared/data/uci Rscript inst/benchmarks/decisions/default_panel.R
# The linear and default rows ran with the check's first cap
# (2,000 rows), beside protein MILE runs on the same 2 cores; the summary
# takes the network's (gaussian_fanin's) rows for the sets above 500
# training rows, where the check is not made now (their default rows of
# splits 2-3 were not all run).  ChickWeight's default split 2 includes a
# 6-minute pause of the run.
# Rows are appended to default_panel.csv.gz as each fit finishes (a partial run
# is usable); `Rscript default_panel.R summary` (re)writes
# default_panel_summary.csv from whatever rows exist.
# `Rscript default_panel.R verdict` fits the default call on split 1 of
# every set (the same fit, draw for draw, as the `default` row of split 1)
# and writes its convergence verdict (bnn_convergence(), computed at the end
# of bnn_fit()) to default_panel_verdict.csv, one row per set: which model
# the check returned, the verdict, the worst chain's chain-wise R-hat of the
# training log-likelihood and of the predictions (90% quantile over points),
# outlier chains, and the time.  BNNMC_PANEL_SETS restricts the sets (rows of
# an earlier run for other sets are kept).
# The committed default_panel_verdict.csv (two processes of 11 sets each on
# 2 cores): 18 of 22 sets pass, all 13 where the check
# returned the linear model and 5 of the 9 where it kept the network; yacht,
# energy, concrete and airfoil fail (log-likelihood 1.20-1.70).
#
# Internal (bnnmc:::many_ties()): records which likelihood the earlier
# default rule would have chosen; no exported function says that.

suppressPackageStartupMessages({
  library(bnnmc)
  library(mgcv)
})
args <- commandArgs(trailingOnly = TRUE)
out_dir <- Sys.getenv("BNNMC_PANEL_DIR", "inst/benchmarks/decisions")
out_csv <- file.path(out_dir, "default_panel.csv.gz")   # gzip: keeps the installed package small
sum_csv <- file.path(out_dir, "default_panel_summary.csv")
uci_dir <- Sys.getenv("BNNMC_DATA_DIR", "/work/shared/data/uci")

# ---- data sets -------------------------------------------------------------
# Each entry: data frame with the response named y.  Transformations are
# noted in `note`.
uci <- function(name, n_max = Inf, classification = FALSE) {
  d <- bnn_read_uci(name, dir = uci_dir, classification = classification)
  if (nrow(d) > n_max) {
    set.seed(20231)
    d <- d[sort(sample(nrow(d), n_max)), ]
  }
  d
}
sets <- list(
  mtcars = list(d = function() transform(mtcars, y = mpg, mpg = NULL)),
  trees = list(d = function() transform(trees, y = Volume, Volume = NULL)),
  attitude = list(d = function() transform(attitude, y = rating, rating = NULL)),
  hills = list(d = function() transform(MASS::hills, y = time, time = NULL)),
  swiss = list(d = function() transform(swiss, y = Fertility, Fertility = NULL)),
  UScrime = list(d = function() MASS::UScrime),
  rock = list(d = function() transform(rock, y = perm, perm = NULL)),
  LifeCycleSavings = list(d = function() transform(LifeCycleSavings, y = sr, sr = NULL)),
  cars = list(d = function() transform(cars, y = dist, dist = NULL)),
  Cars93 = list(d = function() {
    d <- MASS::Cars93[, c("Price", "MPG.city", "MPG.highway", "EngineSize", "Horsepower",
                          "RPM", "Rev.per.mile", "Fuel.tank.capacity", "Passengers",
                          "Length", "Wheelbase", "Width", "Turn.circle", "Weight", "Origin")]
    transform(d, y = Price, Price = NULL)
  }),
  airquality = list(d = function() {
    d <- na.omit(airquality)
    transform(d, y = Ozone, Ozone = NULL)
  }, note = "rows with NA dropped"),
  mcycle = list(d = function() transform(MASS::mcycle, y = accel, accel = NULL)),
  birthwt = list(d = function() {
    d <- MASS::birthwt
    d$race <- factor(d$race)
    d$low <- NULL
    transform(d, y = bwt, bwt = NULL)
  }, note = "low (bwt < 2500) dropped"),
  cpus = list(d = function() {
    d <- MASS::cpus[, c("syct", "mmin", "mmax", "cach", "chmin", "chmax", "perf")]
    transform(d, y = log(perf), perf = NULL)
  }, note = "response log(perf)"),
  faithful = list(d = function() transform(faithful, y = eruptions, eruptions = NULL)),
  yacht = list(d = function() uci("yacht")),
  Boston = list(d = function() transform(MASS::Boston, y = medv, medv = NULL)),
  ChickWeight = list(d = function() {
    d <- as.data.frame(ChickWeight)[, c("weight", "Time", "Diet")]
    d$Diet <- factor(d$Diet, ordered = FALSE)
    transform(d, y = weight, weight = NULL)
  }, note = "weight ~ Time + Diet"),
  energy = list(d = function() uci("energy")),
  concrete = list(d = function() uci("concrete")),
  wine_red = list(d = function() uci("wine_red_proc", n_max = 1000),
                  note = "quality as numeric; random 1000 of 1599 rows"),
  airfoil = list(d = function() uci("airfoil"))
)

# ---- scoring ---------------------------------------------------------------
logmeanexp <- function(x) {
  m <- max(x)
  m + log(mean(exp(x - m)))
}
cover <- function(draws, y, level) {
  a <- (1 - level) / 2
  lo <- apply(draws, 2, stats::quantile, a, names = FALSE)
  hi <- apply(draws, 2, stats::quantile, 1 - a, names = FALSE)
  mean(y >= lo & y <= hi)
}
max_dist <- function(draws, sdy) {
  med <- apply(draws, 2, stats::median)
  max(abs(sweep(draws, 2, med)) / sdy)
}
score_draws <- function(pp_test, pp_train, y_test, y_train, lpd, mean_test) {
  sdy <- stats::sd(y_train)
  data.frame(lpd = lpd,
             cov50 = cover(pp_test, y_test, 0.5), cov90 = cover(pp_test, y_test, 0.9),
             cov95 = cover(pp_test, y_test, 0.95),
             train_cov90 = cover(pp_train, y_train, 0.9),
             rmse = sqrt(mean((y_test - mean_test)^2)),
             max_dist = max(max_dist(pp_test, sdy), max_dist(pp_train, sdy)))
}

fit_bnn <- function(lik, train, test, seed, prior = bnn_prior(), ...) {
  t0 <- proc.time()[[3]]
  # lik = NULL, prior = NULL: the default call (the arguments left out)
  args <- c(list(y ~ ., data = train, seed = seed, progress = FALSE),
            if (!is.null(lik)) list(likelihood = lik), if (!is.null(prior)) list(prior = prior),
            list(...))
  fit <- suppressMessages(suppressWarnings(do.call(bnn_fit, args)))
  wall <- proc.time()[[3]] - t0
  ll <- log_lik(fit, newdata = test)              # response scale
  lpd <- mean(apply(ll, 2, logmeanexp))
  pp_test <- posterior_predict(fit, newdata = test, seed = seed)
  pp_train <- posterior_predict(fit, seed = seed)
  mu <- colMeans(posterior_epred(fit, newdata = test))
  s <- score_draws(pp_test, pp_train, test$y, train$y, lpd, mu)
  lo <- suppressWarnings(loo::loo(fit))
  s$loo_elpd <- lo$estimates["elpd_loo", "Estimate"]
  s$loo_k_bad <- sum(lo$diagnostics$pareto_k > 0.7)
  s$time <- wall
  s$sigma_or_sd <- if (identical(fit$likelihood$family, "gaussian"))
    stats::median(fit$draws[, , "sigma"]) * fit$y_scale else
    stats::median(apply(pp_train, 2, stats::sd))
  mc <- fit$model_choice
  list(score = s, pointwise = lo$pointwise[, "elpd_loo"],
       chosen = if (is.null(mc)) NA_character_ else
         sprintf("%s (loo elpd %.1f vs %.1f)", mc$model[mc$chosen], mc$elpd_loo[mc$chosen],
                 mc$elpd_loo[!mc$chosen]))
}

fit_lm <- function(train, test) {
  t0 <- proc.time()[[3]]
  m <- stats::lm(y ~ ., data = train)
  wall <- proc.time()[[3]] - t0
  score_lin(m, train, test, df = m$df.residual, wall)
}

# Student t (df finite) or Normal (df = Inf) predictive from a linear-ish model
score_lin <- function(m, train, test, df, wall, scale = NULL) {
  pr <- stats::predict(m, newdata = test, se.fit = TRUE)
  prt <- stats::predict(m, newdata = train, se.fit = TRUE)
  s2 <- if (is.null(scale)) summary(m)$sigma^2 else scale
  sc <- sqrt(as.numeric(pr$se.fit)^2 + s2)
  sct <- sqrt(as.numeric(prt$se.fit)^2 + s2)
  loc <- as.numeric(pr$fit)
  loct <- as.numeric(prt$fit)
  lpd <- if (is.finite(df)) mean(stats::dt((test$y - loc) / sc, df, log = TRUE) - log(sc)) else
    mean(stats::dnorm(test$y, loc, sc, log = TRUE))
  set.seed(1)
  rd <- function(n) if (is.finite(df)) stats::rt(n, df) else stats::rnorm(n)
  S <- 4000
  pp_test <- matrix(rd(S * length(loc)), S) * rep(sc, each = S) + rep(loc, each = S)
  pp_train <- matrix(rd(S * length(loct)), S) * rep(sct, each = S) + rep(loct, each = S)
  s <- score_draws(pp_test, pp_train, test$y, train$y, lpd, loc)
  # exact interval coverage (quantiles of the predictive, not of draws)
  q <- function(p) if (is.finite(df)) stats::qt(p, df) else stats::qnorm(p)
  for (lv in c(50, 90, 95)) {
    z <- q(1 - (1 - lv / 100) / 2)
    s[[paste0("cov", lv)]] <- mean(abs(test$y - loc) <= z * sc)
  }
  s$train_cov90 <- mean(abs(train$y - loct) <= q(0.95) * sct)
  s$loo_elpd <- NA_real_
  s$loo_k_bad <- NA_integer_
  s$time <- wall
  s$sigma_or_sd <- sqrt(s2)
  s
}

fit_gam <- function(train, test) {
  preds <- setdiff(names(train), "y")
  n <- nrow(train)
  smooth <- vapply(preds, function(v) is.numeric(train[[v]]) &&
                     length(unique(train[[v]])) >= 10, logical(1))
  n_lin <- sum(!smooth)
  k <- if (any(smooth)) min(10L, floor((n / 2 - n_lin) / sum(smooth))) else 0L
  if (any(smooth) && k < 4L) smooth[] <- FALSE   # too few rows for smooths: linear
  terms <- ifelse(smooth, sprintf("s(%s, k = %d)", preds, k), preds)
  f <- stats::as.formula(paste("y ~", paste(terms, collapse = " + ")))
  t0 <- proc.time()[[3]]
  m <- mgcv::gam(f, data = train, method = "REML")
  wall <- proc.time()[[3]] - t0
  score_lin(m, train, test, df = Inf, wall, scale = m$sig2)
}

# ---- the run ---------------------------------------------------------------
split_seed <- function(set_i, split) 1000L * split + set_i

# The 80/20 split `split` of a set: its data, train and test rows, and the
# seed of its fits
panel_split <- function(set_name, split) {
  set_i <- match(set_name, names(sets))
  d <- sets[[set_name]]$d()
  rownames(d) <- NULL
  set.seed(split_seed(set_i, split))
  idx <- sample(nrow(d), round(0.8 * nrow(d)))
  train <- d[idx, , drop = FALSE]
  test <- d[-idx, , drop = FALSE]
  # factor levels unseen in training cannot be predicted by any method
  for (v in names(d)) if (is.factor(d[[v]])) {
    keep <- test[[v]] %in% unique(train[[v]])
    test <- test[keep, , drop = FALSE]
  }
  list(d = d, train = train, test = test, seed = split_seed(set_i, split))
}

run_job <- function(set_name, split) {
  sp <- panel_split(set_name, split)
  d <- sp$d
  train <- sp$train
  test <- sp$test
  base <- data.frame(set = set_name, n = nrow(d), n_train = nrow(train), n_test = nrow(test),
                     split = split, seed = sp$seed,
                     old_default = if (bnnmc:::many_ties(train$y)) "gaussian" else "hetero")
  rows <- list()
  have <- if (file.exists(out_csv)) {
    old <- utils::read.csv(out_csv)
    old$method[old$set == set_name & old$split == split]
  } else character()
  add <- function(method, s, chosen = NA_character_) {
    r <- cbind(base, method = method, s, chosen = chosen)
    rows[[length(rows) + 1L]] <<- r
    first <- !file.exists(out_csv)
    con <- gzfile(out_csv, if (first) "w" else "a")   # gzip members concatenate
    write.table(r, con, sep = ",", row.names = FALSE, col.names = first)
    close(con)
  }
  seed <- sp$seed
  # a resumed run fills in the methods a set x split lacks
  if (!"loo_select" %in% have) {
    add("lm", fit_lm(train, test))
    g <- tryCatch(fit_gam(train, test), error = function(e) NULL)
    if (!is.null(g)) add("gam", g)
    h <- fit_bnn("hetero_gaussian", train, test, seed)
    add("hetero", h$score)
    ga <- fit_bnn("gaussian", train, test, seed)
    add("gaussian", ga$score)
    # (c) per-split choice by PSIS-LOO on the training data: no extra fit
    diff <- h$pointwise - ga$pointwise
    pick_h <- sum(diff) > 0
    s <- if (pick_h) h$score else ga$score
    s$time <- h$score$time + ga$score$time
    add("loo_select", s, chosen = sprintf("%s (elpd diff %.1f, se %.1f)",
                                          if (pick_h) "hetero" else "gaussian", sum(diff),
                                          sqrt(length(diff)) * stats::sd(diff)))
  }
  if (!"gaussian_fanin" %in% have)
    add("gaussian_fanin", fit_bnn("gaussian", train, test, seed,
                                  prior = bnn_prior(fan_in = TRUE))$score)
  # the Bayesian linear model of the same family (no hidden layer), sampled
  # exactly by NUTS: the alternative that loo_linear weighs against the
  # default by PSIS-LOO
  if (!"linear" %in% have)
    add("linear", fit_bnn("gaussian", train, test, seed, prior = bnn_prior(fan_in = TRUE),
                          hidden = integer(0), sampler = "nuts")$score)
  # the default call itself, since the default checks its network against
  # the linear model (R/fit-choice.R): `chosen` says which it returned
  if (!"default" %in% have) {
    f <- fit_bnn(NULL, train, test, seed, prior = NULL)
    add("default", f$score, chosen = f$chosen)
  }
  cat(format(Sys.time()), set_name, "split", split, "done\n")
  invisible(do.call(rbind, rows))
}

summarise_panel <- function() {
  r <- utils::read.csv(out_csv, stringsAsFactors = FALSE)
  # a job interrupted and resumed may have written a method twice: keep the last
  r <- r[!duplicated(r[c("set", "split", "method")], fromLast = TRUE), ]
  # (c2) per split, hetero or gaussian_fanin by the larger PSIS-LOO elpd
  # on the training data (the loo_elpd column of both fits)
  both <- merge(r[r$method == "hetero", ], r[r$method == "gaussian_fanin", c("set", "split", "loo_elpd")],
                by = c("set", "split"), suffixes = c("", ".f"))
  if (nrow(both)) {
    pick <- both$loo_elpd > both$loo_elpd.f
    c2 <- rbind(r[r$method == "hetero", ][0, ], do.call(rbind, lapply(seq_len(nrow(both)), function(i) {
      m <- if (pick[i]) "hetero" else "gaussian_fanin"
      x <- r[r$set == both$set[i] & r$split == both$split[i] & r$method == m, ]
      x$time <- sum(r$time[r$set == both$set[i] & r$split == both$split[i] &
                           r$method %in% c("hetero", "gaussian_fanin")])
      x$chosen <- sprintf("%s (loo elpd %.1f vs %.1f)", if (pick[i]) "hetero" else "gaussian_fanin",
                          both$loo_elpd[i], both$loo_elpd.f[i])
      x$method <- "loo_select_fanin"
      x
    })))
    r <- rbind(r, c2)
  }
  # the default checks its network against the linear model on at most 500
  # training rows (R/fit-choice.R); above, it is the network alone, the
  # gaussian_fanin fit (the same seed and draws).  Rows run while the cap
  # was 2,000 are replaced so for the sets above 500.
  big_sets <- unique(r$set[r$n_train > 500])
  if (length(big_sets)) {
    gf <- r[r$method == "gaussian_fanin" & r$set %in% big_sets, ]
    gf$method <- "default"
    gf$chosen <- "network (above 500 rows: no check)"
    r <- rbind(r[!(r$method == "default" & r$set %in% big_sets), ], gf)
  }
  # the old default as bnn_fit() chose it: hetero, or gaussian (Normal(0, 1)
  # weights) when the training response had many ties (mcycle, wine_red)
  od <- r[(r$method == "hetero" & r$old_default == "hetero") |
          (r$method == "gaussian" & r$old_default == "gaussian"), ]
  if (nrow(od)) {
    od$method <- "old_default"
    r <- rbind(r, od)
  }
  lm_lpd <- r[r$method == "lm", c("set", "split", "lpd")]
  names(lm_lpd)[3] <- "lm_lpd"
  r <- merge(r, lm_lpd, by = c("set", "split"))
  r$lpd_vs_lm <- r$lpd - r$lm_lpd
  agg <- function(x) {
    data.frame(set = x$set[1], method = x$method[1], n = x$n[1], splits = nrow(x),
               lpd = mean(x$lpd), lpd_vs_lm = mean(x$lpd_vs_lm),
               cov50 = mean(x$cov50), cov90 = mean(x$cov90), cov95 = mean(x$cov95),
               train_cov90 = mean(x$train_cov90), rmse = mean(x$rmse),
               max_dist = max(x$max_dist), time = mean(x$time),
               hetero_chosen = if (startsWith(x$method[1], "loo_select"))
                 sum(startsWith(x$chosen, "hetero")) else NA_integer_,
               linear_chosen = if (x$method[1] == "default")
                 sum(startsWith(x$chosen, "linear"), na.rm = TRUE) else NA_integer_)
  }
  s <- do.call(rbind, lapply(split(r, list(r$set, r$method), drop = TRUE), agg))
  s$pass_lpd <- s$lpd_vs_lm >= -0.05
  s$pass_cov90 <- s$cov90 >= 0.80 & s$cov90 <= 0.98
  s$pass_dist <- s$max_dist <= 50
  s$pass_all <- s$pass_lpd & s$pass_cov90 & s$pass_dist
  s <- s[order(s$n, s$set, match(s$method, c("old_default", "hetero", "gaussian", "loo_select",
                                             "gaussian_fanin", "loo_select_fanin", "linear",
                                             "default", "lm", "gam"))), ]
  rownames(s) <- NULL
  num <- vapply(s, is.double, logical(1))
  s[num] <- lapply(s[num], signif, 4)
  utils::write.csv(s, sum_csv, row.names = FALSE)
  s
}

if (identical(args[1], "verdict")) {
  ver_csv <- file.path(out_dir, "default_panel_verdict.csv")
  only <- Sys.getenv("BNNMC_PANEL_SETS")
  run_sets <- if (nzchar(only)) strsplit(only, ",")[[1]] else names(sets)
  for (set_name in run_sets) {
    sp <- panel_split(set_name, 1L)
    train <- sp$train
    t0 <- proc.time()[[3]]
    fit <- suppressMessages(suppressWarnings(
      bnn_fit(y ~ ., data = train, seed = sp$seed, progress = FALSE)))
    cv <- fit$convergence
    mc <- fit$model_choice
    r <- data.frame(set = set_name, n_train = nrow(train),
                    model = if (is.null(mc)) "network (no check)" else mc$model[mc$chosen],
                    sampler = class(fit$sampler)[1], converged = isTRUE(cv$converged),
                    cw_rhat_loglik_max = max(cv$chains$rhat_loglik),
                    cw_rhat_f_q90_max = max(cv$chains$rhat_f_q90),
                    outliers = sum(cv$chains$outlier),
                    seconds = round(proc.time()[[3]] - t0, 1), date = format(Sys.Date()))
    print(r)
    old <- if (file.exists(ver_csv)) utils::read.csv(ver_csv) else NULL
    if (!is.null(old)) old <- old[old$set != set_name, ]
    utils::write.csv(rbind(old, r), ver_csv, row.names = FALSE)
  }
  quit(save = "no")
}

if (!identical(args[1], "summary")) {
  n_rows <- vapply(sets, function(s) nrow(s$d()), numeric(1))
  small <- names(sets)[n_rows < 100]
  mid <- names(sets)[n_rows < 400]
  # order: every set gets split 1 (so a partial run covers all sets), then
  # splits 2 and 3 of the sets under 400 rows, splits 4-5 of the sets under
  # 100 rows, and last splits 2 and 3 of the larger sets (a fit of 800
  # training rows costs 10 times one of 40)
  jobs <- rbind(data.frame(set = names(sets), split = 1L),
                data.frame(set = rep(mid, 2), split = rep(2:3, each = length(mid))),
                data.frame(set = rep(small, 2), split = rep(4:5, each = length(small))),
                data.frame(set = rep(setdiff(names(sets), mid), 2),
                           split = rep(2:3, each = length(setdiff(names(sets), mid)))))
  only <- Sys.getenv("BNNMC_PANEL_SETS")   # e.g. "mtcars,trees" for a quick check
  if (nzchar(only)) jobs <- jobs[jobs$set %in% strsplit(only, ",")[[1]], ]
  # a set x split is done when its last row (default) is there
  done <- if (file.exists(out_csv)) {
    old <- utils::read.csv(out_csv)
    unique(paste(old$set, old$split)[old$method == "default"])
  } else character()
  for (j in seq_len(nrow(jobs))) {
    if (paste(jobs$set[j], jobs$split[j]) %in% done) next
    tryCatch(run_job(jobs$set[j], jobs$split[j]),
             error = function(e) cat("ERROR", jobs$set[j], jobs$split[j], conditionMessage(e), "\n"))
  }
}
print(summarise_panel())

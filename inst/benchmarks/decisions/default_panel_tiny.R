# More splits for the tiny sets of the default panel.
#
# default_panel.R scores each set under 100 rows on 5 random 80/20 splits:
# on 30-50 rows that is 6-10 test points per split, 30-50 in all, so the
# 90% coverage and the mean test log density have large Monte Carlo error
# (on attitude even lm's exact t predictive covers 100% of the 30 test
# points of splits 1-5).  This script scores the default call
# bnn_fit(y ~ ., data = train, seed = seed) and lm (flat-prior t predictive,
# as in default_panel.R) on further splits of the same sets, with the same
# split seeds (1000 * split + the set's index in default_panel.R), the same
# scores on the response scale, and appends rows to default_panel_tiny.csv.
# The thresholds are default_panel.R's, unchanged.
#   Rscript inst/benchmarks/decisions/default_panel_tiny.R <sets> <splits> [out.csv]
#   e.g. ... default_panel_tiny.R attitude,trees,hills,swiss,cars,LifeCycleSavings 6:20
# Splits 1-5 of the default are those of default_panel.csv.gz (gaussian_fanin);
# this script reproduces them exactly (checked on trees, attitude and cars).
# `Rscript default_panel_tiny.R summary` writes default_panel_tiny_summary.csv:
# per set, splits 1-5 from default_panel.csv.gz (gaussian_fanin and lm rows)
# with the rows of default_panel_tiny.csv; coverage pooled over test points.
#
# Committed run (under nice, 2 shared cores):
#   ... default_panel_tiny.R attitude,trees,hills,swiss,cars,LifeCycleSavings 6:20
# i.e. splits 6-20 of the six sets the default missed in default_panel.csv.gz
# (PARTIAL: the other 16 sets keep their 3-5 splits).  Over 20 splits
# (120-200 test points per set) the 90% coverage is in [0.80, 0.98] on all
# six (attitude 0.958, hills 0.964: the 1.00 of 5 splits was the noise of
# 30-35 test points; lm's exact t intervals also covered 1.00 on attitude's
# first 5 splits), but the test log density is below lm's by more than 0.05
# on all six (attitude -0.128, cars -0.071, hills -0.118 (se 0.139; +0.344
# on splits 1-5), LifeCycleSavings -0.062, swiss -0.140, trees -0.221).
# No predictive draw beyond 25 response sds; every fit of splits 6-20
# passed its convergence verdict; 8-18 s a fit.
#
# With the default's check against a linear model (R/fit-choice.R; beside
# a protein MILE run):
#   ... default_panel_tiny.R attitude,trees,hills,swiss,cars,LifeCycleSavings 6:20
# writes default_panel_tiny_choice.csv (column `chosen`), and
# `Rscript default_panel_tiny.R summary-choice` writes
# default_panel_tiny_choice_summary.csv (splits 1-5 from default_panel.csv.gz's
# `default` rows).  The linear model was returned on all 20 splits of all
# six sets; test log density minus lm's -0.012 to +0.026, 90% coverage
# 0.88-0.97 (attitude 0.93 over 120 test points), draws within 6 sds:
# all three thresholds met on all six.
suppressPackageStartupMessages(library(bnnmc))
args <- commandArgs(trailingOnly = TRUE)
if (args[1] %in% c("summary", "summary-choice")) {
  # summary: the network alone (gaussian_fanin, default_panel_tiny.csv);
  # summary-choice: the default with its check against the linear model
  # (method default, default_panel_tiny_choice.csv)
  choice <- identical(args[1], "summary-choice")
  dd <- file.path("inst", "benchmarks", "decisions")
  p <- utils::read.csv(file.path(dd, "default_panel.csv.gz"))
  p <- p[!duplicated(p[c("set", "split", "method")], fromLast = TRUE), ]
  t <- utils::read.csv(file.path(dd, if (choice) "default_panel_tiny_choice.csv" else
                                   "default_panel_tiny.csv"))
  if (!choice) t$chosen <- NA_character_
  t$source <- "default_panel_tiny.csv"
  a <- merge(p[p$method == (if (choice) "default" else "gaussian_fanin") & p$set %in% t$set,
               c("set", "n", "n_test", "split", "seed", "lpd", "cov50", "cov90", "max_dist", "time")],
             stats::setNames(p[p$method == "lm", c("set", "split", "lpd", "cov90")],
                             c("set", "split", "lm_lpd", "lm_cov90")))
  a$lpd_vs_lm <- a$lpd - a$lm_lpd
  a$converged <- NA
  a$chosen <- if (choice) sub(" .*", "", p$chosen[match(paste(a$set, a$split, "default"),
                                                      paste(p$set, p$split, p$method))]) else
    NA_character_
  a$source <- "default_panel.csv.gz"
  all <- rbind(a[names(t)], t)
  s <- do.call(rbind, lapply(split(all, all$set), function(x) data.frame(
    set = x$set[1], n = x$n[1], splits = nrow(x), test_points = sum(x$n_test),
    lpd_vs_lm = mean(x$lpd_vs_lm), lpd_vs_lm_se = stats::sd(x$lpd_vs_lm) / sqrt(nrow(x)),
    cov90 = sum(x$cov90 * x$n_test) / sum(x$n_test),
    lm_cov90 = sum(x$lm_cov90 * x$n_test) / sum(x$n_test),
    cov90_first5 = with(x[x$split <= 5, ], sum(cov90 * n_test) / sum(n_test)),
    lpd_vs_lm_first5 = mean(x$lpd_vs_lm[x$split <= 5]),
    max_dist = max(x$max_dist), converged_of_new = sum(x$converged, na.rm = TRUE),
    time = mean(x$time), linear_chosen = sum(x$chosen == "linear", na.rm = TRUE))))
  s$pass_lpd <- s$lpd_vs_lm >= -0.05
  s$pass_cov90 <- s$cov90 >= 0.8 & s$cov90 <= 0.98
  s$pass_dist <- s$max_dist <= 50
  s$pass_all <- s$pass_lpd & s$pass_cov90 & s$pass_dist
  num <- vapply(s, is.double, logical(1))
  s[num] <- lapply(s[num], signif, 4)
  utils::write.csv(s, file.path(dd, if (choice) "default_panel_tiny_choice_summary.csv" else
                                   "default_panel_tiny_summary.csv"), row.names = FALSE)
  print(s, row.names = FALSE)
  quit(save = "no")
}
sets_i <- c(mtcars = 1, trees = 2, attitude = 3, hills = 4, swiss = 5, UScrime = 6, rock = 7,
            LifeCycleSavings = 8, cars = 9)
getd <- list(
  mtcars = function() transform(mtcars, y = mpg, mpg = NULL),
  trees = function() transform(trees, y = Volume, Volume = NULL),
  attitude = function() transform(attitude, y = rating, rating = NULL),
  hills = function() transform(MASS::hills, y = time, time = NULL),
  swiss = function() transform(swiss, y = Fertility, Fertility = NULL),
  UScrime = function() MASS::UScrime,
  rock = function() transform(rock, y = perm, perm = NULL),
  LifeCycleSavings = function() transform(LifeCycleSavings, y = sr, sr = NULL),
  cars = function() transform(cars, y = dist, dist = NULL))
sets <- strsplit(args[1], ",")[[1]]
splits <- eval(parse(text = args[2]))
out <- if (length(args) >= 3) args[3] else
  file.path("inst", "benchmarks", "decisions", "default_panel_tiny_choice.csv")
lme <- function(x) { m <- max(x); m + log(mean(exp(x - m))) }
cover <- function(dr, y, lv) {
  a <- (1 - lv) / 2
  mean(y >= apply(dr, 2, stats::quantile, a) & y <= apply(dr, 2, stats::quantile, 1 - a))
}
for (sp in splits) for (s in sets) {
  d <- getd[[s]]()
  rownames(d) <- NULL
  seed <- 1000L * sp + sets_i[[s]]
  set.seed(seed)
  idx <- sample(nrow(d), round(0.8 * nrow(d)))
  train <- d[idx, ]
  test <- d[-idx, ]
  m <- stats::lm(y ~ ., train)
  pr <- stats::predict(m, test, se.fit = TRUE)
  sc <- sqrt(pr$se.fit^2 + summary(m)$sigma^2)
  lm_lpd <- mean(stats::dt((test$y - pr$fit) / sc, m$df.residual, log = TRUE) - log(sc))
  lm_cov90 <- mean(abs(test$y - pr$fit) <= stats::qt(0.95, m$df.residual) * sc)
  t0 <- proc.time()[[3]]
  fit <- suppressMessages(suppressWarnings(
    bnn_fit(y ~ ., data = train, seed = seed, progress = FALSE)))
  el <- proc.time()[[3]] - t0
  lpd <- mean(apply(log_lik(fit, newdata = test), 2, lme))
  pp <- posterior_predict(fit, newdata = test, seed = seed)
  r <- data.frame(set = s, n = nrow(d), n_test = nrow(test), split = sp, seed = seed,
                  lpd = lpd, lm_lpd = lm_lpd, lpd_vs_lm = lpd - lm_lpd,
                  cov50 = cover(pp, test$y, 0.5), cov90 = cover(pp, test$y, 0.9),
                  lm_cov90 = lm_cov90,
                  max_dist = max(abs(sweep(pp, 2, apply(pp, 2, stats::median))) / stats::sd(train$y)),
                  converged = isTRUE(fit$convergence$converged), time = el,
                  chosen = if (is.null(fit$model_choice)) NA_character_ else
                    fit$model_choice$model[fit$model_choice$chosen])
  cat(sprintf("%s split %d: lpd - lm %.3f, cov90 %.2f (lm %.2f), %.1fs\n", s, sp,
              r$lpd_vs_lm, r$cov90, lm_cov90, el))
  utils::write.table(r, out, sep = ",", row.names = FALSE, col.names = !file.exists(out),
                     append = file.exists(out))
}

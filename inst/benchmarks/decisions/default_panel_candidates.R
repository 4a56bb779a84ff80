# Candidate small-data defaults on the tiny near-linear sets (issue #23,
# item B), scored as default_panel.R on its split seeds:
#   Rscript default_panel_candidates.R <sets> <splits> "<named list of candidates: bnn_fit args>" out.csv
# default_panel_candidates.csv (2026-11-26, branch def, under nice):
#   ... trees,attitude,cars 1:5 'list(def = list(), lin = list(activation = "identity",
#       prior = bnn_prior(fan_in = TRUE)), s05 = list(prior = bnn_prior(fan_in = TRUE, scale = 0.5)))'
# def = the default call (reproduces default_panel.csv's gaussian_fanin rows
# exactly: mean lpd - lm -0.178 / -0.085 / -0.369 on attitude / cars / trees);
# lin = the same network with the identity activation (a linear model with a
# product-of-normals prior on its coefficients): -0.109 / -0.019 / -0.344;
# s05 = the weights' prior scale halved: -0.471 / -0.401 / -1.291 (worse);
# choosing def or lin per split by PSIS-LOO on the training data (the loo
# column): -0.105 / -0.065 / -0.369 -- PSIS-LOO prefers the tanh network on
# trees and most cars splits although the linear one predicts better, with
# many Pareto k > 0.7 on 24-40 training rows.  No candidate meets the
# 0.05 threshold on trees or attitude; lm's own 90% coverage on attitude is
# 1.00 on all 5 splits (6 test points each).
suppressPackageStartupMessages(library(bnnmc))
args <- commandArgs(TRUE)
sets_i <- c(mtcars=1, trees=2, attitude=3, hills=4, swiss=5, UScrime=6, rock=7, LifeCycleSavings=8, cars=9)
getd <- list(trees = function() transform(trees, y = Volume, Volume = NULL),
  attitude = function() transform(attitude, y = rating, rating = NULL),
  hills = function() transform(MASS::hills, y = time, time = NULL),
  swiss = function() transform(swiss, y = Fertility, Fertility = NULL),
  LifeCycleSavings = function() transform(LifeCycleSavings, y = sr, sr = NULL),
  cars = function() transform(cars, y = dist, dist = NULL),
  mtcars = function() transform(mtcars, y = mpg, mpg = NULL),
  rock = function() transform(rock, y = perm, perm = NULL))
sets <- strsplit(args[1], ",")[[1]]; splits <- eval(parse(text = args[2]))
cands <- eval(parse(text = args[3]))   # named list of extra bnn_fit args
out <- args[4]
lme <- function(x) { m <- max(x); m + log(mean(exp(x - m))) }
cover <- function(dr, y, lv = 0.9) { a <- (1 - lv)/2; lo <- apply(dr, 2, quantile, a); hi <- apply(dr, 2, quantile, 1 - a); mean(y >= lo & y <= hi) }
for (s in sets) for (sp in splits) {
  d <- getd[[s]](); rownames(d) <- NULL
  seed <- 1000L * sp + sets_i[[s]]; set.seed(seed)
  idx <- sample(nrow(d), round(0.8 * nrow(d))); train <- d[idx, ]; test <- d[-idx, ]
  m <- lm(y ~ ., train); pr <- predict(m, test, se.fit = TRUE); sc <- sqrt(pr$se.fit^2 + summary(m)$sigma^2)
  lm_lpd <- mean(dt((test$y - pr$fit)/sc, m$df.residual, log = TRUE) - log(sc))
  lm_cov <- mean(abs(test$y - pr$fit) <= qt(0.95, m$df.residual) * sc)
  for (cn in names(cands)) {
    t0 <- proc.time()[[3]]
    fit <- suppressMessages(suppressWarnings(do.call(bnn_fit, c(list(y ~ ., data = train, seed = seed, progress = FALSE), cands[[cn]]))))
    el <- proc.time()[[3]] - t0
    ll <- log_lik(fit, newdata = test); lpd <- mean(apply(ll, 2, lme))
    pp <- posterior_predict(fit, newdata = test, seed = seed)
    lo <- suppressWarnings(loo::loo(fit))
    r <- data.frame(set = s, split = sp, cand = cn, lpd = lpd, lm_lpd = lm_lpd, d_lpd = lpd - lm_lpd,
      cov90 = cover(pp, test$y), lm_cov90 = lm_cov, loo = lo$estimates["elpd_loo", 1],
      conv = isTRUE(fit$convergence$converged), time = el,
      maxdist = max(abs(sweep(pp, 2, apply(pp, 2, median))) / sd(train$y)))
    cat(sprintf("%s %d %-10s dlpd=%.3f cov=%.2f loo=%.1f conv=%s %.1fs\n", s, sp, cn, r$d_lpd, r$cov90, r$loo, r$conv, el))
    write.table(r, out, sep = ",", row.names = FALSE, col.names = !file.exists(out), append = file.exists(out))
  }
}

# Candidate small-data defaults on the tiny near-linear sets, scored as
# default_panel.R on its split seeds:
#   Rscript default_panel_candidates.R <sets> <splits> "<named list of candidates: bnn_fit args>" out.csv
# default_panel_candidates.csv (under nice):
#   ... trees,attitude,cars 1:5 'list(def = list(), lin = list(activation = "identity",
#       prior = bnn_prior(fan_in = TRUE)), s05 = list(prior = bnn_prior(fan_in = TRUE, scale = 0.5)))'
# def = the default call (reproduces default_panel.csv.gz's gaussian_fanin rows
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
#
# Exact sampling (beside a protein MILE run, 2 shared cores):
#   ... trees,attitude,cars,hills,swiss,LifeCycleSavings 1:10 'list(nuts = list(sampler = "nuts"))'
#   ... (the same sets and splits) 'list(nlin = list(sampler = "nuts", activation = "identity",
#       prior = bnn_prior(fan_in = TRUE)))'
# nuts = the default network and prior sampled by NUTS (no MCLMC bias);
# nlin = the identity-activation network (a linear model) sampled by NUTS.
# `Rscript default_panel_candidates.R summary` writes
# default_panel_candidates_summary.csv: per set and candidate over splits
# 1-10, the mean test log density minus lm's (with its standard error and
# worst split), the 90% coverage, the largest predictive distance in
# response sds and the seconds per fit; `default` is the default call on the
# same splits (default_panel.csv.gz and default_panel_tiny.csv) and
# `loo_pick` takes nuts or nlin per split, whichever has the larger PSIS-LOO
# elpd on the training rows.  What it shows (lpd - lm):
#   * the exact linear model is within the threshold on all six sets (-0.028
#     to +0.036): a linear model, sampled exactly, is as good as lm's t
#     predictive, so the MCLMC "lin" runs above lost 0.1-0.3 to MCLMC's
#     bias on a model with 300 parameters and 25-40 rows;
#   * the tanh network sampled exactly is not (-0.05 to -0.23): on 25 to 40
#     near-linear rows the gap is the nonlinear model's, not the sampler's;
#     NUTS is also over-confident on single splits (hills split 5: 90%
#     coverage 0.29, lpd -2.26; swiss split 5: 0.56, -1.04), where MCLMC's
#     wider predictive was not;
#   * PSIS-LOO on the training rows picks the tanh network on 8-10 of 10
#     splits of trees and hills, where the linear model predicts better, so
#     choosing by it (loo_pick) still misses on four sets.
# A remedy this points to (not built): a linear term beside the network
# (a skip connection from inputs to output), sampled without MCLMC's bias
# on small data.
suppressPackageStartupMessages(library(bnnmc))
args <- commandArgs(TRUE)
if (identical(args[1], "summary")) {
  dd <- file.path("inst", "benchmarks", "decisions")
  rd <- function(f) utils::read.csv(file.path(dd, f))
  cs <- rd("default_panel_candidates.csv")
  cs <- cs[cs$cand %in% c("nuts", "nlin"), ]
  keys <- unique(cs[c("set", "split")])
  p <- rd("default_panel.csv.gz")
  p <- p[!duplicated(p[c("set", "split", "method")], fromLast = TRUE), ]
  lmv <- stats::setNames(p[p$method == "lm", c("set", "split", "lpd")], c("set", "split", "lm_lpd"))
  a <- merge(p[p$method == "gaussian_fanin", c("set", "split", "lpd", "cov90", "max_dist", "time")], lmv)
  t <- rd("default_panel_tiny.csv")
  def <- rbind(data.frame(set = a$set, split = a$split, cand = "default", d_lpd = a$lpd - a$lm_lpd,
                          cov90 = a$cov90, maxdist = a$max_dist, time = a$time),
               data.frame(set = t$set, split = t$split, cand = "default", d_lpd = t$lpd_vs_lm,
                          cov90 = t$cov90, maxdist = t$max_dist, time = t$time))
  w <- merge(cs[cs$cand == "nuts", ], cs[cs$cand == "nlin", ], by = c("set", "split"),
             suffixes = c("", ".l"))
  lin <- w$loo.l > w$loo
  pick <- data.frame(set = w$set, split = w$split, cand = "loo_pick",
                     d_lpd = ifelse(lin, w$d_lpd.l, w$d_lpd), cov90 = ifelse(lin, w$cov90.l, w$cov90),
                     maxdist = ifelse(lin, w$maxdist.l, w$maxdist), time = w$time + w$time.l)
  all <- rbind(merge(def, keys), cs[names(def)], pick)
  s <- do.call(rbind, lapply(split(all, list(all$set, all$cand), drop = TRUE), function(x) data.frame(
    set = x$set[1], candidate = x$cand[1], splits = nrow(x), lpd_vs_lm = mean(x$d_lpd),
    lpd_vs_lm_se = stats::sd(x$d_lpd) / sqrt(nrow(x)), worst_split = min(x$d_lpd),
    cov90 = mean(x$cov90), max_dist = max(x$maxdist), time = mean(x$time),
    pass_lpd = mean(x$d_lpd) >= -0.05)))
  s <- s[order(s$set, match(s$candidate, c("default", "nuts", "nlin", "loo_pick"))), ]
  utils::write.csv(s, file.path(dd, "default_panel_candidates_summary.csv"), row.names = FALSE)
  print(s, digits = 3, row.names = FALSE)
  quit(save = "no")
}
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

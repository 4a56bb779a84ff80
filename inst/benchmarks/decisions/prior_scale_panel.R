# The prior's scale on small data: today's default against wider fan-in
# priors, with the non-network references (and BART on Friedman) fitted on
# the same rows in the same run.  Evidence only: the default is not changed.
#
# Candidates, each fitted with seed 1 (the panel's seed on its sets):
#   * default: bnn_fit(y ~ ., data = train, seed = seed), the default call
#     (weights Normal(0, 1/fan-in), biases Normal(0, 1); on at most 200
#     rows stacked with the linear model, on 201 to 2,000 rows of a
#     continuous response stacked with the heteroscedastic network);
#   * scaleS: prior = bnn_prior(scale = S, fan_in = TRUE) given to bnn_fit(),
#     what a user following the check's advice types.  Giving `prior`
#     switches off both of the default's stacks (?bnn_default, "The
#     default model's check"), and bnn_prior(scale = S) widens the biases' prior to
#     Normal(0, S^2) as well as the weights' to Normal(0, S^2/fan-in);
#   * default_alone: prior = bnn_prior(fan_in = TRUE), today's prior given
#     the same way (no stack): the like-for-like baseline of scaleS;
#   * scaleS_in_default: the default call with bnn_prior(scale = S, fan_in =
#     TRUE) in place of the default's prior and everything else as the
#     default (its stacks; the linear model and the heteroscedastic network
#     keep their own priors), by replacing bnnmc's internal default_prior()
#     for the fit: the like-for-like comparison with the default.
# References on the same rows: lm() and mgcv::gam() (REML, as
# default_panel.R: Student-t / Gaussian predictive, exact 90% intervals),
# loess() and smooth.spline() test RMSE (as adequacy_panel.R), and on
# Friedman dbarts::bart() (200 trees, 4 chains of 500 + 2,000, one thread;
# speed/default_sets.R).
# Sets, in this order (most informative first):
#   (a) mcycle, the README's splits bnn_split(mcycle, "mile", seed = k),
#       k = 1..10;
#   (b) yacht, energy, concrete, airfoil on their benchmark split
#       (speed/default_sets.R, default_bench_split());
#   (c) Friedman's function, 10 inputs of which 5 are used, noise sd 1,
#       1,000 training and 2,000 test rows, data seeds 1 and 2;
#   (d) split 1 of the 22 regression sets of default_panel.R.
# Per set and candidate: test RMSE (posterior predictive mean), test LPPD
# (mean log predictive density per test point), 90% coverage, elapsed
# seconds of the fit, the model returned and whether the verdict's "model
# fit" part (fit$convergence$adequacy) fired.  One core
# (options(bnnmc.threads = 1, mc.cores = 1)).  The CSV is rewritten after
# every row with run = "partial", and with run = "complete" at the end.
#
#   BNNMC_DATA_DIR=/work/shared/data/uci \
#     Rscript inst/benchmarks/decisions/prior_scale_panel.R [groups] [candidates] [seed]
# groups: comma-separated of mcycle,uci,friedman,panel (default all);
# candidates: comma-separated names as above (default: default, scale3,
# scale3_in_default, default_alone, scale2_in_default, scale2); seed: the
# fits' seed (default 1, and the panel's own seeds on its sets); another
# seed writes prior_scale_panel_seed<seed>.csv.gz (the spread between seeds
# of the same candidate, against which the differences are read).
# Seconds of lm and gam include drawing their 4,000 predictive draws for
# scoring (default_panel.R's fit_lm() and fit_gam()).

source(file.path("inst", "benchmarks", "decisions", "prior_panel_sets.R"))                 # sets, references
panel <- panel_definitions(dir)                       # sets, fit_lm(), fit_gam()
refs <- panel_definitions(dir, "adequacy_panel.R")    # reference_rmse()
uci_dir <- Sys.getenv("BNNMC_DATA_DIR", "/work/shared/data/uci")
args <- commandArgs(trailingOnly = TRUE)
groups <- bench_list_arg(args, 1L, c("mcycle", "uci", "friedman", "panel"))
candidates <- bench_list_arg(args, 2L, c("default", "scale3", "scale3_in_default",
                                         "default_alone", "scale2_in_default", "scale2"))
fit_seed <- if (length(args) >= 3L) as.integer(args[3L]) else 1L
out_csv <- file.path(dir, if (fit_seed == 1L) "prior_scale_panel.csv.gz" else
                       sprintf("prior_scale_panel_seed%d.csv.gz", fit_seed))  # gzip: keeps the installed package small

rmse <- function(y, m) sqrt(mean((y - m)^2))

# The default call with `prior` in place of the default's prior: bnnmc's
# default_prior() replaced for the fit by one that returns `prior` where
# the original returns the fan-in prior of a network (hidden layers given
# to prepare_model(), its caller); the linear model of the check and the
# heteroscedastic network keep theirs.
with_default_prior <- function(prior, f) {
  ns <- asNamespace("bnnmc")
  orig <- get("default_prior", ns)
  repl <- function(y, likelihood, lik = NULL) {
    p <- orig(y, likelihood, lik)
    hidden <- get("hidden", envir = parent.frame())
    if (isTRUE(p$fan_in) && length(hidden)) prior else p
  }
  unlockBinding("default_prior", ns)
  assign("default_prior", repl, envir = ns)
  on.exit({
    assign("default_prior", orig, envir = ns)
    lockBinding("default_prior", ns)
  })
  f()
}

candidate_fit <- function(name, train, seed) {
  call <- function(...) bnn_fit(y ~ ., data = train, seed = seed, progress = FALSE, ...)
  scale <- suppressWarnings(as.numeric(sub("^scale([0-9.]+).*$", "\\1", name)))
  switch(name,
         default = call(),
         default_alone = call(prior = bnn_prior(fan_in = TRUE)),
         if (grepl("_in_default$", name))
           with_default_prior(bnn_prior(scale = scale, fan_in = TRUE), call)
         else call(prior = bnn_prior(scale = scale, fan_in = TRUE)))
}

row_of <- function(set, group, split, seed, train, test, method, rmse, lppd = NA_real_,
                   cov90 = NA_real_, seconds = NA_real_, returned = NA_character_,
                   fired = NA)
  data.frame(set = set, group = group, split = split, fit_seed = seed, n_train = nrow(train),
             inputs = ncol(train) - 1L, method = method, rmse = rmse, lppd = lppd,
             cov90 = cov90, seconds = seconds, returned = returned, adequacy_fired = fired,
             stringsAsFactors = FALSE)

rows <- list()
add <- function(x, run = "partial") {
  rows[[length(rows) + 1L]] <<- x
  print(x[, c("set", "split", "method", "rmse", "lppd", "cov90", "seconds", "returned",
              "adequacy_fired")], row.names = FALSE, digits = 4)
  res <- do.call(rbind, rows)
  res$run <- run
  utils::write.csv(res, gzfile(out_csv), row.names = FALSE)
}

run_set <- function(set, group, split, train, test, seed, bart = FALSE) {
  for (nm in candidates) {
    t0 <- proc.time()[[3]]
    fit <- suppressMessages(suppressWarnings(candidate_fit(nm, train, seed)))
    sec <- proc.time()[[3]] - t0
    m <- bnn_metrics(fit, newdata = test)
    ad <- fit$convergence$adequacy
    add(row_of(set, group, split, seed, train, test, nm,
               rmse = rmse(test$y, as.vector(predict(fit, test))), lppd = m$lppd,
               cov90 = m$coverage_90, seconds = sec,
               returned = if (!is.null(fit$mixture)) "stack" else
                 if (!length(fit$hidden)) "linear" else "network",
               fired = if (is.null(ad)) NA else !isTRUE(ad$adequate)))
  }
  # the references on the same rows
  rr <- reference_rows(train, test, panel, refs, bart)
  for (i in seq_len(NROW(rr)))
    add(row_of(set, group, split, seed, train, test, rr$method[i], rr$rmse[i], rr$lppd[i],
               rr$cov90[i], rr$seconds[i]))
}

prior_panel_sets(groups, fit_seed, run_set, panel, uci_dir)

res <- do.call(rbind, rows)
res$run <- "complete"
utils::write.csv(res, gzfile(out_csv), row.names = FALSE)

# Differences against the default on each set and split (candidate minus
# default), and mcycle's ratios to smooth.spline()
def <- res[res$method == "default", ]
cand <- res[res$method %in% setdiff(candidates, "default"), ]
i <- match(paste(cand$set, cand$split), paste(def$set, def$split))
cand$d_lppd <- cand$lppd - def$lppd[i]
cand$rmse_ratio <- cand$rmse / def$rmse[i]
if (nrow(cand) && any(is.finite(cand$d_lppd)))
  print(stats::aggregate(cbind(d_lppd, rmse_ratio) ~ method + group, cand, mean), digits = 3)
sp <- res[res$method == "smooth_spline", ]
mcy <- res[res$group == "mcycle" & res$method %in% candidates, ]
if (nrow(mcy)) {
  mcy$ratio_spline <- mcy$rmse / sp$rmse[match(paste(mcy$set, mcy$split),
                                               paste(sp$set, sp$split))]
  print(stats::aggregate(ratio_spline ~ method, mcy, function(r)
    c(split1 = r[1], within15 = sum(r <= 1.15), mean = mean(r))), digits = 3)
}

# The default's choice of the prior's scale (R/fit-choice.R,
# choose_wider_prior()): where the verdict's model-fit check finds
# structure the default's fit left, the default also fits the network with
# a prior three times wider and keeps one of the two.  This panel runs the
# default (the step included) and the previous default
# (options(bnnmc.prior_check = FALSE)) with the non-network references and
# BART on Friedman fitted on the same rows in the same run, on the sets of
# prior_scale_panel.R: (a) mcycle, the README's ten splits, (b) yacht,
# energy, concrete and airfoil on their benchmark split, (c) Friedman's
# function, 1,000 training and 2,000 test rows, data seeds 1 and 2, (d)
# split 1 of the 22 regression sets of default_panel.R.  Where the check
# is quiet the step is not taken and the two calls give the same fit (the
# same draws): the previous default's row then repeats the default's
# figures with `refit = FALSE` instead of fitting it again.
# Per set: test RMSE (posterior predictive mean), test LPPD, 90% coverage,
# elapsed seconds, the model returned, whether the check fired on the
# default's fit and which prior the step kept.  One core
# (options(bnnmc.threads = 1, mc.cores = 1)).  Rewritten after every row
# (run = "partial"), run = "complete" at the end.
#
#   BNNMC_DATA_DIR=/work/shared/data/uci \
#     Rscript inst/benchmarks/decisions/prior_step_panel.R [groups] [seed]
# groups: comma-separated of mcycle,uci,friedman,panel (default all); seed:
# the fits' seed (default 1, and the panel's own seeds on its sets);
# another seed writes prior_step_panel_seed<seed>.csv.gz.

source(file.path("inst", "benchmarks", "decisions", "prior_panel_sets.R"))                 # sets, references
panel <- panel_definitions(dir)                       # sets, fit_lm(), fit_gam()
refs <- panel_definitions(dir, "adequacy_panel.R")    # reference_rmse()
uci_dir <- Sys.getenv("BNNMC_DATA_DIR", "/work/shared/data/uci")
args <- commandArgs(trailingOnly = TRUE)
groups <- bench_list_arg(args, 1L, c("mcycle", "uci", "friedman", "panel"))
candidates <- c("default", "previous_default")
fit_seed <- if (length(args) >= 2L) as.integer(args[2L]) else 1L
out_csv <- file.path(dir, if (fit_seed == 1L) "prior_step_panel.csv.gz" else
                       sprintf("prior_step_panel_seed%d.csv.gz", fit_seed))  # gzip: keeps the installed package small

rmse <- function(y, m) sqrt(mean((y - m)^2))

fit_default <- function(train, seed, step = TRUE) {
  old <- options(bnnmc.prior_check = step)
  on.exit(options(old))
  bnn_fit(y ~ ., data = train, seed = seed, progress = FALSE)
}

row_of <- function(set, group, split, seed, train, test, method, rmse, lppd = NA_real_,
                   cov90 = NA_real_, seconds = NA_real_, returned = NA_character_,
                   fired = NA, kept = NA_character_, refit = NA)
  data.frame(set = set, group = group, split = split, fit_seed = seed, n_train = nrow(train),
             inputs = ncol(train) - 1L, method = method, rmse = rmse, lppd = lppd,
             cov90 = cov90, seconds = seconds, returned = returned, adequacy_fired = fired,
             prior_kept = kept, refit = refit, stringsAsFactors = FALSE)

rows <- list()
add <- function(x, run = "partial") {
  rows[[length(rows) + 1L]] <<- x
  print(x[, c("set", "split", "method", "rmse", "lppd", "cov90", "seconds", "returned",
              "adequacy_fired", "prior_kept")], row.names = FALSE, digits = 4)
  res <- do.call(rbind, rows)
  res$run <- run
  utils::write.csv(res, gzfile(out_csv), row.names = FALSE)
}

run_set <- function(set, group, split, train, test, seed, bart = FALSE) {
  score <- function(fit, method, sec, refit) {
    m <- bnn_metrics(fit, newdata = test)
    ad <- fit$convergence$adequacy
    wp <- ad$wider_prior
    # the check's verdict on the default's fit: with the step taken, it
    # fired (the record is kept in the returned fit's verdict)
    fired <- if (!is.null(wp)) TRUE else if (is.null(ad)) NA else !isTRUE(ad$adequate)
    row_of(set, group, split, seed, train, test, method,
           rmse = rmse(test$y, as.vector(predict(fit, test))), lppd = m$lppd,
           cov90 = m$coverage_90, seconds = sec,
           returned = if (!is.null(fit$mixture)) "stack" else
             if (!length(fit$hidden)) "linear" else "network",
           fired = fired, kept = if (is.null(wp)) NA_character_ else wp$chosen, refit = refit)
  }
  t0 <- proc.time()[[3]]
  fit <- suppressMessages(suppressWarnings(fit_default(train, seed)))
  r <- score(fit, "default", proc.time()[[3]] - t0, TRUE)
  add(r)
  if (!is.null(fit$convergence$adequacy$wider_prior)) {
    t0 <- proc.time()[[3]]
    prev <- suppressMessages(suppressWarnings(fit_default(train, seed, step = FALSE)))
    add(score(prev, "previous_default", proc.time()[[3]] - t0, TRUE))
  } else {
    r$method <- "previous_default"
    r$refit <- FALSE
    add(r)
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

# The default against the previous default where the step was taken, and
# mcycle's ratios to smooth.spline()
def <- res[res$method == "default", ]
prev <- res[res$method == "previous_default", ]
i <- match(paste(def$set, def$split), paste(prev$set, prev$split))
def$d_lppd <- def$lppd - prev$lppd[i]
def$rmse_ratio_prev <- def$rmse / prev$rmse[i]
print(def[def$adequacy_fired %in% TRUE, c("set", "split", "prior_kept", "rmse", "rmse_ratio_prev",
                                          "d_lppd", "seconds")], digits = 3, row.names = FALSE)
cat(sprintf("the step taken on %d of %d fits; kept the wider prior on %d\n",
            sum(def$adequacy_fired %in% TRUE), nrow(def), sum(def$prior_kept %in% "wider")))
sp <- res[res$method == "smooth_spline", ]
mcy <- res[res$group == "mcycle" & res$method %in% candidates, ]
if (nrow(mcy)) {
  mcy$ratio_spline <- mcy$rmse / sp$rmse[match(paste(mcy$set, mcy$split),
                                               paste(sp$set, sp$split))]
  print(stats::aggregate(ratio_spline ~ method, mcy, function(r)
    c(split1 = r[1], within10 = sum(r <= 1.10), within15 = sum(r <= 1.15), mean = mean(r))),
    digits = 3)
}

# The wider prior's fit of the default's prior step (R/fit-choice.R,
# wider_prior_plan()) started where the default's chains ended, with their
# step size and L and a fifth of the tuning, against the same fit started
# from a deep ensemble with the full tuning (what the step ran before).
# On the sets of prior_step_panel.R where the step is taken: mcycle on the
# README's ten splits and split 1 of the 22 regression sets of
# default_panel.R (the step fires on mcycle and trees there; the sets where
# it does not fire give the same fit either way and get one row,
# `fired = FALSE`).  Per set where it fires:
#   default        the default call as it is now (the warm-started step);
#                  `seconds` the whole call, `second_fit` the step's part
#   wider_full     bnn_fit() with the wider prior given (the deep ensemble
#                  and the full tuning, as the step ran it before), alone
#   first_fit      the default without the step
#                  (options(bnnmc.prior_check = FALSE)): its time plus
#                  wider_full's is the previous default's time
#   smooth_spline  test RMSE of smooth.spline() (one input only)
# One core (options(bnnmc.threads = 1, mc.cores = 1)); rewritten after
# every set (run = "partial"), run = "complete" at the end; written to
# wider_prior_warm.csv.gz.
#
#   Rscript inst/benchmarks/decisions/wider_prior_warm.R [groups]
# groups: comma-separated of mcycle,panel (default both).

source(file.path("inst", "benchmarks", "decisions", "prior_panel_sets.R"))
panel <- panel_definitions(dir)
args <- commandArgs(trailingOnly = TRUE)
groups <- bench_list_arg(args, 1L, c("mcycle", "panel"))
out_csv <- file.path(dir, "wider_prior_warm.csv.gz")  # gzip: keeps the installed package small
quiet <- function(e) suppressMessages(suppressWarnings(e))

rows <- list()
add <- function(x) {
  rows[[length(rows) + 1L]] <<- x
  print(x, row.names = FALSE, digits = 4)
  res <- do.call(rbind, rows)
  res$run <- "partial"
  utils::write.csv(res, gzfile(out_csv), row.names = FALSE)
}
row_of <- function(set, split, method, fired, rmse = NA_real_, lppd = NA_real_,
                   cov90 = NA_real_, seconds = NA_real_, second_fit = NA_real_,
                   kept = NA_character_, reliable = NA)
  data.frame(set = set, split = split, method = method, fired = fired, rmse = rmse,
             lppd = lppd, cov90 = cov90, seconds = seconds, second_fit = second_fit,
             prior_kept = kept, reliable = reliable, stringsAsFactors = FALSE)

run_set <- function(set, group, split, train, test, seed, bart = FALSE) {
  timed <- function(e) {
    t0 <- proc.time()[[3]]
    f <- quiet(e)
    list(fit = f, seconds = proc.time()[[3]] - t0)
  }
  score <- function(f, method, seconds, second = NA_real_, kept = NA_character_) {
    m <- bnn_metrics(f, newdata = test)
    row_of(set, split, method, TRUE, sqrt(mean((test$y - as.vector(predict(f, test)))^2)),
           m$lppd, m$coverage_90, seconds, second, kept,
           isTRUE(f$convergence$predictions$reliable))
  }
  d <- timed(bnn_fit(y ~ ., data = train, seed = seed, progress = FALSE))
  wp <- d$fit$convergence$adequacy$wider_prior
  if (is.null(wp)) return(add(row_of(set, split, "default", FALSE, seconds = d$seconds)))
  add(score(d$fit, "default", d$seconds, wp$seconds, wp$chosen))
  # the step's network (the default's, also where the linear check returned
  # the linear model, as on trees)
  hidden <- if (length(d$fit$hidden)) d$fit$hidden else c(16L, 16L)
  w <- timed(bnn_fit(y ~ ., data = train, seed = seed, progress = FALSE,
                     hidden = hidden, prior = wp$prior))
  add(score(w$fit, "wider_full", w$seconds))
  old <- options(bnnmc.prior_check = FALSE)
  on.exit(options(old))
  f <- timed(bnn_fit(y ~ ., data = train, seed = seed, progress = FALSE))
  add(score(f$fit, "first_fit", f$seconds))
  if (ncol(train) == 2L) {
    x <- setdiff(names(train), "y")
    sp <- stats::smooth.spline(train[[x]], train$y)
    add(row_of(set, split, "smooth_spline", NA,
               sqrt(mean((test$y - stats::predict(sp, test[[x]])$y)^2))))
  }
}

prior_panel_sets(groups, 1L, run_set, panel, "")

res <- do.call(rbind, rows)
res$run <- "complete"
utils::write.csv(res, gzfile(out_csv), row.names = FALSE)
fired <- res[res$method == "default" & res$fired, ]
full <- res[res$method == "wider_full", ]
first <- res[res$method == "first_fit", ]
sp <- res[res$method == "smooth_spline", ]
key <- function(x) paste(x$set, x$split)
fired$d_lppd_vs_full <- fired$lppd - full$lppd[match(key(fired), key(full))]
fired$second_ratio <- fired$second_fit / full$seconds[match(key(fired), key(full))]
fired$time_vs_previous <- fired$seconds /
  (first$seconds[match(key(fired), key(first))] + full$seconds[match(key(fired), key(full))])
fired$ratio_spline <- fired$rmse / sp$rmse[match(key(fired), key(sp))]
print(fired[, c("set", "split", "prior_kept", "rmse", "ratio_spline", "d_lppd_vs_full",
                "second_ratio", "time_vs_previous")], digits = 3, row.names = FALSE)
mc <- fired[fired$set == "mcycle", ]
cat(sprintf(paste0("mcycle: within 10%% of smooth.spline() on %d of %d splits, within 15%% on %d; ",
                   "test LPPD against the full-tuning wider fit: mean %+.3f (%+.3f to %+.3f); ",
                   "the second fit's time: median %.2f of the full one's; the call: median %.2f ",
                   "of the previous default's\n"),
            sum(mc$ratio_spline <= 1.10), nrow(mc), sum(mc$ratio_spline <= 1.15),
            mean(mc$d_lppd_vs_full), min(mc$d_lppd_vs_full), max(mc$d_lppd_vs_full),
            stats::median(mc$second_ratio), stats::median(mc$time_vs_previous)))

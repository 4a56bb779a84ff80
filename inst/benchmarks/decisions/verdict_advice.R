# Does following the verdict's advice once fix what it warned about?  On the
# UCI sets every user tries first, the default call (one 80/20 split,
# set.seed(100); seed = 1), its verdict on the predictions
# (bnn_convergence(): Monte Carlo error and drift of the pooled predictive
# mean, LOO-PIT coverage) and its advice; then the update() calls the advice
# names, run once as a user would (all of them in one call), and the verdict
# and advice of that fit: whether it passes, and whether its advice repeats
# the first (it must not).  Test LPPD and 90% coverage of both fits.
#   Rscript inst/benchmarks/decisions/verdict_advice.R [sets...]
# The chains run as options(mc.cores) says (the committed run: 2, set in
# the R profile; the draws are the same as one chain at a time, and
# `seconds` are the chains' own times, summed).
# Writes verdict_advice.csv (one row per set; the rows of sets not run
# this time are kept).
suppressPackageStartupMessages(library(bnnmc))
args <- commandArgs(trailingOnly = TRUE)
sets <- if (length(args)) args else c("yacht", "energy", "concrete", "airfoil")
dir <- Sys.getenv("BNNMC_DATA_DIR", file.path("..", "shared", "data", "uci"))
out_csv <- file.path("inst", "benchmarks", "decisions", "verdict_advice.csv")

# the update() calls in an advice text, merged into one call's arguments
advised_args <- function(remedy) {
  if (is.null(remedy)) return(NULL)
  calls <- regmatches(remedy, gregexpr("update\\(fit, [^)]*\\)", remedy))[[1]]
  if (!length(calls)) return(NULL)
  a <- list()
  for (cl in calls) {
    e <- str2lang(cl)
    a[names(e)[-(1:2)]] <- as.list(e)[-(1:2)]
  }
  a
}

verdict_row <- function(fit, test, prefix) {
  cv <- fit$convergence
  m <- bnn_metrics(fit, newdata = test)
  r <- data.frame(chains = length(fit$chain_status), draws = dim(fit$draws)[1],
                  reliable = isTRUE(cv$predictions$reliable),
                  mc_error = cv$predictions$mc_error %||% NA, drift = cv$predictions$drift %||% NA,
                  loo_cov90 = cv$predictions$loo_coverage %||% NA,
                  remedy = cv$remedy %||% "", lppd = m$lppd, cov90 = m$coverage_90,
                  seconds = sum(fit$timing$warmup + fit$timing$sampling))
  names(r) <- paste0(prefix, names(r))
  r
}
`%||%` <- function(a, b) if (is.null(a)) b else a

rows <- list()
for (nm in sets) {
  d <- bnn_read_uci(nm, dir = dir)
  set.seed(100)
  te <- sample(nrow(d), round(0.2 * nrow(d)))
  train <- d[-te, ]
  test <- d[te, ]
  fit <- suppressWarnings(bnn_fit(y ~ ., data = train, seed = 1, progress = FALSE))
  r1 <- verdict_row(fit, test, "first_")
  adv <- advised_args(fit$convergence$remedy)
  r2 <- if (!is.null(adv)) {
    fit2 <- suppressWarnings(do.call(stats::update, c(list(fit), adv)))
    verdict_row(fit2, test, "after_")
  } else NULL
  row <- do.call(cbind, Filter(Negate(is.null), list(
    data.frame(set = nm, n_train = nrow(train),
               followed = if (is.null(adv)) "" else
                 paste(names(adv), unlist(adv), sep = " = ", collapse = ", ")),
    r1, r2)))
  if (!is.null(r2)) {
    again <- advised_args(row$after_remedy)
    row$advice_repeats <- !is.null(again) && any(names(again) %in% names(adv))
  }
  print(row)
  rows[[nm]] <- row
  # the rows of this run and those of sets an earlier run did (kept)
  keep <- if (file.exists(out_csv)) utils::read.csv(out_csv) else NULL
  if (!is.null(keep)) keep <- keep[!keep$set %in% names(rows), , drop = FALSE]
  parts <- c(if (!is.null(keep) && nrow(keep)) list(keep), rows)
  cols <- unique(unlist(lapply(parts, names)))
  all <- do.call(rbind, lapply(parts, function(x) {
    x[setdiff(cols, names(x))] <- NA
    x[cols]
  }))
  utils::write.csv(all, out_csv, row.names = FALSE)
}

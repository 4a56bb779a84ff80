# Would a Student-t network be the better second model of the default's
# stack?  On 201 to 2,000 rows of a continuous response the default stacks
# a heteroscedastic and a homoscedastic Gaussian network by their PSIS-LOO
# elpds, the homoscedastic one keeping at least .likelihood_guard of the
# weight (R/fit-choice.R).  Here the default call's two models are stacked
# again by the same rule, and the heteroscedastic one with a homoscedastic
# Student-t network in place of the Gaussian (family = student(): scale and
# degrees of freedom sampled; two chains, the homoscedastic model's budget
# of warmup = 10000), and all three by plain stacking weights.  Each
# variant's test log predictive density per point, the coverage of the
# central 50%, 80% and 90% intervals of its mixture (the mixture's CDF at
# the test point: exact, no predictive draws) and the heteroscedastic
# weight, on the one 80/20 split of speed/default_vs_bart.R
# (speed/default_sets.R), seeds as given; also each model alone.  (The
# default's own bnn_metrics() pools whole draws of each model in proportion
# to the weights, so its figures differ from the first row's in the third
# decimal.)  One core; the seconds are the default call's and the
# Student-t fit's.
#   Rscript inst/benchmarks/decisions/stack_student.R [seeds] [sets]
# e.g. Rscript stack_student.R 1,2 energy,yacht
# Rows are appended to stack_student.csv.gz (gzip) as each set and seed finishes.
# `Rscript stack_student.R panel [splits]` compares the same variants on
# default_panel.R's sets where the default stacks two networks (201 to
# 2,000 training rows of a continuous response), on its splits and seeds,
# with lm's test log density on the same split (default_panel.R's
# fit_lm()) beside; rows go to stack_student_panel.csv.gz (gzip, appended to).
suppressPackageStartupMessages(library(bnnmc))
options(bnnmc.threads = 1L, mc.cores = 1L)
args <- commandArgs(trailingOnly = TRUE)
here <- dirname(normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))))
source(file.path(here, "..", "speed", "default_sets.R"))
out <- file.path("inst", "benchmarks", "decisions", "stack_student.csv.gz")
guard <- get(".likelihood_guard", asNamespace("bnnmc"))

# a model's test log density and predictive CDF (PIT) at each test point:
# bnn_metrics_gaussian()'s pointwise parts, or for the Student-t the
# package's log density of each draw
test_parts <- function(f, test) {
  pp <- bnnmc:::predictive_params(f, test)
  if (!identical(pp$family, "student")) {
    pw <- bnn_metrics_gaussian(pp$mu, pp$sd, test$y, pointwise = TRUE)$pointwise
    return(list(lpd = pw$lpd, cdf = pw$pit))
  }
  ll <- bnnmc:::family_log_density(pp, test$y)
  z <- (matrix(test$y, nrow(pp$mu), ncol(pp$mu), byrow = TRUE) - pp$mu) / pp$sigma
  list(lpd = apply(ll, 2L, bnnmc:::log_mean_exp), cdf = colMeans(stats::pt(z, df = pp$nu)))
}
mixture_scores <- function(w, parts) {
  dens <- Reduce(`+`, Map(function(wk, p) wk * exp(p$lpd), w, parts))
  cdf <- Reduce(`+`, Map(function(wk, p) wk * p$cdf, w, parts))
  inside <- function(l) mean(cdf >= (1 - l) / 2 & cdf <= (1 + l) / 2)
  c(lppd = mean(log(dens)), cov50 = inside(0.5), cov80 = inside(0.8), cov90 = inside(0.9))
}
guarded <- function(w) c(min(w[1L], 1 - guard), max(w[2L], guard))

# The variants' rows for one split `sp` (train, test) and seed `sd`, or
# NULL when the default returned one model.
compare <- function(nm, sp, sd) {
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressMessages(suppressWarnings(bnn_fit(y ~ ., data = sp$train, seed = sd,
                                                   progress = FALSE)))
  t1 <- proc.time()[["elapsed"]]
  if (!identical(fit$mixture$kind, "likelihood")) {
    message(nm, ", seed ", sd, ": the default returned one model, no stack to compare")
    return(NULL)
  }
  het_first <- names(fit$mixture$weights)[1L] == "heteroscedastic"
  own <- fit
  own$mixture <- NULL
  het <- if (het_first) own else fit$mixture$fit
  gau <- if (het_first) fit$mixture$fit else own
  t2 <- proc.time()[["elapsed"]]
  stu <- suppressMessages(suppressWarnings(bnn_fit(y ~ ., data = sp$train, seed = sd,
                                                   family = student(), chains = 2,
                                                   warmup = 10000, progress = FALSE)))
  t3 <- proc.time()[["elapsed"]]
  e <- lapply(list(het, gau, stu), function(f) bnnmc:::fit_psis_elpd(f)$pointwise)
  p <- lapply(list(het, gau, stu), test_parts, test = sp$test)
  w_hg <- guarded(bnnmc:::stacking_pair(e[[1]], e[[2]]))
  w_ht <- guarded(bnnmc:::stacking_pair(e[[1]], e[[3]]))
  w_3 <- as.numeric(loo::stacking_weights(do.call(cbind, e)))
  v <- list(
    "heteroscedastic + Gaussian (default)" = list(w_hg, p[1:2]),
    "heteroscedastic + Student-t" = list(w_ht, p[c(1, 3)]),
    "all three" = list(w_3, p),
    "heteroscedastic alone" = list(1, p[1]),
    "Gaussian alone" = list(1, p[2]),
    "Student-t alone" = list(1, p[3]))
  row <- do.call(rbind, lapply(names(v), function(k)
    data.frame(set = nm, n_train = nrow(sp$train), seed = sd, variant = k,
               w_het = if (length(v[[k]][[1]]) > 1) v[[k]][[1]][1] else NA_real_,
               t(mixture_scores(v[[k]][[1]], v[[k]][[2]])))))
  row$seconds_default <- t1 - t0
  row$seconds_student <- t3 - t2
  row$load1 <- as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1])
  row
}
append_rows <- function(row, file) {
  print(row[, c("set", "variant", "w_het", "lppd", "cov50", "cov80", "cov90")], digits = 3)
  append_csv_gz(row, file)
}

if (identical(args[1], "panel")) {
  dd <- file.path("inst", "benchmarks", "decisions")
  source(file.path(dd, "panel_defs.R"))
  panel_env <- panel_definitions(dd)
  splits <- as.integer(bench_list_arg(args, 2, "1"))
  pn <- names(panel_env$sets)
  n_tr <- vapply(pn, function(s) round(0.8 * nrow(panel_env$sets[[s]]$d())), 0)
  for (split in splits) for (nm in pn[n_tr > 200 & n_tr <= 2000]) {
    sp <- panel_env$panel_split(nm, split)
    if (!bnnmc:::continuous_response(sp$train$y)) next
    row <- compare(nm, sp, sp$seed)
    if (is.null(row)) next
    row$split <- split
    row$lppd_lm <- panel_env$fit_lm(sp$train, sp$test)[["lpd"]]
    append_rows(row, file.path(dd, "stack_student_panel.csv.gz"))
  }
  quit(save = "no")
}
seeds <- as.integer(bench_list_arg(args, 1, c("1", "2")))
sets <- bench_list_arg(args, 2, c("yacht", "energy", "concrete", "airfoil", "Boston"))
all_sets <- default_bench_sets()
for (nm in sets) for (sd in seeds) {
  row <- compare(nm, default_bench_split(all_sets[[nm]]()), sd)
  if (!is.null(row)) append_rows(row, out)
}

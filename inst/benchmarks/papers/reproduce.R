# Reproduce the benchmarks of the source papers (regression and classification).
#
#   Rscript inst/benchmarks/papers/reproduce.R --table mile_t1 --datasets airfoil,energy \
#       --splits 1,2,3 --workers 2 [--chains 12] [--data DIR] [--out DIR]
#
# Tables (protocols as in the papers, see vignette("benchmarks")):
#   mile_t1  Sommer et al. (2025) Tables 1, 3 and 10: DE vs DEI-NUTS (BDE;
#            100 warm-up, 1000 draws) vs MILE; 16-16 ReLU, heteroscedastic
#            head, N(0, 1) prior, 12 members/chains, 70/10/20 splits.
#   dei_t3  Sommer et al. (2024) Table 3: DEI-MCMC (16-16 ReLU) after 10, 100
#            and 1000 draws per chain vs LM, DNN (average member), DE; 80/20.
#   dei_t4  Sommer et al. (2024) Table 4: cold-start 16-16 tanh NUTS (chains
#            better than the LM kept) vs LM, DNN, DE (tanh networks too);
#            80/20.  The paper's 10,000 warm-up and 8,000 draws do not fit a
#            2-core machine; the budget used is written in each row
#            (--warmup, --iter).
#   symmetry_t1  Wiese et al. (2023) Table 1: many short chains ("ours", 1274
#            chains x 1 draw) vs a single chain vs a 10-member RMSProp deep
#            ensemble, f1 (1x3 tanh) or f2 (3x16 tanh); see symmetry/many_short_chains.R.
#   mile_t4  Sommer et al. (2025) Table 4, ionosphere: 16-16 ReLU with 2
#            softmax outputs (d = 850), 12 members trained with MILE's
#            classification settings (AdamW, lr 0.01, patience 20; preset
#            mile_class), DE vs BDE (DEI-NUTS, 100 warm-up, 1000 draws) vs
#            MILE (initial step size 0.01), plus the average member ("avg.
#            single DNN") and the average single chain; accuracy and LPPD;
#            70/10/20 splits (--splits, default 1,2,3).
#   mile_t6  Sommer et al. (2025) Table 6 (PGPS comparison): sonar, wine_red,
#            wine_white, australian, heart, glass (the *_proc files, used as
#            they are: no further standardisation); one sigmoid hidden layer
#            of 32, softmax outputs, 12 members/chains, 40/10/50 splits,
#            5 runs (--splits 1,2,3,4,5); MILE (and the DE it starts from);
#            accuracy, LPPD and the paper's NLL.
#   coverage_t2  Staber and Da Veiga Table 2 (AF#1): coverage over training sets
#            (MCP, MAE of CCP), Q^2 and function-space MMD to an HMC
#            reference for HMC, NUTS, DEI, MILE and deep ensembles; see
#            coverage/coverage_study.R (--sets, --seed, --jobs, --families).
#   coverage_t4, coverage_t5, coverage_t6  Tables 4-6 (AF#2-AF#4) with NUTS, MILE and
#            deep ensembles (coverage/coverage_study.R).
#   coverage_boot the bootstrap coverage study on concrete (coverage/coverage_study.R).
#   fbnn_a1  Moslemi et al. (FBNN) Table A1, Boston and Wine (red) rows:
#            BNN-pCN, FBNN (pCN-pCN), FBNN with NUTS calibration, the SGHMC
#            rows once bnn_sghmc() exists, MILE; MSE, coverage with and
#            without noise, time, ESS, min-ESS/s, spdup (see fbnn/ces_table.R).
# --baselines_only TRUE (dei_t3, dei_t4) writes the LM, DNN and DE rows
# without running the sampler; --methods (mile_t1, default DE,MILE,BDE)
# picks the rows of the MILE table to compute (the ensemble that starts
# MILE and BDE is always trained).
# One CSV row per (table, dataset, split, method) is appended to
# <out>/<table>.csv as soon as it is computed, so a partial run is usable;
# <out> is by default the paper's folder, inst/benchmarks/papers/<paper>/
# (a table id is <paper>_<table>; dei: dei-mcmc, symmetry, mile, coverage,
# fbnn).
# The classification tables add the columns accuracy (of the most probable
# class under the posterior predictive) and nll (MILE's "average negative
# log-likelihood": minus the mean over draws and test points of
# log p(y | theta, x), as in the reference code; it is >= -lppd); their rmse
# and coverage columns are NA.  --note adds a remark to every row written.
library(bnnmc)

opt <- list(table = "mile_t1", datasets = "airfoil,concrete,energy,yacht",
            splits = "1,2,3", workers = "2", chains = "12", nuts_chains = "", data = "",
            out = "", warmup = "", iter = "",
            baselines_only = "FALSE", methods = "DE,MILE,BDE", note = "")
a <- commandArgs(trailingOnly = TRUE)
for (i in seq(1, length(a), by = 2)) opt[[sub("^--", "", a[i])]] <- a[i + 1]
# each paper's results next to its scripts: inst/benchmarks/papers/<paper>/
paper_dirs <- c(dei = "dei-mcmc", symmetry = "symmetry", mile = "mile", coverage = "coverage",
                fbnn = "fbnn")
if (!nzchar(opt$out))
  opt$out <- file.path("inst", "benchmarks", "papers", paper_dirs[[sub("_.*$", "", opt$table)]])
data_dir <- if (nzchar(opt$data)) opt$data else
  Sys.getenv("BNNMC_DATA_DIR", file.path("..", "shared", "data", "uci"))
classif <- opt$table %in% c("mile_t4", "mile_t6")
given <- sub("^--", "", a[seq(1, length(a), by = 2)])
if (opt$table == "fbnn_a1") {
  # Moslemi et al. (FBNN) Table A1, Boston and Wine rows: ces_table.R
  here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))
  source(file.path(here, "fbnn", "ces_table.R"))
  opt$given <- given
  if (!"splits" %in% given) opt$splits <- "1"
  run_fbnn_a1(opt, data_dir)
  quit(save = "no")
}
if (!"datasets" %in% given && opt$table == "mile_t4") opt$datasets <- "ionosphere"
if (!"datasets" %in% given && opt$table == "mile_t6")
  opt$datasets <- "sonar,wine_red,wine_white,australian,heart,glass"
if (!"splits" %in% given && opt$table == "mile_t6") opt$splits <- "1,2,3,4,5"
datasets <- strsplit(opt$datasets, ",")[[1]]
splits <- as.integer(strsplit(opt$splits, ",")[[1]])
chains <- as.integer(opt$chains)
# NUTS chains (BDE, DEI-MCMC, cold start) may be fewer than the ensemble's
# members on a small machine: the first nuts_chains members are used (0:
# no BDE in mile_t1)
nuts_chains <- if (nzchar(opt$nuts_chains)) as.integer(opt$nuts_chains) else chains
workers <- as.integer(opt$workers)
baselines_only <- as.logical(opt$baselines_only)
methods <- strsplit(opt$methods, ",")[[1]]
dir.create(opt$out, showWarnings = FALSE, recursive = TRUE)
out_file <- file.path(opt$out, paste0(opt$table, ".csv"))

if (workers > 1 && requireNamespace("future", quietly = TRUE)) {
  oplan <- future::plan(future::multisession, workers = workers)
  on.exit(future::plan(oplan), add = TRUE)
}
`%||%` <- function(a, b) if (is.null(a) || length(a) == 0) b else a
if (opt$table %in% c("coverage_t2", "coverage_t4", "coverage_t5", "coverage_t6", "coverage_boot")) {
  # Staber and Da Veiga's coverage study: its own script, next to this one
  here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))
  source(file.path(here, "coverage", "coverage_study.R"))
  quit(save = "no")
}

# Wiese et al. (2023), Table 1 (symmetry paper): its own script
if (opt$table == "symmetry_t1") {
  `%||%` <- function(a, b) if (is.null(a) || length(a) == 0) b else a
  here <- sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE))
  source(file.path(dirname(here), "symmetry", "many_short_chains.R"), local = TRUE)
  quit(save = "no")
}

write_row <- function(row) {
  new <- !file.exists(out_file)
  utils::write.table(row, out_file, sep = ",", row.names = FALSE, col.names = new,
                     append = !new, qmethod = "double")
  print(row[, intersect(c("dataset", "split", "method", "draws", "lppd", "rmse",
                          "cal_error", "accuracy", "nll", "seconds"), names(row))],
        row.names = FALSE)
}

row_of <- function(dataset, split, method, m, seconds, grads = NA, draws = NA,
                   chains_used = NA, note = "") {
  note <- paste(c(if (nzchar(note)) note, if (nzchar(opt$note)) opt$note), collapse = "; ")
  row <- data.frame(table = opt$table, dataset = dataset, split = split, method = method,
             chains = chains_used, draws = draws, lppd = m$lppd, rmse = m$rmse %||% NA,
             cal_error = m$cal_error %||% NA, coverage_50 = m$coverage_50 %||% NA,
             coverage_90 = m$coverage_90 %||% NA, coverage_95 = m$coverage_95 %||% NA)
  if (classif) {
    row$accuracy <- m$accuracy
    row$nll <- m$nll %||% NA
  }
  cbind(row, data.frame(seconds = seconds, grads_per_chain = grads, workers = workers,
                        date = format(Sys.Date()), note = note))
}
# mean of the per-chain (per-member) metrics: the papers' "single chain" and
# "avg. single DNN" columns
chain_average <- function(obj, test) {
  pc <- bnn_metrics(obj, test, by = "chain", scale = "standardized")
  lapply(colMeans(pc[, setdiff(names(pc), "chain"), drop = FALSE]), identity)
}
# the *_proc files of the PGPS comparison may be named without the suffix
read_data <- function(ds) {
  f <- if (file.exists(file.path(data_dir, paste0(ds, ".data")))) ds else paste0(ds, "_proc")
  bnn_read_uci(f, dir = data_dir)
}
`%||%` <- function(a, b) if (is.null(a) || length(a) == 0) b else a
elapsed <- function(expr) {
  t0 <- proc.time()[["elapsed"]]
  val <- force(expr)
  list(value = val, seconds = proc.time()[["elapsed"]] - t0)
}
cov_levels <- function(m) {
  cv <- m$coverage
  for (lv in c(50, 90, 95))
    m[[paste0("coverage_", lv)]] <- cv$coverage[abs(cv$nominal - lv / 100) < 1e-9][1]
  m
}
# metrics of the draws kept so far: the first k draws of each chain
first_draws <- function(fit, k) {
  fit$draws <- fit$draws[seq_len(min(k, dim(fit$draws)[1])), , , drop = FALSE]
  fit
}
lm_metrics <- function(train, test) {
  # the linear model on the standardised scale of the training data
  st <- bnn_standardize(train, test = test)
  lmb <- bnn_paper_lm_baseline(y ~ ., st$train)
  cov_levels(bnn_metrics(lmb, st$test, levels = c(0.5, 0.9, 0.95)))
}

for (ds in datasets) {
  d <- read_data(ds)
  ds <- sub("_proc$", "", ds)
  for (s in splits) {
    proto <- if (opt$table %in% c("mile_t1", "mile_t4", "mile_t6")) "mile" else "dei"
    sp <- bnn_split(d, protocol = proto, rep = s,
                    prop = if (opt$table == "mile_t6") c(0.4, 0.1, 0.5))
    test <- sp$test
    if (classif) {
      # MILE's classification settings: softmax outputs (2 for binary tasks),
      # ensemble lr 0.01 and patience 20, initial MCLMC step size 0.01 (= lr)
      t6 <- opt$table == "mile_t6"
      hidden <- if (t6) 32 else c(16, 16)
      act <- if (t6) "sigmoid" else "relu"
      de <- elapsed(bnn_fit_ensemble(y ~ ., data = sp$train, members = chains, hidden = hidden,
                                 activation = act, likelihood = "categorical",
                                 optimizer = bnn_optimizer_preset("mile_class"),
                                 valid_data = sp$valid, seed = s, standardize = !t6,
                                 progress = FALSE))
      if (!t6)
        write_row(row_of(ds, s, "DNN (average member)", chain_average(de$value, test),
                         de$seconds / chains, draws = 1))
      write_row(row_of(ds, s, "DE", bnn_metrics(de$value, test, scale = "standardized"), de$seconds, draws = 1,
                       chains_used = chains))
      mile <- elapsed(bnn_fit(y ~ ., data = sp$train, hidden = hidden, activation = act,
                              likelihood = "categorical", sampler = "mile", chains = chains,
                              init = de$value, seed = s, standardize = !t6, progress = FALSE))
      mm <- bnn_metrics(mile$value, test, scale = "standardized")
      write_row(row_of(ds, s, "MILE", mm, mile$seconds,
                       grads = stats::median(mile$value$n_grad),
                       draws = dim(mile$value$draws)[1], chains_used = chains))
      if (!t6) {
        write_row(row_of(ds, s, "MILE single chain (average)", chain_average(mile$value, test),
                         mile$seconds / chains, grads = stats::median(mile$value$n_grad),
                         draws = dim(mile$value$draws)[1], chains_used = 1))
        bde <- elapsed(suppressWarnings(
          bnn_fit(y ~ ., data = sp$train, hidden = hidden, activation = act,
                  likelihood = "categorical", sampler = "dei", chains = nuts_chains,
                  init = de$value, warmup = 100, iter = 1000, seed = s, progress = FALSE)))
        nuts_note <- if (nuts_chains < chains)
          sprintf("%d of the %d members (machine budget)", nuts_chains, chains) else ""
        write_row(row_of(ds, s, "BDE (DEI-NUTS)", bnn_metrics(bde$value, test, scale = "standardized"), bde$seconds,
                         grads = stats::median(bde$value$n_grad), draws = 1000,
                         chains_used = nuts_chains, note = nuts_note))
        write_row(row_of(ds, s, "BDE single chain (average)", chain_average(bde$value, test),
                         bde$seconds / nuts_chains, grads = stats::median(bde$value$n_grad),
                         draws = 1000, chains_used = 1, note = nuts_note))
      }
    } else if (opt$table == "mile_t1") {
      # the DE baseline (de.yaml: lr 0.01, patience 20) ...
      if ("DE" %in% methods) {
        base <- elapsed(bnn_fit_ensemble(y ~ ., data = sp$train, members = chains,
                                     likelihood = "hetero_gaussian",
                                     hidden = c(16, 16), activation = "relu",
                                     optimizer = bnn_optimizer_preset("mile_de"),
                                     valid_data = sp$valid, seed = s, progress = FALSE))
        write_row(row_of(ds, s, "DE", bnn_metrics(base$value, test, scale = "standardized"), base$seconds,
                         draws = 1, chains_used = chains))
      }
      # ... and the ensemble that starts MILE and BDE (lr 0.001, patience 10)
      de <- elapsed(bnn_fit_ensemble(y ~ ., data = sp$train, members = chains,
                                 likelihood = "hetero_gaussian",
                                 hidden = c(16, 16), activation = "relu",
                                 optimizer = bnn_optimizer_preset("mile"),
                                 valid_data = sp$valid, seed = s, progress = FALSE))
      if ("MILE" %in% methods) {
        mile <- elapsed(bnn_fit(y ~ ., data = sp$train, hidden = c(16, 16),
                                likelihood = "hetero_gaussian",
                                activation = "relu", sampler = "mile", chains = chains,
                                init = de$value, seed = s, progress = FALSE))
        write_row(row_of(ds, s, "MILE", bnn_metrics(mile$value, test, scale = "standardized"), mile$seconds,
                         grads = stats::median(mile$value$n_grad),
                         draws = dim(mile$value$draws)[1], chains_used = chains))
      }
      # --nuts_chains 0 skips BDE (bikesharing and protein on a small machine)
      if (nuts_chains > 0 && "BDE" %in% methods) {
        bde <- elapsed(suppressWarnings(
          bnn_fit(y ~ ., data = sp$train, hidden = c(16, 16), activation = "relu",
                  likelihood = "hetero_gaussian",
                  sampler = "dei", chains = nuts_chains, init = de$value, warmup = 100,
                  iter = 1000, seed = s, progress = FALSE)))
        write_row(row_of(ds, s, "BDE (DEI-NUTS)", bnn_metrics(bde$value, test, scale = "standardized"), bde$seconds,
                         grads = stats::median(bde$value$n_grad), draws = 1000,
                         chains_used = nuts_chains,
                         note = if (nuts_chains < chains)
                           sprintf("%d of the %d members (machine budget)", nuts_chains, chains) else ""))
      }
    } else if (opt$table %in% c("dei_t3", "dei_t4")) {
      write_row(row_of(ds, s, "LM", lm_metrics(sp$train, test), NA))
      # the networks of each table: ReLU in Table 3, tanh in Table 4 ("all
      # networks" of its caption, the DNN and DE columns included)
      act <- if (opt$table == "dei_t4") "tanh" else "relu"
      de <- elapsed(bnn_fit_ensemble(y ~ ., data = sp$train, members = chains,
                                 likelihood = "hetero_gaussian",
                                 hidden = c(16, 16), activation = act,
                                 optimizer = bnn_optimizer_preset("dei"), seed = s,
                                 progress = FALSE))
      per_member <- bnn_metrics(de$value, test, by = "chain", scale = "standardized")
      dnn <- lapply(colMeans(per_member[, c("rmse", "lppd", "cal_error")]), identity)
      write_row(row_of(ds, s, "DNN (average member)", dnn, de$seconds / chains, draws = 1))
      write_row(row_of(ds, s, "DE", bnn_metrics(de$value, test, scale = "standardized"), de$seconds, draws = 1,
                       chains_used = chains))
      if (baselines_only) {
        # --baselines_only TRUE: LM, DNN and DE rows only
      } else if (opt$table == "dei_t3") {
        fit <- elapsed(suppressWarnings(
          bnn_fit(y ~ ., data = sp$train, hidden = c(16, 16), activation = "relu",
                  likelihood = "hetero_gaussian",
                  sampler = "dei", chains = nuts_chains, init = de$value, warmup = 100,
                  iter = 1000, seed = s, progress = FALSE)))
        for (k in c(10, 100, 1000))
          write_row(row_of(ds, s, sprintf("DEI-MCMC (%d)", k),
                           bnn_metrics(first_draws(fit$value, k), test, scale = "standardized"), fit$seconds,
                           grads = stats::median(fit$value$n_grad), draws = k,
                           chains_used = nuts_chains,
                           note = if (nuts_chains < chains)
                             sprintf("%d of the %d members (machine budget)", nuts_chains, chains) else ""))
      } else {
        w <- if (nzchar(opt$warmup)) as.integer(opt$warmup) else 1000L
        it <- if (nzchar(opt$iter)) as.integer(opt$iter) else 1000L
        fit <- elapsed(suppressWarnings(
          bnn_fit(y ~ ., data = sp$train, hidden = c(16, 16), activation = "tanh",
                  likelihood = "hetero_gaussian",
                  sampler = "nuts", chains = nuts_chains, warmup = w, iter = it, seed = s,
                  progress = FALSE)))
        lm_rmse <- lm_metrics(sp$train, test)$rmse
        per_chain <- bnn_metrics(fit$value, test, by = "chain", scale = "standardized")
        good <- per_chain$chain[per_chain$rmse < lm_rmse]
        kept <- fit$value
        kept$draws <- kept$draws[, good, , drop = FALSE]
        kept$chain_status <- kept$chain_status[good]
        m <- if (length(good)) bnn_metrics(kept, test, scale = "standardized") else
          list(lppd = NA, rmse = NA, cal_error = NA)
        write_row(row_of(ds, s, "NUTS cold start (chains better than LM)", m, fit$seconds,
                         grads = stats::median(fit$value$n_grad), draws = it,
                         chains_used = length(good),
                         note = sprintf("warm-up %d, %d draws (paper: 10000, 8000)", w, it)))
      }
    } else stop("unknown --table ", opt$table)
  }
}
cat("results in", out_file, "\n")

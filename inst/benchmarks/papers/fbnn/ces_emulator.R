# Why the FBNN emulator of the Boston network (13-64-32-1, 3,009 weights)
# does or does not learn: held-out R^2 of emulators trained on the same 200
# SGHMC calibration pairs (160 training, 40 held out at random) from two
# random starts, and what pCN does on the emulated posterior.
#
#   BNNMC_DATA_DIR=... Rscript inst/benchmarks/papers/fbnn/ces_emulator.R [OUT_DIR]
#
# writes OUT_DIR/fbnn_emulator.csv (default inst/benchmarks/papers/fbnn).
# Starts: "uniform(-2,2)" is bnn_fit()'s init = "random"; "fan-in" is
# PyTorch's nn.Linear default U(-1/sqrt(fan_in), 1/sqrt(fan_in)) (fbnn_init()
# of ces_table.R).  Calibration: bnn_sghmc(stepsize = 5e-6), 200 iterations,
# no burn-in, as in fbnn_a1.  Emulators: the paper's Table 2 widths for
# Boston (3, 32; ReLU; 1000 epochs) with
#   table2_both  dropout 0.7 on the inputs and the first hidden layer, Adam
#                lr 1e-3, batches of 32 (the package's earlier default)
#   input_only   dropout 0.7 on the inputs only, same optimiser
#   no_dropout   no dropout, same optimiser
#   no_dropout_fullbatch  no dropout, Adam lr 1e-2 on full batches
#   default      bnn_emulator(preset = "boston"): input dropout 0.7, Adam lr
#                1e-2 on full batches
# and, as a yardstick, the least-squares linear map from the raw theta
# (minimum-norm ridge, lambda = 1e-3 on the centred Gram matrix).
# For each start, the FBNN (SGHMC-pCN) fit with the default emulator: test
# MSE, the mean emulated minus true log-likelihood at 50 sampled draws
# (sampled_bias) and pCN's step beta after warm-up (1 = independent prior
# draws).
#
# Internals (bnnmc:::train_emulator(), emulated_spec(), fit_spec(),
# C_model_forward, C_ces_emulate): it measures the CES emulator on its own,
# outside a fit.
suppressMessages(library(bnnmc))
args <- commandArgs(trailingOnly = TRUE)
out_dir <- if (length(args)) args[1] else file.path("inst", "benchmarks", "papers", "fbnn")
here <- dirname(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)[1]))
source(file.path(here, "ces_table.R"))

d <- MASS::Boston
names(d)[names(d) == "medv"] <- "y"
sp <- bnn_split(d, protocol = "dei", rep = 1)
tr <- sp$train
te <- sp$test
sizes <- c(13L, 64L, 32L, 1L)
starts <- list("uniform(-2,2)" = "random", "fan-in" = fbnn_init(sizes, 1000))
opt_old <- bnn_optimizer("adam", lr = 1e-3, weight_decay = 0, epochs = 1000, batch_size = 32)
opt_full <- bnn_optimizer("adam", lr = 1e-2, weight_decay = 0, epochs = 1000)
emulators <- list(
  table2_both = bnn_emulator(hidden = c(3, 32), dropout = 0.7, input_dropout = 0.7,
                             optimizer = opt_old),
  input_only = bnn_emulator(hidden = c(3, 32), input_dropout = 0.7, optimizer = opt_old),
  no_dropout = bnn_emulator(hidden = c(3, 32), optimizer = opt_old),
  no_dropout_fullbatch = bnn_emulator(hidden = c(3, 32), optimizer = opt_full),
  default = bnn_emulator(preset = "boston"))
fit_args <- list(formula = y ~ ., data = tr, hidden = c(64, 32), activation = "tanh",
                 likelihood = "gaussian", chains = 1, seed = 1, progress = FALSE)
rows <- list()
for (st in names(starts)) {
  cal <- bnn_ces(calibration = bnn_sghmc(stepsize = 5e-6), calibration_warmup = 0,
                 calibration_iter = 200, J = 200, emulator = "exact")
  f0 <- do.call(bnn_fit, c(fit_args, list(sampler = cal, warmup = 0, iter = 10,
                                          init = starts[[st]])))
  cd <- f0$ces$calibration$draws
  th <- matrix(cd[, 1, ], nrow = dim(cd)[1])
  th[, ncol(th)] <- log(th[, ncol(th)])
  spec <- bnnmc:::fit_spec(f0)
  Y <- t(matrix(.Call(bnnmc:::C_model_forward, spec, t(th), spec$X, 1L), ncol = nrow(th)))
  net <- seq_len(ncol(th) - 1L)
  hold <- bnnmc:::with_seed(7, sort(sample.int(200, 40)))
  train <- setdiff(seq_len(200), hold)
  Yh <- Y[hold, ]
  r2 <- function(P) 1 - sum((Yh - P)^2) / sum(sweep(Yh, 2L, colMeans(Yh))^2)
  ms <- bnnmc:::fit_spec_model(list(spec = spec, X = spec$X, y_model = spec$y))
  out_sd <- stats::median(apply(Y, 2L, stats::sd))
  for (nm in names(emulators)) {
    e <- bnnmc:::train_emulator(th[train, net], Y[train, ], emulators[[nm]], 1)
    P <- t(.Call(bnnmc:::C_ces_emulate, bnnmc:::emulated_spec(ms, e), t(th[hold, ])))
    rows[[length(rows) + 1L]] <- data.frame(start = st, emulator = nm, heldout_r2 = r2(P),
                                            train_time = e$time, output_sd = out_sd)
    cat(sprintf("%-14s %-22s R^2 %.3f  %.1f s\n", st, nm, r2(P), e$time))
  }
  Xc <- sweep(th[train, net], 2L, colMeans(th[train, net]))
  Xh <- sweep(th[hold, net], 2L, colMeans(th[train, net]))
  Ym <- colMeans(Y[train, ])
  A <- solve(tcrossprod(Xc) + 1e-3 * diag(length(train)), sweep(Y[train, ], 2L, Ym))
  P <- sweep(tcrossprod(Xh, Xc) %*% A, 2L, -Ym)
  rows[[length(rows) + 1L]] <- data.frame(start = st, emulator = "linear_ridge",
                                          heldout_r2 = r2(P), train_time = NA_real_,
                                          output_sd = out_sd)
  cat(sprintf("%-14s %-22s R^2 %.3f\n", st, "linear_ridge", r2(P)))
  # the pipeline with the default emulator
  ces <- bnn_ces(calibration = bnn_sghmc(stepsize = 5e-6), calibration_warmup = 0,
                 calibration_iter = 200, J = 200, emulator = bnn_emulator(preset = "boston"))
  f <- suppressWarnings(do.call(bnn_fit, c(fit_args, list(sampler = ces, warmup = 500,
                                                          iter = 2000, init = starts[[st]]))))
  p <- predict(f, newdata = te, type = "interval")
  beta <- f$sampler_stats[1, 1, "stepsize__"]
  rows[[length(rows) + 1L]] <- data.frame(
    start = st, emulator = "default: FBNN (SGHMC-pCN) fit", heldout_r2 = f$ces$check$r2,
    train_time = f$ces$times[["emulator"]], output_sd = out_sd,
    fbnn_mse = mean((p$mean - te$y)^2), sampled_bias = f$ces$check_sampled$bias,
    pcn_beta = beta)
  cat(sprintf("%-14s FBNN mse %.1f  sampled bias %.1f  beta %.3f\n", st,
              mean((p$mean - te$y)^2), f$ces$check_sampled$bias, beta))
}
all_cols <- unique(unlist(lapply(rows, names)))
rows <- lapply(rows, function(r) { r[setdiff(all_cols, names(r))] <- NA; r[all_cols] })
res <- do.call(rbind, rows)
res$date <- format(Sys.Date())
dir.create(out_dir, showWarnings = FALSE, recursive = TRUE)
utils::write.csv(res, file.path(out_dir, "fbnn_emulator.csv"), row.names = FALSE)
print(res)

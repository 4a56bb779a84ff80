# The deep ensemble's announced cost against its true time: bnn_fit()'s
# estimate (fit_cost(), R/run-cost.R) of training the members that start
# MILE (batches of 32, the "mile" preset) and DEI (full batch, the "dei"
# preset), against bnn_fit_ensemble() with the same optimizer, on Friedman's
# first function (five uniform predictors, N(0, 1) noise), 5-16-16-1 tanh
# network, two members one after the other, at a few sizes (the true time
# is the members' training, `$elapsed`, without the model's preparation).  Before the
# estimate timed epochs (time_epoch()) it counted one full-data gradient
# per epoch, `gradient_only_s`, which missed the cost of each minibatch
# step (the parameter update and the batch's gathering).
#   Rscript inst/benchmarks/speed/ensemble_cost.R
# Writes inst/benchmarks/speed/ensemble_cost.csv.
suppressPackageStartupMessages(library(bnnmc))
source(file.path("inst", "benchmarks", "speed", "default_sets.R"))   # bench_friedman()
friedman <- function(n, seed) bench_friedman(n, p = 5, seed = seed)
rows <- list()
for (preset in c("mile", "dei")) for (n in c(300, 2000, 8000)) {
  d <- friedman(n, 1)
  opt <- bnn_optimizer_preset(preset, epochs = if (preset == "dei") 1000 else 200, patience = NULL)
  ens <- bnn_fit_ensemble(y ~ ., data = d, members = 2, hidden = c(16, 16),
                          activation = "tanh", optimizer = opt, seed = 1, progress = FALSE)
  t <- ens$elapsed   # the members' training, as bnn_fit() runs it
  spec <- ens$spec
  spec$X <- ens$X
  storage.mode(spec$X) <- "double"
  spec$y <- as.double(ens$y_model)
  cost <- bnnmc:::fit_cost(spec, bnnmc:::as_sampler("mile"), 2L, 100L, 100L, "ensemble",
                           ensemble_opt = opt, n_members = 2L)
  rows[[length(rows) + 1]] <- data.frame(
    date = format(Sys.Date()), preset = preset, n = n, members = 2L, epochs = opt$epochs,
    batch_size = if (is.null(opt$batch_size)) NA_integer_ else as.integer(opt$batch_size),
    estimate_s = cost$ensemble, gradient_only_s = 2 * opt$epochs * cost$t_gradient,
    elapsed_s = t, ratio = t / cost$ensemble,
    ratio_gradient_only = t / (2 * opt$epochs * cost$t_gradient))
  cat(sprintf("%-4s n = %5d: true %.2f s, estimate %.2f s (ratio %.2f; gradients only %.2f s, ratio %.2f)\n",
              preset, n, t, cost$ensemble, t / cost$ensemble,
              2 * opt$epochs * cost$t_gradient, t / (2 * opt$epochs * cost$t_gradient)))
}
utils::write.csv(do.call(rbind, rows), file.path("inst", "benchmarks", "speed", "ensemble_cost.csv"),
                 row.names = FALSE)

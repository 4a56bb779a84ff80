# MILE vs DEI-NUTS on airfoil with the paper's network (16-16 ReLU,
# heteroscedastic head, N(0, 1) prior), the protocol of MILE's Table 1
# (70/10/20 split):
# ensemble time, and per chain the wall time and gradient evaluations of
# MILE (40k/5k/5k tuning + 10k steps) and of DEI-NUTS (100 warm-up, 1000
# draws), measured in the same run.  Also the whole 12-chain MILE fit,
# ensemble included, on 2 workers.
#
#   Rscript inst/benchmarks/decisions/mile_vs_nuts.R [data_dir] [n_nuts_chains]
# Writes inst/benchmarks/decisions/mile_vs_nuts.csv.
library(bnnmc)
args <- commandArgs(trailingOnly = TRUE)
data_dir <- if (length(args) >= 1) args[1] else
  Sys.getenv("BNNMC_DATA_DIR", file.path("..", "shared", "data", "uci"))
n_nuts <- if (length(args) >= 2) as.integer(args[2]) else 2L
d <- bnn_read_uci("airfoil", dir = data_dir)
sp <- bnn_split(d, protocol = "mile", rep = 1)
workers <- 2L
have_future <- requireNamespace("future", quietly = TRUE) &&
  requireNamespace("future.apply", quietly = TRUE)

# 1. the whole MILE fit, 12 chains, ensemble included, on 2 workers
if (have_future) {
  old <- future::plan(future::multisession, workers = workers)
  on.exit(future::plan(old), add = TRUE)
}
t0 <- proc.time()[["elapsed"]]
mile <- bnn_fit(y ~ ., data = sp$train, hidden = c(16, 16), activation = "relu",
                likelihood = "hetero_gaussian",
                sampler = "mile", chains = 12, valid_data = sp$valid, seed = 1,
                progress = FALSE)
t_mile_total <- proc.time()[["elapsed"]] - t0
m_mile <- bnn_metrics(mile, sp$test, scale = "standardized")
if (have_future) future::plan(future::sequential)

# 2. per-chain cost of both samplers under the same conditions: n_nuts
#    chains of each, one after another, from the same ensemble members
mile_seq <- bnn_fit(y ~ ., data = sp$train, hidden = c(16, 16), activation = "relu",
                    likelihood = "hetero_gaussian",
                    sampler = "mile", chains = n_nuts, init = mile$ensemble, seed = 1,
                    progress = FALSE)
t0 <- proc.time()[["elapsed"]]
dei <- suppressWarnings(bnn_fit(y ~ ., data = sp$train, hidden = c(16, 16),
                                likelihood = "hetero_gaussian",
                                activation = "relu", sampler = "dei",
                                chains = n_nuts, init = mile$ensemble, warmup = 100,
                                iter = 1000, seed = 1, progress = FALSE))
t_dei_total <- proc.time()[["elapsed"]] - t0
m_dei <- bnn_metrics(dei, sp$test, scale = "standardized")

per_chain <- function(fit) fit$timing$warmup + fit$timing$sampling
res <- data.frame(
  date = format(Sys.Date()), dataset = "airfoil", n_train = nrow(sp$train),
  ensemble_members = mile$ensemble$members,
  ensemble_seconds = mile$ensemble$elapsed,
  mile_chains = n_nuts, mile_seconds_per_chain_median = median(per_chain(mile_seq)),
  mile_grads_per_chain = median(mile_seq$n_grad),
  mile_total_seconds_12_chains_2_workers = t_mile_total,
  nuts_chains = n_nuts, nuts_seconds_per_chain_median = median(per_chain(dei)),
  nuts_grads_per_chain = median(dei$n_grad),
  ratio_grads_nuts_over_mile = median(dei$n_grad) / median(mile$n_grad),
  ratio_time_nuts_over_mile = median(per_chain(dei)) / median(per_chain(mile_seq)),
  mile_test_lppd = m_mile$lppd, mile_test_rmse = m_mile$rmse,
  nuts_test_lppd = m_dei$lppd, nuts_test_rmse = m_dei$rmse)
print(t(res))
dir.create(file.path("inst", "benchmarks", "decisions"), showWarnings = FALSE, recursive = TRUE)
utils::write.csv(res, file.path("inst", "benchmarks", "results", "mile_vs_nuts.csv"),
                 row.names = FALSE)
cat(sprintf("\nMILE: %.1f s and %s gradients per chain; DEI-NUTS: %.1f s and %s gradients per chain\n",
            res$mile_seconds_per_chain_median, format(res$mile_grads_per_chain, big.mark = ","),
            res$nuts_seconds_per_chain_median, format(res$nuts_grads_per_chain, big.mark = ",")))
cat(sprintf("DEI-NUTS / MILE: %.1fx gradients, %.1fx time per chain\n",
            res$ratio_grads_nuts_over_mile, res$ratio_time_nuts_over_mile))
cat(sprintf("Whole MILE fit (12 chains, ensemble included, %d workers): %.1f s\n",
            workers, t_mile_total))

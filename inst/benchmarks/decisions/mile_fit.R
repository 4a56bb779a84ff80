# The whole MILE fit on airfoil (16-16 ReLU, 12 members and chains, ensemble
# included) on 2 workers, as a user would run it.
#   Rscript inst/benchmarks/decisions/mile_fit.R [data_dir] [double|single]
# Appends to inst/benchmarks/decisions/mile_fit.csv (with the precision,
# the chains' seconds summed over chains, and the test RMSE/LPPD
# on the standardised scale).  The target: under 25 s.
library(bnnmc)
args <- commandArgs(trailingOnly = TRUE)
data_dir <- if (length(args)) args[1] else
  Sys.getenv("BNNMC_DATA_DIR", file.path("..", "shared", "data", "uci"))
precision <- if (length(args) >= 2) args[2] else "double"
d <- bnn_read_uci("airfoil", dir = data_dir)
sp <- bnn_split(d, protocol = "mile", rep = 1)
old <- future::plan(future::multisession, workers = 2)
t0 <- proc.time()[["elapsed"]]
mile <- bnn_fit(y ~ ., data = sp$train, hidden = c(16, 16), activation = "relu",
                likelihood = "hetero_gaussian",
                sampler = "mile", chains = 12, valid_data = sp$valid, seed = 1,
                progress = FALSE, precision = precision)
total <- proc.time()[["elapsed"]] - t0
m <- bnn_metrics(mile, newdata = sp$test, scale = "standardized")
future::plan(old)
res <- data.frame(date = format(Sys.Date()), dataset = "airfoil", chains = 12, workers = 2,
                  precision = precision, total_seconds = total,
                  chain_seconds_sum = sum(mile$timing$warmup + mile$timing$sampling), ensemble_seconds = mile$ensemble$elapsed,
                  chain_seconds_median = stats::median(mile$timing$warmup + mile$timing$sampling),
                  load_average_1min = tryCatch(as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1]),
                                               error = function(e) NA_real_),
                  test_rmse = m[["rmse"]], test_lppd = m[["lppd"]])
out <- file.path("inst", "benchmarks", "decisions", "mile_fit.csv")
if (file.exists(out)) {
  old_rows <- utils::read.csv(out)
  for (nm in setdiff(names(res), names(old_rows)))   # rows from before a column existed
    old_rows[[nm]] <- if (nm == "precision") "double" else NA
  res_all <- rbind(old_rows[, names(res)], res)
} else res_all <- res
utils::write.csv(res_all, out, row.names = FALSE)
print(res, row.names = FALSE)

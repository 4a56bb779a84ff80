# The whole MILE fit on airfoil (16-16 ReLU, 12 members and chains, ensemble
# included) on 2 workers, as a user would run it.
#   Rscript inst/benchmarks/decisions/mile_fit.R [data_dir]
# Appends to inst/benchmarks/decisions/mile_fit.csv.
library(bnnmc)
args <- commandArgs(trailingOnly = TRUE)
data_dir <- if (length(args)) args[1] else
  Sys.getenv("BNNMC_DATA_DIR", file.path("..", "shared", "data", "uci"))
d <- bnn_read_uci("airfoil", dir = data_dir)
sp <- bnn_split(d, protocol = "mile", rep = 1)
old <- future::plan(future::multisession, workers = 2)
t0 <- proc.time()[["elapsed"]]
mile <- bnn_fit(y ~ ., data = sp$train, hidden = c(16, 16), activation = "relu",
                likelihood = "hetero_gaussian",
                sampler = "mile", chains = 12, valid_data = sp$valid, seed = 1,
                progress = FALSE)
total <- proc.time()[["elapsed"]] - t0
future::plan(old)
res <- data.frame(date = format(Sys.Date()), dataset = "airfoil", chains = 12, workers = 2,
                  total_seconds = total, ensemble_seconds = mile$ensemble$elapsed,
                  chain_seconds_median = stats::median(mile$timing$warmup + mile$timing$sampling),
                  load_average_1min = tryCatch(as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1]),
                                               error = function(e) NA_real_))
out <- file.path("inst", "benchmarks", "decisions", "mile_fit.csv")
utils::write.table(res, out, sep = ",", row.names = FALSE, col.names = !file.exists(out),
                   append = file.exists(out))
print(res, row.names = FALSE)

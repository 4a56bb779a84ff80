# Shared by mile_precision.R and bikesharing_gap.R: MILE's Table 1
# protocol on one data set and split (16-16 ReLU, heteroscedastic head,
# N(0, 1) priors, 12 members and chains, 70/10/20 split, 2 multisession
# workers, as reproduce.R --table mile_t1 runs MILE), and appending a
# result row to a CSV.  Sourced from the scripts' own folder.

# Fit; `drop`: input columns left out; `ensemble`: the members' optimiser
# (NULL: the protocol's preset).  Returns the fit, its elapsed seconds, the
# test split and the 1-minute load average before it.
mile_table1_fit <- function(data_name, split, precision, drop = character(0), ensemble = NULL) {
  dir <- Sys.getenv("BNNMC_DATA_DIR", file.path("..", "shared", "data", "uci"))
  d <- bnn_read_uci(data_name, dir = dir)
  stopifnot(all(drop %in% setdiff(names(d), "y")))
  d <- d[, setdiff(names(d), drop), drop = FALSE]
  sp <- bnn_split(d, protocol = "mile", rep = split)
  old <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(old))
  load0 <- tryCatch(as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1]),
                    error = function(e) NA_real_)
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressWarnings(bnn_fit(y ~ ., data = sp$train, hidden = c(16, 16), activation = "relu",
                                  likelihood = "hetero_gaussian", sampler = "mile", chains = 12,
                                  valid_data = sp$valid, seed = split, progress = FALSE,
                                  precision = precision, ensemble = ensemble))
  list(fit = fit, seconds = proc.time()[["elapsed"]] - t0, test = sp$test, load_before = load0)
}

append_row <- function(res, file) {
  out <- file.path("inst", "benchmarks", "papers", "mile", file)
  utils::write.table(res, out, sep = ",", row.names = FALSE, col.names = !file.exists(out),
                     append = file.exists(out))
  print(res, row.names = FALSE)
}

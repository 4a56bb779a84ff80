# Batch-means Monte Carlo standard errors, independent of the package's own
# ESS code so that sampler tests do not rely on it.
batch_mcse <- function(draws, n_batch = 20) {
  # draws: [iteration, chain] matrix
  n <- nrow(draws)
  b <- n %/% n_batch
  means <- c(apply(draws[seq_len(b * n_batch), , drop = FALSE], 2, function(x)
    colMeans(matrix(x, b))))
  stats::sd(means) / sqrt(length(means))
}

# Locate the UCI data shipped beside the repository (not in the package).
uci_dir <- function() {
  cand <- c(Sys.getenv("BNNMC_DATA_DIR"),
            file.path(Sys.getenv("BNNMC_SHARED_DIR"), "data", "uci"))
  d <- normalizePath(testthat::test_path("."), mustWork = FALSE)
  for (i in 1:8) {
    cand <- c(cand, file.path(d, "shared", "data", "uci"))
    d <- dirname(d)
  }
  cand <- cand[nzchar(cand) & dir.exists(cand)]
  if (length(cand)) cand[[1]] else NULL
}

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


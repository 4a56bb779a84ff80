# Sampling known targets, for validating the samplers from R.

#' Sample a Gaussian target with the package's samplers
#'
#' Runs the C samplers on N(mean, Sigma) given by its precision matrix, so
#' their correctness can be checked against known answers.  Used by the
#' tests; useful to see what the samplers do on a simple target.
#'
#' @param mean Mean vector.
#' @param prec Precision matrix (inverse covariance).
#' @param sampler A settings object, e.g. [bnn_nuts()].
#' @param chains,warmup,iter,thin,seed As in [bnn_fit()].
#' @param init A list with one start vector per chain, or `NULL` for
#'   uniform(-2, 2) starts.
#' @return A list with `draws` (`[iteration, chain, variable]`),
#'   `sampler_stats`, `stepsize`, `n_grad` and `chain_status` (see
#'   [bnn_fit()]; a chain that never moved has all draws `NA`).
#' @export
#' @examples
#' out <- bnn_sample_gaussian(c(0, 0), diag(2), chains = 2, warmup = 200,
#'                            iter = 200, seed = 1)
#' apply(out$draws, 3, mean)
bnn_sample_gaussian <- function(mean, prec, sampler = bnn_nuts(), chains = 4,
                                warmup = 1000, iter = 1000, thin = 1, seed = 1,
                                init = NULL) {
  d <- length(mean)
  prec <- as.matrix(prec)
  if (!all(dim(prec) == d)) stop("'prec' must be a square matrix matching 'mean'.", call. = FALSE)
  sampler <- as_sampler(sampler)
  chains <- check_count(chains, "chains", 1L)
  thin <- check_count(thin, "thin", 1L)
  iter <- check_count(iter, "iter", 1L) * thin   # iter draws kept, as in bnn_fit()
  spec <- list(type = "gaussian", mean = as.double(mean), prec = as.double(prec))
  if (is.null(init))
    init <- with_seed(seed, lapply(seq_len(chains), function(i) stats::runif(d, -2, 2)))
  # evaluated here: the chains' function goes to the workers with this
  # frame, and a promise would take the caller's frame along
  force(warmup); force(seed); force(init)
  res <- dispatch_chains(seq_len(chains), function(cid) {
    run_chain(spec, init[[cid]], seed, cid, sampler, warmup, iter, thin, fit_shape = TRUE)
  })
  fit <- assemble_fit(res, paste0("x[", seq_len(d), "]"), list(lik = -1L), sampler,
                      warmup, iter, thin, seed, chains)
  fit[c("draws", "sampler_stats", "warmup_stats", "stepsize", "n_grad", "inv_metric",
        "chain_status", "failed_at")]
}

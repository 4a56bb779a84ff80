# The chains' part of a fit from its chains' results (bnn_fit()'s engines
# and bnn_sample_gaussian()): a plain list of the per-chain fields of the
# fit (R/utils-fit-object.R), which new_bnnfit() joins with the model and
# the run.

assemble_fit <- function(res, pars, spec, sampler, warmup, iter, thin, seed, chains,
                         ids = seq_len(chains)) {
  n_keep <- NROW(res[[1]]$draws)
  dim <- length(pars)
  dn <- list(iteration = NULL, chain = NULL, variable = pars)
  d1 <- res[[1L]]$draws
  # one chain whose draws already have the fit's shape and names
  # (run_chain(fit_shape = TRUE)): taken as they are, without a copy
  one <- chains == 1L && identical(dim(d1), c(n_keep, 1L, dim)) &&
    identical(dimnames(d1), dn)
  draws <- if (one) d1 else array(NA_real_, c(n_keep, chains, dim), dimnames = dn)
  rm(d1)
  snames <- res[[1]]$stat_names %||% .stat_names
  nw <- nrow(res[[1]]$warmup_stats)
  stats <- array(NA_real_, c(n_keep, chains, length(snames)),
                 dimnames = list(iteration = NULL, chain = NULL, variable = snames))
  wstats <- array(NA_real_, c(nw, chains, length(snames)),
                  dimnames = list(iteration = NULL, chain = NULL, variable = snames))
  for (c in seq_len(chains)) {
    if (!one) draws[, c, ] <- res[[c]]$draws
    stats[, c, ] <- res[[c]]$stats
    wstats[, c, ] <- res[[c]]$warmup_stats
  }
  # the likelihood's parameters (sigma, phi, nu) on their natural scale
  n_lik <- length(lik_par_names(spec))
  for (j in dim - n_lik + seq_len(n_lik)) draws[, , j] <- exp(draws[, , j])
  status <- vapply(res, function(r) r$status, character(1))
  fa <- lapply(res, function(r) r$failed_at)
  failed_at <- data.frame(
    chain = ids,
    phase = vapply(fa, function(f) f$phase %||% NA_character_, character(1)),
    step = vapply(fa, function(f) as.double(f$step %||% NA_real_), numeric(1)),
    reason = vapply(fa, function(f) f$reason %||% NA_character_, character(1)),
    stringsAsFactors = FALSE)
  list(
    draws = draws, sampler_stats = stats, warmup_stats = wstats,
    n_grad = vapply(res, function(r) r$n_grad, numeric(1)),
    stepsize = vapply(res, function(r) r$stepsize, numeric(1)),
    L = vapply(res, function(r) r$L %||% NA_real_, numeric(1)),
    n_reverted = vapply(res, function(r) r$n_reverted %||% NA_real_, numeric(1)),
    inv_metric = do.call(rbind, lapply(res, function(r) r$inv_metric)),
    timing = data.frame(chain = ids,
                        warmup = vapply(res, function(r) r$time_warmup, numeric(1)),
                        sampling = vapply(res, function(r) r$time_sampling, numeric(1))),
    chain_status = factor(chain_status_label(status), levels = chain_status_levels()),
    failed_at = failed_at,
    spec = spec, sampler = sampler, warmup = warmup, iter = iter, thin = thin,
    seed = seed, chains = chains, chain_id = ids, parameters = pars)
}

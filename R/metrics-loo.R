# PSIS-LOO of a fit below the loo- layer: the relative efficiencies that
# loo() and the plots use, and the plain PSIS-LOO elpd that bnn_fit()'s
# default model check (R/fit-choice.R) compares.

# Relative efficiency of exp(log_lik) per observation from the chains.  The
# ESS is scale-invariant, so each column is shifted by its maximum first to
# keep exp() from underflowing.  A block of observations at a time, so that
# no full copy of ll is made.
fit_relative_eff <- function(x, ll, cores = 1) {
  chain_id <- draw_chain_ids(x)
  if (length(chain_id) != nrow(ll))
    stop("The pointwise log-likelihood does not have one row per kept draw.", call. = FALSE)
  # a stacked fit's chains contribute unequal numbers of draws, which
  # loo::relative_eff() cannot take: its draws count as independent
  if (!is.null(x$stacking)) return(rep(1, ncol(ll)))
  unlist(lapply(row_blocks(ncol(ll), nrow(ll), 4L, chunk = 1L), function(idx) {
    lb <- ll[, idx, drop = FALSE]
    lik <- exp(sweep(lb, 2L, apply(lb, 2L, max), "-"))
    loo::relative_eff(lik, chain_id = chain_id, cores = cores)
  }), use.names = FALSE)
}

# The PSIS-LOO elpd of a fit's training data, as loo(x, moment_match =
# FALSE) computes it (pointwise_loglik() has the draws of the chains that
# did not fail): the estimate, its standard error and the number of
# observations with Pareto k above loo's threshold.
fit_psis_elpd <- function(x) {
  ll <- pointwise_loglik(x)
  lo <- suppressWarnings(loo::loo(ll, r_eff = fit_relative_eff(x, ll)))
  k <- lo$diagnostics$pareto_k
  thr <- lo$diagnostics$k_threshold %||% 0.7
  list(elpd = lo$estimates["elpd_loo", "Estimate"], se = lo$estimates["elpd_loo", "SE"],
       k_high = sum(k > thr, na.rm = TRUE))
}

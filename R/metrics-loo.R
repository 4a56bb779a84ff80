# PSIS-LOO of a fit below the loo- layer: the relative efficiencies that
# loo() and the plots use, and the plain PSIS-LOO elpd that bnn_fit()'s
# default model check (R/fit-choice.R) compares.

# Relative efficiency of exp(log_lik) per observation from the chains, as
# loo::relative_eff(exp(ll - column maxima), chain_id = draw_chain_ids(x))
# computes it (the ESS is scale-invariant; the shift keeps exp() from
# underflowing).
fit_relative_eff <- function(x, ll) {
  # a stacked fit's chains contribute unequal numbers of draws, which
  # loo::relative_eff() cannot take, and a mixture's draws come from two
  # models: their draws count as independent
  if (!is.null(x$stacking) || !is.null(x$mixture)) return(rep(1, ncol(ll)))
  chain_id <- draw_chain_ids(x)
  if (length(chain_id) != nrow(ll))
    stop("The pointwise log-likelihood does not have one row per kept draw.", call. = FALSE)
  relative_eff_chains(ll, length(unique(chain_id)))
}

# loo::relative_eff(exp(sweep(ll, 2, column maxima)), chain_id) for the
# draws [S, n] of n_chain chains of equal length, one chain after the
# other: loo's ESS of the whole (not split) chains / S per column, in C
# (src/diag/ess.c), one column at a time, with no copy of ll.  Equal to
# loo's up to rounding; NA where loo stops with an error (one iteration
# per chain).
relative_eff_chains <- function(ll, n_chain) {
  if (!is.double(ll)) storage.mode(ll) <- "double"
  .Call(C_relative_eff, ll, as.integer(n_chain), .bnn_threads())
}

# Pareto-smoothed importance sampling in C (src/diag/psis.c), as
# loo::psis() computes it, for the package's own uses (the default's check,
# the verdict's LOO-PIT); loo() of a fit returns loo's objects.
# psis_log_weights(): the normalised log weights [draw, observation] of the
# log ratios and their Pareto k.  psis_loo_pointwise(): from the pointwise
# log-likelihood [draw, observation], a matrix of elpd_loo, lpd and
# pareto_k per observation (loo::loo()'s pointwise columns).
psis_log_weights <- function(log_ratios, r_eff = rep(1, ncol(log_ratios))) {
  if (!is.double(log_ratios)) storage.mode(log_ratios) <- "double"
  .Call(C_psis, log_ratios, as.double(r_eff), FALSE, .bnn_threads())
}

psis_loo_pointwise <- function(ll, r_eff = rep(1, ncol(ll))) {
  if (!is.double(ll)) storage.mode(ll) <- "double"
  out <- .Call(C_psis, ll, as.double(r_eff), TRUE, .bnn_threads())
  colnames(out) <- c("elpd_loo", "lpd", "pareto_k")
  out
}

# The PSIS-LOO elpd of a fit's training data, as loo(x, moment_match =
# FALSE) computes it (pointwise_loglik() has the draws of the chains that
# did not fail): the estimate, its standard error and the number of
# observations with Pareto k above 0.7, and the pointwise elpds.  An error
# when PSIS fails for a point (a non-finite log-likelihood).
fit_psis_elpd <- function(x, loglik = NULL) {
  # the verdict's pointwise log-likelihood, when it kept it for the default
  # model's check (complete_plan(), R/fit-plan.R: the same draws and
  # arithmetic, the same values), at the training points the verdict used
  # (all of them on at most 500 rows)
  if (!is.null(loglik$pointwise)) {
    ll <- loglik$pointwise
    pw <- psis_loo_pointwise(ll, fit_relative_eff(x, ll))
    e <- pw[, "elpd_loo"]
    k <- pw[, "pareto_k"]
  } else {
    # PSIS and the relative efficiencies are per observation: a block of
    # training rows at a time (loglik_block()), the same numbers without
    # the [draw, observation] matrix of all rows
    ls <- loglik_setup(x)
    e <- k <- numeric(ls$n)
    for (idx in loglik_row_blocks(x, ls, 8 * pred_block_bytes())) {
      ll <- loglik_block(x, ls, idx, x$weights)
      pw <- psis_loo_pointwise(ll, fit_relative_eff(x, ll))
      e[idx] <- pw[, "elpd_loo"]
      k[idx] <- pw[, "pareto_k"]
    }
  }
  if (anyNA(e)) stop("PSIS-LOO failed for some observations.", call. = FALSE)
  list(elpd = sum(e), se = sqrt(length(e) * stats::var(e)),
       k_high = sum(k > 0.7, na.rm = TRUE), pointwise = unname(e),
       points = length(e))
}

# A finished fit as the default's choices take it (fit_plans(), R/fit-plan.R):
# the fit, the verdict's pointwise log-likelihood when kept, and the
# warnings held back.
finished_fit <- function(fit, loglik = NULL, warnings = list())
  list(fit = fit, loglik = loglik, warnings = warnings)

# The fit a choice returns, its held-back warnings signalled as bnn_fit()
# signals them.
chosen_fit <- function(out) {
  for (cnd in out$warnings) warning(cnd)
  out$fit
}

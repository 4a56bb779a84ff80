# Small accessors of a fit object used by several concepts (predict, metrics,
# diagnostics, plots).

# Whether the fit is of a factor response.
is_classification <- function(object) object$likelihood$family %in% c("bernoulli", "categorical")

# Draws of the chains that did not fail, [iteration, chain, variable].
ok_draws <- function(fit) {
  if (is.null(fit$chain_status)) return(fit$draws)
  fit$draws[, fit$chain_status == "ok", , drop = FALSE]
}

# posterior's convergence measures called on a fit: rhat(fit), ess_bulk(fit),
# mcse_mean(fit), ... give one named value per parameter, the same as the
# column of posterior::summarise_draws(as_draws(fit)) (as brms does).
# Without these methods posterior's defaults read the fit's draws array as
# one long vector or as chains of the parameters and answer with a single,
# wrong number.

# Apply a measure of posterior (a function of an iterations x chains
# matrix) to every parameter of the fit's draws.
draws_measure <- function(x, measure, ...) {
  inform_raw_rhat(x)
  d <- posterior::as_draws_array(x)
  vars <- posterior::variables(d)
  vals <- lapply(vars, function(v) measure(posterior::extract_variable_matrix(d, v), ...))
  if (all(lengths(vals) == 1L)) return(stats::setNames(unlist(vals), vars))
  out <- do.call(rbind, vals)
  rownames(out) <- vars
  out
}

#' posterior's convergence measures for a fit
#'
#' Methods for the generics of the \pkg{posterior} package, so that
#' `posterior::rhat(fit)`, `ess_bulk(fit)`, `ess_tail(fit)`, `mcse_mean(fit)`
#' and their friends give one value per parameter, equal to the column of
#' `posterior::summarise_draws(as_draws(fit))` (the draws of chains that
#' did not fail).  They are raw parameter-space measures: for a BNN, whose
#' posterior is symmetric under neuron permutations and sign flips, they
#' are expected to flag chains in different but equivalent modes; the fit's
#' convergence verdict (`print(fit)`, [bnn_convergence()]) is computed in
#' function space instead.
#'
#' @param x A `bnnfit`.
#' @param probs For the quantile measures: probabilities.
#' @param ... Passed to the measure (for example `names`).
#' @return A named numeric vector (one value per parameter), or for several
#'   `probs` a matrix with one row per parameter.
#' (`bayesplot::rhat(fit)` has its own method, with `pars`.)
#' @name posterior-measures
#' @examples
#' fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 2, warmup = 100,
#'                iter = 100, seed = 1, progress = FALSE, sampler = "nuts")
#' if (requireNamespace("posterior", quietly = TRUE)) {
#'   head(posterior::rhat(fit))
#'   head(posterior::ess_bulk(fit))
#' }
NULL

#' @rdname posterior-measures
#' @rawNamespace S3method(posterior::rhat, bnnfit, posterior_rhat_bnnfit)
posterior_rhat_bnnfit <- function(x, ...) draws_measure(x, posterior::rhat, ...)
#' @rdname posterior-measures
#' @exportS3Method posterior::rhat_basic
rhat_basic.bnnfit <- function(x, ...) draws_measure(x, posterior::rhat_basic, ...)
#' @rdname posterior-measures
#' @exportS3Method posterior::ess_basic
ess_basic.bnnfit <- function(x, ...) draws_measure(x, posterior::ess_basic, ...)
#' @rdname posterior-measures
#' @exportS3Method posterior::ess_bulk
ess_bulk.bnnfit <- function(x, ...) draws_measure(x, posterior::ess_bulk, ...)
#' @rdname posterior-measures
#' @exportS3Method posterior::ess_tail
ess_tail.bnnfit <- function(x, ...) draws_measure(x, posterior::ess_tail, ...)
#' @rdname posterior-measures
#' @exportS3Method posterior::ess_mean
ess_mean.bnnfit <- function(x, ...) draws_measure(x, posterior::ess_mean, ...)
#' @rdname posterior-measures
#' @exportS3Method posterior::ess_sd
ess_sd.bnnfit <- function(x, ...) draws_measure(x, posterior::ess_sd, ...)
#' @rdname posterior-measures
#' @exportS3Method posterior::ess_quantile
ess_quantile.bnnfit <- function(x, probs = c(0.05, 0.95), ...)
  draws_measure(x, posterior::ess_quantile, probs = probs, ...)
#' @rdname posterior-measures
#' @exportS3Method posterior::mcse_mean
mcse_mean.bnnfit <- function(x, ...) draws_measure(x, posterior::mcse_mean, ...)
#' @rdname posterior-measures
#' @exportS3Method posterior::mcse_sd
mcse_sd.bnnfit <- function(x, ...) draws_measure(x, posterior::mcse_sd, ...)
#' @rdname posterior-measures
#' @exportS3Method posterior::mcse_quantile
mcse_quantile.bnnfit <- function(x, probs = c(0.05, 0.95), ...)
  draws_measure(x, posterior::mcse_quantile, probs = probs, ...)

#' Summaries of a fit's draws with posterior
#'
#' `posterior::summarise_draws(fit)` (and `summarize_draws()`) summarise the
#' draws of the chains that did not fail, as for `as_draws(fit)`.  For a
#' network it says once per session that R-hat and ESS of raw weights
#' measure the symmetries of its hidden units, not convergence, and points
#' to the function-space verdict ([bnn_convergence()]);
#' `options(bnnmc.raw_rhat_note = FALSE)` keeps it quiet.
#'
#' @param .x A `bnnfit`.
#' @param ... Passed to `posterior::summarise_draws()` (summary functions,
#'   `.args`, `.num_args`, `.cores`).
#' @return A `draws_summary` data frame, as `posterior::summarise_draws()`.
#' @exportS3Method posterior::summarise_draws
#' @examples
#' fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 2, warmup = 150,
#'                iter = 150, seed = 1, progress = FALSE, sampler = "nuts")
#' if (requireNamespace("posterior", quietly = TRUE))
#'   head(posterior::summarise_draws(fit))
summarise_draws.bnnfit <- function(.x, ...) {
  inform_raw_rhat(.x)
  posterior::summarise_draws(posterior::as_draws_array(.x), ...)
}

# Small accessors of a fit object used by several concepts (predict, metrics,
# diagnostics, plots).

# Whether the fit is of a factor response.
is_classification <- function(object) object$likelihood$family %in% c("bernoulli", "categorical")

# Draws of the chains that did not fail, [iteration, chain, variable].
ok_draws <- function(fit) {
  if (is.null(fit$chain_status)) return(fit$draws)
  fit$draws[, fit$chain_status == "ok", , drop = FALSE]
}

# Pad per-observation results of the training data with NA at the rows that
# na.action = na.exclude dropped (stats::naresid; a no-op otherwise).
# Matrices are padded by row; transpose for [draw, observation] matrices.
pad_excluded <- function(object, x) {
  if (is.null(object$na_action)) return(x)
  stats::naresid(object$na_action, x)
}

#' @export
nobs.bnnfit <- function(object, ...) nrow(object$X)

# The lines every fit's print() starts with after its title: formula,
# network, likelihood and prior (sampler fits and approximations alike).
print_model_lines <- function(x) {
  sizes <- x$spec$sizes
  cat(" formula:     ", deparse1(x$formula), "\n")
  if (length(x$hidden))
    cat(" network:     ", paste(sizes, collapse = " - "),
        sprintf("(%s hidden activation, %d parameters)", x$activation,
                length(x$parameters)), "\n")
  else
    cat(" model:       ", sprintf("linear: an intercept and %d predictor column(s), no hidden layer",
                                  sizes[1]), "\n")
  cat(" likelihood:  ", format(x$likelihood), "\n")
  cat(" prior:       ", format(x$prior), "\n")
  invisible(NULL)
}

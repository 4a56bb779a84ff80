# marginaleffects: predictions(), avg_predictions(), slopes(), comparisons()
# and friends on fits, from the posterior draws.
#
# marginaleffects' extension mechanism for a model class it does not know:
# the class is added to options(marginaleffects_model_classes) (done when
# marginaleffects is loaded, R/eco-register.R) and four methods are
# registered for its generics (delayed S3 registration: bnnmc does not
# import marginaleffects).  get_predict() returns one row per observation
# (and class, for a categorical response) with the posterior draws as the
# attribute "posterior_draws", a rows x draws matrix; marginaleffects then
# computes every quantity draw by draw and summarises it like for brms and
# rstanarm: the estimate is the posterior median (its option
# "marginaleffects_posterior_center"), the interval equal-tailed ("eti").
# There are no coefficients to perturb and no covariance matrix: get_vcov()
# returns NULL and set_coef() returns the model unchanged.

register_marginaleffects <- function() {
  cl <- getOption("marginaleffects_model_classes")
  if (!"bnnfit" %in% cl) options(marginaleffects_model_classes = c(cl, "bnnfit"))
  invisible(TRUE)
}

#' marginaleffects for Bayesian neural networks
#'
#' Methods that let \pkg{marginaleffects} (`predictions()`,
#' `avg_predictions()`, `slopes()`, `avg_slopes()`, `comparisons()`,
#' `avg_comparisons()`, `hypotheses()`, ...) work on a `bnnfit` from its
#' posterior draws, like for \pkg{brms} and \pkg{rstanarm} fits.  Every
#' quantity is computed draw by draw from [posterior_epred()] (`type =
#' "response"`, the default), [posterior_linpred()] (`type = "link"`) or
#' [posterior_predict()] (`type = "prediction"`); marginaleffects reports
#' the posterior median of those draws as the estimate and equal-tailed
#' credible intervals (see its options `marginaleffects_posterior_center`
#' and `marginaleffects_posterior_interval`), and `get_draws()` returns the
#' draws.  Slopes are finite differences of the mean function, draw by
#' draw.  For a categorical response the rows carry the class in `group`.
#'
#' bnnmc adds `"bnnfit"` to `options(marginaleffects_model_classes)` when
#' marginaleffects is loaded; these methods are not called directly.
#'
#' @name bnnmc_marginaleffects
#' @param model A `bnnfit`.
#' @param newdata A data frame (marginaleffects' grid).
#' @param type `"response"`, `"link"` or `"prediction"`.
#' @param ndraws Number of draws (all by default), spread evenly over the
#'   chains.
#' @param coefs Ignored: a BNN's predictions come from its draws.
#' @param vcov Must be `NULL`, `TRUE` or `FALSE`: there is no covariance
#'   matrix, the uncertainty is in the draws.
#' @param mfx,newparams,se.fit,... Ignored (marginaleffects passes them).
#' @return `get_predict()`: a data frame with `rowid` (when `newdata` has
#'   it), `group` and `estimate`, with attribute `"posterior_draws"`;
#'   `get_coef()`: posterior medians of the parameters; `set_coef()`: the
#'   model; `get_vcov()`: `NULL`.
#' @examples
#' # marginaleffects needs collapse >= 2.0.18 for models with posterior draws
#' if (requireNamespace("marginaleffects", quietly = TRUE) &&
#'     requireNamespace("collapse", quietly = TRUE) &&
#'     utils::packageVersion("collapse") >= "2.0.18") {
#'   fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2,
#'                  warmup = 100, iter = 100, seed = 1, sampler = "nuts",
#'                  progress = FALSE)
#'   marginaleffects::avg_predictions(fit)
#'   marginaleffects::avg_slopes(fit, variables = "wt")
#' }
NULL

#' @rdname bnnmc_marginaleffects
#' @exportS3Method marginaleffects::get_predict
get_predict.bnnfit <- function(model, newdata = NULL, type = "response", mfx = NULL,
                               newparams = NULL, ndraws = NULL, se.fit = NULL, ...) {
  if (is.null(type)) type <- "response"
  type <- match_choice(type, c("response", "link", "prediction"), "type")
  nd <- if (is.null(newdata)) NULL else as.data.frame(newdata)
  draws <- switch(type,
    response = posterior_epred(model, newdata = nd, ndraws = ndraws),
    link = posterior_linpred(model, newdata = nd, ndraws = ndraws),
    prediction = posterior_predict(model, newdata = nd, ndraws = ndraws))
  n <- dim(draws)[2]
  if (length(dim(draws)) == 3L) {
    # categorical: one row per observation and class, class-major
    K <- dim(draws)[3]
    lev <- model$levels
    mat <- do.call(cbind, lapply(seq_len(K), function(k) draws[, , k]))
    out <- data.frame(group = factor(rep(lev, each = n), levels = lev))
  } else {
    mat <- draws
    out <- data.frame(group = rep("main_marginaleffect", n))
  }
  mat <- t(unname(mat))            # rows x draws
  out$estimate <- apply(mat, 1L, stats::median)
  if (!is.null(nd) && "rowid" %in% names(nd))
    out$rowid <- rep(nd$rowid, length.out = nrow(out))
  attr(out, "posterior_draws") <- mat
  out
}

#' @rdname bnnmc_marginaleffects
#' @exportS3Method marginaleffects::get_coef
get_coef.bnnfit <- function(model, ...) {
  m <- as.matrix(model, variable = model$parameters)   # draws x parameters
  apply(m, 2L, stats::median)
}

#' @rdname bnnmc_marginaleffects
#' @exportS3Method marginaleffects::set_coef
set_coef.bnnfit <- function(model, coefs, ...) model

#' @rdname bnnmc_marginaleffects
#' @exportS3Method marginaleffects::get_vcov
get_vcov.bnnfit <- function(model, vcov = NULL, ...) {
  if (!is.null(vcov) && !is.logical(vcov))
    warning("The 'vcov' argument has no meaning for a bnnfit: uncertainty comes ",
            "from the posterior draws.", call. = FALSE)
  NULL
}

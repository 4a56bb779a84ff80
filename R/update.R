# stats generics: update(), logLik(), model.frame().

#' @importFrom stats update logLik model.frame
NULL

#' Refit with changed arguments
#'
#' Like [stats::update()], but the stored call is evaluated where the
#' original fit's formula was created (usually where [bnn_fit()] was
#' called), so that a fit made inside a function can be updated from
#' outside it; the new arguments are evaluated in the caller's frame.  If
#' that environment cannot see the objects the original call used, the
#' caller's frame is used instead.  When the original call had no `seed`,
#' the fit's seed is reused, so `update(fit)` reproduces `fit` exactly and
#' `update(fit, iter = 2000)` changes only what was asked for.
#'
#' @param object A `bnnfit`.
#' @param formula. Changes to the formula, as in [stats::update.formula()]
#'   (e.g. `. ~ . + x3`).
#' @param ... Arguments of [bnn_fit()] to change, all named; `name = NULL`
#'   removes an argument.
#' @param evaluate If `FALSE`, return the updated call instead of fitting.
#' @return A new `bnnfit` (or a call when `evaluate = FALSE`).
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 1,
#'                warmup = 100, iter = 50, seed = 1, progress = FALSE)
#' fit2 <- update(fit, . ~ . + hp, hidden = 3)
#' fit2$call
#' identical(update(fit)$draws, fit$draws)
update.bnnfit <- function(object, formula., ..., evaluate = TRUE) {
  call <- object$call
  if (is.null(call)) stop("'object' has no stored call to update.", call. = FALSE)
  caller <- parent.frame()
  extras <- match.call(expand.dots = FALSE)$...
  if (length(extras) && (is.null(names(extras)) || any(names(extras) == "")))
    stop("The arguments of update() given in '...' must be named.", call. = FALSE)
  original_vars <- all.vars(as.list(call)[-1L][setdiff(names(call)[-1L],
                                                      c(names(extras), "formula"))])
  if (!missing(formula.))
    call$formula <- stats::update(stats::formula(object), formula.)
  if (is.null(call$seed) && !"seed" %in% names(extras)) call$seed <- object$seed
  values <- lapply(extras, eval, envir = caller)
  for (nm in names(extras)) call[[nm]] <- extras[[nm]]
  if (!evaluate) return(call)
  ecall <- call
  ecall$formula <- if (is.null(call$formula) || !inherits(call$formula, "formula"))
    stats::formula(object) else call$formula
  for (nm in names(values)) ecall[nm] <- list(values[[nm]])
  ecall <- ecall[!vapply(as.list(ecall), is.null, logical(1))]
  if (identical(ecall[[1L]], as.name("bnn_fit"))) ecall[[1L]] <- quote(bnnmc::bnn_fit)
  env <- environment(stats::formula(object)) %||% caller
  if (!all(vapply(original_vars, exists, logical(1), envir = env))) env <- caller
  fit <- eval(ecall, env)
  fit$call <- call
  fit
}

#' Log predictive density of the training data
#'
#' A Bayesian fit has no maximised likelihood; `logLik()` returns the log
#' pointwise predictive density (LPPD) of the training data,
#' `sum_i log(mean_s p(y_i | theta_s))` over all kept draws, with `df` the
#' number of parameters of the model (network weights and biases, and
#' `sigma` when it is sampled) and `nobs` the number of observations.  The
#' LPPD is an in-sample quantity, larger than the out-of-sample one; AIC or
#' BIC computed from it with this `df` are not meaningful for a Bayesian
#' neural network (its effective number of parameters is much smaller than
#' `df`).  For model comparison use [loo.bnnfit()] (`elpd_loo`) or the LPPD
#' of held-out data (`log_lik(fit, newdata = test)`).
#'
#' @param object A `bnnfit`.
#' @param ... Unused.
#' @return An object of class `logLik`.
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 1,
#'                warmup = 100, iter = 50, seed = 1, progress = FALSE)
#' logLik(fit)
logLik.bnnfit <- function(object, ...) {
  warn_unused_dots(list(...), "logLik")
  ll <- log_lik.bnnfit(object)
  m <- apply(ll, 2L, max)
  lppd <- sum(m + log(colMeans(exp(sweep(ll, 2L, m, "-")))))
  structure(lppd, df = length(object$parameters), nobs = nrow(object$X), class = "logLik")
}

#' Model frame of a fit
#'
#' @param formula A `bnnfit`.
#' @param ... Unused.
#' @return The model frame the network was fitted to (before
#'   standardisation), with its `terms` attribute.
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt + factor(cyl), data = mtcars, hidden = 2, chains = 1,
#'                warmup = 50, iter = 20, seed = 1, progress = FALSE)
#' head(model.frame(fit))
model.frame.bnnfit <- function(formula, ...) {
  warn_unused_dots(list(...), "model.frame")
  formula$model_frame
}

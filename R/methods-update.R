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
#' Without new `data`, the refit uses the data frame the original call
#' names, if it still gives the fit's model frame; if it has changed since
#' the fit, `update()` stops and asks for `data = ` (the data as they are
#' now, or `fit$data`, the training data kept in the fit).  If the name is
#' not found (a saved fit in a new session), the training data kept in the
#' fit are used, with a message.
#'
#' @param object A `bnnfit`.
#' @param formula. Changes to the formula, as in [stats::update.formula()]
#'   (e.g. `. ~ . + x3`).
#' @param ... Arguments of [bnn_fit()] to change, all named; `name = NULL`
#'   removes an argument.  `newdata` is taken as `data`, as in brms.
#' @param evaluate If `FALSE`, return the updated call instead of fitting.
#' @return A new `bnnfit` (or a call when `evaluate = FALSE`).
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 1,
#'                warmup = 100, iter = 100, seed = 1, progress = FALSE, sampler = "nuts")
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
  if ("newdata" %in% names(extras)) {
    # brms spells the new training data `newdata`
    if ("data" %in% names(extras))
      stop("update(): give 'data' or 'newdata' (the same: the data to refit to), not both.",
           call. = FALSE)
    names(extras)[names(extras) == "newdata"] <- "data"
  }
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
  if (!"data" %in% names(values) && !is.null(call$data))
    ecall <- update_training_data(object, ecall, env)
  out <- eval(ecall, env)
  # the updated call as it was written (not the evaluated one): a fit's
  # through its constructor; the refit of a converted ensemble
  # (as_bnnfit()) is the ensemble, whose own field is set
  if (inherits(out, "bnnfit")) return(bnnfit_with(out, call = call))
  out$call <- call
  out
}

# The call `ecall` of update() when it refits to the fit's own training
# data (no new `data` given): the data frame the call names, if it is still
# the data of the fit (the same model frame); else the data kept in the fit
# when the name is not found (a saved fit in a new session); an error when
# the data frame has changed or neither can be had.
update_training_data <- function(object, ecall, env) {
  nm <- deparse1(object$call$data)
  d <- tryCatch(eval(object$call$data, env), error = function(e) NULL)
  if (is.data.frame(d)) {
    if (isFALSE(same_training_data(object, d, env)))
      stop(sprintf(paste0("update(): the data frame '%s' is not the data this fit was made ",
                          "with (its model frame differs from the fit's). Give the data to ",
                          "refit to: data = %s for the data as they are now, or ",
                          "data = fit$data for the fit's own training data."), nm, nm),
           call. = FALSE)
    return(ecall)
  }
  if (!is.data.frame(object$data))
    stop(sprintf(paste0("update(): the training data '%s' are not found here and this fit ",
                        "does not keep them; give them: update(fit, data = <the data frame>)."),
                 nm), call. = FALSE)
  message(sprintf(paste0("update(): '%s' is not found here; refitting to the training data ",
                         "kept in the fit (fit$data)."), nm))
  ecall["data"] <- list(object$data)
  ecall$subset <- NULL        # the kept data are the model's rows already
  ecall
}

#' logLik() is not defined for a Bayesian neural network
#'
#' `logLik()` promises one maximised log-likelihood with its degrees of
#' freedom, for AIC and likelihood-ratio tests; a posterior sample has
#' neither (and a network's parameter count is not its effective number of
#' parameters), so `AIC()` would be meaningless.  As in rstanarm, the
#' pointwise log-likelihood is [log_lik.bnnfit()] (a `[draw, observation]`
#' matrix); compare models with [loo.bnnfit()] (`elpd_loo`),
#' [kfold.bnnfit()] or the LPPD of held-out data
#' (`bnn_metrics(fit, newdata = test)`).  `logLik()` stops with this advice.
#'
#' @param object A `bnnfit`.
#' @param ... Unused.
#' @return Does not return; an error.
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 2, warmup = 100,
#'                iter = 100, seed = 1, progress = FALSE, sampler = "nuts")
#' try(logLik(fit))
#' dim(log_lik(fit))     # the pointwise log-likelihood, one row per draw
logLik.bnnfit <- function(object, ...) {
  stop(paste0("logLik() is not defined for a bnnfit: a posterior sample has no maximised ",
              "likelihood and no degrees of freedom (so AIC() and BIC() would be meaningless). ",
              "Use log_lik(fit) for the pointwise log-likelihood matrix [draw, observation], ",
              "loo(fit) or kfold(fit) to compare models, or bnn_metrics(fit, newdata = test) ",
              "for held-out data."), call. = FALSE)
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
#'                warmup = 100, iter = 100, seed = 1, progress = FALSE, sampler = "nuts")
#' head(model.frame(fit))
model.frame.bnnfit <- function(formula, ...) {
  check_dots(list(...), "model.frame")
  formula$model_frame
}

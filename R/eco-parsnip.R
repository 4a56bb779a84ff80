# parsnip: the "bnnmc" engine of parsnip::mlp().
#
# Registered when parsnip is loaded (R/eco-register.R), without importing
# parsnip.  Fitting goes through bnn_fit_mlp() (exported, because parsnip
# calls engines as pkg::fun), which maps parsnip's main arguments to
# bnn_fit()'s and refuses the ones a Bayesian network sampled by MCMC has no
# use for.  Predictions go through predict.bnnfit() and posterior_epred().

#' The bnnmc engine for parsnip's mlp()
#'
#' With \pkg{parsnip} installed, `parsnip::mlp() |> parsnip::set_engine("bnnmc")`
#' fits a Bayesian neural network by MCMC with [bnn_fit()], for
#' `set_mode("regression")` (numeric outcome) and
#' `set_mode("classification")` (factor outcome).  The engine is registered
#' when parsnip is loaded; bnnmc does not import parsnip.  It works in
#' \pkg{workflows} with \pkg{recipes} and in \pkg{tune}'s
#' `fit_resamples()` and `tune_grid()`.
#'
#' @section Main arguments:
#' * `hidden_units` -> `hidden`: the widths of the hidden layers (one number
#'   per layer; parsnip's single number gives one hidden layer).  Default
#'   `c(16, 16)` as in [bnn_fit()].
#' * `activation` -> `activation`: one of [bnn_activations()]; parsnip's
#'   `"linear"` is bnnmc's `"identity"`.  Others (`"softmax"`, `"elu"`, ...)
#'   are an error.  Default `"tanh"`.  dials' `activation()` includes
#'   values bnnmc does not have, so tune it over an explicit grid (e.g.
#'   `grid = data.frame(activation = c("tanh", "relu"))`).
#' * `epochs`: the training epochs of the deep ensemble that starts the
#'   chains, i.e. only with `sampler = "mile"` (the default) or `"dei"`
#'   ([bnn_mile()], [bnn_dei()]), or `init = "ensemble"`; it replaces the
#'   `epochs` of the protocol's
#'   optimiser preset ([bnn_optimizer_preset()]) or of the engine argument
#'   `ensemble`.  With a sampler that trains no ensemble (e.g. `"nuts"`) it
#'   is an error: MCMC has no epochs; the number of draws is set by the
#'   engine arguments `warmup` and `iter`.
#' * `penalty`, `dropout`, `learn_rate`: an error if set.  A BNN sampled by
#'   MCMC is regularised by its prior (engine argument `prior`, see
#'   [bnn_prior()]), not a weight penalty; it has no dropout; and the
#'   samplers adapt their step sizes themselves.  The learning rate of the
#'   starting ensemble is set with the engine argument
#'   `ensemble = bnn_optimizer_preset("mile", lr = ...)`.
#'
#' Engine arguments (`set_engine("bnnmc", ...)`) are passed to [bnn_fit()]:
#' `sampler`, `chains`, `warmup`, `iter`, `thin`, `prior`, `likelihood`,
#' `seed`, `ensemble`, ... (`progress` is `FALSE` unless given).  Without
#' `seed`, each fit draws its seed from R's random numbers, so
#' `set.seed()` before `fit()` or `fit_resamples()` makes it reproducible.
#' Case weights are not supported.
#'
#' @section Predictions:
#' `predict(<model_fit>, new_data, type = )`:
#' * `"numeric"`: the posterior predictive mean (`predict.bnnfit()`);
#' * `"class"`, `"prob"`: the most probable class and the class
#'   probabilities averaged over the draws;
#' * `"conf_int"`: equal-tailed credible intervals of probability `level`
#'   for the mean function (regression) or each class probability
#'   (classification), quantiles of the [posterior_epred()] draws;
#'   `std_error = TRUE` adds their posterior standard deviation;
#' * `"pred_int"` (regression): the equal-tailed posterior predictive
#'   interval of probability `level`, observation noise included (the exact
#'   quantiles of the Gaussian mixture over draws, `predict(fit, type =
#'   "interval")`);
#' * `"raw"`: the draws, the `[draw, observation]` matrix of
#'   [posterior_epred()] (for a categorical outcome the array
#'   `[draw, observation, class]`); `opts = list(ndraws = 100)` thins them.
#'
#' The underlying `bnnfit` is `extract_fit_engine(<model_fit>)`, for
#' everything else bnnmc offers (diagnostics, [bnn_metrics()], draws).
#'
#' @name bnnmc_parsnip
#' @param formula,data As in [bnn_fit()] (parsnip supplies them).
#' @param hidden_units,activation,epochs,penalty,dropout,learn_rate parsnip's
#'   main arguments of `mlp()`, see above.
#' @param ... Engine arguments, passed to [bnn_fit()].
#' @return `bnn_fit_mlp()`: a `bnnfit`.
#' @examples
#' if (requireNamespace("parsnip", quietly = TRUE)) {
#'   spec <- parsnip::mlp(hidden_units = 4) |>
#'     parsnip::set_engine("bnnmc", sampler = "nuts", chains = 2,
#'                         warmup = 100, iter = 100, seed = 1) |>
#'     parsnip::set_mode("regression")
#'   mf <- parsnip::fit(spec, mpg ~ wt + hp, data = mtcars)
#'   predict(mf, mtcars[1:3, ])
#'   predict(mf, mtcars[1:3, ], type = "conf_int", level = 0.9)
#' }
NULL

#' @rdname bnnmc_parsnip
#' @export
bnn_fit_mlp <- function(formula, data, hidden_units = NULL, activation = NULL,
                        epochs = NULL, penalty = NULL, dropout = NULL,
                        learn_rate = NULL, ...) {
  refuse <- function(arg, why)
    stop(sprintf("mlp(%s = ) has no meaning for the \"bnnmc\" engine: %s See ?bnnmc_parsnip.",
                 arg, why), call. = FALSE)
  if (!is.null(penalty))
    refuse("penalty", paste("a Bayesian network is regularised by its prior; set the",
                            "engine argument 'prior' (see ?bnn_prior)."))
  if (!is.null(dropout))
    refuse("dropout", "MCMC samples the full network; there is no dropout.")
  if (!is.null(learn_rate))
    refuse("learn_rate", paste("the samplers adapt their step sizes; the starting ensemble's",
                               "learning rate is the engine argument",
                               "'ensemble = bnn_optimizer_preset(\"mile\", lr = ...)'."))
  args <- list(...)
  if (is.null(args$progress)) args$progress <- FALSE
  if (!is.null(hidden_units)) args$hidden <- hidden_units
  if (!is.null(activation)) {
    if (!is.character(activation) || length(activation) != 1L)
      stop("mlp(activation = ) must be one activation name.", call. = FALSE)
    act <- if (identical(activation, "linear")) "identity" else activation
    if (!act %in% bnn_activations())
      stop(sprintf("mlp(activation = \"%s\") is not available in bnnmc; use one of %s (or \"linear\").",
                   activation, paste0('"', bnn_activations(), '"', collapse = ", ")),
           call. = FALSE)
    args$activation <- act
  }
  if (!is.null(epochs)) {
    # the sampler bnn_fit() will run (the default fit's when none is given)
    # says whether its chains start from a deep ensemble trained here and
    # which optimiser trains it (R/sampler-protocol.R)
    sampler <- if (is.null(args$sampler)) default_sampler() else as_sampler(args$sampler)
    init <- if ("init" %in% names(args)) args$init else
      sampler_protocol_default(sampler, "init", "random")
    if (!identical(init, "ensemble"))
      stop(paste0("mlp(epochs = ) sets the epochs of the deep ensemble that starts the chains, ",
                  "but this fit trains none (", format(sampler), ", init ",
                  if (is.character(init)) paste0("\"", init[1L], "\"") else "given",
                  "); MCMC has no epochs: set the number of draws with the engine ",
                  "arguments 'warmup' and 'iter'. See ?bnnmc_parsnip."), call. = FALSE)
    opt <- args$ensemble
    if (is.null(opt)) {
      y <- eval(formula[[2L]], data, environment(formula))
      classif <- is.factor(y) || is.logical(y) || is.character(y)
      opt <- sampler_ensemble_preset(sampler, list(family = if (classif) "categorical" else
        "gaussian"))
    }
    opt <- unclass(opt)
    opt$epochs <- epochs
    args$ensemble <- do.call(bnn_optimizer, opt)
  }
  # a call with symbols, so that fit$call stays readable
  env <- new.env(parent = environment(formula))
  assign("formula", formula, env)
  assign("data", data, env)
  for (nm in names(args)) assign(paste0(".bnnmc_arg_", nm), args[[nm]], env)
  cl <- as.call(c(list(quote(bnnmc::bnn_fit), formula = quote(formula), data = quote(data)),
                  stats::setNames(lapply(paste0(".bnnmc_arg_", names(args)), as.name),
                                  names(args))))
  eval(cl, env)
}

# parsnip's post-processing (parsnip makes tibbles of the data frames)
# of conf_int: quantiles of posterior_epred().
parsnip_conf_int <- function(results, object) {
  ex <- object$spec$method$pred$conf_int$extras
  level <- ex$level %||% 0.95
  std_error <- isTRUE(ex$std_error)
  a <- (1 - level) / 2
  q <- function(m) {
    qs <- apply(m, 2L, stats::quantile, probs = c(a, 1 - a), names = FALSE)
    list(lo = qs[1, ], hi = qs[2, ], se = apply(m, 2L, stats::sd))
  }
  if (object$spec$mode == "regression") {
    r <- q(results)
    out <- data.frame(.pred_lower = r$lo, .pred_upper = r$hi)
    if (std_error) out$.std_error <- r$se
    return(out)
  }
  lev <- object$lvl %||% object$fit$levels
  per <- if (length(dim(results)) == 3L) {
    lapply(seq_along(lev), function(k) q(results[, , k]))
  } else {
    r2 <- q(results)
    r1 <- q(1 - results)
    list(r1, r2)
  }
  out <- list()
  for (k in seq_along(lev)) {
    out[[paste0(".pred_lower_", lev[k])]] <- per[[k]]$lo
    out[[paste0(".pred_upper_", lev[k])]] <- per[[k]]$hi
    if (std_error) out[[paste0(".std_error_", lev[k])]] <- per[[k]]$se
  }
  as.data.frame(out, check.names = FALSE)
}

parsnip_pred_int <- function(results, object) {
  data.frame(.pred_lower = results$lower, .pred_upper = results$upper)
}

parsnip_prob <- function(results, object) {
  as.data.frame(results, check.names = FALSE)
}

# Registers the engine (parsnip's namespace must be loaded).  Idempotent.
register_parsnip_engine <- function() {
  current <- parsnip::get_model_env()[["mlp"]]
  if (!is.null(current) && "bnnmc" %in% current$engine) return(invisible(FALSE))
  for (mode in c("regression", "classification")) {
    parsnip::set_model_engine("mlp", mode = mode, eng = "bnnmc")
    parsnip::set_dependency("mlp", eng = "bnnmc", pkg = "bnnmc", mode = mode)
  }
  arg <- function(parsnip, original, fun)
    parsnip::set_model_arg(model = "mlp", eng = "bnnmc", parsnip = parsnip,
                           original = original, func = list(pkg = "dials", fun = fun),
                           has_submodel = FALSE)
  arg("hidden_units", "hidden_units", "hidden_units")
  arg("activation", "activation", "activation")
  arg("epochs", "epochs", "epochs")
  arg("penalty", "penalty", "penalty")
  arg("dropout", "dropout", "dropout")
  arg("learn_rate", "learn_rate", "learn_rate")
  for (mode in c("regression", "classification")) {
    parsnip::set_fit(model = "mlp", eng = "bnnmc", mode = mode,
                     value = list(interface = "formula", protect = c("formula", "data"),
                                  func = c(pkg = "bnnmc", fun = "bnn_fit_mlp"),
                                  defaults = list()))
    parsnip::set_encoding(model = "mlp", eng = "bnnmc", mode = mode,
                          options = list(predictor_indicators = "none",
                                         compute_intercept = FALSE,
                                         remove_intercept = FALSE,
                                         allow_sparse_x = FALSE))
  }
  pred <- function(mode, type, fun, args, post = NULL, pkg = NULL)
    parsnip::set_pred(model = "mlp", eng = "bnnmc", mode = mode, type = type,
                      value = list(pre = NULL, post = post,
                                   func = if (is.null(pkg)) c(fun = fun) else c(pkg = pkg, fun = fun),
                                   args = args))
  base <- list(object = quote(object$fit), newdata = quote(new_data))
  pred("regression", "numeric", "predict", c(base, type = "response"))
  pred("regression", "conf_int", "posterior_epred", base, parsnip_conf_int, "bnnmc")
  pred("regression", "pred_int", "predict",
       c(base, type = "interval", level = quote(level)), parsnip_pred_int)
  pred("regression", "raw", "posterior_epred", base, NULL, "bnnmc")
  pred("classification", "class", "predict", c(base, type = "class"))
  pred("classification", "prob", "predict", c(base, type = "prob"), parsnip_prob)
  pred("classification", "conf_int", "posterior_epred", base, parsnip_conf_int, "bnnmc")
  pred("classification", "raw", "posterior_epred", base, NULL, "bnnmc")
  invisible(TRUE)
}

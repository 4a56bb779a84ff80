# print, summary and the small accessor methods of bnnfit.

#' @export
print.bnnfit <- function(x, digits = 3, ...) {
  # (an approximation's `sampler` is its label; format() takes `warmup` only
  # where it matters)
  sampler <- sampler_upgrade(x$sampler)
  cat(fit_title(x), "fitted by", format(sampler, warmup = x$warmup),
      if (!is.null(x$ensemble)) sprintf("started from a deep ensemble (%s)",
                                         sampler_protocol_name(sampler) %||% "user") else "",
      "\n")
  print_model_lines(x)
  print_linear_coefs(x, digits)
  mc <- format_model_choice(x$model_choice)
  if (!is.null(mc))
    cat(strwrap(mc, width = 78, initial = " model choice: ", exdent = 14), sep = "\n")
  if (!is.null(x$precision))
    cat(sprintf(" precision:    %s%s\n", x$precision,
                if (identical(x$precision, "single"))
                  " (network in float32, log density and sampler in double)" else ""))
  ok <- x$chain_status == "ok"
  cat(sprintf(" chains:       %d x %d draws (warm-up %d %s, thin %d)%s\n", x$chains,
              dim(x$draws)[1], x$warmup, warmup_unit(x$sampler), x$thin,
              if (all(ok)) "" else sprintf(", %d failed", sum(!ok))))
  if (!is.null(x$partial))
    cat(sprintf(" partial:      %d of the %d chains asked for (the fit was interrupted)\n",
                x$partial$chains, x$partial$asked))
  ids <- x$chain_id
  if (!is.null(ids) && !identical(as.integer(ids), seq_len(x$chains)))
    cat(sprintf(" chain ids:    %s\n", format_ids(ids)))
  if (!is.null(x$waves)) {
    lg <- x$waves$log
    last <- lg[nrow(lg), ]
    cat(sprintf(" waves:        %d (up to %d chains each); %s\n", nrow(lg), x$waves$settings$wave,
                if (is.na(last$bound)) "the chain-count bound was not estimated" else
                  sprintf("%d mode(s), %s bound for p = %s: %d chains (%s)", last$modes,
                          if (identical(x$waves$settings$bound, "exact")) "exact" else "Markov",
                          format(x$waves$settings$p), last$bound,
                          if (x$chains >= last$bound) "met" else "not met")))
  }
  st <- x$sampler_stats
  if ("divergent__" %in% dimnames(st)[[3]]) {
    div <- colSums(st[, , "divergent__", drop = FALSE] > 0, na.rm = TRUE)
    cat(" divergences: ", sum(div), if (sum(div)) sprintf("(per chain: %s)", per_chain_text(div, digits)) else "", "\n")
  } else if (any(!is.na(x$n_reverted))) {
    rv <- x$n_reverted
    cat(" reverted steps (non-finite):", sum(rv, na.rm = TRUE),
        if (sum(rv, na.rm = TRUE)) sprintf("(per chain: %s)", paste(rv, collapse = " ")) else "", "\n")
  }
  cat(" step sizes:  ", per_chain_text(x$stepsize, digits), stepsize_note(x), "\n")
  if (any(!is.na(x$L)))
    cat(" L (momentum decoherence):", per_chain_text(x$L, digits), "\n")
  if (!is.null(x$ensemble))
    cat(sprintf(" ensemble:     %d members, %s gradients, %.1f s\n", x$ensemble$members,
                format(sum(x$ensemble$n_grad), big.mark = ","), x$ensemble$elapsed))
  cat(sprintf(" gradients:    %s in total (%s per chain on average)\n",
              format(sum(x$n_grad), big.mark = ","), format(round(mean(x$n_grad)), big.mark = ",")))
  cat(format_time_line(x), sep = "\n")
  if (!is.null(x$ces)) cat(format_ces_record(x$ces), sep = "\n")
  cat(" observations:", nobs(x), "\n")
  dc <- dispersion_check(x)
  if (overdispersed(dc))
    cat(strwrap(dispersion_text(dc), width = 78, initial = " dispersion:   ", exdent = 14),
        sep = "\n")
  stk <- format_stacking(x$stacking)
  if (!is.null(stk)) cat(strwrap(stk, width = 78, initial = " stacking:     ", exdent = 14), sep = "\n")
  print_convergence_lines(fit_convergence(x))
  invisible(x)
}

# The unit of a sampler's warm-up budget (`warmup` of bnn_fit()).
warmup_unit <- function(sampler) sampler_units(sampler_upgrade(sampler))$warmup

# One value per chain, or with many chains (the symmetry paper's thousands
# of short chains) their median and range, so that print() stays short.
per_chain_text <- function(v, digits = 3) {
  f <- function(z) formatC(z, digits = digits, format = "g")
  if (length(v) <= 8L) return(paste(f(v), collapse = " "))
  sprintf("median %s, range %s to %s over %d chains", f(stats::median(v, na.rm = TRUE)),
          f(min(v, na.rm = TRUE)), f(max(v, na.rm = TRUE)), length(v))
}

#' Summarize a Bayesian neural network fit
#'
#' A network is summarised by its predictors and its fit: the importance of
#' each predictor ([bnn_importance()], the drop in mean log-likelihood per
#' observation when it is permuted, with a 90% interval over draws) and the
#' range of its partial dependence ([bnn_effects()], the largest minus the
#' smallest expected response along its range), then the Bayesian R-squared
#' ([bayes_R2()]) and the PSIS-LOO elpd ([loo()]), then the sampler's
#' diagnostics.  These use up to 200 draws and, for the effect ranges, 50
#' rows and 10 grid values per predictor, so they stay quick.  Posterior
#' summaries per parameter and aggregated per layer and role (weights,
#' biases) are computed too and printed with `weights = TRUE`: individual
#' weights of a network are not identified (permutation and sign
#' symmetries), so their marginal summaries and R-hat values are expected to
#' look poor even when the predictive distribution has converged.  A linear
#' model (no hidden layer) is summarised by its coefficients, named by its
#' predictors.
#'
#' @param object A `bnnfit`.
#' @param probs Quantiles to report (columns `q5`, `q50`, ... of
#'   `parameters`).  When given, `print()` shows them for the first
#'   parameters (and `sigma`), as rstanarm's and brms's summaries do.
#' @param weights Print the per-layer table of the weights (also printed
#'   when `probs` is given, with the quantiles of the first parameters).
#' @param predictors Compute the predictors' importance and effect ranges
#'   and the model's fit (R-squared, LOO) for a network fitted with a
#'   formula; `FALSE` skips them.
#' @param ... Unused.
#' @return An object of class `summary.bnnfit`: a list with `predictors`
#'   (one row per predictor: `variable`, `importance`, `lower`, `upper`,
#'   `effect_range`; `NULL` for a linear fit or with `predictors = FALSE`),
#'   `fit_measures` (`bayes_R2` and LOO `elpd_loo` with their uncertainty,
#'   and the number of Pareto k above 0.7), `parameters` (one row per
#'   parameter), `layers` (one row per layer and role) and `sampler`
#'   (per-chain sampler diagnostics).
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt + hp + qsec, data = mtcars, hidden = 4, chains = 2,
#'                warmup = 150, iter = 100, seed = 42, progress = FALSE, sampler = "nuts")
#' s <- summary(fit)
#' s
#' s$predictors
#' print(s, weights = TRUE)
summary.bnnfit <- function(object, probs = c(0.05, 0.5, 0.95), weights = FALSE,
                           predictors = TRUE, ...) {
  check_dots(list(...), "summary")
  probs_given <- !missing(probs)
  for (nm in c("weights", "predictors")) {
    v <- get(nm)
    if (!is.logical(v) || length(v) != 1L || is.na(v))
      stop(sprintf("'%s' must be TRUE or FALSE.", nm), call. = FALSE)
  }
  if (!is.numeric(probs) || !length(probs) || anyNA(probs) || any(probs < 0) ||
      any(probs > 1))
    stop("'probs' must be probabilities between 0 and 1.", call. = FALSE)
  d <- object$draws
  ok <- object$chain_status == "ok"
  # sigma on the response's scale, as everywhere a user meets it
  if ("sigma" %in% dimnames(d)[[3]]) d[, , "sigma"] <- d[, , "sigma"] * sigma_scale(object)
  m <- matrix(d[, ok, , drop = FALSE], ncol = dim(d)[3])
  pars <- parameter_layers(dimnames(d)[[3]])
  qs <- t(apply(m, 2L, stats::quantile, probs = probs, na.rm = TRUE, names = FALSE))
  if (length(probs) == 1L) qs <- t(qs)
  colnames(qs) <- paste0("q", format(100 * probs, trim = TRUE))
  tab <- data.frame(pars, mean = colMeans(m, na.rm = TRUE),
                    sd = apply(m, 2L, stats::sd, na.rm = TRUE), qs,
                    stringsAsFactors = FALSE, row.names = NULL)
  # per layer and role: network parameters only (sigma has no layer)
  net <- tab[!is.na(tab$layer), , drop = FALSE]
  layers <- stats::aggregate(data.frame(mean_abs = abs(net$mean), sd = net$sd),
                             by = net[c("layer", "role")], FUN = mean)
  layers$n <- as.vector(table(interaction(net$layer, net$role, drop = TRUE))[
    paste(layers$layer, layers$role, sep = ".")])
  st <- object$sampler_stats
  stat_mean <- function(nm, f = colMeans) {
    if (!nm %in% dimnames(st)[[3]]) return(rep(NA_real_, object$chains))
    f(matrix(st[, , nm], ncol = object$chains), na.rm = TRUE)
  }
  samp <- data.frame(
    chain = seq_len(object$chains), status = as.character(object$chain_status),
    stepsize = object$stepsize,
    accept_stat = stat_mean("accept_stat__"),
    mean_treedepth = stat_mean("treedepth__"),
    divergences = stat_mean("divergent__", colSums),
    n_grad = object$n_grad,
    seconds = object$timing$warmup + object$timing$sampling)
  if (any(!is.na(object$L))) {
    samp$L <- object$L
    samp$reverted <- object$n_reverted
    samp$accept_stat <- samp$mean_treedepth <- samp$divergences <- NULL
  }
  fa <- object$failed_at
  if (!is.null(fa) && any(!is.na(fa$phase))) {
    samp$failed_phase <- fa$phase
    samp$failed_step <- fa$step
  }
  diag <- bnn_diagnostics(object)
  tab$rhat <- diag$rhat
  tab$cw_rhat <- diag$cw_rhat_mean
  tab$ess_bulk <- diag$ess_bulk
  tab$ess_tail <- diag$ess_tail
  lsum <- bnn_layer_summary(ok_draws(object))
  layers <- merge(layers, lsum[, c("layer", "role", "rhat_mean", "cw_rhat_mean",
                                   "within_var_mean", "between_var_mean")],
                  by = c("layer", "role"), all.x = TRUE, sort = FALSE)
  layers <- layers[order(layers$layer, layers$role), , drop = FALSE]
  structure(list(parameters = tab, layers = layers, sampler = samp,
                 coefficients = if (is_linear_fit(object) && any(ok))
                   linear_coef_table(object, probs),
                 verdicts = fit_verdicts(object, diag, lsum), fit = object,
                 symmetry_free = symmetry_free_cw(object, 1.1),
                 probs = if (probs_given) probs, weights = weights,
                 predictors = if (predictors && any(ok) && !is_linear_fit(object) &&
                                  !is.null(object$terms) && !is.null(object$X))
                   tryCatch(summary_predictors(object), error = function(e)
                     structure(list(), note = conditionMessage(e))),
                 fit_measures = if (predictors && any(ok)) summary_fit_measures(object)),
            class = "summary.bnnfit")
}

# The predictors of a network in a few numbers: permutation importance
# (bnn_importance() with up to 200 draws) and the range of the partial
# dependence (bnn_effects() on 50 rows, 10 grid values, 100 draws; for a
# categorical response the largest range over the classes).
summary_predictors <- function(object) {
  imp <- bnn_importance(object, ndraws = 200L)
  eff <- bnn_effects(object, imp$variable, resolution = 10L, max_rows = 50L, ndraws = 100L)
  rng <- vapply(eff, function(r) {
    if (!"class" %in% names(r)) return(diff(range(r$estimate)))
    max(tapply(r$estimate, r$class, function(v) diff(range(v))))
  }, numeric(1))
  data.frame(variable = imp$variable, importance = imp$estimate, lower = imp$lower,
             upper = imp$upper, effect_range = unname(rng[imp$variable]),
             stringsAsFactors = FALSE)
}

# bayes_R2() (numeric and binary responses) and the PSIS-LOO elpd, each NA
# with the reason when it cannot be computed.
summary_fit_measures <- function(object) {
  out <- list()
  r2 <- tryCatch(bayes_R2.bnnfit(object, ndraws = 400L), error = function(e) conditionMessage(e))
  if (is.numeric(r2))
    out$bayes_R2 <- c(estimate = mean(r2), stats::quantile(r2, c(0.05, 0.95), names = FALSE))
  else out$bayes_R2_note <- r2
  lo <- tryCatch(withCallingHandlers(loo.bnnfit(object, moment_match = FALSE), warning = function(w)
    invokeRestart("muffleWarning")), error = function(e) conditionMessage(e))
  if (inherits(lo, "loo")) {
    out$elpd_loo <- lo$estimates["elpd_loo", ]
    k <- lo$diagnostics$pareto_k
    out$pareto_k_high <- sum(k > 0.7, na.rm = TRUE)
  } else out$loo_note <- lo
  out
}

# The predictors' and the fit's lines of print.summary.bnnfit().
print_summary_predictors <- function(x, digits = 3) {
  if (!is.null(attr(x$predictors, "note"))) {
    cat("\nPredictors: not available:", attr(x$predictors, "note"), "\n")
  } else if (!is.null(x$predictors)) {
    cat("\nPredictors (importance: drop in mean log-likelihood per observation when permuted,\n",
        "posterior mean and 90% interval; effect range: of the partial dependence, response\n",
        "scale):\n", sep = "")
    print(x$predictors, digits = digits, row.names = FALSE)
  }
  fm <- x$fit_measures
  if (length(fm)) {
    cat("\nFit:")
    if (!is.null(fm$bayes_R2))
      cat(sprintf(" Bayes R2 %s (90%%: %s to %s);", format(signif(fm$bayes_R2[1], digits)),
                  format(signif(fm$bayes_R2[2], digits)), format(signif(fm$bayes_R2[3], digits))))
    if (!is.null(fm$elpd_loo))
      cat(sprintf(" LOO elpd %s (se %s)%s", format(round(fm$elpd_loo[1], 1)),
                  format(round(fm$elpd_loo[2], 1)),
                  if (fm$pareto_k_high > 0)
                    sprintf(", %d Pareto k > 0.7 (see loo())", fm$pareto_k_high) else ""))
    if (!is.null(fm$loo_note)) cat(" LOO not available:", fm$loo_note)
    cat("\n")
  }
}

#' @export
print.summary.bnnfit <- function(x, digits = 3, weights = FALSE, ...) {
  print(x$fit, digits = digits)
  if (!is.null(x$coefficients)) {
    # a linear model: its coefficients are identified, nothing per layer
    print_summary_coefs(x, digits)
    print_summary_predictors(x, digits)
  } else if (!isTRUE(x$weights) && !isTRUE(weights) && is.null(x$probs)) {
    print_summary_predictors(x, digits)
    cat("\nThe weights' table per layer: print(summary(fit), weights = TRUE).\n")
  } else {
    print_summary_predictors(x, digits)
    cat("\nPer layer, parameter space (means over parameters of |posterior mean|, posterior sd,\n",
        "R-hat across chains, chain-wise R-hat, within- and between-chain variance; raw weights\n",
        "are not identified, see the function-space convergence line above):\n", sep = "")
    print(x$layers, digits = digits, row.names = FALSE)
    if (!is.null(x$probs)) {
      # the quantiles asked for, of the first parameters and sigma
      tab <- x$parameters
      qcols <- paste0("q", format(100 * x$probs, trim = TRUE))
      keep <- unique(c(utils::head(seq_len(nrow(tab)), 10L), which(tab$parameter == "sigma")))
      cat(sprintf("\nPosterior quantiles of %s (all %d in $parameters):\n",
                  if (length(keep) < nrow(tab)) "the first parameters" else "the parameters",
                  nrow(tab)))
      print(tab[keep, c("parameter", "mean", "sd", qcols), drop = FALSE], digits = digits,
            row.names = FALSE)
    }
    if (!is.null(x$symmetry_free))
      cat(sprintf(paste0("Parameter space with the symmetries removed (bnn_remove_symmetries()): ",
                         "chain-wise R-hat > 1.1 for %.0f%% of the parameters (median %.3f).\n"),
                  100 * x$symmetry_free$share_above, x$symmetry_free$median))
  }
  cat("\nSampler diagnostics per chain:\n")
  print(x$sampler, digits = digits, row.names = FALSE)
  if (length(x$verdicts)) {
    cat("\nNotes:\n")
    wrapped <- vapply(strwrap(x$verdicts, exdent = 3, width = 76, simplify = FALSE),
                      paste, character(1), collapse = "\n")
    cat(paste0(" * ", wrapped), sep = "\n")
  } else {
    cat("\nNo problems found by the sampler diagnostics or the function-space verdict.\n")
  }
  invisible(x)
}

#' Model formula of a fit
#'
#' As for [stats::lm()], the formula with `.` expanded to the variables of
#' the data it was fitted to (from the fit's terms), in the environment of
#' the formula given to [bnn_fit()]; `fit$formula` keeps it as typed.
#'
#' @param x A `bnnfit`.
#' @param ... Unused.
#' @return A formula.
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ ., data = mtcars[c("mpg", "wt", "hp")], hidden = 2,
#'                chains = 1, warmup = 100, iter = 100, seed = 1, progress = FALSE,
#'                sampler = "nuts")
#' formula(fit)
formula.bnnfit <- function(x, ...) {
  f <- x$formula
  if (is.null(x$terms) || !"." %in% all.vars(f)) return(f)
  out <- stats::formula(x$terms)
  environment(out) <- environment(f)
  out
}

#' Coefficients of a fit
#'
#' For a linear model -- a fit without hidden layer, whether the default's
#' check returned it or `hidden = integer(0)` asked for it -- the
#' coefficients on the data's scale, named by the columns of the model
#' matrix (`(Intercept)`, `wt`, `hp`, factor levels such as `factor(cyl)6`)
#' as [stats::coef()] of [stats::lm()] or [stats::glm()] names them, and
#' computed as rstanarm's `coef()`: the posterior medians.  The fit is made
#' on standardised predictors and response; each draw is taken back to the
#' data's scale (slope `W1[j] * sd(y) / sd(x_j)`, the intercept
#' accordingly), so these are the draws' medians of the data-scale
#' coefficients, with intervals from [posterior_interval()] and
#' `summary(fit)$coefficients`.  For a binary response they are on the
#' logit scale, as `glm(family = binomial)`'s; see "Value" for categorical
#' and heteroscedastic responses.
#'
#' For a network the coefficients are the posterior means of the raw
#' parameters (on the standardised scale, in the layout of
#' [bnn_parameter_names()]), with `sigma` on the response's scale.  Single
#' weights of a network are not identified (permutation and sign symmetries),
#' so these means describe no function; use [predict()] for what the network
#' says, and [bnn_importance()] and [bnn_effects()] for which predictors
#' matter and how the response moves with each.
#'
#' @param object A `bnnfit`.
#' @param ... Unused.
#' @return A named numeric vector.  For a linear fit: `(Intercept)` and one
#'   coefficient per column of the model matrix (for a categorical response
#'   one set per class, named `mu<class>_<column>`; for the heteroscedastic
#'   likelihood a second set for the log noise sd, `sigma_<column>`, brms's
#'   names); the residual sd is [sigma()].  For a network: the raw
#'   parameters and `sigma`.
#' @seealso [posterior_interval()] for intervals, `as.matrix(fit)` for the
#'   draws (which hold the data-scale coefficients of a linear fit next to
#'   the raw parameters).
#' @export
#' @examples
#' lin <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = integer(0), chains = 2,
#'                warmup = 200, iter = 200, seed = 1, progress = FALSE, sampler = "nuts")
#' coef(lin)
#' coef(lm(mpg ~ wt + hp, data = mtcars))
#' posterior_interval(lin)
#' fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 1,
#'                warmup = 100, iter = 100, seed = 1, sampler = "nuts")
#' head(coef(fit))
coef.bnnfit <- function(object, ...) {
  check_dots(list(...), "coef")
  ok <- which(object$chain_status == "ok")
  if (!length(ok)) stop("All chains of this fit failed; there are no draws.", call. = FALSE)
  if (is_linear_fit(object)) {
    cf <- linear_coef_draws(object, object$draws[, ok, , drop = FALSE])
    return(apply(matrix(cf, ncol = dim(cf)[3], dimnames = list(NULL, dimnames(cf)[[3]])),
                 2L, stats::median, na.rm = TRUE))
  }
  d <- user_draws(object, ok)
  colMeans(matrix(d, ncol = dim(d)[3], dimnames = list(NULL, dimnames(d)[[3]])),
           na.rm = TRUE)
}

#' Fitted values and residuals
#'
#' `fitted()` gives the posterior predictive mean of the training data (or
#' of `newdata`), i.e. `predict(object, newdata)`: for a binary response
#' the probability of its second level, `P(y = 1)`, as glm's and brms's
#' `fitted()`; for a categorical response the class probabilities.
#' `type = "prob"` gives the class probabilities of a binary response too,
#' one column per level.  With `summary = FALSE` it gives the draws of the
#' expected response instead, `[draw, observation]`, as brms's (the same as
#' [posterior_epred()]).  `residuals()` gives `y` minus that mean
#' (`type = "response"`, also called `"ordinary"` as in \pkg{brms}) or
#' divided by the predictive standard deviation (`type = "pearson"`; the
#' sd of the predictive mixture over draws, noise included).  For a binary
#' response, as in brms, `y` is 0/1 (1 = the second level) and the mean is
#' the probability of the second level, whose sd is `sqrt(p (1 - p))`.
#' For a binomial fit with a `cbind(successes, failures)` response the
#' residual is that of the successes: their number minus its expected value
#' (trials times the probability), one value per observation.
#' With `summary = FALSE` `residuals()` gives a `[draw, observation]`
#' matrix, as brms: `y` minus each draw's expected response (divided by
#' the same predictive sd for `"pearson"`), whose column means are the
#' residuals.  Both are named by the rows of the data, as for [stats::lm()]; on the
#' training data with `na.action = na.exclude` they are padded with `NA`
#' at the rows dropped for missing values.
#'
#' @param object A `bnnfit`.
#' @param newdata Optional data frame (for `residuals()` it must hold the
#'   response).
#' @param type `residuals()`: the kind of residual.  `fitted()`:
#'   `"response"` (default), the expected response; `"prob"`, for
#'   classification fits, the matrix of class probabilities.
#' @param ndraws Use this many draws, spread evenly over the chains.
#' @param summary `FALSE`: the draws of the expected response (`fitted()`)
#'   or of the residuals (`residuals()`) rather than their mean.
#' @param ... Unused (a warning names them).
#' @return A named numeric vector (for `fitted()` of a categorical fit, or
#'   with `type = "prob"`, a matrix `[observation, class]` of probabilities;
#'   a `[draw, observation]` matrix with `summary = FALSE`).
#' @name fitted.bnnfit
#' @examples
#' fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 1,
#'                warmup = 100, iter = 100, seed = 1, progress = FALSE, sampler = "nuts")
#' head(fitted(fit))
#' fitted(fit, newdata = mtcars[1:3, ])
#' dim(fitted(fit, summary = FALSE))
#' head(residuals(fit, type = "pearson"))
#' dim(residuals(fit, summary = FALSE))
#' # a binary response: P(y = 1), or both classes' probabilities
#' lg <- bnn_fit(am ~ wt, data = mtcars, family = binomial(), hidden = 2,
#'               chains = 2, warmup = 150, iter = 100, seed = 1, progress = FALSE,
#'               sampler = "nuts")
#' head(fitted(lg))
#' head(fitted(lg, type = "prob"))
NULL

#' @rdname fitted.bnnfit
#' @export
fitted.bnnfit <- function(object, newdata = NULL, ndraws = NULL, summary = TRUE,
                          type = c("response", "prob"), ...) {
  newdata <- check_dots(list(...), "fitted", newdata)
  type <- match.arg(type)
  if (!is.logical(summary) || length(summary) != 1L || is.na(summary))
    stop("'summary' must be TRUE or FALSE.", call. = FALSE)
  if (type == "prob" && !is_classification(object))
    stop("type = \"prob\" is for classification fits.", call. = FALSE)
  if (!summary) {
    if (type == "prob")
      stop("summary = FALSE returns the draws of the expected response; it cannot be ",
           "combined with type = \"prob\" (see posterior_epred()).", call. = FALSE)
    return(posterior_epred.bnnfit(object, newdata = newdata, ndraws = ndraws))
  }
  val <- predict.bnnfit(object, newdata, type = type, ndraws = ndraws)
  if (is.null(newdata)) val <- pad_excluded(object, val)
  val
}

#' @rdname fitted.bnnfit
#' @export
residuals.bnnfit <- function(object, type = c("response", "ordinary", "pearson"),
                             newdata = NULL, ndraws = NULL, summary = TRUE, ...) {
  newdata <- check_dots(list(...), "residuals", newdata)
  type <- match.arg(type)
  if (!is.logical(summary) || length(summary) != 1L || is.na(summary))
    stop("'summary' must be TRUE or FALSE.", call. = FALSE)
  if (identical(object$likelihood$family, "categorical"))
    stop("residuals() needs a numeric or binary response; this fit is categorical.",
         call. = FALSE)
  y <- response_values(object, newdata)
  # a binomial with trials: the residual of the successes (fitted() is the
  # expected number of successes, trials times the probability)
  if (is.matrix(y)) y <- y[, 1L]
  # y 0/1 for a binary response (1 = the second level), as brms
  if (is_classification(object)) y <- y - 1
  ps <- pred_setup(object, newdata, ndraws)
  n <- nrow(ps$X)
  S <- ps_ndraws(ps)
  if (!summary) {
    check_result_size(as.double(S) * n, "The draws of the residuals")
    r <- matrix(NA_real_, S, n, dimnames = list(NULL, rownames(ps$X)))
  }
  q <- list(mean = numeric(n), v = numeric(n))
  for (idx in row_blocks(n, S, 2L)) {
    pp <- block_params(object, ps, idx)
    if (is_classification(object)) {
      mu <- pp$prob[, , 2L, drop = FALSE]
      dim(mu) <- dim(mu)[1:2]
      sd2 <- mu * (1 - mu)
    } else {
      mu <- pp$mu
      sd2 <- pp$sd^2
    }
    q$mean[idx] <- colMeans(mu)
    # variance of the equal-weight mixture of the draws' predictive
    # distributions (means mu_s, variances sd_s^2)
    if (type == "pearson") q$v[idx] <- pmax(colMeans(sd2 + mu^2) - q$mean[idx]^2, 0)
    if (!summary) r[, idx] <- rep(y[idx], each = S) - mu
  }
  if (!summary) {
    # draws x observations, as brms: y - E[y | theta_s], divided by the
    # predictive sd for "pearson" (so that the columns' means are the
    # summary's residuals)
    if (type == "pearson") r <- r / rep(sqrt(q$v), each = S)
    return(r)
  }
  r <- y - q$mean
  if (type == "pearson") r <- r / sqrt(q$v)
  names(r) <- obs_names(object, newdata)
  if (is.null(newdata)) r <- pad_excluded(object, r)
  r
}

# chain ids for print(): runs of consecutive ids as ranges ("1-64, 129-192")
format_ids <- function(ids) {
  ids <- sort(as.integer(ids))
  brk <- c(0L, which(diff(ids) != 1L), length(ids))
  runs <- vapply(seq_len(length(brk) - 1L), function(i) {
    a <- ids[brk[i] + 1L]
    b <- ids[brk[i + 1L]]
    if (a == b) as.character(a) else paste0(a, "-", b)
  }, character(1))
  if (length(runs) > 8L) runs <- c(runs[1:8], "...")
  paste(runs, collapse = ", ")
}

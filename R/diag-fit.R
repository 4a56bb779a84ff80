# Diagnostics of fitted BNNs: per-parameter table, function-space R-hat, and
# the verdicts that summary() puts into words.

#' Convergence diagnostics of a BNN fit, one row per parameter
#'
#' For every parameter: its layer and role (weight, bias or other), the
#' rank-normalised split R-hat across chains, the chain-wise R-hat
#' (averaged over chains and its maximum), bulk and tail effective sample
#' sizes, all computed in C and equal to the `posterior` package's.  Failed
#' chains are left out.  With one chain, or with chains of a single draw
#' (the symmetry paper's design), what cannot be computed is `NA`.
#'
#' Network weights are identified only up to the network's symmetries
#' (permutations of hidden neurons, sign flips of tanh neurons, rescaling of
#' ReLU neurons; see [bnn_equioutput_count()]), so chains that found
#' equivalent modes disagree in parameter space and R-hat across chains is
#' large although they agree on every prediction.  `symmetries = "remove"`
#' (an extension beyond the papers) first maps every draw to its canonical
#' representative ([bnn_remove_symmetries()]), so that R-hat, chain-wise
#' R-hat and ESS compare chains modulo the symmetries; what remains are
#' differences between functionally different modes.
#'
#' Chains with fewer than 4 draws (one draw per chain, the design of Wiese
#' et al. 2023) have no within-chain variance: R-hat and ESS are `NA`, and a
#' warning of class `bnnmc_short_chains` says so.
#'
#' @param object A `bnnfit`.
#' @param kappa Sub-chains per chain of the chain-wise R-hat.
#' @param symmetries `"keep"` (default): the draws as sampled; `"remove"`:
#'   the draws with the symmetries removed by [bnn_remove_symmetries()]
#'   (`method = "canonical"`).
#' @return A data frame with columns `variable`, `layer`, `role`, `mean`,
#'   `sd`, `rhat`, `cw_rhat_mean`, `cw_rhat_max`, `ess_bulk`, `ess_tail`.
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2,
#'                warmup = 100, iter = 100, seed = 1, progress = FALSE, sampler = "nuts")
#' head(bnn_diagnostics(fit))
#' head(bnn_diagnostics(fit, symmetries = "remove"))
bnn_diagnostics <- function(object, kappa = 4, symmetries = c("keep", "remove")) {
  if (!inherits(object, "bnnfit")) stop("'object' must be a bnnfit.", call. = FALSE)
  symmetries <- match.arg(symmetries)
  if (symmetries == "remove")
    object <- withCallingHandlers(bnn_remove_symmetries(object),
                                  bnnmc_chain_failure = function(w) invokeRestart("muffleWarning"))
  warn_short_chains(object)
  s <- bnn_summarize_draws(ok_draws(object), chainwise = TRUE, kappa = kappa)
  lay <- parameter_layers(s$variable)
  out <- data.frame(variable = s$variable, layer = lay$layer, role = lay$role,
                    mean = s$mean, sd = s$sd, rhat = s$rhat, cw_rhat_mean = s$cw_rhat_mean,
                    cw_rhat_max = s$cw_rhat_max, ess_bulk = s$ess_bulk, ess_tail = s$ess_tail,
                    stringsAsFactors = FALSE)
  if (has_hidden_units(object)) class(out) <- c("bnn_diagnostics", class(out))
  out
}

#' @export
print.bnn_diagnostics <- function(x, ...) {
  print(structure(x, class = setdiff(class(x), "bnn_diagnostics")), ...)
  cat(strwrap(raw_rhat_note, width = 78), sep = "\n")
  invisible(x)
}

# Does the fit's network have a hidden layer (whose units make the raw
# weights unidentified)?  A linear model's coefficients are identified.
has_hidden_units <- function(object) {
  h <- object$hidden
  length(h) > 0L && any(h > 0L)
}

# Said once per session where posterior's generics show raw R-hat or ESS of
# a network's weights.
inform_raw_rhat <- function(object) {
  if (has_hidden_units(object) && !isTRUE(getOption("bnnmc.raw_rhat_informed")) &&
      !isFALSE(getOption("bnnmc.raw_rhat_note"))) {
    options(bnnmc.raw_rhat_informed = TRUE)
    message(raw_rhat_note, " (Said once per session.)")
  }
  invisible()
}

#' R-hat in function space
#'
#' Network weights are not identified, but predictions are: these R-hat
#' values (rank-normalised split R-hat across chains) are the convergence
#' diagnostics that mean something for BNNs (Sommer et al. 2024, Sec. 3.7).
#'
#' @param object A `bnnfit`.
#' @param newdata Data to predict (test data with the response for
#'   `"rmse"` and `"lpd"`); the training data if `NULL`.
#' @param what `"points"`: R-hat of the predictive mean at each row of
#'   `newdata`; `"rmse"`: R-hat of the per-draw RMSE over `newdata`;
#'   `"lpd"`: R-hat of the per-draw mean log predictive density.
#' @return A numeric vector (one value per row for `"points"`) or a single
#'   number.
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2,
#'                warmup = 100, iter = 100, seed = 1, progress = FALSE, sampler = "nuts")
#' bnn_function_rhat(fit, mtcars, "rmse")
bnn_function_rhat <- function(object, newdata = NULL, what = c("points", "rmse", "lpd")) {
  what <- match.arg(what)
  if (!inherits(object, "bnnfit")) stop("'object' must be a bnnfit.", call. = FALSE)
  if (is_classification(object) && what != "points")
    stop("what = \"", what, "\" is for regression fits.", call. = FALSE)
  keep <- object$chain_status == "ok"
  warn_short_chains(object)
  n_iter <- dim(object$draws)[1]
  n_ch <- sum(keep)
  fit <- bnnfit_subset_chains(object, keep)
  pp <- predictive_params(fit, newdata)
  if (is_classification(object)) {
    # probability of the first class at each point
    a <- array(pp$prob[, , 1L], c(n_iter, n_ch, dim(pp$prob)[2]))
    return(unname(bnn_rhat(a)))
  }
  if (what == "points") {
    a <- array(pp$mu, c(n_iter, n_ch, ncol(pp$mu)))
    return(unname(bnn_rhat(a)))
  }
  if (is.null(newdata)) newdata <- object$model_frame
  y <- model_response(object, newdata) * object$y_scale + object$y_center
  stat <- if (what == "rmse") sqrt(rowMeans(sweep(pp$mu, 2L, y)^2)) else
    rowMeans(stats::dnorm(matrix(y, nrow(pp$mu), length(y), byrow = TRUE), pp$mu, pp$sd,
                          log = TRUE))
  unname(bnn_rhat(matrix(stat, n_iter, n_ch)))
}

# Diagnostics within chains need at least 4 draws per chain.
warn_short_chains <- function(object) {
  n <- dim(object$draws)[1]
  if (n < 4L)
    warn_cond(sprintf(paste0(
      "Each chain has %d draw(s): R-hat needs at least 4 draws per chain, chain-wise ",
      "R-hat and ESS more, so they are NA.  With one draw per chain, compare chains ",
      "in function space (predictions pooled over chains, bnn_modes())."), n),
      "bnnmc_short_chains")
  invisible(n)
}

# The one line said wherever raw parameter R-hat or ESS of a network is
# shown: they measure its symmetries, not convergence.
raw_rhat_note <- paste0(
  "For a network, R-hat and ESS of raw weights measure the permutation and sign ",
  "symmetries of its hidden units, not convergence: see the function-space verdict ",
  "(bnn_convergence(fit)).")

# Plain-words verdicts on a fit's sampler and diagnostics, for summary().
fit_verdicts <- function(object, diag, layers) {
  out <- character(0)
  failed <- sum(object$chain_status != "ok")
  if (failed)
    out <- c(out, sprintf("%d chain(s) failed (%s); they are left out.", failed,
                          paste(unique(as.character(object$chain_status[object$chain_status != "ok"])),
                                collapse = "; ")))
  st <- object$sampler_stats
  if ("divergent__" %in% dimnames(st)[[3]]) {
    div <- sum(st[, , "divergent__"], na.rm = TRUE)
    if (div > 0)
      out <- c(out, sprintf("%d divergent transitions: the posterior has regions the sampler could not explore; results near them may be biased.", div))
  }
  eps <- object$stepsize[object$chain_status == "ok"]
  if (length(eps) > 1 && any(eps < 1e-3 * stats::median(eps)))
    out <- c(out, sprintf("Chain(s) %s have a step size more than 1000 times smaller than the median: probably stuck where they started (a dying sampler); consider ensemble starts (sampler = \"dei\" or \"mile\").",
                          paste(which(object$chain_status == "ok")[eps < 1e-3 * stats::median(eps)], collapse = ", ")))
  cv <- fit_convergence(object)
  if (!is.null(cv)) {
    if (isFALSE(cv$predictions$reliable))
      out <- c(out, sprintf("The predictions are not reliable yet: %s. What to do: %s.",
                            paste(cv$predictions$reasons, collapse = "; "), cv$remedy))
    if (isFALSE(cv$fit_level$stationary))
      out <- c(out, sprintf(paste0(
        "The fit level is not stationary: %s. The chains have not settled at one level of fit ",
        "to the training data; %s"), paste(cv$fit_level$reasons, collapse = "; "),
        if (isTRUE(cv$predictions$reliable))
          "the pooled predictions are stable all the same (see the predictions' line), so the answer can be used, with the spread between chains as part of its uncertainty."
        else "with unreliable predictions, see the note above."))
    if (isFALSE(cv$adequacy$adequate))
      out <- c(out, sprintf(paste0("The model leaves structure in the data: %s. The chains can ",
                                   "agree on a model that misses the data's shape. What to do: %s."),
                            paste(cv$adequacy$reasons, collapse = "; "), cv$adequacy$remedy))
    if (is.na(cv$converged) && is.null(cv$chains))
      out <- c(out, sprintf("Convergence cannot be judged: %s.", paste(cv$reasons, collapse = "; ")))
  }
  cw <- diag$cw_rhat_max
  if (any(is.finite(cw))) {
    bad <- mean(cw > 1.1, na.rm = TRUE)
    if (bad > 0.1)
      out <- c(out, sprintf("Parameter space (raw weights): chain-wise R-hat exceeds 1.1 for %.0f%% of the parameters in at least one chain. %s", 100 * bad, raw_rhat_note))
  }
  if (sum(object$chain_status == "ok") > 1 && any(is.finite(diag$rhat))) {
    hi <- mean(diag$rhat > 1.1, na.rm = TRUE)
    if (hi > 0.5)
      out <- c(out, sprintf("Parameter space (raw weights): R-hat across chains exceeds 1.1 for %.0f%% of the parameters. %s", 100 * hi, raw_rhat_note))
  }
  out
}

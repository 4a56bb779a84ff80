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
#' A network has hundreds of parameters, so `print()` of the result gives
#' a summary: per layer the number of parameters, the largest R-hat and
#' chain-wise R-hat, how many parameters have R-hat above 1.01, and the
#' smallest bulk and tail ESS; then the sampler's divergent transitions and
#' transitions at the maximum tree depth.  `print(x, detail = TRUE)` (or a
#' result of at most 20 rows) shows every row; the object itself is the
#' full data frame, e.g. `x[order(-x$rhat), ]`.
#'
#' @param object A `bnnfit`.
#' @param kappa Sub-chains per chain of the chain-wise R-hat.
#' @param symmetries `"keep"` (default): the draws as sampled; `"remove"`:
#'   the draws with the symmetries removed by [bnn_remove_symmetries()]
#'   (`method = "canonical"`).
#' @return A data frame with columns `variable`, `layer`, `role`, `mean`,
#'   `sd`, `rhat`, `cw_rhat_mean`, `cw_rhat_max`, `ess_bulk`, `ess_tail`
#'   (of class `bnn_diagnostics` for a network, whose `print()` summarises
#'   it; the attribute `"sampler"` holds the counts it prints).
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2,
#'                warmup = 100, iter = 100, seed = 1, progress = FALSE, sampler = "nuts")
#' d <- bnn_diagnostics(fit)
#' d                        # per layer; print(d, detail = TRUE) for every row
#' head(d[order(-d$rhat), ])
#' bnn_diagnostics(fit, symmetries = "remove")
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
  if (has_hidden_units(object)) {
    class(out) <- c("bnn_diagnostics", class(out))
    attr(out, "sampler") <- sampler_counts(object)
  }
  out
}

# What print.bnn_diagnostics() says of the sampler: chains and draws per
# chain (those that did not fail), divergent transitions and transitions
# at the maximum tree depth (NA for a sampler without them).
sampler_counts <- function(object) {
  ok <- object$chain_status == "ok"
  st <- object$sampler_stats
  nms <- dimnames(st)[[3]]
  count <- function(v) sum(v, na.rm = TRUE)
  mtd <- object$sampler$max_treedepth
  list(chains = sum(ok), draws = dim(object$draws)[1],
       divergent = if ("divergent__" %in% nms) count(st[, ok, "divergent__"]) else NA_real_,
       treedepth = if (!is.null(mtd) && "treedepth__" %in% nms)
         count(st[, ok, "treedepth__"] >= mtd) else NA_real_,
       max_treedepth = if (is.null(mtd)) NA_integer_ else as.integer(mtd))
}

# Rows of a result printed in full without `detail = TRUE`.
.diagnostics_print_rows <- 20L

#' @param x A `bnn_diagnostics` result.
#' @param detail `TRUE`: print every row (every parameter); `FALSE`
#'   (default): the summary per layer, unless there are at most 20 rows.
#' @param digits Significant digits.
#' @param ... Passed to [print.data.frame()] with `detail = TRUE`.
#' @rdname bnn_diagnostics
#' @export
print.bnn_diagnostics <- function(x, detail = FALSE, digits = 3, ...) {
  if (!is.logical(detail) || length(detail) != 1L || is.na(detail))
    stop("'detail' must be TRUE or FALSE.", call. = FALSE)
  df <- structure(x, class = setdiff(class(x), "bnn_diagnostics"), sampler = NULL)
  if (detail || nrow(x) <= .diagnostics_print_rows) {
    print(df, digits = digits, ...)
  } else {
    sc <- attr(x, "sampler")
    cat(sprintf("Parameter-space diagnostics of %d parameters%s, per layer\n",
                nrow(x), if (is.null(sc)) "" else
                  sprintf(" (%d chain%s of %d draws)", sc$chains,
                          if (sc$chains == 1L) "" else "s", sc$draws)))
    cat("(print(x, detail = TRUE) shows every parameter; x is their data frame):\n")
    print(diagnostics_by_layer(df), digits = digits, row.names = FALSE)
    if (!is.null(sc)) {
      parts <- c(if (!is.na(sc$divergent))
                   sprintf("%s divergent transition%s", format(sc$divergent, big.mark = ","),
                           if (sc$divergent == 1) "" else "s"),
                 if (!is.na(sc$treedepth))
                   sprintf("%s at the maximum tree depth (%d)",
                           format(sc$treedepth, big.mark = ","), sc$max_treedepth))
      if (length(parts))
        cat(sprintf("Sampler: %s, of %s draws.\n", paste(parts, collapse = ", "),
                    format(sc$chains * sc$draws, big.mark = ",")))
    }
  }
  cat(strwrap(raw_rhat_note, width = 78), sep = "\n")
  invisible(x)
}

# The rows of bnn_diagnostics() summarised per layer (network parameters)
# and per other parameter (sigma, nu, ...): their number, the largest R-hat
# and chain-wise R-hat, how many have R-hat above 1.01, the smallest ESS.
diagnostics_by_layer <- function(d) {
  key <- ifelse(is.na(d$layer), d$variable, paste("layer", d$layer))
  groups <- unique(key)
  worst <- function(v, f) if (all(is.na(v))) NA_real_ else f(v, na.rm = TRUE)
  rows <- lapply(groups, function(g) {
    s <- d[key == g, , drop = FALSE]
    data.frame(parameters = g, n = nrow(s), rhat_max = worst(s$rhat, max),
               rhat_above_1.01 = if (all(is.na(s$rhat))) NA_integer_ else
                 sum(s$rhat > 1.01, na.rm = TRUE),
               cw_rhat_max = worst(s$cw_rhat_max, max),
               ess_bulk_min = worst(s$ess_bulk, min), ess_tail_min = worst(s$ess_tail, min),
               stringsAsFactors = FALSE)
  })
  do.call(rbind, rows)
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

# The fit's convergence verdict, in function space.
#
# For a BNN, R-hat of the raw parameters is expected to be large: the
# posterior is symmetric under permutations and sign flips of hidden neurons,
# and chains sit in different, equivalent modes (Wiese et al. 2023; Sommer
# et al. 2024, Sec. 6.2).  What the papers treat as convergence is
#   * each chain stationary within its own mode: chain-wise R-hat (R-hat of
#     kappa = 4 sub-chains of one chain, Sommer et al. 2024, Sec. 3.4), here
#     of functions of the parameters that are identified: the prediction at
#     each training input and the training log-likelihood, with the
#     paper's threshold 1.1;
#   * no chain stuck in a much worse mode than the others (the chain-wise
#     LPPD comparison of Sommer et al. 2024, Sec. 3.7, "detects outlier
#     chains"), here on the training log-likelihood;
#   * between-chain disagreement in function space is *not* penalised (their
#     guideline 9): it is reported as information, since a posterior with
#     several functionally different modes needs chains in each.

#' Convergence verdict of a fit, in function space
#'
#' Decides whether a fit's chains have converged in the sense that matters
#' for a Bayesian neural network, whose weights are not identified: each
#' chain is stationary in function space, and no chain is stuck in a mode
#' that fits the training data much worse than the others.  `bnn_fit()`
#' computes it at the end of every fit, `print()` and `summary()` show it,
#' and `bnn_fit()` warns (class `bnnmc_not_converged`) when it fails, with
#' the call that runs longer.
#'
#' The criteria:
#' * **Chain-wise R-hat in function space** (Sommer et al. 2024, Sec. 3.4,
#'   applied to identified quantities): for every chain, the rank-normalised
#'   R-hat of its 4 consecutive sub-chains, of the training log-likelihood
#'   (the sum over the training points, or over an even subset of at most
#'   `max_points` of them) and of the network's prediction at each of those
#'   points.  A chain passes when the log-likelihood's value and the 90%
#'   quantile over points are at most `threshold` (1.1, the paper's).
#' * **No outlier chain**: a chain whose mean training log-likelihood lies
#'   below the median chain's by more than 4 within-chain standard
#'   deviations (of the median chain) and more than 0.05 nats per training point fails (it sits
#'   in a mode the other chains found much worse; Sommer et al. 2024, Sec.
#'   3.7, compare chains' LPPD to detect such chains).
#' * At least `min_draws` draws per chain (fewer cannot be judged).
#'
#' Reported as information and not part of the verdict: the R-hat across
#' chains of the same functions (large when chains sit in functionally
#' different modes, which a multimodal posterior needs, their guideline 9),
#' and, with `parameters = TRUE`, the share of parameters whose chain-wise
#' R-hat exceeds `threshold` in parameter space after
#' [bnn_remove_symmetries()] (tanh and other odd activations).  Raw
#' parameter-space R-hat stays available from [bnn_diagnostics()] and
#' `posterior::rhat(fit)`.
#'
#' @param object A `bnnfit`.
#' @param threshold R-hat threshold (default 1.1, as the paper).
#' @param max_points At most this many training points (evenly spaced) are
#'   used.
#' @param min_draws Fewer draws per chain than this cannot be judged.
#' @param parameters Also compute the parameter-space chain-wise R-hat after
#'   removing the symmetries (slower; `summary()` asks for it).
#' @return An object of class `bnn_convergence`: a list with `converged`
#'   (`TRUE`, `FALSE`, or `NA` when it cannot be judged), `chains` (a data
#'   frame, one row per chain that did not fail: `chain`, `rhat_loglik`,
#'   `rhat_f_q90` (90% quantile over points), `loglik_mean` (per training
#'   point), `stationary`, `outlier`), `between` (R-hat across chains of the
#'   log-likelihood and the median over points of the predictions'),
#'   `reasons` (why it failed), `remedy` (the call to run) and the settings.
#' @references Sommer, E., Wimmer, L., Papamarkou, T., Bothmann, L., Bischl,
#'   B., and Rügamer, D. (2024). Connecting the dots: is mode-connectedness
#'   the key to feasible sample-based inference in Bayesian neural networks?
#'   ICML.
#' @seealso [bnn_diagnostics()], [bnn_function_rhat()]
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2,
#'                warmup = 200, iter = 200, seed = 1, progress = FALSE, sampler = "nuts")
#' bnn_convergence(fit)
bnn_convergence <- function(object, threshold = 1.1, max_points = 500, min_draws = 100,
                            parameters = FALSE) {
  if (!inherits(object, "bnnfit")) stop("'object' must be a bnnfit.", call. = FALSE)
  threshold <- check_positive(threshold, "threshold")
  if (threshold < 1) stop("'threshold' must be at least 1.", call. = FALSE)
  max_points <- check_count(max_points, "max_points", 1L)
  min_draws <- check_count(min_draws, "min_draws", 4L)
  ok <- which(object$chain_status == "ok")
  S <- dim(object$draws)[1]
  out <- list(converged = NA, chains = NULL, between = NULL, reasons = character(0),
              remedy = NULL, threshold = threshold, n_draws = S, n_chains = length(ok),
              n_points = NA_integer_, parameters = NULL)
  class(out) <- "bnn_convergence"
  if (!length(ok)) {
    out$reasons <- "every chain failed"
    return(out)
  }
  if (S < min_draws) {
    out$reasons <- sprintf("%d draws per chain are too few to judge (at least %d)", S, min_draws)
    out$remedy <- longer_run_call(object)
    return(out)
  }
  n <- nrow(object$X)
  idx <- if (n > max_points) unique(round(seq(1, n, length.out = max_points))) else seq_len(n)
  out$n_points <- length(idx)
  fs <- function_draws(object, idx)          # [S * K, points] and loglik [S * K]
  K <- length(ok)
  arr_f <- array(fs$f, c(S, K, ncol(fs$f)))
  arr_ll <- array(fs$loglik, c(S, K, 1L))
  cw_f <- bnn_chainwise_rhat(arr_f, kappa = 4)              # K x points
  cw_ll <- bnn_chainwise_rhat(arr_ll, kappa = 4)[, 1]
  q90 <- apply(cw_f, 1L, function(r) if (all(is.na(r))) NA_real_ else
    stats::quantile(r, 0.9, na.rm = TRUE, names = FALSE))
  ll_chain <- colMeans(matrix(fs$loglik, S, K))
  # a robust within-chain scale: the median chain's sd (a stuck chain's own
  # spread must not hide it)
  ll_sd <- stats::median(apply(matrix(fs$loglik, S, K), 2L, stats::sd))
  gap <- stats::median(ll_chain) - ll_chain
  outlier <- K > 2L & gap > max(4 * ll_sd, 0.05 * length(idx))
  stationary <- !is.na(cw_ll) & cw_ll <= threshold & !is.na(q90) & q90 <= threshold
  out$chains <- data.frame(chain = (object$chain_id %||% seq_along(object$chain_status))[ok],
                           rhat_loglik = unname(cw_ll), rhat_f_q90 = unname(q90),
                           loglik_mean = unname(ll_chain) / length(idx),
                           stationary = stationary, outlier = outlier)
  if (K > 1L) {
    rb_f <- bnn_rhat(arr_f)
    out$between <- c(rhat_loglik = unname(bnn_rhat(arr_ll)),
                     rhat_f_median = stats::median(rb_f, na.rm = TRUE))
  }
  if (any(!stationary))
    out$reasons <- c(out$reasons, sprintf(
      "chain(s) %s not stationary in function space (chain-wise R-hat of the training log-likelihood %s, of the predictions (90%% quantile over points) %s; threshold %s)",
      paste(out$chains$chain[!stationary], collapse = ", "),
      paste(formatC(cw_ll[!stationary], digits = 3, format = "f"), collapse = ", "),
      paste(formatC(q90[!stationary], digits = 3, format = "f"), collapse = ", "),
      format(threshold)))
  if (any(outlier))
    out$reasons <- c(out$reasons, sprintf(
      "chain(s) %s sit in mode(s) with a much lower training log-likelihood than the other chains (%s nats per point below the median chain)",
      paste(out$chains$chain[outlier], collapse = ", "),
      paste(formatC(gap[outlier] / length(idx), digits = 2, format = "f"), collapse = ", ")))
  out$converged <- !length(out$reasons)
  if (!out$converged)
    out$remedy <- if (any(!stationary)) longer_run_call(object) else more_chains_call(object)
  if (parameters) out$parameters <- symmetry_free_cw(object, threshold)
  out
}

# Draws of the network's prediction (the mean for regression, the
# probability of the observed class for classification) and the log-
# likelihood summed over the training points idx: rows are the draws of
# the chains that did not fail, chain by chain.
function_draws <- function(object, idx) {
  sub <- object
  sub$X <- object$X[idx, , drop = FALSE]
  sub$y <- if (is.null(dim(object$y))) object$y[idx] else object$y[idx, , drop = FALSE]
  if (!is.null(object$offset)) sub$offset <- object$offset[idx]
  sub$weights <- NULL
  # one forward pass over the draws for both (regression)
  pp <- if (!is_classification(object)) predictive_params(sub, NULL)
  ll_point <- pointwise_loglik_unweighted(sub, pp = pp)
  w <- if (is.null(object$weights)) 1 else object$weights[idx]
  loglik <- as.vector(ll_point %*% rep_len(w, ncol(ll_point)))
  f <- if (is_classification(object)) exp(ll_point) else pp$mu
  list(f = unname(f), loglik = loglik)
}

# Share of parameters whose chain-wise R-hat exceeds the threshold after the
# symmetries are removed (NULL where the activation has no canonical form).
symmetry_free_cw <- function(object, threshold) {
  canon <- tryCatch(suppressWarnings(bnn_remove_symmetries(object)), error = function(e) NULL)
  if (is.null(canon)) return(NULL)
  cw <- bnn_chainwise_rhat(canon)
  list(share_above = mean(cw > threshold, na.rm = TRUE),
       median = stats::median(cw, na.rm = TRUE))
}

# The exact call that runs the fit twice as long / with twice the chains.
longer_run_call <- function(object) {
  paste0(sprintf("update(fit, iter = %d)", max(2L * dim(object$draws)[1], 1000L)),
         sampler_longer_run_caveat(object$sampler))
}

# What a sampler adds to the "run longer" remedy ("" when a longer run is
# the remedy); methods in R/sampler-class.R.
sampler_longer_run_caveat <- function(sampler) UseMethod("sampler_longer_run_caveat")
sampler_longer_run_caveat.default <- function(sampler) ""

more_chains_call <- function(object) {
  sprintf("update(fit, chains = %d)", 2L * length(object$chain_status))
}

#' @export
format.bnn_convergence <- function(x, ...) {
  if (is.na(x$converged))
    return(sprintf("cannot be judged: %s", paste(x$reasons, collapse = "; ")))
  btw <- if (!is.null(x$between))
    sprintf("; across chains R-hat %.2f (log-likelihood), %.2f (predictions, median)%s",
            x$between[["rhat_loglik"]], x$between[["rhat_f_median"]],
            if (max(x$between, na.rm = TRUE) > x$threshold)
              ": chains in functionally different modes (expected for BNNs; not a failure)" else "")
    else ""
  if (x$converged)
    sprintf("converged in function space (chain-wise R-hat <= %s for every chain over %d training points, no outlier chain)%s",
            format(x$threshold), x$n_points, btw)
  else sprintf("NOT converged in function space: %s. Remedy: %s%s",
               paste(x$reasons, collapse = "; "), x$remedy, btw)
}

#' @export
print.bnn_convergence <- function(x, digits = 3, ...) {
  cat("Convergence in function space:", strwrap(format(x), exdent = 2, width = 76,
                                                prefix = "\n", initial = ""), "\n")
  if (!is.null(x$chains)) print(format(x$chains, digits = digits), row.names = FALSE)
  if (!is.null(x$parameters))
    cat(sprintf("Parameter space, symmetries removed: chain-wise R-hat > %s for %.0f%% of the parameters (median %.3f)\n",
                format(x$threshold), 100 * x$parameters$share_above, x$parameters$median))
  invisible(x)
}

# Computed at the end of bnn_fit(); a failed verdict is a warning with the
# remedy, as rstan warns about R-hat and divergences.
check_convergence <- function(fit) {
  cv <- tryCatch(bnn_convergence(fit), error = function(e) NULL)
  if (is.null(cv)) return(NULL)
  if (isFALSE(cv$converged))
    warn_cond(paste0("The chains have not converged in function space: ",
                     paste(cv$reasons, collapse = "; "), ". Run ", cv$remedy,
                     " (see ?bnn_convergence)."), "bnnmc_not_converged")
  cv
}

# The fit's convergence verdict: the one computed at the end of bnn_fit(),
# or computed now for a fit that has none (joined or older fits).
fit_convergence <- function(x) {
  if (!is.null(x$convergence)) return(x$convergence)
  if (!inherits(x, "bnnfit") || is.null(x$X)) return(NULL)
  tryCatch(bnn_convergence(x), error = function(e) NULL)
}

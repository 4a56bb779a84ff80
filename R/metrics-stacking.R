# Stacking of chains (Yao, Vehtari and Gelman 2022): chains that sit in
# different modes are combined by weights that maximise the log predictive
# density of their mixture on data the chains did not see, instead of equal
# weights.  The weights change which draws the predictive functions use
# (draws_matrix(), R/predict.R); the draws themselves are kept.

#' Stack a fit's chains by their predictive performance on held-out data
#'
#' Chains of a Bayesian neural network often sit in different modes that
#' predict differently.  `bnn_fit()` pools them with equal weights; stacking
#' (Yao, Vehtari and Gelman 2022) weights them instead so that their
#' mixture has the largest log predictive density on data the chains did
#' not see (`loo::stacking_weights()`).  The stacked fit's predictions --
#' `predict()`, `posterior_predict()`, `posterior_epred()`, `log_lik()`,
#' `loo()`, `bnn_metrics()` and the tools built on them (tidybayes,
#' marginaleffects, bayesplot) -- use the draws of each chain in proportion
#' to its weight; its parameter draws (`as_draws()`, diagnostics) stay those
#' of every chain, and `bnn_stack_chains(fit, method = "equal")` returns to
#' equal weights.
#'
#' The weights need a leave-out estimate that holds:
#' * `method = "validation"` (the default, `"auto"`, needs `newdata`): the
#'   log predictive density of each chain on `newdata`, a validation set
#'   with the response that was not used for the fit.
#' * `method = "loo"` (only when asked for): each chain's PSIS-LOO on the
#'   training data, using only the points whose Pareto k is at most
#'   `k_threshold` in every chain.  When fewer than half of the points
#'   qualify, the fit is returned with equal weights and a warning.  Even
#'   on the reliable points a chain that overfits can look best: on yacht
#'   and energy this put all the weight on one chain and lost 0.2-1.0 nats
#'   per test point against equal weights.
#'
#' On the UCI sets measured in `vignette("benchmarks")` ("Stacking the
#' chains") the equal-weight mixture of the default's chains predicted
#' better than any stacking, and better than every single chain, so
#' `bnn_fit()` keeps equal weights; stacking is for fits whose chains a
#' validation set shows to be unequal (a chain stuck in a poor mode).
#'
#' @param object A `bnnfit` with at least two chains that did not fail.
#' @param newdata A validation set with the response (`method =
#'   "validation"`).
#' @param method `"auto"` or `"validation"` (weights from `newdata`),
#'   `"loo"` (from PSIS-LOO on the training data) or `"equal"` (remove
#'   stacking).
#' @param k_threshold Pareto k above which a point's PSIS-LOO estimate is
#'   not used (`method = "loo"`).
#' @return The fit with `$stacking`: a list of `weights` (one per chain that
#'   did not fail, named by chain), `method`, `n_points` (the points the
#'   weights were computed on) and `lpd` (the mean log predictive density
#'   on those points of the equal-weight and of the stacked mixture).
#' @references Yao, Y., Vehtari, A., and Gelman, A. (2022). Stacking for
#'   non-mixing Bayesian computations: the curse and blessing of multimodal
#'   posteriors. JMLR 23(79).
#' @seealso [bnn_convergence()], whose Monte Carlo error says when chains
#'   disagree.
#' @export
#' @examples
#' d <- transform(mtcars, y = mpg)[, c("y", "wt", "hp")]
#' fit <- bnn_fit(y ~ wt + hp, data = d[1:24, ], hidden = 3, chains = 3, warmup = 200,
#'                iter = 200, seed = 1, progress = FALSE, sampler = "nuts")
#' st <- bnn_stack_chains(fit, newdata = d[25:32, ])
#' st$stacking$weights
#' predict(st, newdata = d[25:32, ])
bnn_stack_chains <- function(object, newdata = NULL,
                             method = c("auto", "validation", "loo", "equal"),
                             k_threshold = 0.7) {
  if (!inherits(object, "bnnfit")) stop("'object' must be a bnnfit.", call. = FALSE)
  method <- match.arg(method)
  if (!is.null(object$mixture))
    stop(paste0("'object' already mixes two models (the default's check: ",
                mixture_names(object), "); stack the chains of a network fit, e.g. one ",
                "with 'hidden' given."), call. = FALSE)
  object <- bnnfit_with(object, stacking = NULL)
  if (method == "equal") return(object)
  if (method == "auto") {
    if (is.null(newdata))
      stop(paste0("'newdata' must be a validation set with the response: stacking needs data the ",
                  "chains did not see (method = \"loo\" estimates it from the training data, ",
                  "which on the UCI sets of vignette(\"benchmarks\") gave all the weight to ",
                  "a chain that predicted worse)."), call. = FALSE)
    method <- "validation"
  }
  k_threshold <- check_positive(k_threshold, "k_threshold")
  ok <- which(object$chain_status == "ok")
  if (length(ok) < 2L)
    stop("'object' needs at least two chains that did not fail to stack them.", call. = FALSE)
  if (method == "validation" && is.null(newdata))
    stop("'newdata' must be a validation set with the response for method = \"validation\".",
         call. = FALSE)
  lpd <- if (method == "validation") chain_lpd_validation(object, ok, newdata)
         else chain_lpd_loo(object, ok, k_threshold)
  if (is.null(lpd)) return(object)
  w <- as.numeric(loo::stacking_weights(lpd))
  mix <- function(v) mean(apply(lpd, 1L, function(a) log_sum_exp(a + log(pmax(v, 1e-300)))))
  ids <- (object$chain_id %||% seq_along(object$chain_status))[ok]
  bnnfit_with(object, stacking = list(
    weights = stats::setNames(w, ids), method = method, n_points = nrow(lpd),
    lpd = c(equal = mix(rep(1 / length(ok), length(ok))), stacked = mix(w))))
}

# Points x chains: each chain's log predictive density at the validation
# points.
chain_lpd_validation <- function(object, ok, newdata) {
  vapply(ok, function(k) {
    ll <- pointwise_loglik_unweighted(bnnfit_subset_chains(object, k), newdata)
    apply(ll, 2L, log_mean_exp)
  }, numeric(nrow(as.data.frame(newdata))))
}

# Points x chains: each chain's PSIS-LOO elpd at the training points whose
# Pareto k is at most k_threshold in every chain; NULL (with a warning)
# when fewer than half of the points qualify.
chain_lpd_loo <- function(object, ok, k_threshold) {
  res <- lapply(ok, function(k) {
    ll <- pointwise_loglik_unweighted(bnnfit_subset_chains(object, k))
    r_eff <- relative_eff_chains(ll, 1L)
    lo <- suppressWarnings(loo::loo(ll, r_eff = r_eff))
    list(elpd = lo$pointwise[, "elpd_loo"], k = lo$diagnostics$pareto_k)
  })
  elpd <- vapply(res, `[[`, numeric(length(res[[1]]$elpd)), "elpd")
  kk <- vapply(res, `[[`, numeric(length(res[[1]]$k)), "k")
  good <- rowSums(kk > k_threshold) == 0L
  if (sum(good) < 0.5 * length(good)) {
    warn_cond(sprintf(paste0(
      "PSIS-LOO is unreliable for these chains: %d of %d training points have a Pareto k above ",
      "%s in some chain, so the chains keep equal weights; give a validation set ",
      "(bnn_stack_chains(fit, newdata = valid))."), sum(!good), length(good), format(k_threshold)),
      "bnnmc_stacking_unreliable")
    return(NULL)
  }
  elpd[good, , drop = FALSE]
}

# One line for print() of a stacked fit.
format_stacking <- function(st) {
  if (is.null(st)) return(NULL)
  sprintf("weights %s (%s, %d points; log predictive density %.3f stacked, %.3f equal weights)",
          paste(formatC(st$weights, digits = 2, format = "f"), collapse = " "),
          if (st$method == "validation") "validation set" else "PSIS-LOO",
          st$n_points, st$lpd[["stacked"]], st$lpd[["equal"]])
}

# log(sum_k w_k exp(m[i, k])) for each row i of m (an observation's log
# densities under the models of a stack, one column per model): the
# stack's log density (the stacked fit's loo() and the choice between
# models use it), with the largest term taken out so that densities
# far below exp(-745) do not underflow.
log_mix <- function(m, w) {
  m <- sweep(as.matrix(m), 2L, log(as.numeric(w) / sum(w)), "+")
  mx <- apply(m, 1L, max)
  mx + log(rowSums(exp(m - mx)))
}

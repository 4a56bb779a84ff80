# Methods for the rstantools generics: posterior_predict(), posterior_epred(),
# posterior_linpred(), predictive_interval(), log_lik() and
# predictive_error().  posterior_interval(), of the parameters' draws, is in
# R/methods-draws.R (documented here).
#
# Why rstantools is in Imports (and its generics are re-exported) rather
# than in Suggests with delayed registration: with a delayed registration,
# `posterior_predict(fit)` fails after `library(bnnmc)` unless the user also
# attaches rstantools (or brms/rstanarm), because the generic itself would
# not be visible.  Re-exporting the generics, as rstanarm and brms do, makes
# them available as soon as bnnmc is attached, and they remain the very same
# functions as rstantools', so bnnmc's methods also serve code that calls
# `rstantools::posterior_predict()` or loads brms alongside (no masking of
# one generic by another).  The cost is rstantools' own imports (Rcpp,
# RcppParallel, desc) in the dependency tree; bnnmc does not use Rcpp.

#' @importFrom rstantools posterior_predict posterior_epred posterior_linpred
#' @importFrom rstantools predictive_interval posterior_interval log_lik
#' @importFrom rstantools predictive_error
NULL

#' @export
rstantools::posterior_predict
#' @export
rstantools::posterior_epred
#' @export
rstantools::posterior_linpred
#' @export
rstantools::predictive_interval
#' @export
rstantools::posterior_interval
#' @export
rstantools::log_lik
#' @export
rstantools::predictive_error

# Observation names of the design for newdata (the training rows if NULL).
obs_names <- function(object, newdata) {
  if (is.null(newdata)) rownames(object$X) else rownames(new_design(object, newdata))
}

# The observed response on its original scale: numeric for regression; for
# classification the index 1..K of the level.
response_values <- function(object, newdata = NULL) {
  if (is.null(newdata)) {
    y <- object$y
  } else {
    if (!is.data.frame(newdata)) stop("'newdata' must be a data frame.", call. = FALSE)
    lhs <- deparse1(object$formula[[2L]])
    mf <- tryCatch(stats::model.frame(object$terms, newdata, xlev = object$xlevels,
                                      na.action = stats::na.pass),
                   error = function(e)
                     stop(sprintf("'newdata' must contain the response '%s' (and the predictors): %s",
                                  lhs, conditionMessage(e)), call. = FALSE))
    y <- stats::model.response(mf)
    if (is.null(y) || anyNA(y))
      stop(sprintf("'newdata' has missing values in the response '%s'.", lhs), call. = FALSE)
  }
  if (is_classification(object)) {
    k <- match(as.character(y), object$levels)
    if (anyNA(k))
      stop(sprintf("'newdata' has response values that are not levels seen in training: %s.",
                   paste(unique(as.character(y)[is.na(k)]), collapse = ", ")), call. = FALSE)
    return(k)
  }
  if (!is.numeric(y)) stop("'newdata' has a non-numeric response.", call. = FALSE)
  if (is.matrix(y)) return(matrix(as.double(y), nrow(y)))   # cbind(successes, failures)
  as.double(y)
}

softmax3 <- function(eta) {
  m <- apply(eta, c(1L, 2L), max)
  e <- exp(eta - as.vector(m))
  e / as.vector(apply(e, c(1L, 2L), sum))
}

#' Posterior predictive draws and the rstantools generics
#'
#' Methods for the generics of \pkg{rstantools} (re-exported by bnnmc, so
#' they work after `library(bnnmc)`), with the shapes those generics
#' promise.  Rows are posterior draws: all kept iterations of the first chain
#' that did not fail, then of the second, and so on (or `ndraws` of them
#' spread evenly over the chains); columns are observations of `newdata`
#' (the training data by default).  Everything is on the response's original
#' scale.
#'
#' * `posterior_predict()`: draws from the posterior predictive
#'   distribution, observation noise included.  For classification the
#'   drawn class: 0/1 (1 = the second level) for a binary response, the
#'   level's index 1..K for a categorical one.
#' * `posterior_epred()`: draws of the expected response, i.e. the mean
#'   function (regression), the probability of the second level (binary), or
#'   an array `[draw, observation, class]` of class probabilities
#'   (categorical).  `colMeans(posterior_epred(fit))` equals `predict(fit)`
#'   for regression.
#' * `posterior_linpred()`: the network's output before the inverse link.
#'   For regression the link is the identity (the response's standardisation
#'   is an affine map absorbed in the linear output layer), so it equals
#'   `posterior_epred()`; for classification it is the logit (binary) or
#'   the array of unnormalised log-probabilities (categorical), and
#'   `transform = TRUE` applies the inverse link.
#' * `predictive_interval()`: equal-tailed predictive intervals, one row per
#'   observation, columns named like rstantools' (`"5%"`, `"95%"` for
#'   `prob = 0.9`).  For regression these are the exact quantiles of the
#'   Gaussian mixture over draws (as `predict(type = "interval")`), not
#'   Monte Carlo quantiles of `posterior_predict()`; for classification they
#'   are quantiles of `posterior_predict()` draws.
#' * `posterior_interval()`: central posterior intervals of the parameters
#'   (one row per parameter; `sigma` on the response's scale).  For a linear
#'   model (no hidden layer) the rows are its coefficients on the data's
#'   scale, named as by `lm()`, and `sigma`, as rstanarm's; see [coef()].
#' * `log_lik()`: the pointwise log-likelihood `log p(y_i | theta_s)`,
#'   `[draw, observation]`, for regression (densities on the original scale
#'   of the response) and classification (log-probabilities of the observed
#'   class); it is what [loo.bnnfit()] uses.  For the training data of a
#'   fit with `weights`, each column is multiplied by its observation's
#'   weight (as in rstanarm); with `na.action = na.exclude` the rows dropped
#'   for missing values are columns of `NA`.  A matrix above
#'   `getOption("bnnmc.max_memory")` (4 GB: 2,000 draws of 250,000 rows) is
#'   refused with its size; summaries of it need no such matrix:
#'   [bnn_metrics()] gives the LPPD of new data (per observation with
#'   `pointwise = TRUE`) and [loo.bnnfit()] PSIS-LOO and WAIC of the training
#'   data, each a block of rows at a time.
#' * `predictive_error()`: `y - posterior_predict()` (regression and binary
#'   responses).
#'
#' @param object A `bnnfit`.
#' @param newdata A data frame; the training data if `NULL`.  `log_lik()`
#'   and `predictive_error()` also need the response in it.
#' @param ndraws Number of draws to use, spread evenly over the chains (all
#'   by default).
#' @param seed Seed of R's RNG for the noise of the predictive draws; the
#'   caller's RNG state is left as it was.
#' @param transform For `posterior_linpred()`: apply the inverse link.
#' @param prob Probability mass of the intervals.
#' @param pars,regex_pars For `posterior_interval()`: parameter names, or
#'   regular expressions matched against them (all network parameters, and
#'   `sigma` if present, by default; for a linear model its data-scale
#'   coefficients and `sigma`).
#' @param ... Unused (a warning names them).
#' @return See the list above: an S x N matrix (S draws, N observations),
#'   an S x N x K array, or an N x 2 (or P x 2) matrix of intervals.
#' @name posterior_predict.bnnfit
#' @examples
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2,
#'                warmup = 150, iter = 100, seed = 42, progress = FALSE, sampler = "nuts")
#' yrep <- posterior_predict(fit, ndraws = 50, seed = 1)
#' dim(yrep)
#' all.equal(colMeans(posterior_epred(fit)), predict(fit))
#' predictive_interval(fit, prob = 0.8)[1:3, ]
#' posterior_interval(fit, pars = "W2[1,1]", regex_pars = "^b2")
#' dim(log_lik(fit))
#' dim(predictive_error(fit, newdata = mtcars[1:5, ], seed = 1))
NULL

#' @rdname posterior_predict.bnnfit
#' @export
posterior_predict.bnnfit <- function(object, newdata = NULL, ndraws = NULL, seed = NULL,
                                     ...) {
  newdata <- check_dots(list(...), "posterior_predict", newdata)
  ps <- pred_setup(object, newdata, ndraws)
  if (is_classification(object)) {
    if (is.null(seed)) seed <- new_seed()
    seed <- check_count(seed, "seed", 0L)
    out <- pred_draws(object, ps, noise = TRUE, seed = seed, classes = "inverse")
    if (object$likelihood$family == "bernoulli") out <- out - 1L
  } else {
    out <- pred_draws(object, ps, noise = TRUE, seed = seed)
  }
  dimnames(out) <- list(NULL, rownames(ps$X))
  out
}

#' @rdname posterior_predict.bnnfit
#' @export
posterior_epred.bnnfit <- function(object, newdata = NULL, ndraws = NULL, ...) {
  newdata <- check_dots(list(...), "posterior_epred", newdata)
  ps <- pred_setup(object, newdata, ndraws)
  nm <- rownames(ps$X)
  if (identical(object$likelihood$family, "bernoulli")) {
    # the probability of the second level, without the full probability array
    n <- nrow(ps$X)
    S <- ps_ndraws(ps)
    check_result_size(as.double(S) * n, "The draws of the expected response")
    out <- matrix(NA_real_, S, n, dimnames = list(NULL, nm))
    for (idx in row_blocks(n, S, 2L))
      out[, idx] <- block_params(object, ps, idx)$prob[, , 2L]
    return(out)
  }
  out <- pred_draws(object, ps, noise = FALSE)
  if (is_classification(object)) dimnames(out) <- list(NULL, nm, object$levels) else
    dimnames(out) <- list(NULL, nm)
  out
}

#' @rdname posterior_predict.bnnfit
#' @export
posterior_linpred.bnnfit <- function(object, transform = FALSE, newdata = NULL,
                                     ndraws = NULL, ...) {
  newdata <- check_dots(list(...), "posterior_linpred", newdata)
  if (!is.logical(transform) || length(transform) != 1L || is.na(transform))
    stop("'transform' must be TRUE or FALSE.", call. = FALSE)
  if (is_family_lik(object) && !transform) {
    # counts and binomial: the linear predictor (log mean, logit), offset included
    pp <- predictive_params(object, newdata, ndraws)
    out <- pp$eta %||% pp$mu
    dimnames(out) <- list(NULL, obs_names(object, newdata))
    return(out)
  }
  if (!is_classification(object) || transform)
    return(posterior_epred.bnnfit(object, newdata = newdata, ndraws = ndraws))
  ps <- pred_setup(object, newdata, ndraws)
  n <- nrow(ps$X)
  S <- ps_ndraws(ps)
  K <- if (object$likelihood$family == "bernoulli") 1L else n_classes(object)
  check_result_size(as.double(S) * n * K, "The draws of the linear predictor")
  out <- if (K == 1L) matrix(NA_real_, S, n) else array(NA_real_, c(S, n, K))
  for (idx in row_blocks(n, S, K)) {
    eta <- aperm(block_outputs(object, ps, idx), c(3L, 1L, 2L))   # draw x row x output
    if (K == 1L) out[, idx] <- eta[, , 1L] else out[, idx, ] <- eta
  }
  if (K == 1L) dimnames(out) <- list(NULL, rownames(ps$X)) else
    dimnames(out) <- list(NULL, rownames(ps$X), object$levels)
  out
}

#' @rdname posterior_predict.bnnfit
#' @export
predictive_interval.bnnfit <- function(object, prob = 0.9, newdata = NULL, ndraws = NULL,
                                       seed = NULL, ...) {
  newdata <- check_dots(list(...), "predictive_interval", newdata)
  check_prob(prob, "prob")
  labs <- paste0(100 * c((1 - prob) / 2, 1 - (1 - prob) / 2), "%")
  if (is_classification(object)) {
    yrep <- posterior_predict.bnnfit(object, newdata, ndraws = ndraws, seed = seed)
    return(rstantools::predictive_interval(yrep, prob = prob))
  }
  iv <- predict.bnnfit(object, newdata, type = "interval", level = prob, ndraws = ndraws,
                       na.action = stats::na.fail)
  matrix(c(iv$lower, iv$upper), ncol = 2L, dimnames = list(rownames(iv), labs))
}

#' @rdname posterior_predict.bnnfit
#' @export
log_lik.bnnfit <- function(object, newdata = NULL, ndraws = NULL, ...) {
  newdata <- check_dots(list(...), "log_lik", newdata)
  out <- pointwise_loglik(object, newdata, ndraws)
  if (is.null(newdata) && !is.null(object$na_action))
    out <- t(pad_excluded(object, t(out)))
  out
}

# log p(y_i | theta_s) as [draw, observation], times the observation
# weights for the training data of a weighted fit (as rstanarm's log_lik).
pointwise_loglik <- function(object, newdata = NULL, ndraws = NULL) {
  w <- if (is.null(newdata)) object$weights
  pointwise_loglik_unweighted(object, newdata, ndraws, w = w)
}

# The same without weights (or with the weights `w` given), computed a
# block of observations at a time.  `pp`: predictive_params(object,
# newdata, ndraws) when the caller has it (regression).
pointwise_loglik_unweighted <- function(object, newdata = NULL, ndraws = NULL, pp = NULL,
                                        w = NULL) {
  if (!is.null(pp)) {
    y <- response_values(object, newdata)
    out <- if (!is.null(pp$family)) family_log_density(pp, y) else
      stats::dnorm(matrix(y, nrow(pp$mu), ncol(pp$mu), byrow = TRUE), pp$mu, pp$sd, log = TRUE)
    if (!is.null(w)) out <- sweep(out, 2L, w, "*")
    dimnames(out) <- list(NULL, obs_names(object, newdata))
    return(out)
  }
  ls <- loglik_setup(object, newdata, ndraws)
  check_result_size(as.double(ls$S) * ls$n, "The pointwise log-likelihood",
                    hint = paste0("Summaries of it are computed a block of rows at a time: ",
                                  "bnn_metrics(fit, newdata) (the LPPD; per observation with ",
                                  "pointwise = TRUE), and loo(fit) and waic(fit) for the ",
                                  "training data."))
  out <- matrix(NA_real_, ls$S, ls$n, dimnames = list(NULL, ls$names))
  for (idx in loglik_row_blocks(object, ls))
    out[, idx] <- loglik_block(object, ls, idx, w)
  out
}

# What every block of a pointwise log-likelihood shares: the responses `y`
# (response_values()'s coding), the pred_setup() `ps`, the number of rows
# `n` and of draws `S`, and the rows' names.
loglik_setup <- function(object, newdata = NULL, ndraws = NULL) {
  y <- response_values(object, newdata)
  ps <- pred_setup(object, newdata, ndraws)
  list(ps = ps, y = y, n = nrow(ps$X), S = ps_ndraws(ps), names = rownames(ps$X))
}

# The row blocks of a loglik_setup() `ls`, of about `bytes` of [draw, row]
# values each (row_blocks()).
loglik_row_blocks <- function(object, ls, bytes = pred_block_bytes())
  row_blocks(ls$n, ls$S, if (is_classification(object)) n_classes(object) else 3L,
             bytes = bytes)

# log p(y_i | theta_s) [draw, row] of the rows idx of a loglik_setup() `ls`,
# times the weights `w` of its rows when given: the columns idx of the
# whole matrix, the same values.
loglik_block <- function(object, ls, idx, w = NULL) {
  y <- ls$y
  yb <- if (is.matrix(y)) y[idx, , drop = FALSE] else y[idx]   # binomial: successes, failures
  ll <- block_loglik(object, ls$ps, idx, yb)
  if (!is.null(w)) ll <- ll * rep(w[idx], each = ls$S)
  ll
}

# log p(y_i | theta_s) [draw, row] of the rows `idx` of a pred_setup(), with
# their responses yb (response_values()'s coding).
block_loglik <- function(object, ps, idx, yb) {
  S <- ps_ndraws(ps)
  nb <- length(idx)
  if (!is_classification(object)) {
    pp <- block_params(object, ps, idx)
    return(if (!is.null(pp$family)) family_log_density(pp, yb) else
      stats::dnorm(matrix(yb, S, nb, byrow = TRUE), pp$mu, pp$sd, log = TRUE))
  }
  eta <- aperm(block_outputs(object, ps, idx), c(3L, 1L, 2L))   # draw x row x output
  if (object$likelihood$family == "bernoulli") {
    e <- matrix(eta[, , 1L], S, nb)
    Y <- matrix(yb == 2L, S, nb, byrow = TRUE)
    return(ifelse(Y, stats::plogis(e, log.p = TRUE), stats::plogis(-e, log.p = TRUE)))
  }
  m <- apply(eta, c(1L, 2L), max)
  lse <- m + log(apply(exp(eta - as.vector(m)), c(1L, 2L), sum))
  ij <- cbind(rep(seq_len(S), nb), rep(seq_len(nb), each = S), rep(yb, each = S))
  matrix(eta[ij], S, nb) - lse
}

#' @rdname posterior_predict.bnnfit
#' @export
predictive_error.bnnfit <- function(object, newdata = NULL, ndraws = NULL, seed = NULL, ...) {
  newdata <- check_dots(list(...), "predictive_error", newdata)
  if (identical(object$likelihood$family, "categorical"))
    stop("predictive_error() needs a numeric or binary response; this fit is categorical.",
         call. = FALSE)
  y <- response_values(object, newdata)
  if (is_classification(object)) y <- y - 1
  yrep <- posterior_predict.bnnfit(object, newdata, ndraws = ndraws, seed = seed)
  out <- matrix(y, nrow(yrep), ncol(yrep), byrow = TRUE) - yrep
  dimnames(out) <- dimnames(yrep)
  out
}

# Chain index (1, 2, ... over the chains that did not fail) of every row of
# the [draw, observation] matrices above when all draws are used.
draw_chain_ids <- function(object) {
  # a mixture's draws come from two models' chains: none of them is a chain
  if (!is.null(object$mixture)) return(rep(NA_integer_, pooled_ndraws(object)))
  n_ok <- sum(object$chain_status == "ok")
  ids <- rep(seq_len(n_ok), each = dim(object$draws)[1])
  if (!is.null(object$stacking)) ids <- ids[stacked_rows(object)]
  ids
}

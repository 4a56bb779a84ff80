# Prediction: posterior predictive means, draws and intervals.

# Draws as a matrix [draw, parameter] on the unconstrained scale, optionally
# a subset of ndraws spread evenly over the chains.
draws_matrix <- function(object, ndraws = NULL) {
  d <- object$draws
  ok <- which(object$chain_status == "ok")
  if (!length(ok)) stop("All chains of this fit failed; there are no draws.", call. = FALSE)
  m <- matrix(d[, ok, , drop = FALSE], ncol = dim(d)[3])
  if (!is.null(object$stacking)) m <- m[stacked_rows(object), , drop = FALSE]
  m <- m[stats::complete.cases(m), , drop = FALSE]
  if (!is.null(ndraws)) {
    ndraws <- check_count(ndraws, "ndraws", 1L)
    if (ndraws < nrow(m)) m <- m[unique(round(seq(1, nrow(m), length.out = ndraws))), , drop = FALSE]
  }
  colnames(m) <- dimnames(d)[[3]]
  bnn_unconstrain(object, t(m))
}

# The rows of the pooled draws (chain after chain) that make a stacked fit's
# predictive distribution: the same number of draws as the chains that did
# not fail have, shared among them in proportion to their stacking weights
# (largest remainders), each chain's share evenly spaced over its run (so
# a chain of weight 0 contributes nothing and one of weight 1 every draw).
stacked_rows <- function(object) {
  S <- dim(object$draws)[1]
  w <- object$stacking$weights
  K <- length(w)
  total <- S * K
  raw <- w * total
  n <- floor(raw)
  short <- total - sum(n)
  if (short > 0) n[order(raw - n, decreasing = TRUE)[seq_len(short)]] <-
    n[order(raw - n, decreasing = TRUE)[seq_len(short)]] + 1
  unlist(lapply(seq_len(K), function(k) if (n[k] > 0)
    (k - 1L) * S + round(seq(1, S, length.out = n[k]))))
}

# Network outputs for every draw: list(mu, sd) as [draw, observation]
# matrices on the response's original scale (regression), or probabilities
# [draw, observation, class] (classification).
predictive_params <- function(object, newdata, ndraws = NULL) {
  X <- new_design(object, newdata)
  th <- draws_matrix(object, ndraws)
  out <- .Call(C_model_forward, object$spec, th, X)   # n x K x S
  fam <- object$likelihood$family
  # counts, binomial and Student-t: R/model-family.R
  if (is_family_lik(object))
    return(family_params(object, out, th, X, family_trials(object, newdata)))
  S <- dim(out)[3]
  n <- dim(out)[1]
  if (fam == "hetero_gaussian") {
    mu <- t(matrix(out[, 1, ], n, S))
    ls <- pmin(pmax(t(matrix(out[, 2, ], n, S)), log(1e-6)), log(1e6))
    sd <- exp(ls)
  } else if (fam == "gaussian") {
    mu <- t(matrix(out[, 1, ], n, S))
    sig <- if (is.null(object$likelihood$sigma)) exp(th[nrow(th), ]) else
      rep(object$likelihood$sigma, S)
    sd <- matrix(sig, S, n)
  } else {
    return(list(prob = class_probs(out, fam)))
  }
  mu <- mu * object$y_scale + object$y_center
  off <- attr(X, "offset")
  if (!is.null(off)) mu <- mu + rep(off, each = S)
  list(mu = mu, sd = sd * object$y_scale)
}

# Class log-probabilities [draw, observation, class] from network outputs
# [observation, output, draw]: the log-logistic of the one output
# (Bernoulli) or the log-softmax of the K outputs (categorical), computed
# stably (maximum subtracted), so tiny probabilities do not underflow.
class_log_probs <- function(out, fam) {
  n <- dim(out)[1]
  S <- dim(out)[3]
  if (fam == "bernoulli") {
    eta <- t(matrix(out[, 1, ], n, S))
    return(array(c(stats::plogis(-eta, log.p = TRUE), stats::plogis(eta, log.p = TRUE)),
                 c(S, n, 2L)))
  }
  K <- dim(out)[2]
  eta <- lapply(seq_len(K), function(k) t(matrix(out[, k, ], n, S)))   # S x n each
  mx <- do.call(pmax, eta)
  lse <- mx + log(Reduce(`+`, lapply(eta, function(v) exp(v - mx))))
  array(unlist(lapply(eta, function(v) v - lse), use.names = FALSE), c(S, n, K))
}

class_probs <- function(out, fam) exp(class_log_probs(out, fam))

# Posterior mean class probabilities (observations x classes) over the draws,
# computed in blocks of draws so that memory stays bounded for many draws
# and test points.  With y (0-based class indices) also, per observation,
# the mean over draws of the log-likelihood, loglik = mean_s log p(y_i |
# theta_s), and the log predictive density lpd = log mean_s p(y_i | theta_s)
# (by log-sum-exp, so it stays finite when every p(y_i | theta_s) underflows).
class_prob_summary <- function(object, newdata, ndraws = NULL, y = NULL,
                               block = max(1L, floor(1e6 / max(1, n_rows(object, newdata) *
                                                                 n_classes(object))))) {
  X <- new_design(object, newdata)
  th <- draws_matrix(object, ndraws)
  fam <- object$likelihood$family
  S <- ncol(th)
  n <- nrow(X)
  K <- n_classes(object)
  psum <- matrix(0, n, K)
  llsum <- lsum <- numeric(n)
  lmax <- rep(-Inf, n)
  for (b0 in seq(1L, S, by = block)) {
    idx <- b0:min(S, b0 + block - 1L)
    out <- .Call(C_model_forward, object$spec, th[, idx, drop = FALSE], X)
    lp <- class_log_probs(out, fam)             # draws x n x K
    B <- length(idx)
    psum <- psum + colSums(exp(lp), dims = 1L)
    if (!is.null(y)) {
      ly <- matrix(lp[cbind(rep(seq_len(B), n), rep(seq_len(n), each = B),
                            rep(y + 1L, each = B))], B, n)     # log p(y_i | theta_s)
      llsum <- llsum + colSums(ly)
      # running log-sum-exp over draws of p(y_i | theta_s)
      m <- pmax(lmax, apply(ly, 2L, max))
      lsum <- lsum * exp(lmax - m) + colSums(exp(ly - rep(m, each = B)))
      lmax <- m
    }
  }
  prob <- psum / S
  colnames(prob) <- object$levels
  list(prob = prob, loglik = if (!is.null(y)) llsum / S,
       lpd = if (!is.null(y)) lmax + log(lsum) - log(S), n_draws = S)
}

n_classes <- function(object) length(object$levels)
n_rows <- function(object, newdata) if (is.null(newdata)) nrow(object$X) else nrow(newdata)

#' Predictions from a Bayesian neural network
#'
#' @param object A `bnnfit`.
#' @param newdata A data frame with the predictors; the training data if
#'   omitted.
#' @param type `"response"`: the posterior predictive mean (regression) or
#'   class probabilities averaged over draws (classification);
#'   `"draws"`: a `[draw, observation]` matrix of posterior predictive draws,
#'   observation noise included; `"interval"`: a data frame with the mean and
#'   the equal-tailed predictive interval of probability `level` (the exact
#'   quantiles of the Gaussian mixture over draws); `"mean_draws"`: a
#'   `[draw, observation]` matrix of the mean function (no noise);
#'   `"prob"` and `"class"` for classification.
#' @param level Probability of the predictive interval.
#' @param ndraws Use this many draws, spread evenly over the chains (all by
#'   default).
#' @param seed Seed for the noise of `type = "draws"`.
#' @param summary As in \pkg{brms}: `FALSE` returns the `[draw, observation]`
#'   matrix of posterior predictive draws (the same as `type = "draws"`).
#' @param probs As in \pkg{brms} (regression): a data frame with the
#'   predictive mean and the exact predictive quantiles at `probs` (columns
#'   `Q2.5`, `Q97.5`, ... ), instead of `level`'s interval.
#' @param ... Unused (a warning names them).
#' @return See `type`; predictions are on the response's original scale.
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 4, chains = 2,
#'                warmup = 150, iter = 100, seed = 42, sampler = "nuts")
#' predict(fit, mtcars[1:3, ])
#' predict(fit, mtcars[1:3, ], type = "interval", level = 0.8)
#' dim(predict(fit, mtcars[1:3, ], type = "draws"))
predict.bnnfit <- function(object, newdata = NULL,
                           type = c("response", "draws", "interval", "mean_draws",
                                    "prob", "class"),
                           level = 0.9, ndraws = NULL, seed = NULL, summary = TRUE,
                           probs = NULL, ...) {
  newdata <- check_dots(list(...), "predict", newdata)
  type_given <- !missing(type)
  type <- match.arg(type)
  if (!is.logical(summary) || length(summary) != 1L || is.na(summary))
    stop("'summary' must be TRUE or FALSE.", call. = FALSE)
  if (!summary) {
    if (type_given && type != "draws")
      stop(sprintf("summary = FALSE returns predictive draws; it cannot be combined with type = \"%s\".",
                   type), call. = FALSE)
    if (!is.null(probs))
      stop("'probs' summarises the draws; it cannot be combined with summary = FALSE.",
           call. = FALSE)
    type <- "draws"
  }
  if (!is.null(probs)) {
    if (is_classification(object))
      stop("'probs' (predictive quantiles) is for regression fits.", call. = FALSE)
    if (type_given && !type %in% c("response", "interval"))
      stop(sprintf("'probs' gives predictive quantiles; it cannot be combined with type = \"%s\".",
                   type), call. = FALSE)
    if (!is.numeric(probs) || !length(probs) || anyNA(probs) || any(probs <= 0) ||
        any(probs >= 1))
      stop("'probs' must be probabilities strictly between 0 and 1.", call. = FALSE)
    pp <- predictive_params(object, newdata, ndraws)
    q <- if (ncol(pp$mu) == 0L) matrix(numeric(0), 0L, length(probs)) else
      if (!is.null(pp$family)) family_quantiles(pp, probs) else
      bnn_mixture_quantile(pp$mu, pp$sd, probs)
    out <- data.frame(mean = colMeans(pp$mu), matrix(q, ncol = length(probs)))
    names(out)[-1L] <- paste0("Q", format(100 * probs, trim = TRUE, drop0trailing = TRUE))
    return(out)
  }
  if (is_classification(object)) {
    if (type %in% c("response", "prob", "class")) {
      prob <- class_prob_summary(object, newdata, ndraws)$prob
      if (type == "class")
        return(factor(object$levels[max.col(prob, ties.method = "first")],
                      levels = object$levels))
      return(prob)
    }
    pp <- predictive_params(object, newdata, ndraws)$prob
    return(switch(type,
      draws = {
        if (is.null(seed)) seed <- new_seed()
        with_seed(seed, apply(pp, c(1L, 2L), function(p) sample.int(length(p), 1L, prob = p)))
      },
      mean_draws = pp,
      stop(sprintf("type = \"%s\" is for regression fits.", type), call. = FALSE)))
  }
  if (type %in% c("prob", "class"))
    stop(sprintf("type = \"%s\" is for classification fits.", type), call. = FALSE)
  pp <- predictive_params(object, newdata, ndraws)
  if (!is.null(pp$family)) return(family_predict(pp, type, level, seed))
  switch(type,
    response = colMeans(pp$mu),
    mean_draws = pp$mu,
    draws = {
      if (is.null(seed)) seed <- new_seed()
      with_seed(seed, matrix(stats::rnorm(length(pp$mu), pp$mu, pp$sd), nrow(pp$mu)))
    },
    interval = {
      check_prob(level, "level")
      a <- (1 - level) / 2
      if (ncol(pp$mu) == 0L)   # 0-row newdata: an empty table, as for type = "response"
        return(data.frame(mean = numeric(0), lower = numeric(0), upper = numeric(0)))
      q <- bnn_mixture_quantile(pp$mu, pp$sd, c(a, 1 - a))
      data.frame(mean = colMeans(pp$mu), lower = q[, 1], upper = q[, 2])
    })
}


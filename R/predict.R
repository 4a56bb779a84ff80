# Prediction: posterior predictive means, draws and intervals.

# Standardised design matrix for new data.
new_design <- function(object, newdata) {
  if (missing(newdata) || is.null(newdata)) return(object$X)
  if (!is.data.frame(newdata)) stop("'newdata' must be a data frame.", call. = FALSE)
  tt <- stats::delete.response(object$terms)
  need <- all.vars(tt)
  miss <- setdiff(need, names(newdata))
  if (length(miss))
    stop("'newdata' lacks column(s) used by the model: ", paste(miss, collapse = ", "),
         ".", call. = FALSE)
  for (v in names(object$xlevels)) {
    if (v %in% names(newdata)) {
      new_lev <- setdiff(unique(as.character(newdata[[v]])), c(object$xlevels[[v]], NA))
      if (length(new_lev))
        stop(sprintf("'newdata' has level(s) of factor '%s' not seen in training: %s.",
                     v, paste(new_lev, collapse = ", ")), call. = FALSE)
    }
  }
  mf <- stats::model.frame(tt, newdata, xlev = object$xlevels, na.action = stats::na.pass)
  X <- stats::model.matrix(tt, mf, contrasts.arg = object$contrasts)
  X <- X[, colnames(X) != "(Intercept)", drop = FALSE]
  if (anyNA(X)) stop("'newdata' has missing values in the model's variables.", call. = FALSE)
  X <- sweep(sweep(X, 2L, object$x_center, "-"), 2L, object$x_scale, "/")
  storage.mode(X) <- "double"
  X
}

# Draws as a matrix [draw, parameter] on the unconstrained scale, optionally
# a subset of ndraws spread evenly over the chains.
draws_matrix <- function(object, ndraws = NULL) {
  d <- object$draws
  ok <- which(object$chain_status == "ok")
  if (!length(ok)) stop("All chains of this fit failed; there are no draws.", call. = FALSE)
  m <- matrix(d[, ok, , drop = FALSE], ncol = dim(d)[3])
  m <- m[stats::complete.cases(m), , drop = FALSE]
  if (!is.null(ndraws)) {
    ndraws <- check_count(ndraws, "ndraws", 1L)
    if (ndraws < nrow(m)) m <- m[unique(round(seq(1, nrow(m), length.out = ndraws))), , drop = FALSE]
  }
  colnames(m) <- dimnames(d)[[3]]
  bnn_unconstrain(object, t(m))
}

# Network outputs for every draw: list(mu, sd) as [draw, observation]
# matrices on the response's original scale (regression), or probabilities
# [draw, observation, class] (classification).
predictive_params <- function(object, newdata, ndraws = NULL) {
  X <- new_design(object, newdata)
  th <- draws_matrix(object, ndraws)
  out <- .Call(C_model_forward, object$spec, th, X)   # n x K x S
  fam <- object$likelihood$family
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
  } else if (fam == "bernoulli") {
    p1 <- stats::plogis(t(matrix(out[, 1, ], n, S)))
    prob <- array(c(1 - p1, p1), c(S, n, 2L))
    return(list(prob = prob))
  } else {
    K <- dim(out)[2]
    prob <- array(0, c(S, n, K))
    for (s in seq_len(S)) {
      o <- out[, , s, drop = FALSE]
      dim(o) <- c(n, K)
      o <- o - apply(o, 1L, max)
      e <- exp(o)
      prob[s, , ] <- e / rowSums(e)
    }
    return(list(prob = prob))
  }
  list(mu = mu * object$y_scale + object$y_center, sd = sd * object$y_scale)
}

is_classification <- function(object) object$likelihood$family %in% c("bernoulli", "categorical")

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
#' @param ... Unused.
#' @return See `type`; predictions are on the response's original scale.
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 4, chains = 2,
#'                warmup = 150, iter = 100, seed = 42)
#' predict(fit, mtcars[1:3, ])
#' predict(fit, mtcars[1:3, ], type = "interval", level = 0.8)
#' dim(predict(fit, mtcars[1:3, ], type = "draws"))
predict.bnnfit <- function(object, newdata = NULL,
                           type = c("response", "draws", "interval", "mean_draws",
                                    "prob", "class"),
                           level = 0.9, ndraws = NULL, seed = NULL, ...) {
  type <- match.arg(type)
  if (is_classification(object)) {
    pp <- predictive_params(object, newdata, ndraws)$prob
    prob <- apply(pp, c(2L, 3L), mean)
    if (!is.matrix(prob)) prob <- matrix(prob, ncol = dim(pp)[3])
    colnames(prob) <- object$levels
    return(switch(type,
      response = , prob = prob,
      class = factor(object$levels[max.col(prob, ties.method = "first")], levels = object$levels),
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
      q <- bnn_mixture_quantile(pp$mu, pp$sd, c(a, 1 - a))
      data.frame(mean = colMeans(pp$mu), lower = q[, 1], upper = q[, 2])
    })
}


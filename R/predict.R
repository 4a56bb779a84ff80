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
  n <- largest_remainder(w, S * K)
  unlist(lapply(seq_len(K), function(k) if (n[k] > 0)
    (k - 1L) * S + round(seq(1, S, length.out = n[k]))))
}

# Network outputs for every draw: list(mu, sd) as [draw, observation]
# matrices on the response's original scale (regression), or probabilities
# [draw, observation, class] (classification).  All rows at once: for a
# small grid or callers that need every matrix; predictions of many rows go
# through pred_setup() and block_params() instead.
predictive_params <- function(object, newdata, ndraws = NULL) {
  ps <- pred_setup(object, newdata, ndraws)
  block_params(object, ps, seq_len(nrow(ps$X)))
}

# What every block of a prediction shares: the standardised design X (with
# its offset attribute), the draws th [parameter, draw], and the rows of
# newdata with missing predictors (`missing`, when allowed; those rows of X
# are zeros and their predictions are set to NA by the caller).
pred_setup <- function(object, newdata, ndraws = NULL, allow_na = FALSE) {
  # a mixture of two models: one setup per model (R/predict-mixture.R)
  if (!is.null(object$mixture)) return(mixture_setup(object, newdata, ndraws, allow_na))
  X <- new_design(object, newdata, allow_na = allow_na)
  list(X = X, th = draws_matrix(object, ndraws), missing = attr(X, "missing"),
       trials = family_trials(object, newdata))
}

# Bytes of one block's [draw, row] matrix: predictions of many rows are
# computed this many rows at a time, so their memory is that of the result
# plus a few blocks, not a few full rows x draws matrices.
pred_block_bytes <- function() {
  b <- getOption("bnnmc.block_bytes", 4e6)
  if (!is.numeric(b) || length(b) != 1L || is.na(b) || b <= 0)
    stop("option 'bnnmc.block_bytes' must be a positive number of bytes.", call. = FALSE)
  b
}

# The row blocks of an n-row prediction with S draws and K outputs per row,
# each about `bytes` of [draw, row] values.
# Blocks are whole multiples of the C core's chunk of rows (BNN_CHUNK in
# model.h), so that every row goes through the same SIMD code path as when
# all rows are computed at once: the results are identical, not just equal
# to rounding.
row_blocks <- function(n, S, K = 1L, chunk = 256L, bytes = pred_block_bytes()) {
  if (n == 0L) return(list(integer(0)))
  size <- floor(bytes / (8 * max(1, S) * max(1, K)))
  size <- chunk * max(1L, floor(size / chunk))
  starts <- seq(1L, n, by = size)
  lapply(starts, function(a) a:min(n, a + size - 1L))
}

# Refuse a result of n_values doubles above getOption("bnnmc.max_memory"),
# before computing it, as fits are refused (check_model_size()).
# `hint`: a sentence on what computes the caller's summary without the
# whole result (e.g. bnn_metrics() for the LPPD of many rows).
check_result_size <- function(n_values, what, hint = NULL) {
  bytes <- 8 * as.double(n_values)
  lim <- max_memory()
  if (bytes > lim)
    stop(sprintf(paste0("%s would hold %s values (about %s of memory), above the limit of %s. ",
                        "%sUse fewer draws (ndraws = ) or fewer rows of newdata at a time, ",
                        "or raise the limit with options(bnnmc.max_memory = <bytes>) ",
                        "(see ?bnn_model_size)."),
                 what, format(n_values, big.mark = ",", scientific = FALSE),
                 format_bytes(bytes), format_bytes(lim),
                 if (is.null(hint)) "" else paste0(hint, " ")), call. = FALSE)
  invisible(bytes)
}

# Raw network outputs [row, output, draw] for the rows `idx` of a pred_setup().
block_outputs <- function(object, ps, idx) {
  if (!is.null(ps$parts)) return(mixture_outputs(ps, idx))
  X <- ps$X
  if (length(idx) != nrow(X)) X <- X[idx, , drop = FALSE]
  .Call(C_model_forward, object$spec, ps$th, X, .bnn_threads())
}

# Network outputs for the rows `idx` of a pred_setup(): list(mu, sd) as
# [draw, row] matrices on the response's original scale (regression; with
# sd = FALSE no sd matrix is built), or list(prob) [draw, row, class].
block_params <- function(object, ps, idx, sd = TRUE) {
  if (!is.null(ps$parts))
    return(mixture_block(ps, function(obj, p) block_params(obj, p, idx, sd)))
  th <- ps$th
  off <- block_offset(ps, idx)
  out <- block_outputs(object, ps, idx)                # n x K x S
  fam <- object$likelihood$family
  # counts, binomial and Student-t: R/model-family.R, with the block's offset
  # and trials
  if (is_family_lik(object)) {
    Xb <- list()
    attr(Xb, "offset") <- off
    return(family_params(object, out, th, Xb,
                         if (!is.null(ps$trials)) ps$trials[idx]))
  }
  if (!fam %in% c("gaussian", "hetero_gaussian")) return(list(prob = class_probs(out, fam)))
  S <- dim(out)[3]
  n <- dim(out)[1]
  sdm <- if (sd) {
    if (fam == "hetero_gaussian")
      exp(pmin(pmax(t(matrix(out[, 2, ], n, S)), log(1e-6)), log(1e6))) * object$y_scale
    else {
      sig <- if (is.null(object$likelihood$sigma)) exp(th[nrow(th), ]) else
        rep(object$likelihood$sigma, S)
      matrix(sig, S, n) * object$y_scale
    }
  }
  mu <- gaussian_mean_rows(object, out, off)
  rm(out)
  list(mu = t(mu), sd = sdm)
}

# The offset of the rows `idx` of a pred_setup() (NULL without one).
block_offset <- function(ps, idx) {
  off <- attr(ps$X, "offset")
  if (!is.null(off) && length(idx) != nrow(ps$X)) off[idx] else off
}

# A Gaussian network's mean on the response's original scale, from its
# outputs `out` [row, output, draw] (the first output) and the rows' offset
# `off` (or NULL): a [row, draw] matrix.
gaussian_mean_rows <- function(object, out, off) {
  n <- dim(out)[1]
  S <- dim(out)[3]
  mu <- if (dim(out)[2] == 1L) out * object$y_scale else out[, 1, ] * object$y_scale
  dim(mu) <- c(n, S)
  mu <- mu + object$y_center
  if (!is.null(off)) mu <- mu + off
  mu
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
                                                                 n_classes(object)))),
                               X = new_design(object, newdata),
                               th = draws_matrix(object, ndraws)) {
  if (!is.null(object$mixture)) return(mixture_class_summary(object, newdata, ndraws, y))
  fam <- object$likelihood$family
  S <- ncol(th)
  n <- nrow(X)
  K <- n_classes(object)
  psum <- matrix(0, n, K)
  llsum <- lsum <- numeric(n)
  lmax <- rep(-Inf, n)
  for (b0 in seq(1L, S, by = block)) {
    idx <- b0:min(S, b0 + block - 1L)
    out <- .Call(C_model_forward, object$spec, th[, idx, drop = FALSE], X, .bnn_threads())
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
  dimnames(prob) <- list(rownames(X), object$levels)
  list(prob = prob, loglik = if (!is.null(y)) llsum / S,
       lpd = if (!is.null(y)) lmax + log(lsum) - log(S), n_draws = S)
}

n_classes <- function(object) length(object$levels)
n_rows <- function(object, newdata) if (is.null(newdata)) nrow(object$X) else nrow(newdata)

#' Predictions from a Bayesian neural network
#'
#' Predictions are computed a block of rows at a time, so their memory is
#' that of the result (plus the draws), whatever the number of rows; a
#' result larger than `getOption("bnnmc.max_memory")` (e.g. the draws of
#' many rows) is refused with its size before it is computed.
#'
#' @param object A `bnnfit`.
#' @param newdata A data frame with the predictors; the training data if
#'   omitted.
#' @param type `"response"`: the posterior predictive mean, i.e. the
#'   expected response: for regression the mean, for a binary response
#'   (Bernoulli) the probability of its second level, `P(y = 1)`, one number
#'   per observation as `predict(glm(family = binomial), type = "response")`
#'   and brms's `fitted()` give it, and for a categorical response the
#'   matrix of class probabilities; `"prob"` (classification): the matrix
#'   `[observation, class]` of class probabilities averaged over the draws,
#'   one column per level (for a binary response the first column is
#'   `1 - P(y = 1)`); `"class"`: the most probable class; `"draws"`: a
#'   `[draw, observation]` matrix of posterior predictive draws, observation
#'   noise included; `"interval"`: a data frame with the mean and the
#'   equal-tailed predictive interval of probability `level` (the exact
#'   quantiles of the Gaussian mixture over draws); `"mean_draws"`: a
#'   `[draw, observation]` matrix of the mean function (no noise).
#' @param level Probability of the predictive interval.
#' @param ndraws Use this many draws, spread evenly over the chains (all by
#'   default).
#' @param seed Seed for the noise of `type = "draws"`.
#' @param summary As in \pkg{brms}: `FALSE` returns the `[draw, observation]`
#'   matrix of posterior predictive draws (the same as `type = "draws"`).
#' @param probs As in \pkg{brms} (regression): a data frame with the
#'   predictive mean and the exact predictive quantiles at `probs` (columns
#'   `Q2.5`, `Q97.5`, ... ), instead of `level`'s interval.
#' @param na.action What to do with rows of `newdata` that have missing
#'   values in the model's predictors, as in [stats::predict.lm()]:
#'   [stats::na.pass()] (default) and [stats::na.exclude()] give `NA`
#'   predictions for them, [stats::na.omit()] leaves them out, and
#'   [stats::na.fail()] stops.
#' @param ... Unused (a warning names them).
#' @return See `type`; predictions are on the response's original scale,
#'   named (rows, or columns of draws) by the row names of `newdata` (of the
#'   training data), as `predict.lm()`'s.
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 4, chains = 2,
#'                warmup = 150, iter = 100, seed = 42, sampler = "nuts")
#' predict(fit, mtcars[1:3, ])
#' predict(fit, mtcars[1:3, ], type = "interval", level = 0.8)
#' dim(predict(fit, mtcars[1:3, ], type = "draws"))
#' # missing predictors give NA, as predict.lm()
#' predict(fit, data.frame(wt = c(2.5, NA), hp = c(110, 150)))
#' # a binary response: P(y = 1) as glm's predict(type = "response"), the
#' # probabilities of both classes with type = "prob"
#' lg <- bnn_fit(am ~ wt, data = mtcars, family = binomial(), hidden = 2,
#'               chains = 2, warmup = 150, iter = 100, seed = 1, sampler = "nuts")
#' predict(lg, mtcars[1:3, ])
#' predict(lg, mtcars[1:3, ], type = "prob")
predict.bnnfit <- function(object, newdata = NULL,
                           type = c("response", "draws", "interval", "mean_draws",
                                    "prob", "class"),
                           level = 0.9, ndraws = NULL, seed = NULL, summary = TRUE,
                           probs = NULL, na.action = stats::na.pass, ...) {
  newdata <- check_dots(list(...), "predict", newdata)
  type_given <- !missing(type)
  type <- match.arg(type)
  na_mode <- na_action_mode(na.action)
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
    ps <- pred_setup(object, newdata, ndraws, allow_na = na_mode != "fail")
    q <- pred_quantiles(object, ps, probs)
    out <- data.frame(mean = q$mean, matrix(q$q, ncol = length(probs)),
                      row.names = rownames(ps$X))
    names(out)[-1L] <- paste0("Q", format(100 * probs, trim = TRUE, drop0trailing = TRUE))
    return(pred_na(out, ps$missing, na_mode))
  }
  if (type %in% c("prob", "class") && !is_classification(object))
    stop(sprintf("type = \"%s\" is for classification fits.", type), call. = FALSE)
  if (type == "interval") {
    if (is_classification(object))
      stop("type = \"interval\" is for regression fits.", call. = FALSE)
    check_prob(level, "level")
  }
  ps <- pred_setup(object, newdata, ndraws, allow_na = na_mode != "fail")
  nm <- rownames(ps$X)
  if (is_classification(object) && type %in% c("response", "prob", "class")) {
    prob <- class_prob_summary(object, newdata, ndraws, X = ps$X, th = ps$th)$prob
    rownames(prob) <- nm
    if (type == "class") {
      cls <- factor(object$levels[max.col(prob, ties.method = "first")],
                    levels = object$levels)
      if (length(ps$missing)) cls[ps$missing] <- NA
      return(pred_na(cls, ps$missing, na_mode))
    }
    # the expected response of a binary one: P(y = second level), as glm
    if (type == "response" && object$likelihood$family == "bernoulli")
      return(pred_na(prob[, 2L], ps$missing, na_mode))
    return(pred_na(prob, ps$missing, na_mode))
  }
  if (type %in% c("draws", "mean_draws")) {
    out <- pred_draws(object, ps, noise = type == "draws", seed = seed)
    if (length(dim(out)) == 2L) colnames(out) <- nm
    return(pred_na(out, ps$missing, na_mode, draws = TRUE))
  }
  out <- if (type == "response") pred_mean(object, ps) else {
    a <- (1 - level) / 2
    q <- pred_quantiles(object, ps, c(a, 1 - a))
    data.frame(mean = q$mean, lower = q$q[, 1], upper = q$q[, 2], row.names = nm)
  }
  pred_na(out, ps$missing, na_mode)
}

# The handling of rows with missing predictors that predict()'s na.action
# asks for: "pass" (NA predictions, also na.exclude), "omit" or "fail".
na_action_mode <- function(na.action) {
  if (is.character(na.action) && length(na.action) == 1L && !is.na(na.action))
    na.action <- tryCatch(get(na.action, envir = asNamespace("stats"), mode = "function"),
                          error = function(e) NULL)
  for (m in c("pass", "exclude", "omit", "fail"))
    if (identical(na.action, get(paste0("na.", m), envir = asNamespace("stats"))))
      return(if (m == "exclude") "pass" else m)
  stop("'na.action' must be na.pass, na.exclude, na.omit or na.fail (or its name).",
       call. = FALSE)
}

# Predictions of the rows with missing predictors set to NA (na.pass) or
# dropped (na.omit): `out` is a vector, a factor, a data frame or a matrix
# with one row per observation, or a [draw, observation] matrix (draws =
# TRUE).
pred_na <- function(out, missing, mode, draws = FALSE) {
  if (!length(missing)) return(out)
  if (mode == "omit") {
    if (draws && length(dim(out)) == 3L) return(out[, -missing, , drop = FALSE])
    if (draws) return(out[, -missing, drop = FALSE])
    if (is.data.frame(out) || is.matrix(out)) return(out[-missing, , drop = FALSE])
    return(out[-missing])
  }
  if (draws && length(dim(out)) == 3L) out[, missing, ] <- NA
  else if (draws) out[, missing] <- NA
  else if (is.data.frame(out) || is.matrix(out)) out[missing, ] <- NA
  else out[missing] <- NA
  out
}

# Posterior predictive mean of every row (regression), block by block.
pred_mean <- function(object, ps) {
  n <- nrow(ps$X)
  out <- numeric(n)
  for (idx in row_blocks(n, ps_ndraws(ps)))
    out[idx] <- block_mean(object, ps, idx)
  names(out) <- rownames(ps$X)
  out
}

# The predictive mean of the rows `idx` of a pred_setup():
# colMeans(block_params(object, ps, idx)$mu), the same numbers.  For a
# Gaussian network the [row, draw] means are averaged by rowMeans(), which
# adds the same values in the same order (both sum in long double and divide
# once), without transposing them to [draw, row].
block_mean <- function(object, ps, idx) {
  fam <- object$likelihood$family
  if (!is.null(ps$parts) || is_family_lik(object) || !fam %in% c("gaussian", "hetero_gaussian"))
    return(colMeans(block_params(object, ps, idx, sd = FALSE)$mu))
  rowMeans(gaussian_mean_rows(object, block_outputs(object, ps, idx), block_offset(ps, idx)))
}

# Predictive mean and the exact mixture quantiles at probs of every row.
pred_quantiles <- function(object, ps, probs) {
  n <- nrow(ps$X)
  mean <- numeric(n)
  q <- matrix(NA_real_, n, length(probs))
  if (n == 0L) return(list(mean = mean, q = q))
  for (idx in row_blocks(n, ps_ndraws(ps), 2L)) {
    pp <- block_params(object, ps, idx)
    mean[idx] <- colMeans(pp$mu)
    q[idx, ] <- if (!is.null(pp$family)) family_quantiles(pp, probs) else
      bnn_mixture_quantile(pp$mu, pp$sd, probs)
  }
  list(mean = mean, q = q)
}

# A [draw, observation] matrix of predictive draws (noise = TRUE, from R's
# RNG with `seed`, in the same order as one draw over the whole matrix) or
# of the mean function, filled block by block.  Classification: the drawn
# classes 1..K (by sample.int() per draw and row, or with classes =
# "inverse" by the inverse CDF of one uniform each, as posterior_predict()),
# or the [draw, observation, class] probabilities.
pred_draws <- function(object, ps, noise = TRUE, seed = NULL, classes = "sample") {
  n <- nrow(ps$X)
  S <- ps_ndraws(ps)
  cls <- is_classification(object)
  K <- if (cls && !noise) n_classes(object) else 1L
  check_result_size(as.double(S) * n * K,
                    if (noise) "The predictive draws" else "The draws of the mean")
  out <- if (K > 1L) array(NA_real_, c(S, n, K)) else matrix(NA_real_, S, n)
  blocks <- row_blocks(n, S, if (cls) n_classes(object) else 2L)
  if (!noise) {
    for (idx in blocks) {
      pp <- block_params(object, ps, idx, sd = FALSE)
      if (cls) out[, idx, ] <- pp$prob else out[, idx] <- pp$mu
    }
    return(out)
  }
  if (is.null(seed)) seed <- new_seed()
  with_seed(seed, for (idx in blocks) {
    pp <- block_params(object, ps, idx)
    out[, idx] <- if (!is.null(pp$family)) family_rdraws(pp) else
      if (!cls) stats::rnorm(length(pp$mu), pp$mu, pp$sd) else
      if (classes == "inverse") draw_classes_block(pp$prob) else
        apply(pp$prob, c(1L, 2L), function(p) sample.int(length(p), 1L, prob = p))
  })
  if (cls) storage.mode(out) <- "integer"
  out
}

# Classes 1..K of every draw and row of probabilities [draw, row, class] by
# the inverse CDF of one uniform each (R's RNG, column by column).
draw_classes_block <- function(prob) {
  S <- dim(prob)[1]
  n <- dim(prob)[2]
  u <- stats::runif(S * n)
  cls <- rep(1L, S * n)
  cum <- 0
  for (k in seq_len(dim(prob)[3] - 1L)) {
    cum <- cum + as.vector(prob[, , k])
    cls <- cls + (u > cum)
  }
  matrix(cls, S, n)
}

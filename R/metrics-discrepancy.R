# Distances between sets of posterior draws: the energy-distance MMD (weight
# and function space), the kernelized Stein discrepancy to the exact
# posterior, and the classical MDS map of many fits (Staber and Da Veiga).

# Is x an object with posterior draws of one of the package's models?
is_draws_object <- function(x) inherits(x, c("bnnfit", "bnn_ensemble"))

# What defines the posterior of a fit: architecture, activation,
# likelihood, prior and training data.  Two fits are "on the same model"
# when these are identical.
model_key <- function(x) {
  s <- x$spec
  list(sizes = as.integer(s$sizes), act = s$act, lik = s$lik,
       sigma_fixed = s$sigma_fixed, prior = s$prior, prior_scale = s$prior_scale,
       X = unname(x$X), y = x$y_model)
}

check_same_model <- function(objs, what) {
  fits <- Filter(is_draws_object, objs)
  if (length(fits) < 2L) return(invisible(TRUE))
  k1 <- model_key(fits[[1]])
  for (i in seq_along(fits)[-1L]) {
    ki <- model_key(fits[[i]])
    bad <- names(k1)[!vapply(names(k1), function(n) identical(k1[[n]], ki[[n]]), logical(1))]
    if (length(bad))
      stop(sprintf("%s must be fits of the same model (architecture, activation, likelihood, prior and training data); they differ in: %s.",
                   what, paste(c(sizes = "architecture", act = "activation", lik = "likelihood",
                                 sigma_fixed = "likelihood's sigma", prior = "prior",
                                 prior_scale = "prior scales", X = "training inputs",
                                 y = "training response")[bad], collapse = ", ")),
           call. = FALSE)
  }
  invisible(TRUE)
}

# One set of draws as a d x n double matrix (one draw per column).
# Matrices given by the user have one draw per row.
draw_set <- function(x, space, newdata, ndraws, name) {
  if (is_draws_object(x)) {
    if (space == "weight") return(draws_matrix(x, ndraws))
    mu <- predictive_params(x, newdata, ndraws)$mu
    if (is.null(mu)) stop(sprintf("'%s' is a classification fit; function space needs a regression fit.", name),
                          call. = FALSE)
    return(t(mu))
  }
  if (is.data.frame(x)) x <- as.matrix(x)
  if (!is.numeric(x) || length(dim(x)) != 2L)
    stop(sprintf("'%s' must be a bnnfit, a bnn_ensemble or a numeric matrix with one draw per row.", name),
         call. = FALSE)
  if (anyNA(x) || any(!is.finite(x)))
    stop(sprintf("'%s' must be finite (no NA, NaN or Inf).", name), call. = FALSE)
  x <- t(x)
  storage.mode(x) <- "double"
  attributes(x) <- list(dim = dim(x))
  x
}

# Function-space inputs: newdata, or the training data of the first fit.
function_inputs <- function(objs, newdata) {
  if (!is.null(newdata)) {
    if (!is.data.frame(newdata)) stop("'newdata' must be a data frame.", call. = FALSE)
    return(newdata)
  }
  NULL
}

#' Maximum mean discrepancy with the distance-induced kernel
#'
#' The MMD between two sets of draws with the kernel
#' k(x, y) = ||x|| + ||y|| - ||x - y|| (Sejdinovic et al. 2013), which has
#' no bandwidth and for which the squared MMD is the energy distance
#' 2 E||X - Y|| - E||X - X'|| - E||Y - Y'||.  The estimate is the
#' V-statistic (all pairs, a = b included) of MMD^2, as in Staber and Da
#' Veiga's code; it is never negative.  The pairwise distances are computed
#' in C in O(n m d) time with O(1) extra memory per pair.
#'
#' In **weight space** the draws are the parameter vectors (on the
#' sampler's unconstrained scale, `log sigma` for a sampled sd); in
#' **function space** they are the network's mean outputs at the rows of
#' `newdata` (the training inputs by default), on the response's scale, so
#' each draw is a vector with one entry per input.  Fits must be of the
#' same model (architecture, activation, likelihood, prior and training
#' data); a deep ensemble ([bnn_fit_ensemble()]) counts as a set of draws (its
#' members).
#'
#' @param x,y Two sets of draws: `bnnfit` or `bnn_ensemble` objects, or
#'   numeric matrices with one draw per row (parameters, or outputs at the
#'   same inputs) and the same number of columns.
#' @param space `"weight"` or `"function"` (used for fits).
#' @param newdata Inputs of the function space (a data frame); the
#'   training data if `NULL`.
#' @param ndraws Use this many draws of each fit, spread over the chains.
#' @param squared Return MMD^2 (default, as the authors' code) or its
#'   square root, the MMD.
#' @return A number.
#' @references Sejdinovic, D., Sriperumbudur, B., Gretton, A. and Fukumizu,
#'   K. (2013). Equivalence of distance-based and RKHS-based statistics in
#'   hypothesis testing. Annals of Statistics 41, 2263-2291. Staber, B. and
#'   Da Veiga, S. (2022). Benchmarking Bayesian neural networks and
#'   evaluation metrics for regression tasks. arXiv:2206.06779.
#' @seealso [bnn_mds_map()], [bnn_ksd()]
#' @export
#' @examples
#' set.seed(1)
#' a <- matrix(rnorm(200 * 3), 200, 3)
#' b <- matrix(rnorm(150 * 3, mean = 0.5), 150, 3)
#' bnn_mmd(a, b)
#' bnn_mmd(a, a[sample(200), ])   # the same set: 0
#' fit1 <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 3, chains = 1,
#'                 warmup = 100, iter = 100, seed = 1, progress = FALSE, sampler = "nuts")
#' fit2 <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 3, chains = 1,
#'                 warmup = 100, iter = 100, seed = 2, progress = FALSE, sampler = "nuts")
#' bnn_mmd(fit1, fit2, space = "function")
bnn_mmd <- function(x, y, space = c("weight", "function"), newdata = NULL,
                    ndraws = NULL, squared = TRUE) {
  if (missing(space)) space <- "weight"
  space <- match_choice(space, c("weight", "function"), "space")
  check_same_model(list(x, y), "'x' and 'y'")
  newdata <- function_inputs(list(x, y), newdata)
  X <- draw_set(x, space, newdata, ndraws, "x")
  Y <- draw_set(y, space, newdata, ndraws, "y")
  if (nrow(X) != nrow(Y))
    stop(sprintf("'x' and 'y' must have draws of the same dimension (%d and %d).",
                 nrow(X), nrow(Y)), call. = FALSE)
  # draws beyond 2^400 in magnitude (whose squared distances overflow) on an
  # exact power-of-2 scale: the energy distance is homogeneous of degree 1
  e <- pow2_exponent(X, Y)
  D <- .Call(C_mean_dist, list(scale_pow2(X, -e), scale_pow2(Y, -e)))
  m2 <- scale_pow2(max(0, 2 * D[1, 2] - D[1, 1] - D[2, 2]), e)
  if (isTRUE(squared)) m2 else sqrt(m2)
}

#' Kernelized Stein discrepancy to a BNN posterior
#'
#' The KSD of a set of draws to the (unnormalised) posterior of a model,
#' with the Langevin Stein operator on the inverse multiquadric kernel
#' k(w, w') = (1 + ||w - w'||^2 / l^2)^(-1/2) (beta = -1/2; Gorham and Mackey
#' 2017), as used by Staber and Da Veiga: with r = w - w' and
#' u = 1 + ||r||^2 / l^2, the Stein kernel is
#' \deqn{k_p(w, w') = \frac{d}{l^2} u^{-3/2} - \frac{3 \|r\|^2}{l^4} u^{-5/2}
#'   + \frac{u^{-3/2}}{l^2} (s(w) - s(w'))^\top r + u^{-1/2} s(w)^\top s(w')}{
#'   k_p = d/l^2 u^(-3/2) - 3 ||r||^2/l^4 u^(-5/2) + u^(-3/2) (s(w) - s(w'))'r / l^2 + u^(-1/2) s(w)'s(w')}
#' where s is the score, the gradient of the log posterior on the **full**
#' training data, computed by backpropagation from the fit's own model.
#' The estimate is the V-statistic sqrt(sum_{a,b} k_p(w_a, w_b)) / n; the
#' double sum runs in C in O(n^2 d) time and O(1) extra memory per pair.
#'
#' The lengthscale defaults to the median heuristic on the draws
#' themselves; to compare several methods on one scale, as the paper does,
#' compute one lengthscale from their pooled draws with
#' [bnn_median_distance()] and pass it to each call.  Parameters are on the
#' sampler's unconstrained scale (`log sigma`), where the score is taken.
#'
#' @param x A `bnnfit` or `bnn_ensemble`, or a numeric matrix of draws (one
#'   per row, on the unconstrained scale); at least 2 draws.
#' @param score Optional matrix of scores, like `x` (for a matrix `x`
#'   without a `model`).
#' @param model A `bnnfit` or `bnn_ensemble` whose model gives the scores
#'   of a matrix `x`; by default `x` itself when it is a fit.
#' @param lengthscale The IMQ lengthscale l; `NULL` for the median
#'   heuristic on (at most `max_median` of) the draws.
#' @param ndraws Use this many draws of a fit, spread over the chains.
#' @param max_median,seed Subsample size and seed of the median heuristic.
#' @return The KSD (a number), with attribute `"lengthscale"`.
#' @references Gorham, J. and Mackey, L. (2017). Measuring sample quality
#'   with kernels. ICML. Liu, Q., Lee, J. and Jordan, M. (2016). A
#'   kernelized Stein discrepancy for goodness-of-fit tests. ICML.
#' @seealso [bnn_mmd()], [bnn_median_distance()]
#' @export
#' @examples
#' # exact draws from N(0, I_2) against the score of N(0, I_2)
#' set.seed(1)
#' w <- matrix(rnorm(400), 200, 2)
#' bnn_ksd(w, score = -w)
#' bnn_ksd(w + 1, score = -(w + 1))   # shifted draws: larger
#' fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 3, chains = 2,
#'                warmup = 150, iter = 100, seed = 1, progress = FALSE, sampler = "nuts")
#' bnn_ksd(fit)
bnn_ksd <- function(x, score = NULL, model = NULL, lengthscale = NULL,
                    ndraws = NULL, max_median = 1000, seed = 1) {
  if (is_draws_object(x)) {
    if (!is.null(score))
      stop("'score' is for a matrix of draws; the scores of a fit come from its model.",
           call. = FALSE)
    if (!is.null(model)) check_same_model(list(x, model), "'x' and 'model'")
    model <- x
  }
  W <- draw_set(x, "weight", NULL, ndraws, "x")
  if (is.null(score)) {
    if (is.null(model))
      stop("'x' is a matrix of draws: give its scores ('score') or a fit whose model gives them ('model').",
           call. = FALSE)
    S <- model_score(model, W)
  } else {
    S <- draw_set(score, "weight", NULL, NULL, "score")
    if (!identical(dim(S), dim(W)))
      stop("'score' must have the same dimensions as the draws 'x'.", call. = FALSE)
  }
  n <- ncol(W)
  if (n < 2L)
    stop(sprintf("'x' must hold at least 2 draws for the KSD, not %d.", n), call. = FALSE)
  if (is.null(lengthscale)) {
    lengthscale <- median_distance(list(W), max_median, seed)
    if (!(lengthscale > 0))
      stop("The median heuristic gave lengthscale 0 (the draws are identical); give 'lengthscale'.",
           call. = FALSE)
  }
  check_positive(lengthscale, "lengthscale")
  lengthscale <- as.double(lengthscale)
  e <- pow2_exponent(W, lengthscale)
  f <- pow2_exponent(S)
  if (e == 0 && f == 0) {
    tot <- .Call(C_ksd, W, S, lengthscale, FALSE)
    return(structure(sqrt(max(tot, 0)) / n, lengthscale = lengthscale))
  }
  # Draws (with the lengthscale) or scores beyond 2^400 in magnitude, whose
  # squares overflow (the KSD was NaN): with W = 2^e W~, l = 2^e l~ and
  # S = 2^f S~ the Stein kernel's parts scale by 2^-2e, 2^(f-e) and 2^2f.
  # The sum is taken relative to the largest of these (2^2h), so nothing
  # overflows.
  P <- .Call(C_ksd, scale_pow2(W, -e), scale_pow2(S, -f), scale_pow2(lengthscale, -e), TRUE)
  h <- max(-e, f)
  tot <- scale_pow2(P[1], -2 * e - 2 * h) + scale_pow2(P[2], f - e - 2 * h) +
    scale_pow2(P[3], 2 * f - 2 * h)
  structure(scale_pow2(sqrt(max(tot, 0)) / n, h), lengthscale = lengthscale)
}

# Scores (full-data log-posterior gradients) of draws W (d x n) under the
# model of a fit.
model_score <- function(model, W) {
  has_grad <- is_draws_object(model) && !is.null(model$spec) && !is.null(model$X) &&
    !is.null(model$y_model)
  if (!has_grad)
    stop(sprintf("'model' (a %s) has no log-posterior gradient: give a bnnfit or bnn_ensemble of one network architecture, or the scores ('score').",
                 class(model)[1]), call. = FALSE)
  d <- length(model$parameters)
  if (nrow(W) != d)
    stop(sprintf("The draws have %d parameters but the model has %d.", nrow(W), d),
         call. = FALSE)
  g <- .Call(C_model_logpost, fit_spec(model), W)$grad
  if (any(!is.finite(g)))
    stop("The log-posterior gradient is not finite at some draws.", call. = FALSE)
  g
}

median_distance <- function(sets, max_n, seed) {
  W <- do.call(cbind, sets)
  if (ncol(W) > max_n) W <- W[, with_seed(seed, sort(sample.int(ncol(W), max_n))), drop = FALSE]
  e <- pow2_exponent(W)   # distances of draws beyond 2^400 overflow
  scale_pow2(stats::median(stats::dist(t(scale_pow2(W, -e)))), e)
}

#' Median pairwise distance of pooled draws (the KSD lengthscale)
#'
#' The median heuristic of Staber and Da Veiga: the median Euclidean
#' distance between pairs of at most `n` draws taken at random from the
#' pooled draws of several fits (or matrices), to be passed to [bnn_ksd()]
#' as one lengthscale for all of them.
#'
#' @param ... `bnnfit` or `bnn_ensemble` objects, or matrices with one draw
#'   per row (weight space), or one list of them.
#' @param n Largest subsample of pooled draws.
#' @param seed Seed of the subsample (R's RNG state is left as it was).
#' @return A number.
#' @export
#' @examples
#' set.seed(1)
#' bnn_median_distance(matrix(rnorm(300), 100, 3), matrix(rnorm(300, 1), 100, 3))
bnn_median_distance <- function(..., n = 1000, seed = 1) {
  objs <- list(...)
  if (length(objs) == 1L && is.list(objs[[1]]) && !is_draws_object(objs[[1]]) &&
      !is.data.frame(objs[[1]])) objs <- objs[[1]]
  if (!length(objs)) stop("Give at least one set of draws.", call. = FALSE)
  n <- check_count(n, "n", 2L)
  sets <- lapply(seq_along(objs), function(i)
    draw_set(objs[[i]], "weight", NULL, NULL, sprintf("..%d", i)))
  if (length(unique(vapply(sets, nrow, integer(1)))) != 1L)
    stop("The sets of draws must have the same number of parameters.", call. = FALSE)
  median_distance(sets, n, seed)
}

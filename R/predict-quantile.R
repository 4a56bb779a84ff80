# Quantiles of Gaussian-mixture predictive distributions (the intervals of
# predict.bnnfit() and the coverage of R/metrics.R).

# Bring mu, sd and y to draws x observations double matrices.
.bnn_check_gauss <- function(mu, sd, y) {
  if (!is.numeric(y) || (!is.null(dim(y)) && min(dim(y)) != 1L))
    stop("'y' must be a numeric vector of observations", call. = FALSE)
  y <- as.double(y)
  n <- length(y)
  if (n < 1L) stop("'y' must have at least one observation", call. = FALSE)
  if (anyNA(y) || any(!is.finite(y))) stop("'y' must be finite (no NA)", call. = FALSE)
  if (!is.numeric(mu)) stop("'mu' must be a numeric matrix (draws x observations)",
                            call. = FALSE)
  if (is.null(dim(mu))) {
    if (length(mu) != n)
      stop("'mu' must be a draws x observations matrix, or a vector with one ",
           "value per observation (length(y) = ", n, ")", call. = FALSE)
    mu <- matrix(mu, nrow = 1L)
  }
  if (length(dim(mu)) != 2L || ncol(mu) != n)
    stop("'mu' must have one column per observation (", n, " columns, the length of 'y'); ",
         "it has ", if (length(dim(mu)) == 2L) ncol(mu) else "not 2 dimensions", call. = FALSE)
  S <- nrow(mu)
  if (S < 1L) stop("'mu' must have at least one row (draw)", call. = FALSE)
  if (!is.numeric(sd)) stop("'sd' must be numeric", call. = FALSE)
  if (is.null(dim(sd))) {
    if (length(sd) == 1L) sd <- matrix(sd, S, n)
    else if (length(sd) == n) sd <- matrix(sd, S, n, byrow = TRUE)
    else stop("'sd' must be a matrix like 'mu' (", S, " x ", n, "), a vector with ",
              "one value per observation, or a single number", call. = FALSE)
  }
  if (!identical(dim(sd), dim(mu)))
    stop("'sd' must have the same dimensions as 'mu' (", S, " x ", n, ")", call. = FALSE)
  if (anyNA(mu) || any(!is.finite(mu))) stop("'mu' must be finite (no NA)", call. = FALSE)
  if (anyNA(sd) || any(!is.finite(sd)) || any(sd <= 0))
    stop("'sd' must be positive and finite", call. = FALSE)
  storage.mode(mu) <- "double"
  storage.mode(sd) <- "double"
  attributes(mu) <- list(dim = c(S, n))
  attributes(sd) <- list(dim = c(S, n))
  list(mu = mu, sd = sd, y = y, S = S, n = n)
}

# Quantiles of each observation's mixture at probabilities p: n x length(p).
.bnn_gmix_quantile <- function(g, p, tol = 1e-10) {
  up <- sort(unique(p))
  Q <- .Call(C_metrics_gmix_quantile, g$mu, g$sd, up, stats::qnorm(up), as.double(tol))
  if (attr(Q, "iterations") >= 200L)
    warning("the mixture quantile search did not converge for some observations",
            call. = FALSE)
  t(Q)[, match(p, up), drop = FALSE]
}

#' Quantiles of Gaussian-mixture predictive distributions
#'
#' For each observation i the predictive distribution is the equally
#' weighted mixture of the Gaussians N(`mu[s, i]`, `sd[s, i]`^2) over the
#' draws s.  Its quantiles are found exactly (to `tol`) by safeguarded Newton
#' iteration on the mixture CDF, in C, inside the bracket formed by the
#' smallest and largest component quantile.  Many probabilities at once (8 or
#' more, as the coverage table of [bnn_metrics()]) come instead from Taylor
#' expansions of the CDF over a few pieces covering that bracket, each one
#' pass over the draws, with the same quantiles to rounding.
#'
#' @param mu Matrix of predictive means, draws x observations; a vector is
#'   taken as one draw.
#' @param sd Predictive standard deviations: a matrix like `mu`, a vector
#'   with one value per observation, or one number.
#' @param probs Probabilities strictly between 0 and 1.
#' @param tol Tolerance of the root finder, relative to max(1, |q|).
#' @return A matrix with one row per observation and one column per
#'   probability.
#' @seealso [bnn_coverage()], [bnn_metrics_gaussian()]
#' @examples
#' mu <- rbind(c(0, 1), c(2, 1))          # 2 draws, 2 observations
#' bnn_mixture_quantile(mu, sd = 1, probs = c(0.025, 0.5, 0.975))
#' @export
bnn_mixture_quantile <- function(mu, sd, probs, tol = 1e-10) {
  mu_dim <- if (is.null(dim(mu))) length(mu) else ncol(mu)
  g <- .bnn_check_gauss(mu, sd, numeric(mu_dim))
  if (!is.numeric(probs) || !length(probs) || anyNA(probs) || any(probs <= 0) ||
      any(probs >= 1))
    stop("'probs' must be probabilities strictly between 0 and 1", call. = FALSE)
  if (!is.numeric(tol) || length(tol) != 1L || !(tol > 0))
    stop("'tol' must be a positive number", call. = FALSE)
  Q <- .bnn_gmix_quantile(g, as.double(probs), tol)
  dimnames(Q) <- list(NULL, paste0(format(100 * probs, trim = TRUE), "%"))
  Q
}

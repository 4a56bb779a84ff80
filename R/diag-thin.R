# Greedy MMD thinning of a run to m representative draws (src/diag/mmd_thin.c).

#' Thin draws to m points by greedy MMD minimization
#'
#' Selects `m` of the `T` draws one at a time, each time the draw that
#' minimises the maximum mean discrepancy (MMD) between all `T` draws and
#' the selection (Teymur et al. 2021), with the distance-induced kernel
#' \eqn{k(x, y) = \|x\| + \|y\| - \|x - y\|} (Sejdinovic et al. 2013), which
#' has no bandwidth.  This is how Staber and Da Veiga (2022) thin every
#' stochastic-gradient run (to 2000 draws after a burn-in of half the run).
#' As in their formula the selection is with replacement: a draw may be
#' chosen more than once, and ties go to the first draw.
#'
#' The kernel means \eqn{\bar k_j = \frac1T\sum_a k(w_j, w_a)} cost
#' \eqn{O(T^2 d)} time once and are streamed (no \eqn{T \times T} matrix is
#' stored); each selection then costs \eqn{O(T d)}, so memory is
#' \eqn{O(T d)}.  The criterion for the \eqn{(i+1)}-th point is
#' \eqn{\arg\min_j k(w_j, w_j) + 2\sum_{l \le i} k(w_j, w_{\pi(l)}) - 2(i+1)\bar
#' k_j}.  For \eqn{T = 50{,}000} draws of \eqn{d = 10^4} parameters that is
#' about \eqn{10^{13}} operations: thin a burnt-in, `thin`ned run.
#'
#' @param draws A matrix with one draw per row, an array
#'   `[iteration, chain, parameter]` (chains are pooled, chain after chain),
#'   or a `bnnfit` (its draws, failed chains left out).
#' @param m Number of points to select, from 1 to the number of draws.
#' @return A matrix of the `m` selected draws (one per row, with column
#'   names), with attributes `index` (the selected rows of the pooled
#'   draws, in order of selection) and `mmd2` (the squared MMD, V-statistic,
#'   between all draws and the first 1, 2, ..., `m` selected).
#' @references Teymur, O., Gorham, J., Riabiz, M. and Oates, C. J. (2021).
#'   Optimal quantisation of probability measures using maximum mean
#'   discrepancy. AISTATS.
#'
#'   Sejdinovic, D., Sriperumbudur, B., Gretton, A. and Fukumizu, K. (2013).
#'   Equivalence of distance-based and RKHS-based statistics in hypothesis
#'   testing. Annals of Statistics.
#' @export
#' @examples
#' x <- matrix(rnorm(2000), ncol = 2)
#' th <- bnn_thin_mmd(x, 50)
#' dim(th)
#' head(attr(th, "index"))
#' colMeans(th)
bnn_thin_mmd <- function(draws, m) {
  if (inherits(draws, "bnnfit")) {
    ok <- draws$chain_status == "ok"
    if (!any(ok)) stop("'draws': every chain of the fit failed.", call. = FALSE)
    draws <- draws$draws[, ok, , drop = FALSE]
  }
  if (is.array(draws) && length(dim(draws)) == 3L) {
    nm <- dimnames(draws)[[3L]]
    draws <- matrix(draws, prod(dim(draws)[1:2]), dim(draws)[3L],
                    dimnames = list(NULL, nm))
  }
  if (!is.matrix(draws) || !is.numeric(draws))
    stop("'draws' must be a numeric matrix (one draw per row), an array [iteration, chain, parameter] or a bnnfit.",
         call. = FALSE)
  if (anyNA(draws) || any(!is.finite(draws)))
    stop("'draws' must be finite (no NA).", call. = FALSE)
  if (!is.numeric(m) || length(m) != 1L || is.na(m) || m != round(m) || m < 1)
    stop("'m' must be a positive whole number.", call. = FALSE)
  if (m > nrow(draws))
    stop(sprintf("'m' (%d) must not exceed the number of draws (%d).", as.integer(m), nrow(draws)),
         call. = FALSE)
  X <- t(draws)
  storage.mode(X) <- "double"
  # the kernel is homogeneous of degree 1: draws beyond 2^400 in magnitude
  # are thinned on an exact power-of-2 scale (their squared distances
  # overflowed and every selection was draw 1), and mmd2 scaled back
  e <- pow2_exponent(X)
  res <- .Call(C_thin_mmd, scale_pow2(X, -e), as.integer(m))
  res$mmd2 <- scale_pow2(res$mmd2, e)
  out <- draws[res$index, , drop = FALSE]
  rownames(out) <- NULL
  attr(out, "index") <- res$index
  attr(out, "mmd2") <- res$mmd2
  out
}

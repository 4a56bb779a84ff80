# How many independent chains visit every functionally diverse mode
# (Wiese et al. 2023, Sec. 4.2, Proposition 2): a non-uniform coupon
# collector's problem with Markov's inequality.

#' Number of independent chains needed to visit every mode
#'
#' With \eqn{\nu} functionally diverse posterior modes and \eqn{\pi_j} the
#' probability that an independently started chain ends in mode j, the
#' number G of chains until every mode has been visited has expectation
#' (the coupon collector's problem with unequal probabilities)
#' \deqn{E(G) = \sum_{q=0}^{\nu-1} (-1)^{\nu-1-q} \sum_{|J|=q} (1 - \Pi_J)^{-1},}
#' \eqn{\Pi_J = \sum_{j \in J} \pi_j}, and by Markov's inequality
#' \eqn{P(G < \rho) \ge 1 - E(G)/\rho}: \eqn{\rho = \lceil E(G)/(1-p) \rceil}
#' chains visit all modes with probability at least `p` (Wiese et al. 2023,
#' Proposition 2).  The sum is evaluated by inclusion-exclusion for
#' \eqn{\nu \le 15} and otherwise as the equal integral
#' \eqn{\int_0^\infty 1 - \prod_j (1 - e^{-\pi_j t})\,dt}.
#'
#' Markov's inequality is loose: the exact probability that `k` chains
#' visit every mode, \eqn{1 - \sum_{J \ne \emptyset} (-1)^{|J|+1} (1 -
#' \Pi_J)^k}, is returned as `chains_exact`, the smallest `k` with
#' probability at least `p` (\eqn{\nu \le 15}); the paper's rule, and the
#' default answer, is the Markov bound.
#'
#' `bnn_chains_needed(fit)` (an extension of the paper, which assumes the
#' probabilities) estimates them from a fit: the chains' last draws are
#' clustered into modes by [bnn_modes()] and the observed shares are used.
#'
#' @param probs Mode probabilities (positive; normalised to sum 1), or a
#'   `bnnfit` whose chains estimate them.
#' @param p Target probability of visiting every mode, in (0, 1).
#' @param ... For a `bnnfit`: arguments passed to [bnn_modes()].
#' @return An object of class `bnn_chains_needed`: `chains` (the Markov
#'   bound \eqn{\rho}), `expected` (\eqn{E(G)}), `chains_exact`, `p`,
#'   `probs`, and for fits `modes` (the [bnn_modes()] result).
#' @references Wiese, J. G. et al. (2023).  Towards efficient MCMC sampling
#'   in Bayesian neural networks by exploiting symmetry.
#'   \doi{10.48550/arXiv.2304.02902}
#' @export
#' @examples
#' bnn_chains_needed(bnn_paper_mode_probs_halfnormal(3), p = 0.99)  # 1274
#' bnn_chains_needed(rep(1, 3))$expected                      # 5.5
#' bnn_chains_needed(rep(1, 48))$expected                     # 48 * H_48 = 214.02
bnn_chains_needed <- function(probs, p = 0.99, ...) {
  if (inherits(probs, "bnnfit")) {
    modes <- bnn_modes(probs, ...)
    out <- bnn_chains_needed(modes$probs, p = p)
    out$modes <- modes
    return(out)
  }
  p <- check_prob(p, "p")
  if (!is.numeric(probs) || !length(probs) || anyNA(probs) || any(!is.finite(probs)) ||
      any(probs <= 0))
    stop("'probs' must be positive mode probabilities (or a bnnfit).", call. = FALSE)
  probs <- probs / sum(probs)
  nu <- length(probs)
  e <- expected_chains(probs)
  exact <- if (nu <= 15L) exact_chains(probs, p) else NA_integer_
  structure(list(chains = as.integer(ceiling(e / (1 - p) - 1e-9)), expected = e,
                 chains_exact = exact, p = p, probs = probs),
            class = "bnn_chains_needed")
}

# Subsets of 1..nu as a 2^nu x nu logical matrix (row 1 = empty set).
subset_matrix <- function(nu) {
  s <- 0:(2^nu - 1)
  outer(s, 0:(nu - 1), function(a, b) bitwAnd(a, bitwShiftL(1L, b)) > 0)
}

expected_chains <- function(probs) {
  nu <- length(probs)
  if (nu == 1L) return(1)
  if (nu <= 15L) {
    S <- subset_matrix(nu)
    q <- rowSums(S)
    PJ <- drop(S %*% probs)
    keep <- q < nu
    return(sum((-1)^(nu - 1 - q[keep]) / (1 - PJ[keep])))
  }
  f <- function(t) 1 - vapply(t, function(tt) prod(-expm1(-probs * tt)), 0)
  stats::integrate(f, 0, Inf, rel.tol = 1e-10, subdivisions = 1000L)$value
}

# smallest k with P(all nu modes visited by k chains) >= p
exact_chains <- function(probs, p) {
  nu <- length(probs)
  if (nu == 1L) return(1L)
  S <- subset_matrix(nu)[-1L, , drop = FALSE]
  q <- rowSums(S)
  PJ <- drop(S %*% probs)
  sgn <- (-1)^(q + 1)
  miss <- function(k) sum(sgn * (1 - PJ)^k)      # P(G > k)
  k <- nu
  while (miss(k) > 1 - p) k <- k * 2L
  lo <- k %/% 2L
  while (lo + 1L < k) {
    mid <- (lo + k) %/% 2L
    if (miss(mid) > 1 - p) lo <- mid else k <- mid
  }
  as.integer(max(k, nu))
}

#' @export
print.bnn_chains_needed <- function(x, ...) {
  pr <- if (length(x$probs) <= 6L) paste(formatC(x$probs, digits = 4, format = "f"),
                                          collapse = ", ") else
    sprintf("%d modes, smallest %.4f", length(x$probs), min(x$probs))
  cat(sprintf("Chains to visit all %d mode(s) with probability >= %s:\n", length(x$probs),
              format(x$p)))
  cat(sprintf("  %d (Markov bound, Wiese et al. 2023); E(G) = %.4f\n", x$chains, x$expected))
  if (!is.na(x$chains_exact))
    cat(sprintf("  %d (exact coupon-collector quantile)\n", x$chains_exact))
  cat(strwrap(sprintf("mode probabilities: %s%s", pr,
                      if (!is.null(x$modes)) " (estimated from the fit's chains)" else ""),
              width = 78, prefix = "  "), sep = "\n")
  invisible(x)
}

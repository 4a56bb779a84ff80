# The symmetry paper's assumed mode probabilities (Wiese et al. 2023, the
# scheme of its reference code), the input of bnn_chains_needed().

#' Mode probabilities from a half-normal density
#'
#' The scheme of the reference code of Wiese et al. (2023) for assumed mode
#' probabilities: \eqn{\pi_j} proportional to the half-normal density at
#' \eqn{x_j = 1.96 (j - 1) / (\nu - 1)}, \eqn{j = 1, \dots, \nu}, so that the
#' least likely mode sits at the normal's 97.5% quantile.  For
#' \eqn{\nu = 3} this gives (0.5665, 0.3505, 0.0830), which the paper prints
#' rounded as (0.57, 0.35, 0.08) and which needs 1274 chains for
#' probability 0.99 (the rounded values would need 1317).
#'
#' @param nu Number of functionally diverse modes, a whole number >= 1.
#' @return Mode probabilities summing to 1, decreasing.
#' @family paper reproduction
#' @export
#' @examples
#' bnn_paper_mode_probs_halfnormal(3)
#' bnn_chains_needed(bnn_paper_mode_probs_halfnormal(3))   # 1274 chains
bnn_paper_mode_probs_halfnormal <- function(nu) {
  nu <- check_count(nu, "nu", 1L)
  if (nu == 1L) return(1)
  x <- 1.96 * (seq_len(nu) - 1) / (nu - 1)
  d <- exp(-x^2 / 2)
  d / sum(d)
}

# Many chains in waves (beyond Wiese et al. 2023): run chains until their
# number meets the chain-count bound (Proposition 2) for the mode
# probabilities estimated from the chains themselves.

#' Run chains in waves until the chain-count bound is met
#'
#' Settings for `bnn_fit(chains = bnn_waves(...))`, an adaptive version of
#' the "many short chains" protocol of Wiese et al. (2023), beyond the
#' paper.  Chains are run `wave` at a time.  After each wave (once
#' `min_chains` have run) the functionally diverse modes of all chains so
#' far are found by [bnn_modes()] and the number of chains needed to visit
#' all of them with probability `p` is computed by [bnn_chains_needed()]
#' (the Markov bound of Proposition 2, for the estimated mode
#' probabilities).  The run stops as soon as the number of chains run
#' reaches that bound, or at `max_chains` (with a warning).
#'
#' Chain `c` is the same in every case: its starting point is the `c`-th of
#' the fit's `init` (drawn for `max_chains` chains, whose first ones are
#' those of a smaller fit) and its random numbers come from its own stream
#' (`seed`, `c`).  So a fit that stopped after `n` chains has exactly the
#' draws of `bnn_fit(..., chains = n)` with the same seed: the waves only
#' decide `n`.  Starting points from a deep ensemble (which depend on the
#' number of members) are not allowed.
#'
#' The estimate is a plug-in: modes that no chain has visited yet are not
#' counted, so the bound is a lower bound of the one for the true modes
#' when some are rare; `min_chains` guards against stopping before the
#' rare modes had a chance.  The log of the waves is `fit$waves$log`:
#' chains run, modes found, smallest estimated mode probability and the
#' bound after each wave.
#'
#' @param wave Chains per wave (at least 2).
#' @param p Target probability of visiting every mode, in (0, 1).
#' @param max_chains Largest number of chains run.
#' @param min_chains Chains run before the bound is first checked.
#' @param bound `"markov"`: the bound of Proposition 2, \eqn{E(G) / (1 - p)}
#'   (the paper's; note that even one mode gives \eqn{1 / (1 - p)} chains);
#'   `"exact"`: the `p`-quantile of the number of chains until every
#'   estimated mode is visited (the coupon collector's exact distribution,
#'   for up to 15 modes; the Markov bound beyond).
#' @param ... Arguments of [bnn_modes()] (`k`, `space`, `newdata`,
#'   `neighbors`, `sigma`, `k_max`, `max_draws`, `seed`).
#' @return An object of class `bnn_waves`, for the `chains` argument of
#'   [bnn_fit()].
#' @references Wiese, J. G., Wimmer, L., Papamarkou, T., Bischl, B.,
#'   Günnemann, S. and Rügamer, D. (2023). Towards efficient MCMC sampling
#'   in Bayesian neural networks by exploiting symmetry. *ECML PKDD 2023*,
#'   \doi{10.1007/978-3-031-43412-9_27}.
#' @seealso [bnn_chains_needed()], [bnn_modes()]
#' @export
#' @examples
#' # Waves of short chains, one draw each (the symmetry paper's protocol): no
#' # per-chain summaries (R-hat, ESS); the waves use each chain's one draw.
#' set.seed(1)
#' d <- data.frame(x = runif(40, -2, 2))
#' d$y <- sin(2 * d$x) + rnorm(40, sd = 0.1)
#' fit <- bnn_fit(y ~ x, data = d, hidden = 2, likelihood = "gaussian",
#'                sampler = "nuts", warmup = 100, iter = 1,
#'                chains = bnn_waves(wave = 16, max_chains = 64, p = 0.9, k = 2),
#'                seed = 1)
#' fit$waves$log
bnn_waves <- function(wave = 64, p = 0.99, max_chains = 4096, min_chains = wave,
                      bound = c("markov", "exact"), ...) {
  bound <- match_choice(bound[1], c("markov", "exact"), "bound")
  wave <- check_count(wave, "wave", 2L)
  p <- check_prob(p, "p")
  max_chains <- check_count(max_chains, "max_chains", 2L)
  min_chains <- check_count(min_chains, "min_chains", 2L)
  if (min_chains > max_chains)
    stop("'min_chains' must be at most 'max_chains'.", call. = FALSE)
  modes <- list(...)
  ok <- names(formals(bnn_modes))
  bad <- setdiff(names(modes), setdiff(ok, "object"))
  if (length(modes) && (is.null(names(modes)) || any(!nzchar(names(modes))) || length(bad)))
    stop(sprintf("'...' must be named arguments of bnn_modes() (%s)%s.",
                 paste(setdiff(ok, "object"), collapse = ", "),
                 if (length(bad)) paste0("; not: ", paste(bad, collapse = ", ")) else ""),
         call. = FALSE)
  structure(list(wave = wave, p = p, max_chains = max_chains, min_chains = min_chains,
                 bound = bound, modes = modes), class = "bnn_waves")
}

#' @export
print.bnn_waves <- function(x, ...) {
  cat(sprintf("Chains in waves of %d until the %s chain-count bound for p = %s is met (at least %d, at most %d chains)\n",
              x$wave, if (x$bound == "exact") "exact" else "Markov", format(x$p), x$min_chains,
              x$max_chains))
  if (length(x$modes))
    cat("  modes by bnn_modes(", paste(names(x$modes), collapse = ", "), ")\n", sep = "")
  invisible(x)
}

# Convergence of the posterior predictive density as draws (chains) are
# added: Wiese et al. (2023), Sec. 5.2, Figure 2.

#' How the posterior predictive density settles as chains are added
#'
#' For a fit with one numeric predictor, the posterior predictive density
#' \eqn{\hat p_n(y \mid x) = \frac1n \sum_{g \le n} N(y; f_{\theta_g}(x),
#' \sigma_g^2)} is evaluated on an (x, y) grid after each added draw (draws
#' in chain order: all draws of chain 1, then of chain 2, ...; with one draw
#' per chain, one draw per added chain), normalised over the y grid at each
#' x, and the Kullback-Leibler divergence between consecutive estimates,
#' \eqn{KL(\hat p_n \| \hat p_{n-1})} (with \eqn{10^{-6}} added inside both
#' logarithms, as the reference code), is averaged over the x grid (Wiese et
#' al. 2023, Figure 2).  It falls towards 0 as new chains stop changing the
#' predictive distribution, long before the number of equioutput copies of
#' the posterior's modes is reached.
#'
#' @param object A `bnnfit` with one numeric predictor and a Gaussian
#'   likelihood.
#' @param x_grid,y_grid Grids on the original scales of the predictor and
#'   the response; by default 128 points each over the training data's range
#'   widened by 10%.
#' @param max_draws Use at most this many draws (the first ones in chain
#'   order).
#' @return A data frame of class `bnn_kl_convergence` with columns `n` (draws
#'   used, from 2) and `kl`; attribute `ppd` holds the final density on the
#'   grid (`x`, `y`, `density`, a length(x) x length(y) matrix).
#' @references Wiese, J. G. et al. (2023).  Towards efficient MCMC sampling
#'   in Bayesian neural networks by exploiting symmetry.
#'   \doi{10.48550/arXiv.2304.02902}
#' @export
#' @examples
#' # Many short chains, one draw each (the symmetry paper's protocol): no
#' # per-chain summaries (R-hat, ESS); this diagnostic pools the chains' draws.
#' fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 20, warmup = 50,
#'                iter = 1, seed = 1, progress = FALSE, sampler = "nuts")
#' kl <- bnn_kl_convergence(fit)
#' tail(kl)
#' plot(kl)
bnn_kl_convergence <- function(object, x_grid = NULL, y_grid = NULL, max_draws = 5000) {
  if (!inherits(object, "bnnfit")) stop("'object' must be a bnnfit.", call. = FALSE)
  if (!object$likelihood$family %in% c("gaussian", "hetero_gaussian"))
    stop("bnn_kl_convergence() needs a Gaussian likelihood.", call. = FALSE)
  mf <- object$model_frame
  pred <- attr(object$terms, "term.labels")
  if (length(pred) != 1L || !is.numeric(mf[[pred]]))
    stop("bnn_kl_convergence() needs a fit with one numeric predictor.", call. = FALSE)
  max_draws <- check_count(max_draws, "max_draws", 2L)
  widen <- function(r) r + c(-0.1, 0.1) * diff(r)
  x_grid <- x_grid %||% seq(widen(range(mf[[pred]]))[1], widen(range(mf[[pred]]))[2],
                            length.out = 128)
  y_grid <- y_grid %||% seq(widen(range(object$y))[1], widen(range(object$y))[2],
                            length.out = 128)
  for (g in list(x_grid = x_grid, y_grid = y_grid))
    if (!is.numeric(g) || length(g) < 2L || anyNA(g) || any(!is.finite(g)))
      stop("'x_grid' and 'y_grid' must be finite numeric vectors of length >= 2.",
           call. = FALSE)
  # chain order (draws_matrix() runs over iterations within chains)
  fit <- bnnfit_subset_chains(object, object$chain_status == "ok")
  nd <- stats::setNames(data.frame(x_grid), pred)
  pp <- predictive_params(fit, nd)              # draws (iteration fastest) x grid
  S <- min(nrow(pp$mu), max_draws)
  if (S < 2L) stop("At least 2 draws are needed.", call. = FALSE)
  nx <- length(x_grid)
  ny <- length(y_grid)
  cum <- matrix(0, nx, ny)
  kl <- numeric(S - 1L)
  prev <- NULL
  for (g in seq_len(S)) {
    dens <- stats::dnorm(matrix(y_grid, nx, ny, byrow = TRUE), pp$mu[g, ], pp$sd[g, ])
    cum <- cum + dens
    cur <- cum / rowSums(cum)
    cur[!is.finite(cur)] <- 1 / ny
    if (!is.null(prev))
      kl[g - 1L] <- mean(rowSums(cur * (log(cur + 1e-6) - log(prev + 1e-6))))
    prev <- cur
  }
  structure(data.frame(n = seq_len(S)[-1L], kl = kl), class = c("bnn_kl_convergence", "data.frame"),
            ppd = list(x = x_grid, y = y_grid, density = prev))
}

#' @rdname bnn_kl_convergence
#' @param x A `bnn_kl_convergence` result.
#' @param log Plot the divergence on a log scale as well (second axis), as
#'   the paper's Figure 2.
#' @param ... Passed to [graphics::plot()].
#' @export
plot.bnn_kl_convergence <- function(x, log = TRUE, ...) {
  op <- graphics::par(no.readonly = TRUE)
  on.exit(graphics::par(op))
  graphics::par(mar = c(4, 4, 2, 4))
  graphics::plot(x$n, x$kl, type = "l", xlab = "draws (chains) used",
                 ylab = "KL between consecutive PPD estimates", ...)
  if (log && any(x$kl > 0)) {
    graphics::par(new = TRUE)
    k <- x$kl > 0
    graphics::plot(x$n[k], log10(x$kl[k]), type = "l", col = "steelblue", axes = FALSE,
                   xlab = "", ylab = "")
    graphics::axis(4, col.axis = "steelblue")
    graphics::mtext("log10 KL", side = 4, line = 2.5, col = "steelblue")
  }
  invisible(x)
}

# Functionally different posterior modes: spectral clustering of draws with
# the symmetries removed, or of their predictions (Wiese et al. 2023,
# Sec. 5.3 and Appendix D.2).

#' Find the functionally different modes of a posterior
#'
#' Clusters the draws of a fit as Wiese et al. (2023) do: the draws are
#' mapped to one representative of their equioutput class
#' ([bnn_remove_symmetries()], `"canonical"`), every column is standardised,
#' a k-nearest-neighbour graph with Gaussian similarities
#' \eqn{\exp(-\|a - b\|^2 / (2\sigma^2))} is built (k = 4, symmetrised), and
#' the first eigenvectors of its symmetric normalised Laplacian
#' \eqn{I - D^{-1/2} A D^{-1/2}} are clustered by k-means.  With
#' `space = "function"` the draws are represented by the network's
#' predictive means at the rows of `newdata` instead, which needs no
#' symmetry removal.  Unless `k` is given, the number of modes is chosen
#' from the smallest eigenvalues of the Laplacian (the paper set it to 3 by
#' hand): when the graph falls into several connected components (several
#' zero eigenvalues, modes with no draws in between) their number, otherwise
#' the eigengap heuristic, made conservative: the smallest k whose gap
#' \eqn{\lambda_{k+1} - \lambda_k} is at least half the largest gap among
#' the first `k_max + 1` eigenvalues (with a smoothly rising spectrum, as for
#' one mode sampled by few chains, the largest gap alone tends to split one
#' mode into many).  Both are heuristics: check the `"eigen"` plot, and pass
#' `k` when in doubt.
#'
#' The mode probabilities are the shares of chains in each mode (a chain's
#' mode is the most frequent label of its draws), i.e. estimates of the
#' \eqn{\pi_j} of [bnn_chains_needed()]: the probability that an
#' independently started chain ends in mode j.
#'
#' @param object A `bnnfit`.
#' @param k Number of modes, or `NULL` to choose it by the eigengap among
#'   `1:k_max`.
#' @param space `"parameters"` (draws with the symmetries removed) or
#'   `"function"` (predictive means at `newdata`).
#' @param newdata Data for `space = "function"`; the training data if
#'   `NULL`.
#' @param neighbors Neighbours per draw in the graph (the paper: 4).
#' @param sigma Scale of the Gaussian similarity on standardised columns
#'   (the paper: 1).
#' @param k_max Largest number of modes considered by the eigengap.
#' @param max_draws At most this many draws are clustered (evenly thinned
#'   within chains beyond it); the eigen-decomposition is dense, O(n^3).
#' @param seed Seed of k-means' random starts (the caller's RNG is left
#'   alone).
#' @return An object of class `bnn_modes`: `labels` (a matrix
#'   `[iteration, chain]` of mode labels, `NA` for draws not clustered),
#'   `chain_mode` (per chain), `probs` (mode probabilities, decreasing: mode
#'   1 is the most frequent), `k`, `eigenvalues` (the smallest
#'   `k_max + 1`), `space`, and what the plot method needs.
#' @references Wiese, J. G. et al. (2023).  Towards efficient MCMC sampling
#'   in Bayesian neural networks by exploiting symmetry.
#'   \doi{10.48550/arXiv.2304.02902}
#' @seealso [bnn_chains_needed()], [plot.bnn_modes()]
#' @export
#' @examples
#' \donttest{
#' # Many short chains, one draw each (the symmetry paper's protocol): no
#' # per-chain summaries (R-hat, ESS); the modes are found from each chain's draw.
#' fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 60, warmup = 100,
#'                iter = 1, seed = 1, progress = FALSE, sampler = "nuts")
#' m <- bnn_modes(fit)
#' m
#' bnn_chains_needed(m$probs)
#' }
bnn_modes <- function(object, k = NULL, space = c("parameters", "function"),
                      newdata = NULL, neighbors = 4, sigma = 1, k_max = 10,
                      max_draws = 3000, seed = 1) {
  if (!inherits(object, "bnnfit")) stop("'object' must be a bnnfit.", call. = FALSE)
  space <- match.arg(space)
  neighbors <- check_count(neighbors, "neighbors", 1L)
  check_positive(sigma, "sigma")
  k_max <- check_count(k_max, "k_max", 2L)
  max_draws <- check_count(max_draws, "max_draws", 10L)
  ok <- object$chain_status == "ok"
  if (sum(ok) < 1L) stop("'object' has no chain that did not fail.", call. = FALSE)
  if (any(!ok))
    warn_cond(sprintf("Chain(s) %s failed and are left out.", paste(which(!ok), collapse = ", ")),
              "bnnmc_chain_failure")
  n_it <- dim(object$draws)[1]
  # which draws: all, thinned evenly within chains beyond max_draws
  per_chain <- max(1L, min(n_it, max_draws %/% sum(ok)))
  its <- unique(round(seq(n_it, 1, length.out = per_chain)))
  fit <- bnnfit_subset_chains(object, ok, its)
  n <- length(its) * sum(ok)
  if (n <= neighbors)
    stop(sprintf("Too few draws (%d) for a %d-nearest-neighbour graph.", n, neighbors),
         call. = FALSE)
  if (space == "parameters") {
    can <- withCallingHandlers(bnn_remove_symmetries(fit),
                               bnnmc_chain_failure = function(w) invokeRestart("muffleWarning"))
    Z <- matrix(can$draws, n, dim(can$draws)[3])
    Z <- Z[, seq_len(bnn_n_parameters(object$spec$sizes)), drop = FALSE]
  } else {
    Z <- predictive_params(fit, newdata)$mu        # draws (iteration fastest) x points
    can <- NULL
  }
  sc <- apply(Z, 2, stats::sd)
  Zs <- scale(Z, center = TRUE, scale = ifelse(sc > 0, sc, 1))
  sp <- spectral_embedding(Zs, neighbors, sigma, min(k_max + 1L, n))
  kk <- if (is.null(k)) {
    ev <- sp$values[seq_len(min(k_max + 1L, n))]
    n_comp <- sum(ev < 1e-8)
    gap <- diff(ev)
    if (n_comp > 1L) min(n_comp, k_max) else which(gap >= 0.5 * max(gap))[1L]
  } else check_count(k, "k", 1L)
  if (kk > n) stop("'k' exceeds the number of draws.", call. = FALSE)
  lab <- if (kk == 1L) rep(1L, n) else {
    U <- sp$vectors[, seq_len(kk), drop = FALSE]
    U <- U / pmax(sqrt(rowSums(U^2)), 1e-12)          # Ng, Jordan and Weiss (2002)
    with_seed(seed, stats::kmeans(U, centers = kk, nstart = 10, iter.max = 100)$cluster)
  }
  # relabel by decreasing number of chains
  L <- matrix(lab, length(its), sum(ok))
  chain_lab <- apply(L, 2, function(v) as.integer(names(which.max(table(v)))))
  cnt <- tabulate(chain_lab, kk)
  ord <- order(-cnt, seq_len(kk))
  relab <- match(seq_len(kk), ord)
  L[] <- relab[L]
  chain_lab <- relab[chain_lab]
  labels <- matrix(NA_integer_, n_it, length(ok))
  labels[its, ok] <- L
  chain_mode <- rep(NA_integer_, length(ok))
  chain_mode[ok] <- chain_lab
  probs <- tabulate(chain_lab, kk) / length(chain_lab)
  structure(list(labels = labels, chain_mode = chain_mode, probs = probs, k = kk,
                 eigenvalues = sp$values, space = space, iterations = its,
                 fit = object, canonical = can, newdata = newdata),
            class = "bnn_modes")
}

# The smallest `m` eigenpairs of the symmetric normalised Laplacian of the
# symmetrised k-NN graph with Gaussian weights.
spectral_embedding <- function(Z, neighbors, sigma, m) {
  n <- nrow(Z)
  D2 <- as.matrix(stats::dist(Z))^2
  diag(D2) <- Inf
  nn <- t(apply(D2, 1L, function(r) order(r)[seq_len(neighbors)]))
  if (neighbors == 1L) nn <- matrix(nn, ncol = 1L)
  A <- matrix(0, n, n)
  idx <- cbind(rep(seq_len(n), neighbors), as.vector(nn))
  A[idx] <- exp(-D2[idx] / (2 * sigma^2))
  A <- pmax(A, t(A))
  deg <- rowSums(A)
  dinv <- ifelse(deg > 0, 1 / sqrt(deg), 0)
  Lap <- diag(n) - A * outer(dinv, dinv)
  e <- eigen(Lap, symmetric = TRUE)
  sel <- rev(seq_len(n))[seq_len(m)]
  list(values = pmax(e$values[sel], 0), vectors = e$vectors[, sel, drop = FALSE])
}

#' @export
print.bnn_modes <- function(x, ...) {
  cat(sprintf("%d functionally different mode(s) by spectral clustering of %s\n", x$k,
              if (x$space == "parameters") "the draws with symmetries removed" else
                "the predictive means"))
  cat(sprintf("  chains per mode: %s\n", paste(tabulate(x$chain_mode, x$k), collapse = ", ")))
  cat(sprintf("  mode probabilities: %s\n", paste(formatC(x$probs, digits = 3, format = "f"),
                                                  collapse = ", ")))
  cat(sprintf("  smallest Laplacian eigenvalues: %s\n",
              paste(formatC(x$eigenvalues[seq_len(min(6L, length(x$eigenvalues)))], digits = 3, format = "g"),
                    collapse = ", ")))
  invisible(x)
}

#' Plot the modes of a posterior
#'
#' Views in the style of Wiese et al. (2023), Figure 3: `"neurons"` shows,
#' for the first hidden layer, every neuron's incoming weight from
#' `input` against its bias, coloured by neuron index, before and after the
#' symmetries are removed; `"pairs"` two parameters of the draws with the
#' symmetries removed, coloured by mode; `"function"` (one numeric
#' predictor) the predictive mean of each draw over the predictor's range,
#' one panel per mode and one with all; `"eigen"` the smallest eigenvalues
#' of the graph Laplacian with the chosen number of modes.
#'
#' @param x A `bnn_modes` object.
#' @param type `"neurons"`, `"pairs"`, `"function"` or `"eigen"`.
#' @param pars For `"pairs"`: two parameter names (default: the first
#'   incoming weight of the first two neurons).
#' @param input For `"neurons"`: the input whose weight is shown.
#' @param ndraws For `"function"`: at most this many curves per panel.
#' @param ... Passed to [graphics::plot()].
#' @return `x`, invisibly.
#' @export
#' @examples
#' # one draw from each of 60 chains (the symmetry paper's protocol)
#' fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 60, warmup = 100,
#'                iter = 1, seed = 1, progress = FALSE, sampler = "nuts")
#' m <- bnn_modes(fit)
#' plot(m)                      # the neurons before and after the symmetries
#' plot(m, type = "function")   # the predictive mean of each mode's draws
plot.bnn_modes <- function(x, type = c("neurons", "pairs", "function", "eigen"),
                           pars = NULL, input = 1, ndraws = 200, ...) {
  type <- match.arg(type)
  fit <- x$fit
  cols <- grDevices::hcl.colors(max(x$k, 2L), "Dark 3")
  op <- graphics::par(no.readonly = TRUE)
  on.exit(graphics::par(op))
  ok <- !is.na(x$labels)
  if (type == "eigen") {
    ev <- x$eigenvalues
    graphics::plot(seq_along(ev), ev, type = "b", pch = 19, xlab = "index",
                   ylab = "eigenvalue of the normalised Laplacian", ...)
    graphics::abline(v = x$k + 0.5, lty = 2)
    return(invisible(x))
  }
  can <- x$canonical %||% withCallingHandlers(bnn_remove_symmetries(fit),
                                               bnnmc_chain_failure = function(w) invokeRestart("muffleWarning"))
  sizes <- fit$spec$sizes
  if (type == "neurons") {
    if (length(sizes) < 3L) stop("The network has no hidden layer.", call. = FALSE)
    input <- check_count(input, "input", 1L)
    if (input > sizes[1]) stop("'input' exceeds the number of inputs.", call. = FALSE)
    M <- sizes[2]
    graphics::par(mfrow = c(1, 2))
    for (what in c("as sampled", "symmetries removed")) {
      a <- if (what == "as sampled") fit$draws else can$draws
      w <- b <- NULL
      for (i in seq_len(M)) {
        id <- neuron_index(sizes, 1L, i)
        w <- cbind(w, as.vector(a[, , id$incoming[input]]))
        b <- cbind(b, as.vector(a[, , id$bias]))
      }
      ncol_ <- grDevices::hcl.colors(max(M, 2L), "Dark 3")
      graphics::matplot(w, b, pch = 16, cex = 0.4, col = grDevices::adjustcolor(ncol_, 0.5),
                        xlab = sprintf("incoming weight from input %d", input),
                        ylab = "bias", main = what, ...)
      graphics::legend("topright", legend = paste("neuron", seq_len(M)), col = ncol_,
                       pch = 16, bty = "n", cex = 0.8)
    }
    return(invisible(x))
  }
  labs <- x$labels[ok]
  if (type == "pairs") {
    pn <- dimnames(fit$draws)[[3]]
    if (is.null(pars)) {
      id1 <- neuron_index(sizes, 1L, 1L)
      id2 <- neuron_index(sizes, 1L, min(2L, sizes[2]))
      pars <- pn[c(id1$incoming[1], if (sizes[2] > 1) id2$incoming[1] else id1$bias)]
    }
    if (length(pars) != 2L || !all(pars %in% pn))
      stop("'pars' must be two parameter names of the fit.", call. = FALSE)
    v1 <- can$draws[, , pars[1]][ok]
    v2 <- can$draws[, , pars[2]][ok]
    graphics::plot(v1, v2, pch = 16, cex = 0.5, col = grDevices::adjustcolor(cols[labs], 0.6),
                   xlab = pars[1], ylab = pars[2], main = "modes (symmetries removed)", ...)
    graphics::legend("topright", legend = sprintf("mode %d (%.0f%%)", seq_len(x$k),
                                                  100 * x$probs),
                     col = cols[seq_len(x$k)], pch = 16, bty = "n", cex = 0.8)
    return(invisible(x))
  }
  # function space, one numeric predictor
  mf <- fit$model_frame
  pred <- attr(fit$terms, "term.labels")
  if (length(pred) != 1L || !is.numeric(mf[[pred]]))
    stop("type = \"function\" needs a fit with one numeric predictor.", call. = FALSE)
  grid <- seq(min(mf[[pred]]), max(mf[[pred]]), length.out = 100)
  nd <- stats::setNames(data.frame(grid), pred)
  # the network's chains that did not fail, at the modes' draws
  sub <- bnnfit_subset_chains(network_only(fit), fit$chain_status == "ok", x$iterations)
  mu <- predictive_params(sub, nd)$mu
  yname <- all.vars(fit$terms)[attr(fit$terms, "response")]
  lab_sub <- as.vector(x$labels[x$iterations, fit$chain_status == "ok"])
  graphics::par(mfrow = panel_grid(x$k + 1L))
  yl <- range(c(mu, fit$y))
  for (j in c(seq_len(x$k), 0L)) {
    rows <- if (j == 0L) seq_len(nrow(mu)) else which(lab_sub == j)
    if (length(rows) > ndraws) rows <- rows[round(seq(1, length(rows), length.out = ndraws))]
    graphics::plot(mf[[pred]], fit$y, pch = 16, cex = 0.4, col = "grey50", ylim = yl,
                   xlab = pred, ylab = yname,
                   main = if (j == 0L) "all modes" else sprintf("mode %d (%.0f%%)", j, 100 * x$probs[j]),
                   ...)
    cc <- if (j == 0L) cols[lab_sub[rows]] else rep(cols[j], length(rows))
    for (r in seq_along(rows))
      graphics::lines(grid, mu[rows[r], ], col = grDevices::adjustcolor(cc[r], 0.25))
  }
  invisible(x)
}

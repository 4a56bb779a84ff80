# The similarity map of many posterior approximations: pairwise MMD and
# classical multidimensional scaling (Staber and Da Veiga, Figures 5 and 8).

#' Map of posterior approximations by pairwise MMD and classical MDS
#'
#' Computes the energy-distance MMD ([bnn_mmd()]) between every pair of
#' sets of draws, in weight space or in function space, and embeds the
#' matrix of MMDs (the square roots of the V-statistics of MMD^2, a
#' distance) in the plane by classical (Torgerson) multidimensional scaling,
#' [stats::cmdscale()].  Fits close on the map explore the posterior alike.
#' The plot sizes each marker by the fit's step size, as the paper does
#' (larger step, larger marker, on a log scale).
#'
#' @param fits A list of at least 3 `bnnfit` or `bnn_ensemble` objects of
#'   the same model (architecture, activation, likelihood, prior and
#'   training data), or matrices with one draw per row; names label them.
#' @param space `"weight"` (parameters, unconstrained scale) or
#'   `"function"` (mean outputs at `newdata`).
#' @param newdata Inputs of the function space; the training data if `NULL`.
#' @param ndraws Use this many draws of each fit.
#' @param size Marker sizes (e.g. step sizes), one per fit; by default the
#'   mean adapted step size of a sampler's chains, or an ensemble's
#'   learning rate (`NA` for matrices).
#' @param group Optional grouping (e.g. the method) for the colours; by
#'   default the names with trailing digits, dots and step-size suffixes
#'   removed.
#' @param k Dimension of the embedding.
#' @return An object of class `bnn_mds_map` with `mmd2` (the matrix of
#'   MMD^2), `points` (the embedding, one row per fit), `eig` (the
#'   eigenvalues of MDS), `size`, `group` and `space`.
#' @seealso [bnn_mmd()]
#' @export
#' @examples
#' set.seed(1)
#' sets <- list(a1 = matrix(rnorm(200), 100), a2 = matrix(rnorm(200), 100),
#'              b1 = matrix(rnorm(200, 1), 100), b2 = matrix(rnorm(200, 1.2), 100))
#' m <- bnn_mds_map(sets, size = c(1, 2, 1, 2))
#' round(sqrt(m$mmd2), 2)
#' plot(m)
bnn_mds_map <- function(fits, space = c("weight", "function"), newdata = NULL, ndraws = NULL,
                        size = NULL, group = NULL, k = 2) {
  if (missing(space)) space <- "weight"
  space <- match_choice(space, c("weight", "function"), "space")
  if (!is.list(fits) || is_draws_object(fits) || length(fits) < 3L)
    stop("'fits' must be a list of at least 3 fits or matrices of draws.", call. = FALSE)
  k <- check_count(k, "k", 1L)
  if (k >= length(fits)) stop("'k' must be smaller than the number of fits.", call. = FALSE)
  labels <- names(fits)
  if (is.null(labels)) labels <- paste0("fit", seq_along(fits))
  labels[!nzchar(labels)] <- paste0("fit", which(!nzchar(labels)))
  check_same_model(fits, "'fits'")
  if (!is.null(newdata) && !is.data.frame(newdata))
    stop("'newdata' must be a data frame.", call. = FALSE)
  sets <- lapply(seq_along(fits), function(i)
    draw_set(fits[[i]], space, newdata, ndraws, sprintf("fits[[%d]]", i)))
  dims <- vapply(sets, nrow, integer(1))
  if (length(unique(dims)) != 1L)
    stop("All sets of draws must have the same dimension.", call. = FALSE)
  e <- do.call(pow2_exponent, sets)   # as bnn_mmd(): draws beyond 2^400
  D <- scale_pow2(.Call(C_mean_dist, lapply(sets, scale_pow2, -e)), e)
  m2 <- 2 * D - outer(diag(D), diag(D), "+")
  m2[m2 < 0] <- 0
  diag(m2) <- 0
  dimnames(m2) <- list(labels, labels)
  if (is.null(size))
    size <- vapply(fits, function(f) if (is_draws_object(f)) method_cost(f)$stepsize else NA_real_,
                   numeric(1))
  if (!is.numeric(size) || length(size) != length(fits))
    stop("'size' must be numeric, one value per fit.", call. = FALSE)
  if (is.null(group))
    group <- sub("[._ -]*[0-9]+([.][0-9]+)?([eE][-+]?[0-9]+)?$", "", labels)
  if (length(group) != length(fits))
    stop("'group' must have one value per fit.", call. = FALSE)
  mds <- stats::cmdscale(sqrt(m2), k = k, eig = TRUE)
  pts <- mds$points
  dimnames(pts) <- list(labels, paste0("dim", seq_len(ncol(pts))))
  structure(list(mmd2 = m2, points = pts, eig = mds$eig, size = unname(size),
                 group = as.character(group), space = space),
            class = "bnn_mds_map")
}

#' @rdname bnn_mds_map
#' @param x A `bnn_mds_map`.
#' @param labels Write the fits' names next to the markers.
#' @param main Title.
#' @param ... Passed to [graphics::plot()].
#' @export
plot.bnn_mds_map <- function(x, labels = TRUE, main = sprintf("MMD map, %s space", x$space),
                             ...) {
  pts <- x$points
  if (ncol(pts) < 2L) pts <- cbind(pts, 0)
  s <- x$size
  cex <- rep(1.5, length(s))
  ok <- is.finite(s) & s > 0
  if (sum(ok) > 1L && diff(range(log(s[ok]))) > 0) {
    ls <- log(s[ok])
    cex[ok] <- 0.8 + 2.2 * (ls - min(ls)) / diff(range(ls))
  }
  g <- factor(x$group)
  cols <- grDevices::hcl.colors(max(3L, nlevels(g)), "Dark 3")[seq_len(nlevels(g))]
  graphics::plot(pts[, 1], pts[, 2], pch = 19, cex = cex,
                 col = grDevices::adjustcolor(cols[g], 0.75),
                 xlab = "MDS 1", ylab = "MDS 2",
                 main = main, asp = 1, ...)
  if (isTRUE(labels)) graphics::text(pts[, 1], pts[, 2], rownames(pts), pos = 3, cex = 0.7)
  if (nlevels(g) > 1L)
    graphics::legend("topright", legend = levels(g), col = cols, pch = 19, bty = "n")
  invisible(x)
}

#' @export
print.bnn_mds_map <- function(x, ...) {
  cat(sprintf("MMD map of %d sets of draws (%s space); MMD between them:\n",
              nrow(x$mmd2), x$space))
  print(signif(sqrt(x$mmd2), 3))
  invisible(x)
}

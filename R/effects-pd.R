# bnn_effects(): partial dependence (or conditional effects) of a fit's
# predictors, with credible bands from the draws; its print() and plot().

# Values of the variable v of the data d along which an effect is shown:
# `res` evenly spaced values over its range (numeric), or its levels /
# distinct values (discrete), keeping the column's type.
effect_grid <- function(v, d, discrete, res) {
  x <- d[[v]]
  if (!v %in% discrete) return(seq(min(x), max(x), length.out = res))
  if (is.factor(x)) return(factor(levels(droplevels(x)), levels = levels(x)))
  sort(unique(x))
}

# One row of reference values: numeric predictors at their means, the
# others at their most frequent values (as plot(type = "bands")).
reference_row <- function(d, vars, discrete) {
  out <- data.frame(row.names = 1L)
  for (nm in vars) out[[nm]] <- if (nm %in% discrete) mode_value(d[[nm]]) else mean(d[[nm]])
  out
}

# The expected response of the rows `idx` of a pred_setup() as a [draw,
# row, k] array: the mean (regression and counts), the probability of
# success (binomial), the class probabilities (classification; for a binary
# response only the second level's).
block_epred <- function(fit, ps, idx) {
  pp <- block_params(fit, ps, idx, sd = FALSE)
  if (!is.null(pp$prob) && is_classification(fit)) {
    p <- pp$prob
    if (fit$likelihood$family == "bernoulli") p <- p[, , 2L, drop = FALSE]
    return(p)
  }
  v <- if (identical(pp$family, "binomial")) pp$prob else pp$mu
  array(v, c(dim(v), 1L))
}

# Per draw, the mean of the expected response over the m rows of each of
# the G blocks of nd (rows grid point after grid point): a [draw, G, k]
# array, computed a block of rows at a time.
grid_means <- function(fit, nd, m, ndraws) {
  ps <- pred_setup(fit, nd, ndraws)
  n <- nrow(ps$X)
  S <- ps_ndraws(ps)
  G <- n %/% m
  K <- if (identical(fit$likelihood$family, "categorical")) n_classes(fit) else 1L
  gid <- rep(seq_len(G), each = m)
  acc <- array(0, c(S, G, K))
  for (idx in row_blocks(n, S, max(2L, K))) {
    val <- block_epred(fit, ps, idx)
    g <- gid[idx]
    ug <- unique(g)
    for (k in seq_len(K))
      acc[, ug, k] <- acc[, ug, k] + t(rowsum(t(matrix(val[, , k], S, length(idx))), g,
                                              reorder = FALSE))
  }
  if (any(!is.finite(acc))) stop("The expected response is not finite for some draws.",
                                 call. = FALSE)
  acc / m
}

# The effects asked for: a list of character vectors of one or two
# predictors ("x" or "x1:x2").
parse_effects <- function(effects, vars) {
  if (!is.character(effects) || !length(effects) || anyNA(effects))
    stop("'effects' must be a character vector of predictors, such as \"x1\" or \"x1:x2\".",
         call. = FALSE)
  lapply(effects, function(e) {
    v <- trimws(strsplit(e, ":", fixed = TRUE)[[1L]])
    if (!length(v) || length(v) > 2L || !all(v %in% vars) || anyDuplicated(v))
      stop(sprintf(paste0("'effects' must name one predictor or two joined by ':' (\"x1:x2\"); ",
                          "\"%s\" is not one of: %s."), e, paste(vars, collapse = ", ")),
           call. = FALSE)
    v
  })
}

#' Partial dependence and conditional effects of a network's predictors
#'
#' How the expected response moves with each predictor, as `pdbart()` in
#' \pkg{dbarts} and `conditional_effects()` in \pkg{brms}, with credible
#' bands from the posterior draws.
#'
#' * `method = "pd"` (default): the partial dependence, the expected
#'   response with the predictor set to each value of a grid, averaged over
#'   the rows of the data (at most `max_rows` of them, evenly spaced) for
#'   each draw; the band is the interval of that average over the draws.
#'   It shows the predictor's effect averaged over the others, interactions
#'   included; for a predictor that enters additively it is the true effect
#'   up to a constant.
#' * `method = "conditional"`: the expected response along the grid with
#'   the other predictors at reference values (numeric ones at their means,
#'   the others at their most frequent values), as brms's
#'   `conditional_effects()`; `predictive = TRUE` adds the predictive
#'   interval (noise included) of a new observation there.
#'
#' The expected response is on the response's scale for every family: the
#' mean for regression and counts, the probability of success for a
#' binomial response, the probability of the second level for a binary one
#' and of every class for a categorical one.  A numeric predictor is shown
#' along `resolution` values over its range (for a surface at most 20 for
#' each of the two, averaged over at most 50 rows); a factor at its levels.  Two predictors joined by
#' `":"`, as `"x1:x2"`, give their joint effect (a surface when both are
#' numeric, one line per level when one is a factor).  Stacked fits use the
#' draws of each model in proportion to its weight, as their predictions
#' do.  Memory is that of one block of rows of the grid, whatever the
#' number of rows and draws.
#'
#' @param fit A `bnnfit` fitted with a formula.
#' @param effects Character vector of predictors (`"x"`) or pairs
#'   (`"x1:x2"`); by default the `n_effects` most important predictors by
#'   [bnn_importance()] (all of them if there are at most `n_effects`).
#' @param newdata A data frame with the predictors, whose rows the partial
#'   dependence averages over and the grid spans; the training data by
#'   default.
#' @param method `"pd"` or `"conditional"`, see above.
#' @param n_effects Number of predictors shown when `effects` is `NULL`.
#' @param resolution Number of grid values of a numeric predictor.
#' @param max_rows For `method = "pd"`: the largest number of rows averaged
#'   over.
#' @param level Probability of the credible (and predictive) intervals.
#' @param predictive For `method = "conditional"` with a numeric or count
#'   response: add the predictive interval (columns `pred_lower`,
#'   `pred_upper`).
#' @param ndraws Use this many draws, spread evenly over the chains (all by
#'   default).
#' @param ... Unused (a warning names them).
#' @return A list of class `bnn_effects` with one data frame per effect
#'   (named as the effect): the grid's columns (named by the predictors),
#'   `estimate` (posterior mean), `lower`, `upper`, for a categorical
#'   response `class`, with `predictive = TRUE` `pred_lower` and
#'   `pred_upper`.  Attributes: `method`, `level`, `response` (the response's
#'   name and scale) and `data` (the predictors and response of the rows,
#'   for the plot's points).  [plot()][plot.bnn_effects] draws it.
#' @seealso [bnn_importance()]; `marginaleffects` works on a `bnnfit` too
#'   (slopes and comparisons at chosen points).
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt + hp + factor(am), data = mtcars, hidden = 4, chains = 2,
#'                warmup = 150, iter = 100, seed = 42, progress = FALSE, sampler = "nuts")
#' eff <- bnn_effects(fit, c("wt", "am", "wt:hp"), resolution = 20)
#' eff
#' head(eff$wt)
#' ce <- bnn_effects(fit, "hp", method = "conditional", predictive = TRUE)
#' if (requireNamespace("ggplot2", quietly = TRUE)) {
#'   plot(eff)
#'   plot(ce, points = TRUE)
#' }
bnn_effects <- function(fit, effects = NULL, newdata = NULL, method = c("pd", "conditional"),
                        n_effects = 3L, resolution = 30L, max_rows = 100L, level = 0.9,
                        predictive = FALSE, ndraws = NULL, ...) {
  newdata <- check_dots(list(...), "bnn_effects", newdata)
  if (identical(method, c("pd", "conditional"))) method <- "pd"
  method <- match_choice(method, c("pd", "conditional"), "method")
  n_effects <- check_count(n_effects, "n_effects", 1L)
  resolution <- check_count(resolution, "resolution", 2L)
  max_rows <- check_count(max_rows, "max_rows", 1L)
  check_prob(level, "level")
  if (!is.logical(predictive) || length(predictive) != 1L || is.na(predictive))
    stop("'predictive' must be TRUE or FALSE.", call. = FALSE)
  if (predictive && method != "conditional")
    stop(paste0("'predictive = TRUE' needs method = \"conditional\": a predictive interval ",
                "belongs to one point, not to an average over the data."), call. = FALSE)
  if (predictive && is_classification(fit))
    stop("'predictive = TRUE' is for numeric or count responses.", call. = FALSE)
  ed <- effects_data(fit, newdata, need_y = FALSE)
  if (is.null(effects)) {
    effects <- if (length(ed$vars) <= n_effects) ed$vars else
      utils::head(bnn_importance(fit, newdata, ndraws = min(ndraws %||% 200L, 200L))$variable,
                  n_effects)
  }
  eff <- parse_effects(effects, ed$vars)
  d <- ed$d
  all_v <- all.vars(stats::delete.response(fit$terms))
  # the response's variables ride along where the data have them: a
  # binomial fit takes its trials from them (its effects are probabilities,
  # which the trials do not change)
  resp_v <- intersect(all.vars(fit$formula[[2L]]), names(d))
  base <- if (method == "pd") {
    d[unique(round(seq(1, nrow(d), length.out = min(max_rows, nrow(d))))),
      union(all_v, resp_v), drop = FALSE]
  } else {
    r <- reference_row(d, all_v, intersect(discrete_vars(fit, d[all_v]), all_v))
    for (nm in resp_v) r[[nm]] <- d[[nm]][1L]
    r
  }
  m <- nrow(base)
  a <- (1 - level) / 2
  classes <- if (identical(fit$likelihood$family, "categorical")) fit$levels
  out <- lapply(eff, function(v) {
    # a surface has res^2 grid points: fewer values and rows keep it as fast
    res <- if (length(v) == 2L) min(resolution, 20L) else resolution
    b <- if (length(v) == 2L && m > 50L) base[unique(round(seq(1, m, length.out = 50L))), ,
                                              drop = FALSE] else base
    mb <- nrow(b)
    grids <- lapply(v, effect_grid, d = d, discrete = ed$discrete, res = res)
    names(grids) <- v
    grid <- expand.grid(grids, KEEP.OUT.ATTRS = FALSE, stringsAsFactors = FALSE)
    G <- nrow(grid)
    nd <- b[rep(seq_len(mb), times = G), , drop = FALSE]
    for (nm in v) nd[[nm]] <- rep(grid[[nm]], each = mb)
    rownames(nd) <- NULL
    val <- grid_means(fit, nd, mb, ndraws)            # draw x grid x k
    K <- dim(val)[3]
    rows <- lapply(seq_len(K), function(k) {
      vk <- matrix(val[, , k], dim(val)[1], G)
      q <- apply(vk, 2L, stats::quantile, probs = c(a, 1 - a), names = FALSE)
      r <- data.frame(grid, estimate = colMeans(vk), lower = q[1L, ], upper = q[2L, ],
                      check.names = FALSE)
      if (!is.null(classes)) r$class <- factor(classes[k], levels = classes)
      r
    })
    r <- do.call(rbind, rows)
    if (predictive) {
      pi <- predict.bnnfit(fit, nd, type = "interval", level = level, ndraws = ndraws)
      r$pred_lower <- pi$lower
      r$pred_upper <- pi$upper
    }
    rownames(r) <- NULL
    r
  })
  names(out) <- vapply(eff, paste, character(1), collapse = ":")
  pts <- d[intersect(ed$vars, names(d))]
  if (!is.null(ed$y) && !is.matrix(ed$y))
    pts$.response <- if (identical(fit$likelihood$family, "bernoulli")) ed$y - 1L else ed$y
  structure(out, method = method, level = level, response = effects_response(fit),
            data = pts, discrete = ed$discrete, class = "bnn_effects")
}

# The response's name and the scale of the effects, for labels.
effects_response <- function(fit) {
  y <- deparse1(fit$formula[[2L]])
  fam <- fit$likelihood$family
  if (fam == "bernoulli") return(sprintf("P(%s = %s)", y, fit$levels[2L]))
  if (fam == "categorical") return(sprintf("P(%s = class)", y))
  if (fam == "binomial") return(sprintf("probability of success (%s)", y))
  if (fam %in% c("poisson", "negbinomial")) return(sprintf("expected count (%s)", y))
  sprintf("expected %s", y)
}

#' @export
print.bnn_effects <- function(x, digits = 3, ...) {
  meth <- if (attr(x, "method") == "pd") "Partial dependence (averaged over the data)" else
    "Conditional effects (other predictors at reference values)"
  cat(sprintf("%s of %s, posterior mean and %g%% band:\n", meth, attr(x, "response"),
              100 * attr(x, "level")))
  for (nm in names(x)) {
    r <- x[[nm]]
    cat(sprintf(" %-12s %d grid values; estimate from %s to %s\n", nm, nrow(r),
                format(signif(min(r$estimate), digits)), format(signif(max(r$estimate), digits))))
  }
  invisible(x)
}

#' Plot partial dependence and conditional effects
#'
#' One \pkg{ggplot2} plot per effect of a [bnn_effects()] result: a line
#' with its credible band for a numeric predictor, points with intervals
#' for a factor, lines per level for a numeric predictor with a factor, a
#' filled surface of the posterior mean for two numeric predictors; the
#' predictive band (lighter) when it was computed, and optionally the data.
#'
#' @param x A `bnn_effects`.
#' @param points Add the data's points (for one-predictor effects; binary
#'   responses as 0/1).
#' @param plot Print the plots (`FALSE` only returns them).
#' @param ... Unused.
#' @return Invisibly, a named list of ggplot objects, one per effect.
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 4, chains = 2,
#'                warmup = 150, iter = 100, seed = 42, progress = FALSE, sampler = "nuts")
#' eff <- bnn_effects(fit, c("wt", "wt:hp"), resolution = 15)
#' if (requireNamespace("ggplot2", quietly = TRUE)) {
#'   p <- plot(eff, points = TRUE, plot = FALSE)
#'   p$wt
#' }
plot.bnn_effects <- function(x, points = FALSE, plot = TRUE, ...) {
  need_pkg("ggplot2", "plot() of a bnn_effects")
  if (!is.logical(points) || length(points) != 1L || is.na(points))
    stop("'points' must be TRUE or FALSE.", call. = FALSE)
  out <- lapply(names(x), function(nm) effect_plot(x, nm, points))
  names(out) <- names(x)
  if (plot) for (p in out) print(p)
  invisible(out)
}

# The ggplot of the effect `nm` of a bnn_effects.
effect_plot <- function(x, nm, points) {
  r <- x[[nm]]
  v <- strsplit(nm, ":", fixed = TRUE)[[1L]]
  disc <- attr(x, "discrete")
  resp <- attr(x, "response")
  lev <- attr(x, "level")
  cls <- "class" %in% names(r)
  title <- sprintf("%s: %s", if (attr(x, "method") == "pd") "Partial dependence" else
    "Conditional effect", nm)
  sub <- sprintf("posterior mean and %g%% credible band%s", 100 * lev,
                 if ("pred_lower" %in% names(r)) " (lighter: predictive interval)" else "")
  r$.x <- r[[v[1L]]]
  if (length(v) == 2L && !(v[1L] %in% disc) && !(v[2L] %in% disc) && !cls) {
    r$.y <- r[[v[2L]]]
    return(ggplot2::ggplot(r, gg_aes(x = ".x", y = ".y")) +
             ggplot2::geom_raster(gg_aes(fill = "estimate"), interpolate = TRUE) +
             ggplot2::geom_contour(gg_aes(z = "estimate"), colour = "white", alpha = 0.6,
                                   bins = 8) +
             ggplot2::scale_fill_viridis_c(name = resp) +
             ggplot2::labs(x = v[1L], y = v[2L], title = title,
                           subtitle = "posterior mean") +
             ggplot2::theme_minimal())
  }
  # a second, discrete predictor (or the class) colours the lines
  if (length(v) == 2L && v[1L] %in% disc && !(v[2L] %in% disc)) {
    r$.x <- r[[v[2L]]]
    v <- rev(v)
  }
  group <- if (length(v) == 2L) v[2L] else if (cls) "class"
  if (!is.null(group)) r$.g <- factor(r[[group]])
  numeric_x <- !(v[1L] %in% disc)
  if (!numeric_x) r$.x <- factor(r$.x, levels = unique(r$.x))
  # the band's and points' colour when no second predictor colours them
  one <- function(geom, ...) {
    args <- list(...)
    if (is.null(group)) {
      if (identical(geom, ggplot2::geom_line)) args$colour <- "black" else
        if (identical(geom, ggplot2::geom_ribbon)) args$fill <- "steelblue" else
          args$colour <- "steelblue"
    }
    if (identical(geom, ggplot2::geom_ribbon)) args$colour <- NA
    do.call(geom, args)
  }
  map <- if (is.null(group)) gg_aes(x = ".x", y = "estimate") else
    gg_aes(x = ".x", y = "estimate", colour = ".g", fill = ".g", group = ".g")
  p <- ggplot2::ggplot(r, map)
  if (points && length(v) == 1L && !cls && !is.null(attr(x, "data")$.response)) {
    dp <- attr(x, "data")
    dp <- data.frame(.x = dp[[v[1L]]], estimate = dp$.response)
    p <- p + if (numeric_x)
      ggplot2::geom_point(data = dp, mapping = gg_aes(x = ".x", y = "estimate"),
                          inherit.aes = FALSE, alpha = 0.35, size = 0.9) else
      ggplot2::geom_jitter(data = dp, mapping = gg_aes(x = ".x", y = "estimate"),
                           inherit.aes = FALSE, alpha = 0.35, size = 0.9, width = 0.15,
                           height = 0)
  }
  if (numeric_x) {
    if ("pred_lower" %in% names(r))
      p <- p + one(ggplot2::geom_ribbon, mapping = gg_aes(ymin = "pred_lower", ymax = "pred_upper"),
                   alpha = 0.12)
    p <- p + one(ggplot2::geom_ribbon, mapping = gg_aes(ymin = "lower", ymax = "upper"),
                 alpha = 0.3) +
      one(ggplot2::geom_line, linewidth = 1)
  } else {
    dodge <- ggplot2::position_dodge(width = if (is.null(group)) 0 else 0.4)
    if ("pred_lower" %in% names(r))
      p <- p + one(ggplot2::geom_linerange, mapping = gg_aes(ymin = "pred_lower",
                                                             ymax = "pred_upper"),
                   alpha = 0.35, linewidth = 2, position = dodge)
    p <- p + one(ggplot2::geom_pointrange, mapping = gg_aes(ymin = "lower", ymax = "upper"),
                 position = dodge)
  }
  p + ggplot2::labs(x = v[1L], y = resp, title = title, subtitle = sub,
                    colour = group, fill = group) +
    ggplot2::theme_minimal()
}

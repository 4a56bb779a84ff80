# plot.bnnfit(): diagnostic and predictive plots in base graphics.

# R-hat of every network parameter, pooled over chains (rank-normalised
# split R-hat, the maximum of bulk and folded) and chain-wise (the chain-wise
# R-hat of Sommer et al. 2024 with kappa = 4 sub-chains), from the C
# diagnostics.  Long format: one row per parameter and chain, with
# chain = NA for the pooled value.
.layer_rhat_table <- function(x, kappa = 4) {
  a <- ok_draws(x)
  n_ch <- dim(a)[2]
  info <- parameter_layers(x$parameters)
  pooled <- bnn_rhat(a)
  per_chain <- t(bnn_chainwise_rhat(a, kappa = kappa))   # [variable, chain]
  chain_ids <- which(x$chain_status == "ok")
  layer <- ifelse(is.na(info$layer), info$parameter, paste("layer", info$layer))
  data.frame(variable = rep(info$parameter, n_ch + 1L),
             layer = rep(layer, n_ch + 1L),
             role = rep(info$role, n_ch + 1L),
             chain = rep(c(NA_integer_, chain_ids), each = nrow(info)),
             rhat = c(unname(pooled), as.vector(per_chain)),
             stringsAsFactors = FALSE)
}

.plot_types <- c("overview", "trace", "rhat_layer", "rhat_chain", "lppd", "coverage", "bands",
                 "pairs_layer", "reliability")

chain_colours <- function(n) grDevices::hcl.colors(max(n, 1L), "Dark 3")

#' Plot a Bayesian neural network fit
#'
#' Diagnostic and predictive plots (see [nuts_params.bnnfit()] and
#' [as.array.bnnfit()] for bayesplot).
#'
#' * `"overview"`, the default: what a fit says, in \pkg{ggplot2} plots
#'   printed one after the other: a posterior predictive check
#'   ([pp_check()], when \pkg{bayesplot} is installed), the partial
#'   dependence of the leading predictors ([bnn_effects()], by
#'   [bnn_importance()]), and the chains' traces of the log-likelihood of
#'   the training data and of `sigma` (or the family's other parameters).
#'   Without \pkg{ggplot2} it falls back to `"trace"`.
#' * `"trace"` (base graphics, as all types below): trace plots of `pars`,
#'   one line per chain; by default the log posterior `lp__` and `sigma`
#'   (and the family's other parameters) for a network, the coefficients
#'   named by their predictors and `sigma` for a linear model.  Weights of
#'   a network on request (`pars = c("W1[1,1]", ...)`).
#' * `"rhat_layer"`: R-hat of every parameter (rank-normalised split R-hat
#'   pooled over chains), grouped by layer.  Weights of a network are not
#'   identified, so large values in hidden layers are expected when chains
#'   sit in different (often symmetric) modes.
#' * `"rhat_chain"`: chain-wise R-hat of every parameter (the bulk split
#'   R-hat of each chain on its own, which compares its two halves), one box
#'   per chain: values near 1 say that each chain is stationary within its
#'   mode, whatever the other chains do.
#' * `"lppd"`: cumulative log pointwise predictive density per chain,
#'   `mean_i log(mean_{s <= t} p(y_i | theta_s))` against the iteration
#'   `t`, on `newdata` (the training data by default; the response is
#'   needed), with the value for all chains pooled as a dashed line.  Flat
#'   curves at the same level suggest the chains agree on predictions.  The
#'   vertical range follows the chains that agree (after their first 10%
#'   of iterations), so one bad chain does not squash the others; a chain
#'   far below is named in the legend with its final value ("off scale").
#' * `"coverage"`: empirical coverage of the equal-tailed predictive
#'   intervals at nominal levels 0.05, 0.10, ..., 0.95 on `newdata`
#'   (regression), with the exact mixture quantiles of
#'   `predict(type = "interval")`; points on the diagonal mean calibrated
#'   intervals.
#' * `"bands"`: the predictive mean and the predictive intervals of
#'   probabilities `level` along one covariate (`covariate`, default the
#'   first), with the other covariates at their means (numeric) or most
#'   frequent values (others), and the observations; for classification the
#'   mean class probabilities.
#' * `"pairs_layer"`: for each layer, the draws of two of its weights as one
#'   point cloud per chain: separate clouds show chains in different modes,
#'   mirror images show symmetric (sign-flipped or permuted) modes.  For a
#'   linear model, its first two coefficients, named by their predictors.
#' * `"reliability"` (classification): reliability diagram of the posterior
#'   predictive class probabilities on `newdata` (the response is needed).
#'   Each observation's top-class confidence (the largest predicted
#'   probability) falls into one of `bins` equal-width bins ((b-1)/B, b/B];
#'   bars show the accuracy of the predicted class in each bin, points
#'   the bin's mean confidence against its accuracy, and the numbers above
#'   the bars the observations per bin.  Bars on the diagonal mean
#'   calibrated probabilities; bars below it over-confidence.  The title gives
#'   the expected calibration error of [bnn_metrics_class()] with the same
#'   bins.
#'
#' @param x A `bnnfit`.
#' @param type The plot; see above.
#' @param pars For `"trace"`: parameter names.  For `"pairs_layer"`: a list
#'   of pairs of parameter names (or a character vector of even length).
#' @param newdata A data frame for `"lppd"`, `"coverage"` (with the
#'   response) and `"bands"` (covariate range and reference values); the
#'   training data by default.
#' @param covariate For `"bands"`: name of the covariate along which to plot.
#' @param level For `"bands"`: probabilities of the predictive intervals.
#' @param ndraws Use this many draws, spread over the chains, for the
#'   predictive plots (all by default).
#' @param bins For `"reliability"`: number of equal-width confidence bins.
#' @param scale For `"lppd"` (regression): the scale of the densities,
#'   `"response"` (default, the response's units, as [bnn_metrics()]) or
#'   `"standardized"` (the scale the papers report LPPD on; the two differ
#'   by `log(sd(y))`).  The axis and title say which.
#' @param ... Unused (a warning names them).
#' @return Invisibly, the data drawn: a data frame for every type except
#'   `"trace"` and `"pairs_layer"`, which return the draws array used, and
#'   `"overview"`, which returns the list of its ggplot objects.  For
#'   `"reliability"` one row per bin with its `lower` and `upper` limits, the
#'   number of observations `n`, their mean `confidence` and `accuracy` (`NA`
#'   for empty bins), and the expected calibration error as attribute
#'   `"ece"`.
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2,
#'                warmup = 150, iter = 100, seed = 42, progress = FALSE, sampler = "nuts")
#' plot(fit)
#' plot(fit, type = "trace")
#' plot(fit, type = "lppd")
#' cov <- plot(fit, type = "coverage")
#' head(cov)
#' plot(fit, type = "bands", covariate = "wt")
#' plot(fit, type = "pairs_layer")
#' if (requireNamespace("posterior", quietly = TRUE)) {
#'   plot(fit, type = "rhat_layer")
#'   plot(fit, type = "rhat_chain")
#' }
#' # classification: reliability diagram on held-out rows
#' cl <- bnn_fit(Species ~ ., data = iris[-(1:10 * 5), ], hidden = 3, chains = 2,
#'               warmup = 150, iter = 100, seed = 1, progress = FALSE, sampler = "nuts")
#' rel <- plot(cl, type = "reliability", newdata = iris[1:10 * 5, ], bins = 5)
#' rel
plot.bnnfit <- function(x, type = c("overview", "trace", "rhat_layer", "rhat_chain", "lppd", "coverage",
                                    "bands", "pairs_layer", "reliability"),
                        pars = NULL, newdata = NULL, covariate = NULL, level = c(0.5, 0.9),
                        ndraws = NULL, bins = 10L, scale = c("response", "standardized"),
                        ...) {
  newdata <- check_dots(list(...), "plot", newdata)
  scale <- metrics_scale(if (missing(scale)) "response" else scale)
  if (identical(type, .plot_types)) type <- "overview"
  type <- match_choice(type, .plot_types, "type")
  if (type == "overview" && !requireNamespace("ggplot2", quietly = TRUE)) type <- "trace"
  switch(type,
         overview = plot_overview(x, newdata, ndraws),
         trace = plot_trace(x, pars),
         rhat_layer = plot_rhat(x, by = "layer"),
         rhat_chain = plot_rhat(x, by = "chain"),
         lppd = plot_lppd(x, newdata, ndraws, scale),
         coverage = plot_coverage(x, newdata, ndraws),
         bands = plot_bands(x, newdata, covariate, level, ndraws),
         pairs_layer = plot_pairs_layer(x, pars),
         reliability = plot_reliability(x, newdata, ndraws, bins))
}

# The quantities a trace plot shows by default, the ones that can be read:
# a linear model's coefficients, named by its predictors, or a network's
# log posterior; and sigma (the family's other parameters).
default_trace_pars <- function(x) {
  info <- parameter_layers(x$parameters)
  c(if (is_linear_fit(x)) linear_coef_names(x) else "lp__",
    info$parameter[info$role == "other"])
}

# plot(type = "overview"): a posterior predictive check, the effects of the
# leading predictors and the chains' log-likelihood and sigma, as ggplots
# printed in turn.
plot_overview <- function(x, newdata, ndraws) {
  out <- list()
  if (requireNamespace("bayesplot", quietly = TRUE))
    out$pp_check <- pp_check.bnnfit(x, newdata = newdata, seed = 1L)
  if (!is.null(x$terms) && !is.null(x$X)) {
    eff <- bnn_effects(x, newdata = newdata, ndraws = ndraws %||% 400L)
    out <- c(out, plot.bnn_effects(eff, plot = FALSE))
  }
  out$trace <- overview_trace(x)
  for (p in out) print(p)
  invisible(out)
}

# The chains' traces of the training data's log-likelihood and of sigma (and
# the family's other parameters), one panel each, one line per chain (the
# network's own chains for a stacked fit).
overview_trace <- function(x) {
  a <- readable_draws(x, points = 0L)
  keep <- setdiff(dimnames(a)[[3]], c("lp__", if (is_linear_fit(x)) linear_coef_names(x)))
  a <- a[, , keep, drop = FALSE]
  dimnames(a)[[3]] <- sub("^log_lik$", "log-likelihood", keep)
  trace_ggplot(a, "Chains: log-likelihood of the training data and noise parameters")
}

# Trace plots of a draws array [iteration, chain, variable] in ggplot2: one
# panel per variable (own y scale), one line per chain.
trace_ggplot <- function(a, title = NULL) {
  n_it <- dim(a)[1]
  n_ch <- dim(a)[2]
  vars <- dimnames(a)[[3]]
  df <- data.frame(iteration = rep(seq_len(n_it), n_ch * length(vars)),
                   chain = factor(rep(rep(dimnames(a)[[2]], each = n_it), length(vars)),
                                  levels = dimnames(a)[[2]]),
                   value = as.vector(a),
                   quantity = factor(rep(vars, each = n_it * n_ch), levels = vars))
  ggplot2::ggplot(df, gg_aes(x = "iteration", y = "value", colour = "chain")) +
    ggplot2::geom_line(alpha = 0.8) +
    ggplot2::facet_wrap("quantity", scales = "free_y", ncol = if (length(vars) > 4L) 2L else 1L) +
    ggplot2::labs(title = title, x = "draw (within its chain)", y = NULL) +
    ggplot2::theme_minimal()
}

plot_trace <- function(x, pars) {
  if (is.null(pars)) pars <- default_trace_pars(x)
  a <- fit_draws_array(x, variable = pars)
  n_it <- dim(a)[1]
  n_ch <- dim(a)[2]
  it <- x$warmup + 1L + (seq_len(n_it) - 1L) * x$thin
  cols <- chain_colours(n_ch)
  op <- graphics::par(mfrow = panel_grid(dim(a)[3]), mar = c(3.5, 3.5, 2, 0.5),
                      mgp = c(2.2, 0.7, 0))
  on.exit(graphics::par(op))
  for (j in seq_len(dim(a)[3])) {
    graphics::matplot(it, matrix(a[, , j], n_it, n_ch), type = "l", lty = 1, col = cols,
                      xlab = "iteration", ylab = "value", main = dimnames(a)[[3]][j])
    if (j == 1L && n_ch > 1L)
      graphics::legend("topright", legend = paste("chain", dimnames(a)[[2]]), col = cols,
                       lty = 1, bty = "n", cex = 0.7)
  }
  invisible(a)
}

plot_rhat <- function(x, by) {
  tab <- .layer_rhat_table(x)
  if (by == "layer") {
    d <- tab[is.na(tab$chain), ]
    grp <- factor(d$layer, levels = unique(d$layer))
    main <- "R-hat by layer (all chains)"
    xlab <- ""
    cols <- "grey85"
  } else {
    d <- tab[!is.na(tab$chain), ]
    grp <- factor(paste("chain", d$chain), levels = paste("chain", unique(d$chain)))
    main <- "Chain-wise R-hat (each chain's two halves)"
    xlab <- ""
    cols <- grDevices::adjustcolor(chain_colours(nlevels(grp)), alpha.f = 0.4)
  }
  ok <- is.finite(d$rhat)
  if (!any(ok)) stop("No finite R-hat values to plot (too few draws).", call. = FALSE)
  ylim <- range(c(1, d$rhat[ok]))
  graphics::boxplot(d$rhat[ok] ~ grp[ok], col = cols, ylim = ylim, outline = FALSE,
                    xlab = xlab, ylab = "R-hat", main = main)
  graphics::stripchart(d$rhat[ok] ~ grp[ok], vertical = TRUE, method = "jitter",
                       pch = 16, cex = 0.5, col = grDevices::adjustcolor("black", 0.5),
                       add = TRUE)
  graphics::abline(h = c(1, 1.01), lty = c(1, 2), col = c("grey40", "red"))
  invisible(d)
}

plot_lppd <- function(x, newdata, ndraws, scale = "response") {
  if (!is.null(ndraws))
    stop("'ndraws' cannot be used with type = \"lppd\", which follows every draw of each chain.",
         call. = FALSE)
  x <- network_only(x)               # per chain: the network's own chains
  ll <- log_lik.bnnfit(x, newdata)
  ll <- ll[, colSums(is.na(ll)) == 0L, drop = FALSE]   # na.exclude padding
  # densities of the standardised response differ by the Jacobian y_scale
  std <- !is_classification(x) && scale == "standardized"
  if (std) ll <- ll + log(x$y_scale)
  scale_lab <- if (is_classification(x)) "class probabilities" else
    if (std) "standardized scale" else "response scale"
  ids <- draw_chain_ids(x)
  n_ch <- max(ids)
  n_it <- dim(x$draws)[1]
  cum <- vapply(seq_len(n_ch), function(k) c(bnn_cumulative_lppd(ll[ids == k, , drop = FALSE])),
                numeric(n_it))
  cum <- matrix(cum, n_it, n_ch)
  m <- apply(ll, 2L, max)
  pooled <- mean(m + log(colMeans(exp(sweep(ll, 2L, m, "-")))))
  it <- x$warmup + 1L + (seq_len(n_it) - 1L) * x$thin
  cols <- chain_colours(n_ch)
  ok_ids <- which(x$chain_status == "ok")
  # vertical range from the chains that agree, after their first 10%
  late <- cum[seq.int(max(1L, ceiling(0.1 * n_it)), n_it), , drop = FALSE]
  med <- apply(late, 2L, stats::median)
  dev <- abs(med - stats::median(med))
  tol <- 5 * max(stats::mad(med), 0.25, 0.05 * abs(stats::median(med)))
  good <- dev <= tol | !is.finite(dev)
  if (!any(good)) good[] <- TRUE
  ylim <- range(c(late[, good], pooled[is.finite(pooled)]), finite = TRUE)
  if (!all(is.finite(ylim))) ylim <- NULL
  off <- !good
  labs <- paste("chain", ok_ids)
  labs[off] <- sprintf("chain %d (off scale: final %s)", ok_ids[off],
                       format(signif(cum[n_it, off], 3)))
  graphics::matplot(it, cum, type = "l", lty = 1, col = cols, xlab = "iteration",
                    ylab = sprintf("cumulative LPPD (%s)", scale_lab), ylim = ylim,
                    main = sprintf("Cumulative LPPD per chain, %s (%s)",
                                   if (is.null(newdata)) "training data" else "newdata",
                                   scale_lab))
  graphics::abline(h = pooled, lty = 2, col = "grey30")
  graphics::legend("bottomright", legend = c(labs, "all chains"),
                   col = c(cols, "grey30"), lty = c(rep(1, n_ch), 2), bty = "n", cex = 0.7)
  invisible(data.frame(iteration = rep(it, n_ch), chain = rep(ok_ids, each = n_it),
                       lppd = as.vector(cum), scale = scale_lab))
}

plot_coverage <- function(x, newdata, ndraws) {
  if (is_classification(x))
    stop("plot(type = \"coverage\") is for regression fits.", call. = FALSE)
  y <- response_values(x, newdata)
  nominal <- seq(0.05, 0.95, by = 0.05)
  a <- (1 - nominal) / 2
  # the quantiles of predict(type = "interval"), a block of rows at a time
  q <- pred_quantiles(x, pred_setup(x, newdata, ndraws), c(a, 1 - a))$q
  L <- length(nominal)
  empirical <- vapply(seq_len(L), function(j) mean(y >= q[, j] & y <= q[, L + j]),
                      numeric(1))
  graphics::plot(nominal, empirical, xlim = c(0, 1), ylim = c(0, 1), type = "b", pch = 16,
                 xlab = "nominal coverage", ylab = "empirical coverage",
                 main = sprintf("Predictive interval coverage (%s, n = %d)",
                                if (is.null(newdata)) "training data" else "newdata",
                                length(y)))
  graphics::abline(0, 1, lty = 2, col = "grey40")
  invisible(data.frame(nominal = nominal, empirical = empirical))
}

plot_bands <- function(x, newdata, covariate, level, ndraws) {
  vars <- all.vars(stats::delete.response(x$terms))
  if (is.null(covariate)) covariate <- vars[1L]
  if (!is.character(covariate) || length(covariate) != 1L || !(covariate %in% vars))
    stop(sprintf("'covariate' must be one of the model's predictors: %s.",
                 paste(vars, collapse = ", ")), call. = FALSE)
  if (!is.numeric(level) || !length(level) || anyNA(level) || any(level <= 0 | level >= 1))
    stop("'level' must be probabilities in (0, 1).", call. = FALSE)
  level <- sort(level, decreasing = TRUE)
  d <- plot_data(x, newdata, vars)
  # variables used as factors, e.g. numeric `am` in factor(am), are discrete
  disc <- discrete_vars(x, d[vars])
  v <- d[[covariate]]
  numeric_cov <- !covariate %in% disc
  grid <- effect_grid(covariate, d, disc, 100L)
  nd <- reference_row(d, vars, disc)[rep(1L, length(grid)), , drop = FALSE]
  nd[[covariate]] <- grid
  rownames(nd) <- NULL
  xs <- if (numeric_cov) grid else seq_along(grid)
  y_obs <- tryCatch(response_values(x, d), error = function(e) NULL)
  labels <- as.character(grid)
  x_obs <- if (numeric_cov) v else match(as.character(v), labels)
  if (is_classification(x)) {
    prob <- predict.bnnfit(x, nd, type = "prob", ndraws = ndraws)
    cols <- chain_colours(ncol(prob))
    graphics::matplot(xs, prob, type = if (numeric_cov) "l" else "b", lty = 1, pch = 16,
                      col = cols, ylim = c(0, 1), xlab = covariate, ylab = "probability",
                      main = "Predicted class probabilities", xaxt = if (numeric_cov) "s" else "n")
    if (!numeric_cov) graphics::axis(1, at = xs, labels = labels)
    graphics::legend("topright", legend = x$levels, col = cols, lty = 1, bty = "n", cex = 0.7)
    return(invisible(data.frame(nd[covariate], prob, check.names = FALSE)))
  }
  # the predictive quantiles of predict(type = "interval"): Gaussian
  # mixtures, or the family's (Student-t, counts) mixtures
  a <- (1 - level) / 2
  pq <- pred_quantiles(x, pred_setup(x, nd, ndraws), c(a, 1 - a))
  q <- pq$q
  K <- length(level)
  mean_y <- pq$mean
  ylim <- range(c(q, mean_y, y_obs), finite = TRUE)
  shades <- grDevices::adjustcolor("steelblue", alpha.f = 0.25)
  graphics::plot(range(xs), ylim, type = "n", xlab = covariate,
                 ylab = deparse1(x$formula[[2L]]),
                 main = sprintf("Predictive mean and %s intervals",
                                paste0(100 * level, "%", collapse = ", ")),
                 xaxt = if (numeric_cov) "s" else "n")
  if (!numeric_cov) graphics::axis(1, at = xs, labels = labels)
  for (k in seq_len(K)) {
    if (numeric_cov) {
      graphics::polygon(c(xs, rev(xs)), c(q[, k], rev(q[, K + k])), col = shades, border = NA)
    } else {
      graphics::segments(xs, q[, k], xs, q[, K + k], lwd = 2 + 3 * (k - 1),
                         col = grDevices::adjustcolor("steelblue", alpha.f = 0.3 + 0.3 * (k - 1)))
    }
  }
  if (!is.null(y_obs))
    graphics::points(x_obs, y_obs, pch = 16, cex = 0.6, col = grDevices::adjustcolor("black", 0.6))
  graphics::lines(xs, mean_y, lwd = 2, type = if (numeric_cov) "l" else "b", pch = 18)
  out <- data.frame(nd[covariate], mean = mean_y)
  for (k in seq_len(K)) {
    out[[sprintf("lower%g", 100 * level[k])]] <- q[, k]
    out[[sprintf("upper%g", 100 * level[k])]] <- q[, K + k]
  }
  invisible(out)
}

default_layer_pairs <- function(x) {
  # a linear model: its first two coefficients, named by their predictors
  if (is_linear_fit(x)) {
    cf <- setdiff(linear_coef_names(x), c("(Intercept)", "b_(Intercept)"))
    if (length(cf) >= 2L) return(list(cf[1:2]))
  }
  info <- parameter_layers(x$parameters)
  out <- list()
  for (l in sort(unique(stats::na.omit(info$layer)))) {
    w <- info$parameter[info$layer %in% l & info$role == "weight"]
    if (length(w) >= 2L) out[[length(out) + 1L]] <- w[1:2]
  }
  out
}

plot_pairs_layer <- function(x, pars) {
  pairs <- if (is.null(pars)) default_layer_pairs(x) else {
    if (is.character(pars)) {
      if (length(pars) %% 2L != 0L)
        stop("'pars' must be a list of pairs of parameter names, or a character vector of even length.",
             call. = FALSE)
      split(pars, rep(seq_len(length(pars) / 2L), each = 2L))
    } else pars
  }
  if (!is.list(pairs) || !length(pairs) ||
      !all(vapply(pairs, function(p) is.character(p) && length(p) == 2L, logical(1))))
    stop("'pars' must be a list of pairs of parameter names.", call. = FALSE)
  a <- fit_draws_array(x, variable = unique(unlist(pairs)))
  n_ch <- dim(a)[2]
  cols <- grDevices::adjustcolor(chain_colours(n_ch), alpha.f = 0.5)
  op <- graphics::par(mfrow = panel_grid(length(pairs)), mar = c(3.5, 3.5, 2, 0.5),
                      mgp = c(2.2, 0.7, 0))
  on.exit(graphics::par(op))
  for (i in seq_along(pairs)) {
    p <- pairs[[i]]
    xv <- a[, , p[1], drop = FALSE]
    yv <- a[, , p[2], drop = FALSE]
    graphics::plot(range(xv, finite = TRUE), range(yv, finite = TRUE), type = "n",
                   xlab = p[1], ylab = p[2],
                   main = if (grepl("^W[0-9]", p[1])) sub("^W([0-9]+).*$", "layer \\1", p[1]) else
                     "coefficients")
    for (k in seq_len(n_ch))
      graphics::points(xv[, k, 1], yv[, k, 1], pch = 16, cex = 0.5, col = cols[k])
    if (i == 1L && n_ch > 1L)
      graphics::legend("topright", legend = paste("chain", dimnames(a)[[2]]),
                       col = chain_colours(n_ch), pch = 16, bty = "n", cex = 0.7)
  }
  invisible(a)
}

# Reliability diagram: top-class confidence in equal-width bins against the
# accuracy of the predicted class, with the number of observations per bin.
plot_reliability <- function(x, newdata, ndraws, bins) {
  if (!is_classification(x))
    stop("plot(type = \"reliability\") is for classification fits (a factor response); ",
         "for regression use type = \"coverage\".", call. = FALSE)
  if (!is.numeric(bins) || length(bins) != 1L || is.na(bins) || bins < 1 ||
      bins != round(bins))
    stop("'bins' must be a positive whole number.", call. = FALSE)
  bins <- as.integer(bins)
  if (!is.null(newdata)) {
    if (!is.data.frame(newdata)) stop("'newdata' must be a data frame.", call. = FALSE)
    check_new_levels(x, newdata)
  }
  y <- if (is.null(newdata)) as.integer(x$y_model) else as.integer(model_response(x, newdata))
  prob <- class_prob_summary(x, newdata, ndraws)$prob
  pred <- max.col(prob, ties.method = "first")
  conf <- prob[cbind(seq_along(pred), pred)]
  correct <- pred == y + 1L
  b <- pmin(pmax(ceiling(conf * bins), 1L), bins)
  n_b <- tabulate(b, bins)
  mean_by <- function(v) {
    out <- rep(NA_real_, bins)
    s <- tapply(v, b, mean)
    out[as.integer(names(s))] <- s
    out
  }
  tab <- data.frame(bin = seq_len(bins), lower = (seq_len(bins) - 1) / bins,
                    upper = seq_len(bins) / bins, n = n_b,
                    confidence = mean_by(conf), accuracy = mean_by(as.numeric(correct)))
  ok <- tab$n > 0
  ece <- sum(tab$n[ok] / length(y) * abs(tab$accuracy[ok] - tab$confidence[ok]))
  attr(tab, "ece") <- ece
  graphics::plot(c(0, 1), c(0, 1.08), type = "n", xaxs = "i", yaxs = "i",
                 xlab = "confidence (top-class probability)", ylab = "accuracy",
                 main = sprintf("Reliability (%s, n = %d, ECE = %.3f)",
                                if (is.null(newdata)) "training data" else "newdata",
                                length(y), ece))
  graphics::rect(tab$lower[ok], 0, tab$upper[ok], tab$accuracy[ok],
                 col = grDevices::adjustcolor("steelblue", alpha.f = 0.5), border = "white")
  graphics::abline(0, 1, lty = 2, col = "grey40")
  graphics::points(tab$confidence[ok], tab$accuracy[ok], pch = 16)
  graphics::text((tab$lower[ok] + tab$upper[ok]) / 2, pmin(tab$accuracy[ok], 1) + 0.04,
                 labels = tab$n[ok], cex = 0.7)
  graphics::mtext("bars: accuracy per confidence bin; numbers: observations per bin",
                  side = 3, line = 0.2, cex = 0.75)
  graphics::abline(v = 1 / ncol(prob), lty = 3, col = "grey60")  # least possible confidence
  invisible(tab)
}

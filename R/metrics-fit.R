# Predictive metrics of fits and ensembles on held-out data.

#' Predictive metrics of a BNN fit or deep ensemble
#'
#' Computes, on `newdata`, the metrics of the papers from the posterior
#' predictive distribution (the equal-weight mixture over draws): RMSE of the
#' predictive mean, the LPPD (mean over observations), empirical coverage of
#' equal-tailed predictive intervals (exact mixture quantiles) and the
#' calibration error, see [bnn_metrics_gaussian()]; for classification
#' accuracy, LPPD, Brier score and ECE, see [bnn_metrics_class()], and the
#' average negative log-likelihood `nll`.
#'
#' For classification the draw-averaged class probabilities are accumulated
#' over blocks of draws (memory stays bounded for many draws and test
#' points).  `lppd` is the mean over test points of log((1/S) sum_s p(y_i |
#' theta_s)), by log-sum-exp over the draws (Sommer et al. 2025, Eq. 4);
#' `nll` is minus the mean over draws and test points of log p(y_i |
#' theta_s), the "average negative log-likelihood" of their Table 6 (as in
#' their code).  By Jensen's inequality `nll >= -lppd`; the two coincide for
#' a single draw (e.g. one ensemble member).  Test labels must be levels seen
#' in training (the network has no output for others), and factor
#' predictors must only have levels seen in training; otherwise the error
#' names the levels.
#'
#' @param object A `bnnfit` or `bnn_ensemble`.
#' @param newdata Test data with the response.
#' @param scale `"response"` (default: the response's own units, as `lm`'s
#'   residuals and `predict()`) or `"standardized"` (the scale the papers
#'   report, with the training data's mean and sd of the response: RMSE in
#'   response sds, LPPD of the standardised response; the benchmark scripts
#'   ask for it).  The older spellings `"original"` and `"standardised"` are
#'   accepted.  The result's `scale` element names the scale.
#' @param by `"pooled"` (default): one predictive distribution from all
#'   draws; `"chain"`: metrics of each chain (for an ensemble, each member:
#'   the papers' single-network "DNN" baseline is their average).
#' @param levels Nominal levels of the coverage table (regression).
#' @param ndraws Use this many draws, spread evenly over the chains.
#' @param ... Passed to [bnn_metrics_gaussian()] (e.g. `cal_levels`) or, for
#'   classification, to [bnn_metrics_class()] (`bins`).
#' @return For `by = "pooled"` the list of [bnn_metrics_gaussian()] plus
#'   `coverage_50`, `coverage_90`, `coverage_95` (regression), or the list of
#'   [bnn_metrics_class()] plus `nll` and `n_draws` (classification); for
#'   `by = "chain"` a data frame with one row per chain (member) and one
#'   column per scalar metric (and, for regression, `scale`: the scale of
#'   the LPPD and RMSE).
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars[1:24, ], hidden = 3, chains = 2,
#'                warmup = 300, iter = 300, seed = 1, progress = FALSE, sampler = "nuts")
#' m <- bnn_metrics(fit, mtcars[25:32, ])
#' c(rmse = m$rmse, lppd = m$lppd, coverage_90 = m$coverage_90)
#' # classification, pooled and per chain
#' cl <- bnn_fit(Species ~ ., data = iris[-(1:10 * 5), ], hidden = 3, chains = 2,
#'               warmup = 150, iter = 100, seed = 1, progress = FALSE, sampler = "nuts")
#' unlist(bnn_metrics(cl, iris[1:10 * 5, ])[c("accuracy", "lppd", "nll")])
#' bnn_metrics(cl, iris[1:10 * 5, ], by = "chain")
bnn_metrics.bnnfit <- function(object, newdata, scale = c("response", "standardized"),
                               by = c("pooled", "chain"), levels = (1:19) / 20,
                               ndraws = NULL, ...) {
  scale <- metrics_scale(if (missing(scale)) "response" else scale)
  by <- match.arg(by)
  if (missing(newdata) || !is.data.frame(newdata))
    stop("'newdata' must be a data frame of test data with the response.", call. = FALSE)
  check_new_levels(object, newdata)
  y <- model_response(object, newdata)
  if (by == "chain") {
    rows <- lapply(seq_len(dim(object$draws)[2]), function(c) {
      if (object$chain_status[c] != "ok") return(NULL)
      m <- bnn_metrics(chain_subset(object, c), newdata, scale = scale, levels = levels, ndraws = ndraws, ...)
      row <- data.frame(chain = c, metrics_row(m))
      if (!is_classification(object)) row$scale <- scale   # say the LPPD's scale
      row
    })
    return(do.call(rbind, rows))
  }
  if (is_classification(object)) {
    cs <- class_prob_summary(object, newdata, ndraws, y = as.integer(y))
    m <- bnn_metrics_class(cs$prob, factor(object$levels[y + 1], levels = object$levels), ...)
    m$lppd <- mean(cs$lpd)          # the same, by log-sum-exp over draws
    m$nll <- -mean(cs$loglik)
    m$n_draws <- cs$n_draws
    return(m)
  }
  # counts, binomial and Student-t, and a mixture with a Student-t component
  # (its Gaussian draws as t draws with nu = Inf: student_block())
  if (pred_is_family(object)) return(family_metrics(object, newdata, ndraws, levels))
  ys <- if (scale == "response") 1 else object$y_scale
  yc <- if (scale == "response") 0 else object$y_center
  yy <- y * object$y_scale + object$y_center
  m <- fit_metrics_gaussian(object, newdata, ndraws, yc, ys, (yy - yc) / ys,
                            levels = union(levels, c(0.5, 0.9, 0.95)), ...)
  cv <- m$coverage
  for (lv in c(50, 90, 95))
    m[[paste0("coverage_", lv)]] <- cv$coverage[abs(cv$nominal - lv / 100) < 1e-9][1]
  m$coverage <- cv[cv$nominal %in% levels | abs(outer(cv$nominal, levels, "-")) %*%
                     rep(1, length(levels)) < 1e-9, , drop = FALSE]
  m$scale <- scale
  m
}

#' @rdname bnn_metrics.bnnfit
#' @export
bnn_metrics.bnn_ensemble <- function(object, newdata, scale = c("response", "standardized"),
                                     by = c("pooled", "chain"), levels = (1:19) / 20,
                                     ndraws = NULL, ...) {
  bnn_metrics.bnnfit(object, newdata, scale = if (missing(scale)) "response" else scale,
                     by = by, levels = levels, ndraws = ndraws, ...)
}

# The object restricted to its chain (or ensemble member) `chain`, for the
# metrics of each chain: a fit through its constructor, with the other model
# of a mixture as the fit has it; a deep ensemble's member (its method is
# R/approx-ensemble.R's).
chain_subset <- function(x, chain) UseMethod("chain_subset")

chain_subset.bnnfit <- function(x, chain) {
  sub <- bnnfit_subset_chains(x, chain)
  if (is.null(x$mixture)) sub else bnnfit_with(sub, mixture = x$mixture)
}

# bnn_metrics_gaussian() of a fit's predictions of newdata on the scale
# (mu - yc) / ys, computed a block of rows at a time: the same numbers
# without the rows x draws matrices of mu and sd for all rows at once.
fit_metrics_gaussian <- function(object, newdata, ndraws, yc, ys, y, levels,
                                 y_scale = 1, cal_levels = c(0.5, 0.75, 0.9, 0.95),
                                 cal_weights = NULL, draws = NULL, pointwise = FALSE) {
  if (!is.null(draws)) {
    pp <- predictive_params(object, newdata, ndraws)
    return(bnn_metrics_gaussian((pp$mu - yc) / ys, pp$sd / ys, y, levels = levels,
                                y_scale = y_scale, cal_levels = cal_levels,
                                cal_weights = cal_weights, draws = draws,
                                pointwise = pointwise))
  }
  levels <- .bnn_check_levels(levels)
  cal_levels <- .bnn_check_levels(cal_levels, "cal_levels")
  y_scale <- .bnn_check_y_scale(y_scale)
  all_levels <- c(levels, cal_levels)
  ps <- pred_setup(object, newdata, ndraws)
  n <- nrow(ps$X)
  S <- ps_ndraws(ps)
  if (length(y) != n) stop("'y' must have one value per row of 'newdata'.", call. = FALSE)
  # (plain vectors filled in place: a data frame's column would be copied
  # whole at every block)
  pw <- list(mean = numeric(n), lpd = numeric(n), pit = numeric(n))
  # of each row and level, whether y is inside the interval and its width:
  # the terms of .bnn_coverage_from_bounds()'s column means, kept instead
  # of both bounds (a logical and a double per value rather than two doubles)
  inside <- matrix(NA, n, length(all_levels))
  width <- matrix(NA_real_, n, length(all_levels))
  for (idx in row_blocks(n, S, 3L)) {
    pp <- block_params(object, ps, idx)
    g <- .bnn_check_gauss((pp$mu - yc) / ys, pp$sd / ys, y[idx])
    rm(pp)
    parts <- .bnn_gauss_parts(g, all_levels)
    pw$mean[idx] <- parts$pw$mean
    pw$lpd[idx] <- parts$pw$lpd
    pw$pit[idx] <- parts$pw$pit
    inside[idx, ] <- parts$lo <= y[idx] & y[idx] <= parts$hi
    width[idx, ] <- parts$hi - parts$lo
  }
  cov_all <- data.frame(nominal = all_levels, coverage = colMeans(inside),
                        width = colMeans(width) * y_scale)
  rm(inside, width)
  pw <- as.data.frame(pw)
  .bnn_metrics_gauss_table(pw, cov_all, as.double(y), levels, cal_levels, cal_weights,
                           y_scale, S, pointwise)
}

# The scale of reported metrics: "response" (default) or "standardized";
# the spellings of earlier versions ("original", "standardised") map to them.
metrics_scale <- function(scale) {
  if (!is.character(scale) || length(scale) != 1L || is.na(scale))
    stop("'scale' must be \"response\" or \"standardized\".", call. = FALSE)
  alias <- c(response = "response", original = "response", standardized = "standardized",
             standardised = "standardized")
  if (!scale %in% names(alias))
    stop(sprintf("'scale' must be \"response\" or \"standardized\", not \"%s\".", scale),
         call. = FALSE)
  unname(alias[scale])
}

# One row of scalar metrics from a metrics list.
metrics_row <- function(m) {
  keep <- vapply(m, function(v) is.numeric(v) && length(v) == 1L, logical(1))
  keep[c("n_obs", "n_draws", "y_scale", "n_classes")] <- FALSE
  as.data.frame(m[keep & !is.na(keep)])
}

# Cost of a method's result: gradient evaluations and mean acceptance
# (coverage studies, eval-, and the MDS maps, symmetry-, use it).
method_cost <- function(obj) {
  if (!is_draws_object(obj)) return(list(n_grad = NA_real_, accept = NA_real_, stepsize = NA_real_))
  ng <- sum(obj$n_grad) + if (!is.null(obj$ensemble)) sum(obj$ensemble$n_grad) else 0
  st <- obj$sampler_stats
  acc <- if (!is.null(st) && "accept_stat__" %in% dimnames(st)[[3]])
    mean(st[, obj$chain_status == "ok", "accept_stat__"], na.rm = TRUE) else NA_real_
  step <- if (inherits(obj, "bnn_ensemble")) obj$optimizer$lr else
    mean(obj$stepsize[obj$chain_status == "ok"], na.rm = TRUE)
  list(n_grad = ng, accept = acc, stepsize = step)
}

# bnn_metrics() of a count or Student-t fit on newdata: RMSE of the
# posterior mean on the response's scale, LPPD (log of the mean predictive
# density over draws), and the coverage of equal-tailed predictive
# intervals (integer intervals for counts).
family_metrics <- function(object, newdata, ndraws, levels) {
  pp <- predictive_params(object, newdata, ndraws)
  y <- response_values(object, newdata)
  ll <- family_log_density(pp, y)
  mx <- apply(ll, 2L, max)
  lpd <- mx + log(colMeans(exp(ll - rep(mx, each = nrow(ll)))))
  yv <- if (is.matrix(y)) y[, 1L] else y
  mean_pred <- colMeans(pp$mu)
  lv <- sort(unique(c(levels, 0.5, 0.9, 0.95)))
  # a continuous predictive covers y in its central interval at level l
  # exactly when its CDF at y (the PIT) lies in [(1 - l) / 2, (1 + l) / 2]:
  # one CDF evaluation per draw and point instead of a quantile search per
  # level; counts have integer intervals, decided by the CDF at y and y - 1
  # (count_covered())
  pit <- if (pp$family == "student")
    colMeans(stats::pt((matrix(yv, nrow(pp$mu), ncol(pp$mu), byrow = TRUE) - pp$mu) / pp$sigma,
                       df = pp$nu))
  cov <- data.frame(nominal = lv, coverage = if (!is.null(pit))
    vapply(lv, function(l) mean(pit >= (1 - l) / 2 & pit <= 1 - (1 - l) / 2), numeric(1)) else
      count_covered(pp, yv, lv))
  m <- list(rmse = sqrt(mean((yv - mean_pred)^2)), mae = mean(abs(yv - mean_pred)),
            lppd = mean(lpd), nll = -mean(ll), coverage = cov,
            n_obs = length(yv), n_draws = nrow(ll))
  for (l in c(50, 90, 95))
    m[[paste0("coverage_", l)]] <- cov$coverage[abs(cov$nominal - l / 100) < 1e-9][1]
  m$scale <- "response"
  m
}

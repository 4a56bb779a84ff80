# Predictive metrics: RMSE, LPPD, coverage, calibration error (regression)
# and accuracy, LPPD, Brier score, ECE (classification).

.bnn_check_levels <- function(levels, what = "levels") {
  if (!is.numeric(levels) || !length(levels) || anyNA(levels) ||
      any(levels <= 0) || any(levels >= 1))
    stop("'", what, "' must be nominal coverage levels strictly between 0 and 1",
         call. = FALSE)
  as.double(levels)
}

.bnn_check_y_scale <- function(y_scale) {
  if (!is.numeric(y_scale) || length(y_scale) != 1L || is.na(y_scale) ||
      !is.finite(y_scale) || y_scale <= 0)
    stop("'y_scale' must be a single positive number (the SD used to standardise y)",
         call. = FALSE)
  as.double(y_scale)
}

# Coefficient of determination of the predictive mean.
.bnn_q2 <- function(y, mean) {
  sst <- sum((y - base::mean(y))^2)
  if (length(y) < 2L || !(sst > 0)) return(NA_real_)
  1 - sum((y - mean)^2) / sst
}

# Empirical coverage and mean width from lower/upper quantile matrices n x L.
.bnn_coverage_from_bounds <- function(lo, hi, y, levels, y_scale) {
  inside <- lo <= y & y <= hi   # y recycles down the rows
  data.frame(nominal = levels,
             coverage = colMeans(inside),
             width = colMeans(hi - lo) * y_scale)
}

.bnn_cal_error <- function(nominal, coverage, weights) {
  if (is.null(weights)) weights <- rep(1, length(nominal))
  if (!is.numeric(weights) || length(weights) != length(nominal) || anyNA(weights) ||
      any(weights < 0) || sum(weights) <= 0)
    stop("'cal_weights' must be non-negative weights, one per calibration level",
         call. = FALSE)
  weights <- weights / sum(weights)
  sqrt(sum(weights * (coverage - nominal)^2))
}

# Coverage table from y draws (S x n) with quantile(type = 7).
.bnn_coverage_draws <- function(draws, y, levels, y_scale) {
  if (!is.numeric(draws) || length(dim(draws)) != 2L || ncol(draws) != length(y))
    stop("'draws' must be a numeric matrix of predictive draws, draws x observations (",
         length(y), " columns)", call. = FALSE)
  if (nrow(draws) < 2L) stop("'draws' must have at least 2 rows (draws)", call. = FALSE)
  if (anyNA(draws)) stop("'draws' must not contain NA", call. = FALSE)
  p <- c((1 - levels) / 2, (1 + levels) / 2)
  Q <- apply(draws, 2L, stats::quantile, probs = p, type = 7, names = FALSE)
  Q <- matrix(Q, nrow = length(p))
  L <- length(levels)
  .bnn_coverage_from_bounds(t(Q[seq_len(L), , drop = FALSE]),
                            t(Q[L + seq_len(L), , drop = FALSE]), y, levels, y_scale)
}

#' Empirical coverage of predictive intervals
#'
#' Empirical coverage and mean width of equal-tailed (central) predictive
#' intervals, from q((1 - l)/2) to q((1 + l)/2), at nominal levels l: the share of
#' observations y_i inside their interval (Sommer et al. 2025, Eq. 7).  The
#' predictive distribution is either a Gaussian mixture given by `mu` and
#' `sd` (quantiles computed exactly, see [bnn_mixture_quantile()]) or the
#' empirical distribution of predictive draws `draws` (quantiles by
#' `quantile(type = 7)`, as `jnp.quantile` in the MILE reference code).
#'
#' @inheritParams bnn_mixture_quantile
#' @param y Observed responses, one per column of `mu` (or `draws`).
#' @param levels Nominal coverage levels in (0, 1).
#' @param draws Optional matrix of predictive draws of y, draws x
#'   observations; if given, `mu` and `sd` must be missing or `NULL`.
#' @param y_scale Scale factor of y (the SD used to standardise it): widths
#'   are multiplied by it, so they are on the original scale.
#' @return A data frame with columns `nominal`, `coverage` (empirical) and
#'   `width` (mean interval width).
#' @seealso [bnn_metrics_gaussian()]
#' @examples
#' set.seed(1)
#' y <- rnorm(200)
#' mu <- matrix(rnorm(5 * 200, sd = 0.1), 5, 200)   # 5 draws
#' bnn_coverage(mu, sd = 1, y, levels = c(0.5, 0.9))
#' yd <- mu + matrix(rnorm(5 * 200), 5, 200)         # sampled predictive draws
#' bnn_coverage(y = y, levels = c(0.5, 0.9), draws = yd)
#' @export
bnn_coverage <- function(mu, sd, y, levels = (1:19) / 20, draws = NULL, y_scale = 1) {
  levels <- .bnn_check_levels(levels)
  y_scale <- .bnn_check_y_scale(y_scale)
  if (!is.null(draws)) {
    if ((!missing(mu) && !is.null(mu)) || (!missing(sd) && !is.null(sd)))
      stop("give either 'mu' and 'sd' or 'draws', not both", call. = FALSE)
    if (!is.numeric(y) || anyNA(y)) stop("'y' must be a numeric vector without NA",
                                         call. = FALSE)
    return(.bnn_coverage_draws(draws, as.double(y), levels, y_scale))
  }
  if (missing(mu) || missing(sd) || is.null(mu) || is.null(sd))
    stop("give 'mu' and 'sd' (or 'draws')", call. = FALSE)
  g <- .bnn_check_gauss(mu, sd, y)
  .bnn_coverage_gauss(g, levels, y_scale)
}

.bnn_coverage_gauss <- function(g, levels, y_scale) {
  L <- length(levels)
  Q <- .bnn_gmix_quantile(g, c((1 - levels) / 2, (1 + levels) / 2))
  .bnn_coverage_from_bounds(Q[, seq_len(L), drop = FALSE], Q[, L + seq_len(L), drop = FALSE],
                            g$y, levels, y_scale)
}

#' Predictive metrics for Gaussian-mixture predictions
#'
#' Metrics of a Bayesian model average whose predictive distribution for
#' observation i is the equally weighted mixture over draws s of
#' N(`mu[s, i]`, `sd[s, i]`^2), e.g. one component per posterior draw of a
#' BNN with a Gaussian likelihood, or per deep-ensemble member.
#' \describe{
#'   \item{`rmse`}{root mean squared error of the predictive mean
#'     (the mean over draws of `mu`; Sommer et al. 2024, Sec. 4.3).  The MILE
#'     reference code averages one sampled y per draw instead, which differs
#'     only by Monte Carlo error.}
#'   \item{`q2`}{coefficient of determination of the predictive mean,
#'     Q^2 = 1 - sum_i (y_i - mean_i)^2 / sum_i (y_i - mean(y))^2 (Staber
#'     and Da Veiga 2022; their printed formula divides the sum by a
#'     variance, we use the usual ratio of sums, as their code).  Scale free;
#'     1 is best and it is negative when the mean predicts worse than the
#'     test mean.  `NA` for fewer than 2 observations or a constant `y`.}
#'   \item{`lppd`}{log pointwise predictive density, Eq. (7) of Sommer et
#'     al. (2024) (Eq. 4 of Sommer et al. 2025): the **mean** over test
#'     points (not the sum) of log((1/S) sum_s N(y_i | mu_si, sd_si)),
#'     computed with log-sum-exp, so far-off points do not underflow.}
#'   \item{`cal_error`}{calibration error, Eq. (6) of Sommer et al. (2025):
#'     sqrt(sum_l w_l (coverage_l - nominal_l)^2) with normalised weights
#'     w_l (uniform by default, as in their code) over `cal_levels`
#'     (default 0.5, 0.75, 0.9, 0.95, the levels of their Table 10); a
#'     root-mean-square, not a mean absolute, difference.}
#'   \item{`coverage`}{the table of [bnn_coverage()] at `levels`: empirical
#'     coverage and mean width of equal-tailed intervals.}
#' }
#' All values are on the scale of `y`.  If the data were standardised, pass
#' the SD used for y as `y_scale` to report on the original scale: RMSE and
#' widths are multiplied by it and log(`y_scale`) is subtracted from the
#' LPPD (the change-of-variables Jacobian); coverage and calibration error
#' are scale free.  The papers report the standardised scale (`y_scale = 1`).
#'
#' @inheritParams bnn_coverage
#' @param cal_levels Nominal levels entering the calibration error.
#' @param cal_weights Optional non-negative weights for `cal_levels`
#'   (normalised to sum 1); `NULL` means equal weights.
#' @param draws Optional predictive draws of y (draws x observations); if
#'   given, coverage and calibration error use their quantiles
#'   (`quantile(type = 7)`), as the MILE reference code, instead of the
#'   exact mixture quantiles.
#' @param pointwise If `TRUE`, also return per-observation values.
#' @return A list with `rmse`, `q2`, `lppd`, `cal_error`, `coverage` (data frame),
#'   `cal_levels`, `n_obs`, `n_draws`, `y_scale` and, if `pointwise`, a data
#'   frame `pointwise` with the predictive `mean`, log predictive density
#'   `lpd` and predictive CDF at y, `pit` (all on the scale of `y_scale`).
#' @references Sommer, E., Wimmer, L., Papamarkou, T., Bothmann, L., Bischl,
#'   B. and Ruegamer, D. (2024). Connecting the dots: Is mode-connectedness
#'   the key to feasible sample-based inference in Bayesian neural networks?
#'   ICML. Sommer, E. et al. (2025). Microcanonical Langevin ensembles:
#'   Advancing the sampling of Bayesian neural networks. ICLR.
#' @seealso [bnn_coverage()], [bnn_metrics_class()], [bnn_metrics()]
#' @examples
#' set.seed(1)
#' n <- 100; S <- 20
#' y <- rnorm(n)
#' mu <- matrix(rnorm(S * n, sd = 0.2), S, n)
#' sd <- matrix(0.9, S, n)
#' m <- bnn_metrics_gaussian(mu, sd, y)
#' m[c("rmse", "lppd", "cal_error")]
#' head(m$coverage)
#' # on the original scale of a target standardised with SD 3.2
#' bnn_metrics_gaussian(mu, sd, y, y_scale = 3.2)$lppd
#' @export
bnn_metrics_gaussian <- function(mu, sd, y, levels = (1:19) / 20,
                                 y_scale = 1, cal_levels = c(0.5, 0.75, 0.9, 0.95),
                                 cal_weights = NULL, draws = NULL, pointwise = FALSE) {
  g <- .bnn_check_gauss(mu, sd, y)
  levels <- .bnn_check_levels(levels)
  cal_levels <- .bnn_check_levels(cal_levels, "cal_levels")
  y_scale <- .bnn_check_y_scale(y_scale)
  all_levels <- c(levels, cal_levels)
  if (is.null(draws)) {
    parts <- .bnn_gauss_parts(g, all_levels)
    cov_all <- .bnn_coverage_from_bounds(parts$lo, parts$hi, g$y, all_levels, y_scale)
    pw <- parts$pw
  } else {
    pw <- .Call(C_metrics_gauss, g$mu, g$sd, g$y)
    cov_all <- .bnn_coverage_draws(draws, g$y, all_levels, y_scale)
  }
  .bnn_metrics_gauss_table(pw, cov_all, g$y, levels, cal_levels, cal_weights, y_scale,
                           g$S, pointwise)
}

# Per-observation parts of the Gaussian-mixture metrics of g (from
# .bnn_check_gauss()): mean, lpd and pit (pw), and the lower and upper
# interval bounds at `levels` (n x L each).  Observations are independent,
# so the parts of row blocks can be put together (bnn_metrics.bnnfit()).
.bnn_gauss_parts <- function(g, levels) {
  L <- length(levels)
  Q <- .bnn_gmix_quantile(g, c((1 - levels) / 2, (1 + levels) / 2))
  list(pw = .Call(C_metrics_gauss, g$mu, g$sd, g$y),
       lo = Q[, seq_len(L), drop = FALSE], hi = Q[, L + seq_len(L), drop = FALSE])
}

# The metrics list of bnn_metrics_gaussian() from its per-observation parts.
.bnn_metrics_gauss_table <- function(pw, cov_all, y, levels, cal_levels, cal_weights,
                                     y_scale, S, pointwise = FALSE) {
  g <- list(y = y, n = length(y), S = S)
  L <- length(levels)
  cov <- cov_all[seq_len(L), , drop = FALSE]
  cal <- cov_all[L + seq_along(cal_levels), , drop = FALSE]
  rownames(cov) <- NULL
  out <- list(
    rmse = sqrt(mean((g$y - pw$mean)^2)) * y_scale,
    q2 = .bnn_q2(g$y, pw$mean),
    lppd = mean(pw$lpd) - log(y_scale),
    cal_error = .bnn_cal_error(cal$nominal, cal$coverage, cal_weights),
    coverage = cov,
    cal_levels = cal_levels,
    n_obs = g$n,
    n_draws = g$S,
    y_scale = y_scale)
  if (isTRUE(pointwise))
    out$pointwise <- data.frame(mean = pw$mean, lpd = pw$lpd - log(y_scale), pit = pw$pit)
  out
}

#' Predictive metrics for classification
#'
#' Metrics of predicted class probabilities, already averaged over the
#' posterior draws (the Bayesian model average).
#' \describe{
#'   \item{`accuracy`}{share of observations whose most probable class
#'     (first one on ties) is the label.}
#'   \item{`lppd`}{mean over observations of log `prob[i, y_i]`; with
#'     draw-averaged probabilities this is the LPPD of Sommer et al. (2025,
#'     Eq. 4).  It is `-Inf` if a label has probability 0.}
#'   \item{`brier`}{multi-class Brier score, mean over observations of
#'     sum_k (p_ik - I(y_i = k))^2 (Brier 1950); for two classes this is
#'     twice the common binary version.}
#'   \item{`ece`}{expected calibration error of the top-class confidence
#'     (Guo et al. 2017): with `bins` equal-width bins ((b-1)/B, b/B],
#'     sum_b (n_b / n) |accuracy_b - mean confidence_b|.}
#' }
#'
#' @param prob Matrix of class probabilities, observations x classes, rows
#'   summing to 1; for two classes also a vector of P(second class).
#' @param y Labels: a factor (levels matched to `colnames(prob)` if these
#'   are the level names, else by position), or numbers matched to
#'   `colnames(prob)` when it has them, otherwise 0-based class indices
#'   0, ..., K - 1 as in the UCI classification files.
#' @param bins Number of equal-width confidence bins for the ECE.
#' @return A list with `accuracy`, `lppd`, `brier`, `ece`, `n_obs` and
#'   `n_classes`.
#' @references Guo, C., Pleiss, G., Sun, Y. and Weinberger, K. Q. (2017). On
#'   calibration of modern neural networks. ICML.
#' @seealso [bnn_metrics_gaussian()]
#' @examples
#' prob <- rbind(c(0.7, 0.2, 0.1), c(0.1, 0.8, 0.1), c(0.3, 0.3, 0.4))
#' y <- factor(c("a", "b", "a"), levels = c("a", "b", "c"))
#' bnn_metrics_class(prob, y)
#' @export
bnn_metrics_class <- function(prob, y, bins = 10L) {
  if (!is.numeric(prob)) stop("'prob' must be a numeric matrix (observations x classes)",
                              call. = FALSE)
  if (is.null(dim(prob))) prob <- matrix(c(1 - prob, prob), ncol = 2L)
  if (length(dim(prob)) != 2L || ncol(prob) < 2L)
    stop("'prob' must be a matrix with one column per class (at least 2)", call. = FALSE)
  n <- nrow(prob); K <- ncol(prob)
  if (anyNA(prob) || any(prob < 0) || any(prob > 1))
    stop("'prob' must hold probabilities in [0, 1] without NA", call. = FALSE)
  if (any(abs(rowSums(prob) - 1) > 1e-6))
    stop("each row of 'prob' must sum to 1", call. = FALSE)
  if (length(y) != n)
    stop("'y' must have one label per row of 'prob' (", n, ")", call. = FALSE)
  cn <- colnames(prob)
  if (is.factor(y)) {
    if (!is.null(cn) && all(levels(y) %in% cn)) k <- match(as.character(y), cn)
    else if (nlevels(y) == K) k <- as.integer(y)
    else stop("'y' has ", nlevels(y), " levels but 'prob' has ", K, " columns",
              call. = FALSE)
  } else if (is.numeric(y) || is.character(y)) {
    if (!is.null(cn)) {
      k <- match(as.character(y), cn)
    } else {
      if (!is.numeric(y)) stop("character 'y' needs column names on 'prob'", call. = FALSE)
      k <- ifelse(y == round(y), y + 1, NA)
    }
  } else stop("'y' must be a factor or numeric class labels", call. = FALSE)
  if (anyNA(k) || any(k < 1) || any(k > K))
    stop("'y' has labels that match no column of 'prob'",
         if (is.null(cn) && !is.factor(y)) " (numeric labels are 0-based: 0, ..., K - 1)",
         call. = FALSE)
  k <- as.integer(k)
  if (!is.numeric(bins) || length(bins) != 1L || bins < 1 || bins != round(bins))
    stop("'bins' must be a positive whole number", call. = FALSE)
  p_true <- prob[cbind(seq_len(n), k)]
  pred <- max.col(prob, ties.method = "first")
  correct <- pred == k
  conf <- prob[cbind(seq_len(n), pred)]
  onehot <- matrix(0, n, K)
  onehot[cbind(seq_len(n), k)] <- 1
  b <- pmin(pmax(ceiling(conf * bins), 1), bins)
  acc_b <- tapply(correct, b, mean)
  conf_b <- tapply(conf, b, mean)
  n_b <- tapply(conf, b, length)
  list(accuracy = mean(correct),
       lppd = mean(log(p_true)),
       brier = mean(rowSums((prob - onehot)^2)),
       ece = sum(n_b / n * abs(acc_b - conf_b)),
       n_obs = n, n_classes = K)
}

#' Predictive metrics of a fitted model
#'
#' Generic for the predictive metrics of a fitted model on new data.
#' Methods for the package's fits compute them with
#' [bnn_metrics_gaussian()] (regression) or [bnn_metrics_class()]
#' (classification); see [bnn_paper_lm_baseline()] for the linear-model baseline.
#'
#' @param object A fitted model.
#' @param ... Passed to methods, typically `newdata` and metric options.
#' @return A list of metrics (see [bnn_metrics_gaussian()]).
#' @examples
#' d <- data.frame(x = 1:30, y = 2 * (1:30) + rnorm(30))
#' fit <- bnn_paper_lm_baseline(y ~ x, d[1:20, ])
#' bnn_metrics(fit, newdata = d[21:30, ])$rmse
#' @export
bnn_metrics <- function(object, ...) UseMethod("bnn_metrics")

#' @rdname bnn_metrics
#' @export
bnn_metrics.default <- function(object, ...) {
  stop("no bnn_metrics() method for an object of class '",
       paste(class(object), collapse = "/"), "'. For predictions given as ",
       "Gaussian parameters per draw use bnn_metrics_gaussian(mu, sd, y); for ",
       "class probabilities use bnn_metrics_class(prob, y).", call. = FALSE)
}

# Non-Bayesian baselines of the source papers.

#' Linear-model baseline
#'
#' The linear regression ("LM") baseline of Sommer et al. (2024, Sec. 4.4),
#' fitted by [stats::lm()], with a predictive distribution so that it gets
#' the same metrics as the BNNs.  The papers do not state how they computed
#' the LM's LPPD; two predictive distributions are offered by
#' [bnn_metrics()]:
#' \describe{
#'   \item{`"normal"` (default)}{the plug-in Gaussian N(x'b, s^2) with s the
#'     residual standard deviation (`sigma(fit)`, divisor n - p), evaluated
#'     with [bnn_metrics_gaussian()] as a one-component mixture.}
#'   \item{`"t"`}{the classical prediction distribution: Student t with
#'     n - p degrees of freedom, location x'b and scale
#'     s sqrt(1 + h(x)), h(x) the leverage x'(X'X)^-1 x, which also accounts for the uncertainty of
#'     the coefficients; intervals are those of
#'     `predict(fit, interval = "prediction")`.}
#' }
#'
#' @param formula A model formula, e.g. `y ~ .`.
#' @param data A data frame of training data.
#' @return An object of class `"bnn_lm_baseline"`: a list with the `lm`
#'   fit `fit`, the residual SD `sigma`, its degrees of freedom `df` and
#'   `formula`.
#' @seealso [bnn_metrics()], [bnn_metrics_gaussian()]
#' @examples
#' set.seed(2)
#' d <- data.frame(x1 = rnorm(60), x2 = rnorm(60))
#' d$y <- 1 + d$x1 - d$x2 + rnorm(60, sd = 0.5)
#' fit <- bnn_paper_lm_baseline(y ~ ., d[1:45, ])
#' fit
#' m <- bnn_metrics(fit, newdata = d[46:60, ], levels = c(0.5, 0.9))
#' m[c("rmse", "lppd", "cal_error")]
#' bnn_metrics(fit, newdata = d[46:60, ], predictive = "t")$lppd
#' @family paper reproduction
#' @export
bnn_paper_lm_baseline <- function(formula, data) {
  if (!inherits(formula, "formula"))
    stop("'formula' must be a formula such as y ~ .", call. = FALSE)
  if (!is.data.frame(data)) stop("'data' must be a data frame", call. = FALSE)
  fit <- stats::lm(formula, data = data)
  if (fit$df.residual < 1L)
    stop("the linear model has no residual degrees of freedom (n <= number of ",
         "coefficients)", call. = FALSE)
  structure(list(fit = fit, sigma = stats::sigma(fit), df = fit$df.residual,
                 formula = formula),
            class = "bnn_lm_baseline")
}

#' @export
print.bnn_lm_baseline <- function(x, ...) {
  cat("Linear-model baseline: ", deparse(x$formula), "\n", sep = "")
  cat("  ", length(stats::coef(x$fit)), " coefficients, residual SD ",
      format(x$sigma, digits = 4), " on ", x$df, " degrees of freedom\n", sep = "")
  invisible(x)
}

#' @rdname bnn_paper_lm_baseline
#' @param object A `"bnn_lm_baseline"` object.
#' @param newdata Data frame of test data containing the response.
#' @param predictive `"normal"` (plug-in Gaussian) or `"t"` (see Details).
#' @param levels,cal_levels,cal_weights,y_scale As in
#'   [bnn_metrics_gaussian()].
#' @param ... Unused.
#' @export
bnn_metrics.bnn_lm_baseline <- function(object, newdata, predictive = c("normal", "t"),
                                        levels = (1:19) / 20, y_scale = 1,
                                        cal_levels = c(0.5, 0.75, 0.9, 0.95),
                                        cal_weights = NULL, ...) {
  predictive <- match.arg(predictive)
  if (missing(newdata) || !is.data.frame(newdata))
    stop("'newdata' must be a data frame of test data (with the response)",
         call. = FALSE)
  fit <- object$fit
  mf <- stats::model.frame(stats::terms(fit), newdata, na.action = stats::na.fail,
                           xlev = fit$xlevels)
  y <- as.double(stats::model.response(mf))
  if (!length(y)) stop("'newdata' has no rows", call. = FALSE)
  if (predictive == "normal") {
    mu <- stats::predict(fit, newdata = newdata)
    return(bnn_metrics_gaussian(matrix(mu, nrow = 1L), object$sigma, y,
                                levels = levels, y_scale = y_scale,
                                cal_levels = cal_levels, cal_weights = cal_weights))
  }
  levels <- .bnn_check_levels(levels)
  cal_levels <- .bnn_check_levels(cal_levels, "cal_levels")
  y_scale <- .bnn_check_y_scale(y_scale)
  pr <- stats::predict(fit, newdata = newdata, se.fit = TRUE)
  m <- as.double(pr$fit)
  scl <- sqrt(object$sigma^2 + pr$se.fit^2)
  df <- object$df
  cover <- function(lv) {
    h <- outer(scl, stats::qt((1 + lv) / 2, df))
    .bnn_coverage_from_bounds(m - h, m + h, y, lv, y_scale)
  }
  cov <- cover(levels)
  cal <- cover(cal_levels)
  list(rmse = sqrt(mean((y - m)^2)) * y_scale, q2 = .bnn_q2(y, m),
       lppd = mean(stats::dt((y - m) / scl, df, log = TRUE) - log(scl)) - log(y_scale),
       cal_error = .bnn_cal_error(cal$nominal, cal$coverage, cal_weights),
       coverage = cov, cal_levels = cal_levels, n_obs = length(y),
       n_draws = 1L, y_scale = y_scale)
}

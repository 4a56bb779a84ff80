# A regression data generator of the form of scikit-learn's make_regression
# (the simulated data of Moslemi et al.).

#' Simulated linear regression data (scikit-learn's `make_regression` form)
#'
#' The generator behind the simulated rows of Moslemi et al. (FBNN), who
#' used `sklearn.datasets.make_regression` with 5,000,000 rows and 1,000
#' predictors and no other stated argument.  Its documented model (with
#' `effective_rank = None`): the predictors are independent standard
#' normals, \eqn{x_{ij} \sim N(0, 1)}; `n_informative` of the `p`
#' coefficients, at random positions, are \eqn{100\,U(0, 1)}, the others
#' 0; \eqn{y_i = x_i^\top w + \mathrm{bias} + \mathrm{noise}\,
#' \varepsilon_i}, \eqn{\varepsilon_i \sim N(0, 1)}.  Draws come from R's
#' generator (`set.seed(seed)`), not from NumPy's, so the numbers differ
#' from scikit-learn's for the same seed.
#'
#' @param n Number of rows.
#' @param p Number of predictors.
#' @param n_informative Number of non-zero coefficients (at most `p`).
#' @param noise Standard deviation of the Gaussian noise (>= 0).
#' @param bias Intercept.
#' @param seed Random seed, or `NULL` to use the current stream.
#' @return A data frame with predictors `x1`, ..., `xp` and response `y`,
#'   with the coefficients as attribute `"coef"`.
#' @references Moslemi, Z., Meng, Y., Lan, S. and Shahbaba, B. Scaling up
#'   Bayesian neural networks with neural networks. TMLR.
#' @family paper reproduction
#' @export
#' @examples
#' d <- bnn_paper_make_regression(200, 5, n_informative = 2, noise = 1, seed = 1)
#' w <- attr(d, "coef")
#' w
#' coef(lm(y ~ ., data = d))
bnn_paper_make_regression <- function(n, p, n_informative = 10, noise = 0, bias = 0, seed = NULL) {
  n <- check_count(n, "n", 1L)
  p <- check_count(p, "p", 1L)
  n_informative <- check_count(n_informative, "n_informative", 0L)
  if (n_informative > p)
    stop(sprintf("'n_informative' (%d) must be at most 'p' (%d).", n_informative, p),
         call. = FALSE)
  for (nm in c("noise", "bias")) {
    v <- get(nm)
    if (!is.numeric(v) || length(v) != 1L || !is.finite(v) || (nm == "noise" && v < 0))
      stop(sprintf("'%s' must be a finite number%s.", nm,
                   if (nm == "noise") " >= 0" else ""), call. = FALSE)
  }
  gen <- function() {
    X <- matrix(stats::rnorm(n * p), n, p)
    w <- numeric(p)
    w[sort(sample.int(p, n_informative))] <- 100 * stats::runif(n_informative)
    y <- drop(X %*% w) + bias + noise * stats::rnorm(n)
    d <- as.data.frame(X)
    names(d) <- paste0("x", seq_len(p))
    d$y <- y
    attr(d, "coef") <- w
    d
  }
  if (is.null(seed)) gen() else with_seed(seed, gen())
}

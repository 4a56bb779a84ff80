# The synthetic regression sets of Wiese et al. (2023), Appendix C.1.

#' Synthetic data sets of the symmetry paper
#'
#' Generators for the synthetic regression data of Wiese et al. (2023):
#' * `"sinusoidal"` (\eqn{D_S}): n = 150, \eqn{x \sim U(0, 8)},
#'   \eqn{y = \sin(x) + \varepsilon}, \eqn{\varepsilon \sim N(0, 0.3^2)};
#' * `"regression2d"` (\eqn{D_R}): n = 256, \eqn{x_1, x_2 \sim U(-2, 2)},
#'   \eqn{y \sim N(f(x_1, x_2), 0.1^2)} with, for `formula = "code"`,
#'   \eqn{f = x_1 (\sin x_1 + \cos x_2)} (the authors' code, which their data
#'   file fits), or, for `formula = "printed"`, \eqn{f = x_1 \sin x_1 + \cos
#'   x_2} (the formula printed in the paper).
#'
#' The random numbers are R's, so the values differ from the authors' JAX
#' draws; the files the paper used (`sinusoidal.data`, `izmailov.data`,
#' already standardised) are read with [bnn_read_uci()].  The third synthetic set,
#' \eqn{D_I} (Izmailov et al. 2020), has no published generator.
#'
#' @param name `"sinusoidal"` or `"regression2d"`.
#' @param n Number of observations.
#' @param formula For `"regression2d"`: `"code"` (default) or `"printed"`.
#' @param seed Seed of R's RNG (the caller's RNG state is restored), or
#'   `NULL` to use the current stream.
#' @return A data frame with columns `x` (or `x1`, `x2`) and `y`.
#' @references Wiese, J. G. et al. (2023).  Towards efficient MCMC sampling
#'   in Bayesian neural networks by exploiting symmetry.
#'   \doi{10.48550/arXiv.2304.02902}
#' @family paper reproduction
#' @export
#' @examples
#' d <- bnn_paper_symmetry_data("sinusoidal", seed = 1)
#' plot(d$x, d$y)
#' str(bnn_paper_symmetry_data("regression2d", formula = "printed", seed = 1))
bnn_paper_symmetry_data <- function(name = c("sinusoidal", "regression2d"), n = NULL,
                                    formula = c("code", "printed"), seed = NULL) {
  name <- match_choice(name[1L], c("sinusoidal", "regression2d"), "name")
  formula <- match_choice(formula[1L], c("code", "printed"), "formula")
  n <- check_count(n %||% if (name == "sinusoidal") 150L else 256L, "n", 1L)
  gen <- function() {
    if (name == "sinusoidal") {
      x <- stats::runif(n, 0, 8)
      return(data.frame(x = x, y = sin(x) + stats::rnorm(n, 0, 0.3)))
    }
    x1 <- stats::runif(n, -2, 2)
    x2 <- stats::runif(n, -2, 2)
    f <- if (formula == "code") x1 * (sin(x1) + cos(x2)) else x1 * sin(x1) + cos(x2)
    data.frame(x1 = x1, x2 = x2, y = stats::rnorm(n, f, 0.1))
  }
  if (is.null(seed)) gen() else with_seed(check_count(seed, "seed", 0L), gen())
}

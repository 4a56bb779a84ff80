# Coverage over many training sets (Staber and Da Veiga): PICP per
# training set, CCP per test point, MCP, the mean absolute error of CCP and
# MCP against the level, from the indicator array I[j, i] = 1{y*_i in the
# interval of fit j}.

#' Coverage metrics from an indicator matrix
#'
#' With `I[j, i]` = 1 when test response i lies in the level-`level`
#' prediction interval of the method fitted to training set j (one shared
#' test set), Staber and Da Veiga's estimators are
#' * `picp`: the prediction interval coverage probability of each training
#'   set, the row means (what a single train/test split reports);
#' * `ccp`: the conditional coverage probability of each test point, the
#'   column means (coverage over training sets at that input);
#' * `mcp`: the marginal coverage probability, the mean of all entries;
#' * `mae_ccp`: the mean over test points of |CCP_i - level|.  The authors'
#'   later code compares the CCP of the (1 - alpha) interval with alpha;
#'   here it is compared with the interval's own level;
#' * `mcp_se`: the Monte Carlo standard error of `mcp` over training sets,
#'   sd(picp) / sqrt(number of sets) (the test set held fixed).
#'
#' @param I A logical or 0/1 matrix, training sets x test points (rows of
#'   failed fits may be `NA`; they are left out).
#' @param level The nominal level of the intervals, in (0, 1).
#' @return A list with `picp`, `ccp`, `mcp`, `mcp_se`, `mae_ccp` and
#'   `n_sets` (the rows used).
#' @export
#' @examples
#' set.seed(1)
#' I <- matrix(runif(20 * 50) < 0.9, 20, 50)
#' str(bnn_coverage_metrics(I, level = 0.9))
bnn_coverage_metrics <- function(I, level) {
  if (!(is.logical(I) || is.numeric(I)) || length(dim(I)) != 2L)
    stop("'I' must be a logical matrix, training sets x test points.", call. = FALSE)
  level <- check_prob(level, "level")
  ok <- stats::complete.cases(I)
  I <- I[ok, , drop = FALSE]
  n <- nrow(I)
  if (n < 1L) stop("'I' has no complete row (every fit failed).", call. = FALSE)
  picp <- rowMeans(I)
  ccp <- colMeans(I)
  list(picp = picp, ccp = ccp, mcp = mean(I),
       mcp_se = if (n > 1L) stats::sd(picp) / sqrt(n) else NA_real_,
       mae_ccp = mean(abs(ccp - level)), n_sets = n)
}

# Lower and upper interval bounds (points x levels) from predictive means
# and noise sds (draws x points).
#   quantile: exact equal-tailed quantiles of the predictive distribution of
#             f + sigma xi (the mixture over draws of N(mu_s, sd_s^2));
#   sampled:  empirical quantiles (type 7) of one draw f_s + sd_s xi_s per
#             posterior draw, as the authors' code;
#   gaussian: mean +- z sqrt(Var_s mu_s + mean_s sd_s^2).
predictive_bounds <- function(mu, sd, levels, type, seed) {
  g <- .bnn_check_gauss(mu, sd, numeric(ncol(mu)))
  L <- length(levels)
  p <- c((1 - levels) / 2, (1 + levels) / 2)
  if (type == "quantile") {
    Q <- .bnn_gmix_quantile(g, p)
  } else if (type == "sampled") {
    ys <- with_seed(seed, g$mu + g$sd * matrix(stats::rnorm(length(g$mu)), g$S, g$n))
    Q <- t(matrix(apply(ys, 2L, stats::quantile, probs = p, type = 7, names = FALSE),
                  nrow = length(p)))
  } else {
    m <- colMeans(g$mu)
    v <- colMeans(sweep(g$mu, 2L, m)^2) + colMeans(g$sd^2)
    Q <- m + outer(sqrt(v), stats::qnorm(p))
  }
  list(lower = Q[, seq_len(L), drop = FALSE], upper = Q[, L + seq_len(L), drop = FALSE])
}

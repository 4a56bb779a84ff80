# The fit's convergence verdict, in function space.
#
# For a BNN, R-hat of the raw parameters is expected to be large: the
# posterior is symmetric under permutations and sign flips of hidden neurons,
# and chains sit in different, equivalent modes (Wiese et al. 2023; Sommer
# et al. 2024, Sec. 6.2).  What the papers treat as convergence is
#   * each chain stationary within its own mode: chain-wise R-hat (R-hat of
#     kappa = 4 sub-chains of one chain, Sommer et al. 2024, Sec. 3.4), here
#     of functions of the parameters that are identified: the prediction at
#     each training input and the training log-likelihood, with the
#     paper's threshold 1.1;
#   * no chain stuck in a much worse mode than the others (the chain-wise
#     LPPD comparison of Sommer et al. 2024, Sec. 3.7, "detects outlier
#     chains"), here on the training log-likelihood;
#   * between-chain disagreement in function space is *not* penalised (their
#     guideline 9): it is reported as information, since a posterior with
#     several functionally different modes needs chains in each.

#' Convergence verdict of a fit, in three parts
#'
#' A Bayesian neural network's weights are not identified, so raw parameter
#' R-hat and ESS measure its symmetries, not convergence.  The verdict asks
#' three questions of identified quantities instead, and keeps them apart:
#'
#' 1. **Are the predictions reliable?**  This is what `bnn_fit()` warns
#'    about (class `bnnmc_unreliable_predictions`).  At the training inputs
#'    (at most `max_points` of them), with the predictive distribution of
#'    all chains pooled:
#'    * *Monte Carlo error across chains*: the standard error of the pooled
#'      predictive mean that comes from the chains' disagreement (the sd of
#'      the chains' means over the square root of their number), in units of
#'      the predictive sd.  Its 90% quantile over points must be at most
#'      `mc_error` (0.1: the answer's mean is known to a tenth of its own
#'      spread, which moves the log predictive density by about 0.005 nats).
#'      Chains in different modes make this error large on some data (the
#'      UCI sets yacht, energy, concrete and airfoil, where the default's
#'      two chains per model give 0.3 to 0.5): there the chains not run
#'      would still change the predictions on new data (by 0.03 to 2 nats
#'      per test point in `vignette("benchmarks")`, "Is NOT reliable
#'      true?"), so the verdict says so even where the fit predicts well.
#'    * *Drift*: the pooled predictive mean of the first half of every chain
#'      against that of the second half, in units of the predictive sd; 90%
#'      quantile over points at most `drift` (0.2: about 0.02 nats).
#'    * *Calibration*: the coverage of the leave-one-out 90% predictive
#'      intervals (PSIS LOO-PIT; Gaussian and Student-t likelihoods) must lie in the 99%
#'      binomial band around 0.9 for that many points (see also
#'      `pp_check(fit, type = "loo_pit_overlay")`).
#' 2. **Is the fit level stationary?**  Within every chain, the chain-wise
#'    R-hat (Sommer et al. 2024, Sec. 3.4: 4 consecutive sub-chains of one
#'    chain) of the training log-likelihood and of the predictions (90%
#'    quantile over points) is at most `threshold` (1.1), and no chain sits
#'    far below the others in training log-likelihood (an outlier chain:
#'    more than 4 within-chain sds and 0.05 nats per point below the median
#'    chain; Sec. 3.7).  On some data (the UCI sets yacht, energy, concrete
#'    and airfoil) the fit level of BNN chains keeps drifting slowly with
#'    every sampler tried, NUTS included (`vignette("benchmarks")`); the
#'    predictions can still be reliable.  `print()` and `summary()` report
#'    this part in words; it is not a warning.
#' 3. **Does the model fit?**  Chains that agree can all miss the data's
#'    shape (a prior too smooth for a sharp feature on few rows).  The
#'    leave-one-out quantile residuals of the same training points,
#'    \eqn{z_i = \Phi^{-1}(u_i)} with \eqn{u_i} the PSIS-LOO predictive CDF
#'    at \eqn{y_i} (randomised between the CDF below and at \eqn{y_i} for
#'    counts and binary responses, Dunn and Smyth 1996, with the fit's
#'    seed), are regressed on each input and on the fitted values by
#'    natural cubic splines (`splines::ns()`) of 2 and of up to 6 degrees
#'    of freedom (at most one per 5 points; the better of the two, its
#'    p-value doubled; a linear term for columns with fewer than 5
#'    distinct values).  Structure is left where a spline is significant at
#'    0.001 (F test) after Holm's correction over the terms *and* explains
#'    at least 10% of the residuals' variance (adjusted R-squared; so that
#'    many rows do not make negligible structure significant).  The line
#'    names those inputs and one next step: a wider prior
#'    (`prior = bnn_prior(scale = 3, fan_in = TRUE)`, which removes the
#'    structure the default leaves on `MASS::mcycle`), then, once the prior
#'    is that wide, a wider network or transformed inputs; a linear model is
#'    pointed to the network.  It uses at most `max_points` rows, so its
#'    cost stays small on large data, and it is left out (`adequacy` is
#'    `NULL`) for categorical responses and fewer than 20 points.  On the
#'    panel of
#'    `inst/benchmarks/decisions/adequacy_panel.R` (22 regression sets and
#'    four UCI sets on their benchmark split, and mcycle's README split)
#'    it fired on none of the 25 default fits whose test RMSE was within
#'    15% of the best of `lm()`, `gam()`, `loess()` and `smooth.spline()`,
#'    and on 2 of the 4 fits that were not (the linear models of trees and
#'    mcycle; it missed hills and airquality, 23% and 19% behind), at
#'    about 0.4% of the fit's time (at most 2%).  It is reported by
#'    `print()` and `summary()`, not warned about.
#'
#' Chains that disagree with each other are not a failure in themselves (a
#' multimodal posterior needs chains in several modes): the R-hat across
#' chains is reported as information, and their disagreement enters the
#' verdict only through the Monte Carlo error of the pooled answer.
#'
#' Each remedy is offered once: a longer run only to a fit that has not
#' been lengthened yet (fewer than 2,000 draws per chain), more chains only
#' to a fit with at most 4; a fit that has followed the advice gets the
#' next step instead of the same advice again.
#'
#' @param object A `bnnfit`.
#' @param threshold Chain-wise R-hat threshold of the fit-level part (1.1,
#'   as the paper).
#' @param max_points At most this many training points (evenly spaced) are
#'   used.
#' @param min_draws Fewer draws per chain than this cannot be judged.
#' @param parameters Also compute the parameter-space chain-wise R-hat after
#'   removing the symmetries (slower; `summary()` asks for it).
#' @param mc_error,drift Thresholds of the predictions' part, in units of
#'   the predictive sd (see above).
#' @return An object of class `bnn_convergence`: a list with
#'   `predictions` (`reliable`: `TRUE`, `FALSE` or `NA`; `mc_error`,
#'   `drift`, `loo_coverage`, `coverage_band`, `reasons`), `fit_level`
#'   (`stationary` and `reasons`), `converged` (both parts pass), `chains`
#'   (one row per chain that did not fail: `chain`, `rhat_loglik`,
#'   `rhat_f_q90`, `loglik_mean` per training point, `stationary`,
#'   `outlier`), `between` (R-hat across chains of the log-likelihood and
#'   the median over points of the predictions'), `reasons` (of both
#'   parts), `remedy` (what to run or do when the predictions are not
#'   reliable), `adequacy` (the third part, or `NULL` where it does not
#'   apply: `adequate`, `inputs` with structure left, `tests` (one row per
#'   input and the fitted values: `term`, `p`, `r2`, `p_holm`,
#'   `structure`), `reasons`, `remedy`, `points`, and `spread`: the same
#'   splines of the residuals' absolute values, whether the noise's spread
#'   varies, with `tests`, `p_min` and `varies`) and the settings.
#' @references Sommer, E., Wimmer, L., Papamarkou, T., Bothmann, L., Bischl,
#'   B., and Rügamer, D. (2024). Connecting the dots: is mode-connectedness
#'   the key to feasible sample-based inference in Bayesian neural networks?
#'   ICML.
#'
#'   Yao, Y., Vehtari, A., and Gelman, A. (2022). Stacking for non-mixing
#'   Bayesian computations: the curse and blessing of multimodal posteriors.
#'   JMLR 23.
#'
#'   Dunn, P. K., and Smyth, G. K. (1996). Randomized quantile residuals.
#'   Journal of Computational and Graphical Statistics 5, 236-244.
#' @seealso [bnn_diagnostics()], [bnn_function_rhat()]
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2,
#'                warmup = 200, iter = 200, seed = 1, progress = FALSE, sampler = "nuts")
#' bnn_convergence(fit)
bnn_convergence <- function(object, threshold = 1.1, max_points = 500, min_draws = 100,
                            parameters = FALSE, mc_error = 0.1, drift = 0.2) {
  convergence_verdict(object, threshold, max_points, min_draws, parameters, mc_error, drift)
}

# The verdict itself.  With keep_loglik = TRUE and no observation weights,
# the unweighted pointwise log-likelihood of the draws [draw, point] at the
# training points the verdict used (all of them up to max_points, else
# max_points evenly spaced ones, attribute "loglik_points") is kept as the
# attribute "pointwise_loglik" of the result: the default model's check
# reuses it for the network's PSIS-LOO instead of a second forward pass
# over all draws (R/fit-choice.R), and drops it from the fit it returns.
convergence_verdict <- function(object, threshold = 1.1, max_points = 500, min_draws = 100,
                                parameters = FALSE, mc_error = 0.1, drift = 0.2,
                                keep_loglik = FALSE, adequacy = TRUE) {
  if (!inherits(object, "bnnfit")) stop("'object' must be a bnnfit.", call. = FALSE)
  threshold <- check_positive(threshold, "threshold")
  if (threshold < 1) stop("'threshold' must be at least 1.", call. = FALSE)
  max_points <- check_count(max_points, "max_points", 1L)
  min_draws <- check_count(min_draws, "min_draws", 4L)
  mc_error <- check_positive(mc_error, "mc_error")
  drift <- check_positive(drift, "drift")
  ok <- which(object$chain_status == "ok")
  S <- dim(object$draws)[1]
  out <- list(converged = NA, predictions = list(reliable = NA, reasons = character(0)),
              fit_level = list(stationary = NA, reasons = character(0)),
              chains = NULL, between = NULL, reasons = character(0),
              remedy = NULL, threshold = threshold, mc_error_max = mc_error, drift_max = drift,
              n_draws = S, n_chains = length(ok), n_points = NA_integer_, parameters = NULL)
  class(out) <- "bnn_convergence"
  if (!length(ok)) {
    out$reasons <- "every chain failed"
    return(out)
  }
  if (S < min_draws) {
    out$reasons <- sprintf("%d draws per chain are too few to judge (at least %d)", S, min_draws)
    out$remedy <- sprintf("update(fit, iter = %d)", max(2L * S, 1000L))
    return(out)
  }
  n <- nrow(object$X)
  idx <- if (n > max_points) unique(round(seq(1, n, length.out = max_points))) else seq_len(n)
  out$n_points <- length(idx)
  fs <- function_draws(object, idx)          # [S * K, points] and loglik [S * K]
  K <- length(ok)
  arr_f <- array(fs$f, c(S, K, ncol(fs$f)))
  arr_ll <- array(fs$loglik, c(S, K, 1L))
  # part 2: the fit level, chain by chain
  cw_f <- bnn_chainwise_rhat(arr_f, kappa = 4)              # K x points
  cw_ll <- bnn_chainwise_rhat(arr_ll, kappa = 4)[, 1]
  q90 <- apply(cw_f, 1L, function(r) if (all(is.na(r))) NA_real_ else
    stats::quantile(r, 0.9, na.rm = TRUE, names = FALSE))
  ll_chain <- colMeans(matrix(fs$loglik, S, K))
  # a robust within-chain scale: the median chain's sd (a stuck chain's own
  # spread must not hide it)
  ll_sd <- stats::median(apply(matrix(fs$loglik, S, K), 2L, stats::sd))
  gap <- stats::median(ll_chain) - ll_chain
  outlier <- K > 2L & gap > max(4 * ll_sd, 0.05 * length(idx))
  stationary <- !is.na(cw_ll) & cw_ll <= threshold & !is.na(q90) & q90 <= threshold
  out$chains <- data.frame(chain = (object$chain_id %||% seq_along(object$chain_status))[ok],
                           rhat_loglik = unname(cw_ll), rhat_f_q90 = unname(q90),
                           loglik_mean = unname(ll_chain) / length(idx),
                           stationary = stationary, outlier = outlier)
  if (K > 1L) {
    rb_f <- bnn_rhat(arr_f)
    out$between <- c(rhat_loglik = unname(bnn_rhat(arr_ll)),
                     rhat_f_median = stats::median(rb_f, na.rm = TRUE))
  }
  fl <- character(0)
  if (any(!stationary))
    fl <- c(fl, sprintf(
      "the training log-likelihood or the predictions still drift within chain(s) %s (chain-wise R-hat of the log-likelihood %s, of the predictions (90%% quantile over points) %s; threshold %s)",
      paste(out$chains$chain[!stationary], collapse = ", "),
      paste(formatC(cw_ll[!stationary], digits = 3, format = "f"), collapse = ", "),
      paste(formatC(q90[!stationary], digits = 3, format = "f"), collapse = ", "),
      format(threshold)))
  if (any(outlier))
    fl <- c(fl, sprintf(
      "chain(s) %s sit in mode(s) with a much lower training log-likelihood than the other chains (%s nats per point below the median chain)",
      paste(out$chains$chain[outlier], collapse = ", "),
      paste(formatC(gap[outlier] / length(idx), digits = 2, format = "f"), collapse = ", ")))
  out$fit_level <- list(stationary = !length(fl), reasons = fl)
  # part 1: the pooled predictions
  out$predictions <- prediction_reliability(object, fs, S, K, mc_error, drift)
  out$reasons <- c(out$predictions$reasons, fl)
  out$converged <- isTRUE(out$predictions$reliable) && out$fit_level$stationary
  if (isFALSE(out$predictions$reliable)) out$remedy <- prediction_remedy(object, out)
  # part 3: does the model fit? (R/diag-adequacy.R)
  # (a failure of the check is said in its line, not hidden)
  if (adequacy) out$adequacy <- tryCatch(model_adequacy(object, fs, idx), error = function(e)
    list(adequate = NA, reasons = conditionMessage(e), points = length(idx)))
  if (parameters) out$parameters <- symmetry_free_cw(object, threshold)
  if (keep_loglik && is.null(object$weights)) {
    attr(out, "pointwise_loglik") <- fs$loglik_point
    attr(out, "loglik_points") <- idx
  }
  out
}

# The predictions' part of the verdict from function_draws(): the Monte Carlo
# error of the pooled predictive mean across chains and its drift between
# the halves of the run, both in units of the pooled predictive sd (90%
# quantile over points), and the LOO-PIT coverage of 90% intervals.
prediction_reliability <- function(object, fs, S, K, mc_error, drift) {
  # fs$f is [draw, point] with the draws chain by chain (S per chain); all
  # summaries are column means of it, of its square deviations or of a
  # chain's or a half's rows
  f <- fs$f
  P <- ncol(f)
  # the pooled predictive sd at each point: the variance of the mean over
  # all draws of all chains plus the mean noise variance
  m <- colMeans(f)
  psd <- sqrt(pmax(colSums((f - rep(m, each = nrow(f)))^2) / (nrow(f) - 1L), 0) +
              pmax(colMeans(fs$noise_var), 0))
  psd[!is.finite(psd) | psd <= 0] <- NA_real_
  q90 <- function(z) if (all(is.na(z))) NA_real_ else
    stats::quantile(z, 0.9, na.rm = TRUE, names = FALSE)
  chain <- rep(seq_len(K), each = S)
  mce <- if (K > 1L) {
    cm <- rowsum(f, chain, reorder = FALSE) / S                  # chain means, K x P
    cs <- sqrt(colSums((cm - rep(colMeans(cm), each = K))^2) / (K - 1L))
    q90(cs / sqrt(K) / psd)
  } else NA_real_
  first <- rep(seq_len(S) <= S %/% 2L, K)
  dr <- q90(abs(colMeans(f[first, , drop = FALSE]) - colMeans(f[!first, , drop = FALSE])) / psd)
  cov <- fs$loo_coverage
  band <- 0.9 + c(-1, 1) * stats::qnorm(0.995) * sqrt(0.09 / P)
  why <- character(0)
  if (!is.na(mce) && mce > mc_error)
    why <- c(why, sprintf(
      "the chains disagree: the pooled predictive mean has a Monte Carlo error of %.2f predictive sd (90%% quantile over training points; at most %s)",
      mce, format(mc_error)))
  if (!is.na(dr) && dr > drift)
    why <- c(why, sprintf(
      "the predictions moved during the run: the pooled predictive mean of the second half of the draws differs from the first half's by %.2f predictive sd (90%% quantile over training points; at most %s)",
      dr, format(drift)))
  if (!is.na(cov) && (cov < band[1] || cov > band[2]))
    why <- c(why, sprintf(
      "the leave-one-out 90%% predictive intervals cover %.0f%% of the training points (expected 90%%, %.0f-%.0f%% for %d points): the intervals are too %s",
      100 * cov, 100 * band[1], 100 * band[2], P, if (cov < 0.9) "narrow" else "wide"))
  list(reliable = !length(why), mc_error = mce, drift = dr, loo_coverage = cov,
       coverage_band = band, reasons = why)
}

# What to do when the predictions are not reliable: each remedy is offered
# once (a longer run to a fit of fewer than 2,000 draws per chain, more
# chains to a fit of at most 4); after it the advice is the next step.
prediction_remedy <- function(object, cv) {
  pr <- cv$predictions
  S <- cv$n_draws
  K <- cv$n_chains
  steps <- character(0)
  if (!is.na(pr$drift) && pr$drift > cv$drift_max) {
    steps <- c(steps, if (S < 2000L) sprintf("update(fit, iter = %d) (a longer run)", max(2L * S, 2000L))
                      else sprintf(paste0("a longer run did not settle the predictions (%d draws per ",
                                          "chain): treat them as uncertain and check them on ",
                                          "held-out data (bnn_metrics(fit, newdata) or kfold(fit))"), S))
  }
  if (!is.na(pr$mc_error) && pr$mc_error > cv$mc_error_max) {
    need <- ceiling(K * (pr$mc_error / cv$mc_error_max)^2)
    steps <- c(steps, if (length(object$chain_status) <= 4L && need <= 64L)
      sprintf("update(fit, chains = %d) (the Monte Carlo error falls with the square root of the number of chains)", need)
      else sprintf(paste0("the chains sit in modes that predict differently and %d chains would be needed ",
                          "to average them: %sreport the spread between them as part of the uncertainty"),
                   need,
                   # a mixture of two models (the default's check) has no one set of
                   # chains for bnn_stack_chains() to weight
                   if (is.null(object$mixture)) "weight the chains by held-out data (bnn_stack_chains()) or " else ""))
  }
  if (!is.na(pr$loo_coverage) && (pr$loo_coverage < pr$coverage_band[1] ||
                                  pr$loo_coverage > pr$coverage_band[2]))
    steps <- c(steps, paste0("no sampler setting changes the model's calibration: ",
                             # the default's stack already weighs both Gaussian
                             # likelihoods; a heteroscedastic fit alone is pointed
                             # to the others, a homoscedastic one to it
                             if (identical(object$mixture$kind, "likelihood") &&
                                 has_student_component(object))
                               paste0("the stack already weighs the heteroscedastic Gaussian ",
                                      "and the Student-t likelihood; compare a wider prior or ",
                                      "another network size")
                             else if (identical(object$mixture$kind, "likelihood"))
                               paste0("the stack already weighs both Gaussian likelihoods; ",
                                      "compare family = student() (heavy tails)")
                             else if (identical(object$likelihood$family, "hetero_gaussian"))
                               paste0("compare a likelihood with one noise scale (likelihood = ",
                                      "\"gaussian\", or family = student() for heavy tails)")
                             else "compare a likelihood for unequal noise (likelihood = \"hetero_gaussian\")",
                             " with loo() and check the intervals on held-out data"))
  paste(steps, collapse = "; ")
}

# Draws of the network's prediction (the mean for regression, the
# probability of the observed class for classification), the variance of
# the observation noise around it, and the log-likelihood summed over the
# training points idx: rows are the draws of the chains that did not fail,
# chain by chain.  For Gaussian likelihoods also the LOO-PIT coverage of
# 90% intervals at those points (PSIS with relative efficiency 1).
function_draws <- function(object, idx) {
  # the network's chains (not a mixture's draws) at the points idx, unweighted
  sub <- bnnfit_with(network_only(object), X = object$X[idx, , drop = FALSE],
                     y = if (is.null(dim(object$y))) object$y[idx] else object$y[idx, , drop = FALSE],
                     offset = if (!is.null(object$offset)) object$offset[idx], weights = NULL)
  # one forward pass over the draws for both (regression)
  pp <- if (!is_classification(object)) predictive_params(sub, NULL)
  ll_point <- pointwise_loglik_unweighted(sub, pp = pp)
  w <- if (is.null(object$weights)) 1 else object$weights[idx]
  loglik <- as.vector(ll_point %*% rep_len(w, ncol(ll_point)))
  if (is_classification(object)) {
    f <- exp(ll_point)
    noise_var <- f * (1 - f)
    cov <- NA_real_
  } else {
    f <- pp$mu
    # the noise's variance around the mean; a Student-t's squared scale
    # (its variance is infinite for nu <= 2)
    noise_var <- if (identical(pp$family, "student")) matrix(pp$sigma^2, nrow(f), ncol(f))
                 else pp$sd^2
    pit <- loo_pit_continuous(ll_point, response_values(sub, NULL), pp)
    cov <- loo_pit_coverage(pit, 0.9)
  }
  # the probability of the second class (Bernoulli), for the adequacy part
  prob1 <- if (identical(object$likelihood$family, "bernoulli"))
    ifelse(matrix(as.integer(sub$y) == 2L, nrow(f), ncol(f), byrow = TRUE), f, 1 - f)
  list(f = unname(f), noise_var = unname(noise_var), loglik = loglik, loo_coverage = cov,
       loglik_point = ll_point, pp = pp, prob1 = prob1,
       loo_pit = if (!is_classification(object)) pit,
       fitted = unname(colMeans(if (is.null(prob1)) f else prob1)))
}

# The leave-one-out PIT of each point (the PSIS-weighted predictive CDF at
# its observed value) for the continuous likelihoods, from at most
# `max_draws` draws, evenly spaced (the PSIS fits cost in proportion): the
# verdict's coverage and the adequacy part's residuals both read it.  NULL
# for the count and binary likelihoods (their PIT needs randomising: the
# adequacy part does that), NA where the PSIS weights cannot be computed.
loo_pit_continuous <- function(ll_point, y, pp, max_draws = 1000L) {
  if (!is.null(pp$family) && !identical(pp$family, "student")) return(NULL)
  S <- nrow(ll_point)
  if (S > max_draws) {
    keep <- unique(round(seq(1, S, length.out = max_draws)))
    ll_point <- ll_point[keep, , drop = FALSE]
    pp <- list(family = pp$family, mu = pp$mu[keep, , drop = FALSE],
               sd = pp$sd[keep, , drop = FALSE],
               # one scale per draw, or per draw and point (a mixture's, student_block())
               sigma = if (is.matrix(pp$sigma)) pp$sigma[keep, , drop = FALSE] else pp$sigma[keep],
               nu = pp$nu[keep])
  }
  lw <- psis_log_weights(-ll_point)$log_weights
  if (anyNA(lw)) return(rep(NA_real_, ncol(ll_point)))
  Y <- matrix(y, nrow(pp$mu), ncol(pp$mu), byrow = TRUE)
  cdf <- if (identical(pp$family, "student")) stats::pt((Y - pp$mu) / pp$sigma, df = pp$nu)
         else stats::pnorm(Y, pp$mu, pp$sd)
  colSums(exp(lw) * cdf)
}

# Share of the points whose leave-one-out PIT (loo_pit_continuous()) lies
# inside the central `level` interval; NA without one.
loo_pit_coverage <- function(pit, level) {
  if (is.null(pit) || anyNA(pit)) return(NA_real_)
  a <- (1 - level) / 2
  mean(pit > a & pit < 1 - a)
}

# Share of parameters whose chain-wise R-hat exceeds the threshold after the
# symmetries are removed (NULL where the activation has no canonical form).
symmetry_free_cw <- function(object, threshold) {
  canon <- tryCatch(suppressWarnings(bnn_remove_symmetries(object)), error = function(e) NULL)
  if (is.null(canon)) return(NULL)
  cw <- bnn_chainwise_rhat(canon)
  list(share_above = mean(cw > threshold, na.rm = TRUE),
       median = stats::median(cw, na.rm = TRUE))
}

#' @export
format.bnn_convergence <- function(x, ...) {
  if (is.na(x$converged) && is.null(x$chains))
    return(c(verdict = sprintf("cannot be judged: %s", paste(x$reasons, collapse = "; "))))
  pr <- x$predictions
  stats_txt <- paste0(
    if (!is.na(pr$mc_error)) sprintf("Monte Carlo error %.2f, ", pr$mc_error) else "",
    sprintf("drift %.2f predictive sd", pr$drift),
    if (!is.na(pr$loo_coverage)) sprintf("; LOO 90%% intervals cover %.0f%%", 100 * pr$loo_coverage) else "")
  p_line <- if (isTRUE(pr$reliable)) sprintf("reliable (%s)", stats_txt)
            else sprintf("NOT reliable: %s. What to do: %s", paste(pr$reasons, collapse = "; "), x$remedy)
  btw <- if (!is.null(x$between))
    sprintf("; across chains R-hat %.2f (log-likelihood), %.2f (predictions, median)%s",
            x$between[["rhat_loglik"]], x$between[["rhat_f_median"]],
            if (max(x$between, na.rm = TRUE) > x$threshold)
              ": the chains sit in different modes, and their mixture is the answer" else "")
    else ""
  f_line <- if (isTRUE(x$fit_level$stationary))
    sprintf("stationary (chain-wise R-hat <= %s in every chain over %d training points, no outlier chain)%s",
            format(x$threshold), x$n_points, btw)
  else sprintf(paste0("still moving: %s. The chains have not settled at one level of fit to the ",
                      "training data, as BNN chains often do not on some data with any sampler; ",
                      "%s%s"),
               paste(x$fit_level$reasons, collapse = "; "),
               if (isTRUE(pr$reliable)) "the predictions above are stable all the same"
               else "see the predictions' verdict above", btw)
  c(predictions = p_line, fit_level = f_line, model_fit = format_adequacy(x$adequacy))
}

#' @export
print.bnn_convergence <- function(x, digits = 3, ...) {
  lines <- format(x)
  labels <- c(predictions = "Predictions reliable?", fit_level = "Fit level stationary?",
              model_fit = "Does the model fit?", verdict = "Convergence")
  for (nm in names(lines))
    cat(strwrap(lines[[nm]], exdent = 2, width = 76, initial = paste0(labels[[nm]], " ")), sep = "\n")
  if (!is.null(x$chains)) print(format(x$chains, digits = digits), row.names = FALSE)
  if (!is.null(x$parameters))
    cat(sprintf("Parameter space, symmetries removed: chain-wise R-hat > %s for %.0f%% of the parameters (median %.3f)\n",
                format(x$threshold), 100 * x$parameters$share_above, x$parameters$median))
  invisible(x)
}

# The verdict's lines in print() of a fit.
print_convergence_lines <- function(cv) {
  if (is.null(cv)) return(invisible())
  lines <- format(cv)
  labels <- c(predictions = " predictions:  ", fit_level = " fit level:    ",
              model_fit = " model fit:    ", verdict = " convergence:  ")
  for (nm in names(lines))
    cat(strwrap(lines[[nm]], width = 78, initial = labels[[nm]], exdent = 14), sep = "\n")
  invisible()
}

# Computed at the end of bnn_fit(); predictions that are not reliable are a
# warning with what to do, as rstan warns about R-hat and divergences.  A
# fit level that still moves is reported by print() and summary(), not
# warned about.
check_convergence <- function(fit, keep_loglik = FALSE) {
  cv <- tryCatch(convergence_verdict(fit, keep_loglik = keep_loglik), error = function(e) NULL)
  if (is.null(cv)) return(NULL)
  if (isFALSE(cv$predictions$reliable)) warning(unreliable_condition(cv))
  cv
}

# The warning of a verdict whose predictions are not reliable: the reasons
# and the remedy.
unreliable_condition <- function(cv) {
  structure(class = c("bnnmc_unreliable_predictions", "bnnmc_not_converged", "bnnmc_warning",
                      "warning", "condition"),
            list(message = paste0("The predictions are not reliable yet: ",
                                  paste(cv$predictions$reasons, collapse = "; "), ". What to do: ",
                                  cv$remedy, " (see ?bnn_convergence)."),
                 call = NULL))
}

# The fit's convergence verdict: the one computed at the end of bnn_fit(),
# or computed now for a fit that has none (joined or older fits).
fit_convergence <- function(x) {
  if (!is.null(x$convergence)) return(x$convergence)
  if (!inherits(x, "bnnfit") || is.null(x$X)) return(NULL)
  tryCatch(bnn_convergence(x), error = function(e) NULL)
}

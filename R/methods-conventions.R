# Methods a brms/rstanarm user reaches for: bayes_R2(), loo_R2(),
# prior_summary(), sigma(), family(), vcov() (the number of draws is
# posterior's ndraws(), methods-draws.R).

#' @importFrom rstantools bayes_R2 loo_R2 prior_summary
#' @importFrom stats sigma family vcov
NULL

#' @export
rstantools::bayes_R2
#' @export
rstantools::loo_R2
#' @export
rstantools::prior_summary

# The loo generics, re-exported as brms and rstanarm do, so that loo(fit),
# waic(fit), kfold(fit) and loo_compare() work after library(bnnmc) alone
# (loo is imported; they are loo's own functions, so loo's and bnnmc's
# methods serve both spellings).

#' @importFrom loo loo waic kfold loo_compare loo_moment_match loo_model_weights
NULL

#' @export
loo::loo
#' @export
loo::waic
#' @export
loo::kfold
#' @export
loo::loo_compare
#' @export
loo::loo_moment_match
#' @export
loo::loo_model_weights

#' Posterior predictive checks
#'
#' `pp_check()` is bayesplot's generic, available after `library(bnnmc)`
#' alone (as in brms and rstanarm).  bayesplot is only suggested by bnnmc
#' (importing it would bring ggplot2 and the tidyverse into every
#' installation), so this is a small function of bnnmc's own: for a
#' `bnnfit` it is [pp_check.bnnfit()] (see [nuts_params.bnnfit()]), and any
#' other object goes to `bayesplot::pp_check()`, so fits of brms or
#' rstanarm loaded alongside are checked by their own methods whichever
#' package was attached last.  It stops with an install hint when bayesplot
#' is missing.
#'
#' @param object A fitted model.
#' @param ... Passed to the method (for a `bnnfit`: `type`, `ndraws`,
#'   `newdata`, `seed` and arguments of the bayesplot function).
#' @return A ggplot object.
#' @export
#' @examplesIf requireNamespace("bayesplot", quietly = TRUE)
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2,
#'                warmup = 150, iter = 100, seed = 42, progress = FALSE, sampler = "nuts")
#' pp_check(fit, ndraws = 20, seed = 1)
pp_check <- function(object, ...) {
  if (inherits(object, "bnnfit")) return(pp_check.bnnfit(object, ...))
  need_pkg("bayesplot", "pp_check()")
  bayesplot::pp_check(object, ...)
}

#' Bayesian and LOO R-squared
#'
#' `bayes_R2()` is the Bayesian R-squared of Gelman, Goodrich, Gabry and
#' Vehtari (2019), one value per posterior draw: the variance of the
#' predicted means over the observations divided by that variance plus the
#' expected residual variance (the mean over observations of the draw's
#' predictive noise variance `sd_i^2`, which varies by observation under the
#' heteroscedastic likelihood; `p (1 - p)` for a binary response).
#' `loo_R2()` is the leave-one-out version, as rstanarm's: the residuals of
#' the PSIS-LOO predictive means (weights from [loo::psis()]) against the
#' variance of `y`, with Bayesian-bootstrap draws (seeded by the fit's seed)
#' for its uncertainty.  Both are on the training data.
#'
#' @param object A `bnnfit` (regression or binary classification).
#' @param ndraws Use this many draws, spread evenly over the chains.
#' @param n_boot Number of Bayesian-bootstrap draws of `loo_R2()`.
#' @param summary `TRUE`: a one-row matrix `Estimate`, `Est.Error` and
#'   the quantiles at `probs` (`Q2.5`, `Q97.5`), as brms's; `FALSE`
#'   (default, as rstanarm's): the draws.
#' @param robust With `summary = TRUE`: median and MAD instead of mean and
#'   sd, as brms.
#' @param probs With `summary = TRUE`: probabilities of the quantiles.
#' @param ... Unused (a warning names them).
#' @return A numeric vector of draws of R-squared (`summary = FALSE`), or
#'   its summary.
#' @references Gelman, A., Goodrich, B., Gabry, J. and Vehtari, A. (2019).
#'   R-squared for Bayesian regression models. *The American Statistician*
#'   73, 307--309.
#' @name bayes_R2.bnnfit
#' @examples
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2,
#'                warmup = 150, iter = 100, seed = 42, progress = FALSE, sampler = "nuts")
#' summary(bayes_R2(fit))
#' bayes_R2(fit, summary = TRUE)
#' if (requireNamespace("loo", quietly = TRUE)) median(loo_R2(fit))
NULL

#' @rdname bayes_R2.bnnfit
#' @method bayes_R2 bnnfit
#' @export
bayes_R2.bnnfit <- function(object, ndraws = NULL, summary = FALSE, robust = FALSE,
                            probs = c(0.025, 0.975), ...) {
  check_dots(list(...), "bayes_R2")
  check_r2_summary(summary, robust, probs)
  if (identical(object$likelihood$family, "categorical"))
    stop("bayes_R2() is defined for numeric and binary responses; this fit is categorical.",
         call. = FALSE)
  if (is_classification(object)) {
    mu <- posterior_epred.bnnfit(object, ndraws = ndraws)
    res_var <- rowMeans(mu * (1 - mu))
  } else {
    pp <- predictive_params(object, NULL, ndraws)
    mu <- pp$mu
    res_var <- rowMeans(pp$sd^2)
  }
  fit_var <- apply(mu, 1L, stats::var)
  r2_summary(fit_var / (fit_var + res_var), summary, robust, probs)
}

check_r2_summary <- function(summary, robust, probs) {
  if (!is.logical(summary) || length(summary) != 1L || is.na(summary))
    stop("'summary' must be TRUE or FALSE.", call. = FALSE)
  if (!is.logical(robust) || length(robust) != 1L || is.na(robust))
    stop("'robust' must be TRUE or FALSE.", call. = FALSE)
  if (!is.numeric(probs) || !length(probs) || anyNA(probs) || any(probs < 0) ||
      any(probs > 1))
    stop("'probs' must be probabilities between 0 and 1.", call. = FALSE)
  invisible(TRUE)
}

# Draws of R-squared, or with summary = TRUE brms's one-row summary.
r2_summary <- function(r2, summary, robust, probs) {
  if (!summary) return(r2)
  est <- if (robust) c(stats::median(r2), stats::mad(r2)) else c(mean(r2), stats::sd(r2))
  q <- stats::quantile(r2, probs, names = FALSE)
  matrix(c(est, q), nrow = 1L,
         dimnames = list("R2", c("Estimate", "Est.Error",
                                 paste0("Q", format(100 * probs, trim = TRUE,
                                                    drop0trailing = TRUE)))))
}

#' @rdname bayes_R2.bnnfit
#' @method loo_R2 bnnfit
#' @export
loo_R2.bnnfit <- function(object, n_boot = 4000, summary = FALSE, robust = FALSE,
                          probs = c(0.025, 0.975), ...) {
  check_dots(list(...), "loo_R2")
  check_r2_summary(summary, robust, probs)
  need_pkg("loo", "loo_R2()")
  if (identical(object$likelihood$family, "categorical"))
    stop("loo_R2() is defined for numeric and binary responses; this fit is categorical.",
         call. = FALSE)
  n_boot <- check_count(n_boot, "n_boot", 1L)
  y <- response_values(object)
  if (is_classification(object)) y <- y - 1
  mu <- posterior_epred.bnnfit(object)
  ll <- pointwise_loglik_unweighted(object)
  r_eff <- fit_relative_eff(object, ll)
  ps <- suppressWarnings(loo::psis(-ll, r_eff = r_eff))
  w <- exp(stats::weights(ps, log = TRUE, normalize = TRUE))   # S x n
  err <- colSums(w * mu) - y
  n <- length(y)
  rd <- with_seed(object$seed, {
    e <- matrix(stats::rexp(n_boot * n), n_boot, n)
    e / rowSums(e)
  })
  wvar <- function(v) (rd %*% v^2 - (rd %*% v)^2) * n / (n - 1)
  r2 <- as.vector(1 - wvar(err) / wvar(y))
  r2_summary(pmin(pmax(r2, -1), 1), summary, robust, probs)
}

#' Priors of a fit
#'
#' The priors a fit used, as rstanarm's and brms's `prior_summary()`: the
#' weights' and biases' prior per layer (after any `fan_in` scaling), the
#' prior of `sigma` when it is sampled, and the scale they apply on (the
#' standardised data unless `standardize = FALSE`).
#'
#' @param object A `bnnfit`.
#' @param ... Unused.
#' @return A data frame of class `bnn_prior_summary` with one row per
#'   layer and role (`weight`, `bias`, `sigma`), the distribution and its
#'   scale.
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 1,
#'                warmup = 100, iter = 100, seed = 1, progress = FALSE, sampler = "nuts")
#' prior_summary(fit)
prior_summary.bnnfit <- function(object, ...) {
  check_dots(list(...), "prior_summary")
  pl <- parameter_layers(object$parameters)
  sc <- object$spec$prior_scale
  net <- pl[pl$role != "other", , drop = FALSE]
  net$scale <- sc[seq_len(nrow(net))]
  tab <- stats::aggregate(scale ~ layer + role, data = net, FUN = function(v) v[1L])
  tab <- tab[order(tab$layer, tab$role == "bias"), , drop = FALSE]
  fam <- object$prior$family
  tab$prior <- sprintf("%s(0, %s)", if (fam == "normal") "normal" else "laplace",
                       format(signif(tab$scale, 4)))
  lik <- object$likelihood
  if (lik$family == "gaussian" && is.null(lik$sigma))
    tab <- rbind(tab, data.frame(layer = NA, role = "sigma", scale = lik$sigma_prior_scale,
                                 prior = sprintf("%s(%s)", lik$sigma_prior,
                                                 format(lik$sigma_prior_scale))))
  rownames(tab) <- NULL
  structure(tab[c("layer", "role", "prior", "scale")], class = c("bnn_prior_summary", "data.frame"),
            standardized = !isTRUE(all(object$y_scale == 1 & object$y_center == 0)),
            likelihood = format(lik))
}

#' @export
print.bnn_prior_summary <- function(x, ...) {
  cat("Priors (independent for every parameter; on the scale of the",
      if (isTRUE(attr(x, "standardized"))) "standardised data):\n" else "data as given):\n")
  print(as.data.frame(unclass(x))[c("layer", "role", "prior")], row.names = FALSE)
  cat("Likelihood:", attr(x, "likelihood"), "\n")
  invisible(x)
}

#' Residual standard deviation on the response's scale
#'
#' For `likelihood = "gaussian"`, the posterior median of `sigma` times the
#' response's standardisation scale (as rstanarm's `sigma()`, the median of
#' the draws); with a fixed `sigma`, that value on the response's scale.
#' For the heteroscedastic likelihood, whose noise sd varies with the
#' inputs, the root mean square of the predictive noise sd over draws and
#' training observations.  Not defined for classification, nor for the
#' default's stack of a heteroscedastic Gaussian and a Student-t network
#' (201 to 2,000 rows of a continuous response, [bnn_default]), whose two
#' noise scales differ in kind: `sigma(fit$mixture$fit)` gives the other
#' model's, and [predictive_interval()] the stack's predictive spread.
#'
#' @param object A `bnnfit`.
#' @param ... Unused.
#' @return A number on the response's scale.
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, likelihood = "gaussian",
#'                chains = 1, warmup = 100, iter = 100, seed = 1, progress = FALSE,
#'                sampler = "nuts")
#' sigma(fit)
sigma.bnnfit <- function(object, ...) {
  check_dots(list(...), "sigma")
  if (is_classification(object))
    stop("sigma() is for regression fits; this one is a classification fit.", call. = FALSE)
  # a stack of a Gaussian and a Student-t network has no one noise scale:
  # the first model's would leave the other's out
  if (!is.null(object$mixture) && is_family_lik(object) != is_family_lik(object$mixture$fit))
    stop(sprintf(paste0("sigma() is not defined for this fit: it stacks %s, whose noise ",
                        "scales differ in kind; sigma(fit$mixture$fit) is the other model's, ",
                        "and predictive_interval() the stack's predictive spread."),
                 mixture_names(object)), call. = FALSE)
  lik <- object$likelihood
  if (lik$family %in% c("gaussian", "student")) {
    # the scale parameter (a Student-t's too, as brms's sigma), response scale
    if (!is.null(lik$sigma)) return(lik$sigma * object$y_scale)
    d <- object$draws[, object$chain_status == "ok", "sigma"]
    return(stats::median(d, na.rm = TRUE) * object$y_scale)
  }
  if (lik$family %in% .count_families)
    stop(sprintf(paste0("sigma() is for Gaussian and Student-t fits: a %s model has no ",
                        "residual sd parameter (its variance follows from the mean)."),
                 lik$family), call. = FALSE)
  pp <- predictive_params(object, NULL)
  sqrt(mean(pp$sd^2))
}

#' @export
family.bnnfit <- function(object, ...) {
  lik <- object$likelihood
  switch(lik$family,
    gaussian = stats::gaussian(),
    bernoulli = stats::binomial(),
    poisson = stats::poisson(),
    binomial = stats::binomial(),
    structure(list(family = lik$family,
                   link = switch(lik$family, categorical = "softmax", negbinomial = "log",
                                 student = "identity", "identity (mean), log (sd)")),
              class = "family"))
}

#' @export
vcov.bnnfit <- function(object, ...) {
  stop(paste0("vcov() is not provided for a bnnfit: a network's weights are not identified ",
              "(hidden units can be permuted and, for odd activations, sign-flipped) and their ",
              "posterior is multimodal, so a covariance matrix of the weights does not summarise ",
              "it. Use posterior_interval(fit) or posterior::summarise_draws(fit) for the ",
              "parameters, and predictive_interval(fit) for predictions."), call. = FALSE)
}

# Extractors for bayesplot (Suggests; methods registered lazily for
# bayesplot's generics) and the R-hat/ESS table they share.

# R-hat and ESS of every variable of as_draws_array(x), one row per variable.
# The single place where the fit's R-hat and ESS are computed for the
# extractors; it uses posterior for now and can be switched to the package's
# own C diagnostics without touching its callers.
.fit_rhat_ess <- function(x) {
  s <- bnn_summarize_draws(fit_draws_array(x), chainwise = FALSE)
  data.frame(variable = s$variable, rhat = s$rhat, ess_bulk = s$ess_bulk,
             ess_tail = s$ess_tail, stringsAsFactors = FALSE)
}

# Long data frame Chain / Iteration / Parameter / Value from an array
# [iteration, chain, stat] (bayesplot's molten format).
melt_stats <- function(a, params) {
  n_it <- dim(a)[1]
  n_ch <- dim(a)[2]
  data.frame(
    Chain = rep(rep(seq_len(n_ch), each = n_it), times = length(params)),
    Iteration = rep(seq_len(n_it), times = n_ch * length(params)),
    Parameter = factor(rep(params, each = n_it * n_ch), levels = params),
    Value = as.vector(a[, , params, drop = FALSE]))
}

# Sampler statistics of the chains that did not fail, warm-up first if asked.
fit_stats <- function(object, inc_warmup) {
  if (!is.logical(inc_warmup) || length(inc_warmup) != 1L || is.na(inc_warmup))
    stop("'inc_warmup' must be TRUE or FALSE.", call. = FALSE)
  ok <- which(object$chain_status == "ok")
  if (!length(ok)) stop("All chains of this fit failed; there are no draws.", call. = FALSE)
  st <- object$sampler_stats[, ok, , drop = FALSE]
  if (inc_warmup && object$warmup > 0) {
    w <- object$warmup_stats[, ok, , drop = FALSE]
    both <- array(NA_real_, c(dim(w)[1] + dim(st)[1], length(ok), dim(st)[3]),
                  dimnames = list(NULL, NULL, dimnames(st)[[3]]))
    both[seq_len(dim(w)[1]), , ] <- w
    both[dim(w)[1] + seq_len(dim(st)[1]), , ] <- st
    st <- both
  }
  st
}

#' Extractors for bayesplot
#'
#' Methods for \pkg{bayesplot}'s generics, so that its MCMC plots work on a
#' `bnnfit`: e.g. `mcmc_nuts_energy(nuts_params(fit))`,
#' `mcmc_nuts_divergence(nuts_params(fit), log_posterior(fit))`,
#' `mcmc_rhat(rhat(fit))`, `mcmc_neff(neff_ratio(fit))`, and
#' `mcmc_trace(as.array(fit), np = nuts_params(fit))`.  Chains that failed
#' are left out and the remaining ones numbered 1, 2, ..., as in
#' [as.array.bnnfit()].
#'
#' R-hat is the rank-normalised split R-hat (the maximum of bulk and folded)
#' and the ESS the bulk ESS of Vehtari et al. (2021), as computed by the
#' posterior package; `neff_ratio()` divides the bulk ESS by the number of
#' draws.  For network weights these are expected to look poor even when
#' the predictions have converged (see [summary.bnnfit()]); see
#' [plot.bnnfit()] for layer- and chain-wise views.
#'
#' @param object A `bnnfit`.
#' @param pars Names of parameters (or, for `nuts_params()`, of sampler
#'   statistics) to keep; all by default.
#' @param inc_warmup Include the warm-up iterations' sampler statistics
#'   (they are stored; the warm-up draws are not).
#' @param type For `pp_check()`: the name of a bayesplot `ppc_` function
#'   without the prefix, e.g. `"dens_overlay"` (default for regression),
#'   `"hist"`, `"stat"`, `"intervals"`, `"bars"` (default for
#'   classification, as brms), or a LOO plot such
#'   as `"loo_pit_overlay"`, `"loo_pit_qq"` or `"loo_intervals"`, for which
#'   the PSIS weights (`lw`) are computed from the fit (all draws of the
#'   training data).
#' @param ndraws For `pp_check()`: number of posterior predictive draws.  By
#'   default 50 for overlay plots, 8 for plots with one panel per draw, and
#'   all draws for plots that summarise them.
#' @param newdata For `pp_check()`: data with the response to check against
#'   (the training data by default).
#' @param seed For `pp_check()`: seed for the predictive draws.
#' @param ... For `pp_check()`: passed to the bayesplot function (e.g.
#'   `stat = "sd"`; `x` may name a variable of the data, as in brms:
#'   `pp_check(fit, "intervals", x = "wt")`); otherwise unused.
#' @return `nuts_params()`: a data frame with columns `Chain`, `Iteration`,
#'   `Parameter` (a factor of `accept_stat__`, `stepsize__`, `treedepth__`,
#'   `n_leapfrog__`, `divergent__`, `energy__`) and `Value`.
#'   `log_posterior()`: a data frame with `Chain`, `Iteration` and `Value`
#'   (`lp__`).  `rhat()`, `neff_ratio()`: named numeric vectors.
#'   `pp_check()`: a ggplot object.
#' @name nuts_params.bnnfit
#' @examplesIf requireNamespace("bayesplot", quietly = TRUE) && requireNamespace("posterior", quietly = TRUE)
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2,
#'                warmup = 150, iter = 100, seed = 42, progress = FALSE, sampler = "nuts")
#' np <- bayesplot::nuts_params(fit)
#' head(np)
#' head(bayesplot::log_posterior(fit))
#' range(bayesplot::rhat(fit))
#' bayesplot::neff_ratio(fit, pars = c("b2[1]", "lp__"))
#' bayesplot::pp_check(fit, ndraws = 20, seed = 1)
NULL

#' @rdname nuts_params.bnnfit
#' @exportS3Method bayesplot::nuts_params
nuts_params.bnnfit <- function(object, pars = NULL, inc_warmup = FALSE, ...) {
  why <- sampler_no_nuts_params(sampler_upgrade(object$sampler))
  if (!is.null(why))
    stop("nuts_params() and bayesplot's mcmc_nuts_*() plots need a NUTS or HMC fit; ", why,
         call. = FALSE)
  st <- fit_stats(object, inc_warmup)
  params <- setdiff(dimnames(st)[[3]], "lp__")
  params <- params[select_variables(params, pars, FALSE, "pars")]
  melt_stats(st, params)
}

#' @rdname nuts_params.bnnfit
#' @exportS3Method bayesplot::log_posterior
log_posterior.bnnfit <- function(object, inc_warmup = FALSE, ...) {
  st <- fit_stats(object, inc_warmup)
  out <- melt_stats(st, "lp__")
  out[c("Chain", "Iteration", "Value")]
}

#' @rdname nuts_params.bnnfit
#' @exportS3Method bayesplot::rhat
rhat.bnnfit <- function(object, pars = NULL, ...) {
  tab <- .fit_rhat_ess(object)
  out <- stats::setNames(tab$rhat, tab$variable)
  out[select_variables(names(out), pars, FALSE, "pars")]
}

#' @rdname nuts_params.bnnfit
#' @exportS3Method bayesplot::neff_ratio
neff_ratio.bnnfit <- function(object, pars = NULL, ...) {
  tab <- .fit_rhat_ess(object)
  out <- stats::setNames(tab$ess_bulk / ndraws.bnnfit(object), tab$variable)
  out[select_variables(names(out), pars, FALSE, "pars")]
}

.ppc_few_draws <- c("hist", "boxplot", "freqpoly", "dens", "scatter", "error_hist",
                    "error_scatter", "error_binned")

#' @rdname nuts_params.bnnfit
#' @exportS3Method bayesplot::pp_check
pp_check.bnnfit <- function(object, type, ndraws = NULL, newdata = NULL,
                            seed = NULL, ...) {
  need_pkg("bayesplot", "pp_check()")
  # bars for a class response, as brms, and for counts (bayesplot's ppc_bars)
  if (missing(type))
    type <- if (is_classification(object) || isTRUE(object$likelihood$family %in% .count_families))
      "bars" else "dens_overlay"
  if (!is.character(type) || length(type) != 1L || is.na(type))
    stop("'type' must be the name of a bayesplot ppc_ function, e.g. \"dens_overlay\".",
         call. = FALSE)
  type <- sub("^ppc_", "", type)
  fun_name <- paste0("ppc_", type)
  ns <- asNamespace("bayesplot")
  if (!fun_name %in% getNamespaceExports("bayesplot"))
    stop(sprintf("'type' = \"%s\" does not name a bayesplot function (no bayesplot::%s).",
                 type, fun_name), call. = FALSE)
  if (is.null(ndraws)) {
    ndraws <- if (grepl("overlay", type)) 50L else if (type %in% .ppc_few_draws) 8L else NULL
  }
  y <- response_values(object, newdata)
  if (identical(object$likelihood$family, "bernoulli")) y <- y - 1
  if (is.matrix(y)) y <- y[, 1L]   # binomial: the successes
  fun <- get(fun_name, envir = ns)
  if (grepl("^loo_", type)) {
    # LOO-PIT plots need the PSIS log weights of the very draws in yrep: all
    # draws of the training data (as brms computes them itself)
    if (!is.null(newdata))
      stop("LOO plots (type = \"loo_*\") are for the training data; 'newdata' cannot be given.",
           call. = FALSE)
    need_pkg("loo", "pp_check(type = \"loo_*\")")
    yrep <- posterior_predict.bnnfit(object, seed = seed)
    dimnames(yrep) <- NULL
    dots <- list(...)
    fa <- names(formals(fun))
    need_lw <- is.null(dots$lw) && "lw" %in% fa
    need_ps <- is.null(dots$psis_object) && "psis_object" %in% fa
    if (need_lw || need_ps) {
      ll <- pointwise_loglik_unweighted(object)
      ps <- suppressWarnings(loo::psis(-ll, r_eff = fit_relative_eff(object, ll)))
      if (need_lw) dots$lw <- stats::weights(ps, log = TRUE, normalize = TRUE)
      if (need_ps) dots$psis_object <- ps
    }
    return(do.call(fun, c(list(y = unname(y), yrep = yrep), dots)))
  }
  yrep <- posterior_predict.bnnfit(object, newdata, ndraws = ndraws, seed = seed)
  dimnames(yrep) <- NULL
  dots <- list(...)
  if (is.character(dots$x) && length(dots$x) == 1L)
    dots$x <- ppc_variable(object, newdata, dots$x)
  do.call(fun, c(list(y = unname(y), yrep = yrep), dots))
}

# The values of the variable `name` (e.g. pp_check(fit, "intervals", x =
# "wt"), as brms takes a name) in newdata, else in the training data.
ppc_variable <- function(object, newdata, name) {
  d <- newdata %||% object$model_frame
  v <- d[[name]]
  if (is.null(v) && is.null(newdata))
    v <- tryCatch(training_data(object)[[name]], error = function(e) NULL)
  if (is.null(v))
    stop(sprintf("'x' = \"%s\" is not a variable of %s.", name,
                 if (is.null(newdata)) "the training data" else "'newdata'"), call. = FALSE)
  as.numeric(v)
}

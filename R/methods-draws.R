# Draws in the formats of base R, posterior and coda.
#
# posterior is imported and its draws generics (as_draws() and its formats,
# ndraws(), nchains(), niterations(), nvariables(), variables()) are
# re-exported, as brms does, so `as_draws_df(fit)` works after
# library(bnnmc) alone and they remain posterior's own functions (no
# masking when posterior or brms is attached too).  The methods are
# registered as methods of the imported generics.  coda is only
# suggested: its method is registered lazily, when coda's namespace is
# loaded.

#' @importFrom posterior as_draws as_draws_array as_draws_df as_draws_matrix
#' @importFrom posterior as_draws_list as_draws_rvars
#' @importFrom posterior ndraws nchains niterations nvariables variables
NULL

#' @export
posterior::as_draws
#' @export
posterior::as_draws_array
#' @export
posterior::as_draws_df
#' @export
posterior::as_draws_matrix
#' @export
posterior::as_draws_list
#' @export
posterior::as_draws_rvars
#' @export
posterior::ndraws
#' @export
posterior::nchains
#' @export
posterior::niterations
#' @export
posterior::nvariables
#' @export
posterior::variables

# The kept draws as an array [iteration, chain, variable] with `lp__`
# appended (as in Stan, cmdstanr and brms), failed chains dropped, on the
# scales a user meets them (user_draws()).  All the conversions below, the
# plots and bayesplot's and shinystan's views go through this one function.
fit_draws_array <- function(x, variable = NULL, regex = FALSE, inc_warmup = FALSE) {
  if (!inherits(x, "bnnfit")) stop("'x' must be a bnnfit.", call. = FALSE)
  if (!is.logical(inc_warmup) || length(inc_warmup) != 1L || is.na(inc_warmup))
    stop("'inc_warmup' must be TRUE or FALSE.", call. = FALSE)
  if (inc_warmup)
    stop("'inc_warmup = TRUE' is not possible: a bnnfit keeps only the draws after ",
         "warm-up (warm-up sampler statistics are available from ",
         "nuts_params(fit, inc_warmup = TRUE)).", call. = FALSE)
  ok <- which(x$chain_status == "ok")
  if (!length(ok)) stop("All chains of this fit failed; there are no draws.", call. = FALSE)
  if (length(ok) < x$chains)
    warn_cond(sprintf("Chain(s) %s failed and are left out of the draws.",
                      paste(setdiff(seq_len(x$chains), ok), collapse = ", ")),
              "bnnmc_chain_failure")
  # the user's view (R/methods-linear.R): sigma on the response's scale, and
  # for a linear fit its data-scale coefficients first
  d <- user_draws(x, ok)
  n_it <- dim(d)[1]
  vars <- c(dimnames(d)[[3]], "lp__")
  out <- array(NA_real_, c(n_it, length(ok), length(vars)))
  out[, , seq_len(dim(d)[3])] <- d
  out[, , length(vars)] <- x$sampler_stats[, ok, "lp__"]
  dimnames(out) <- list(iteration = as.character(seq_len(n_it)),
                        chain = as.character(ok), variable = vars)
  keep <- select_variables(vars, variable, regex)
  out[, , keep, drop = FALSE]
}

# Indices of the selected variables; errors name the argument.
select_variables <- function(vars, variable, regex = FALSE, arg = "variable") {
  if (is.null(variable)) return(seq_along(vars))
  if (!is.character(variable) || !length(variable) || anyNA(variable))
    stop(sprintf("'%s' must be a character vector of variable names or NULL.", arg),
         call. = FALSE)
  if (!is.logical(regex) || length(regex) != 1L || is.na(regex))
    stop("'regex' must be TRUE or FALSE.", call. = FALSE)
  if (regex) {
    hit <- unique(unlist(lapply(variable, grep, x = vars)))
    if (!length(hit))
      stop(sprintf("No variable matches the regular expression(s) in '%s': %s.", arg,
                   paste(variable, collapse = ", ")), call. = FALSE)
    return(sort(hit))
  }
  miss <- setdiff(variable, vars)
  if (length(miss))
    stop(sprintf("'%s' names unknown variable(s): %s. Available: %s%s.", arg,
                 paste(miss, collapse = ", "),
                 paste(vars[seq_len(min(8L, length(vars)))], collapse = ", "),
                 if (length(vars) > 8L) ", ..." else ""), call. = FALSE)
  match(variable, vars)
}

#' Posterior draws as arrays, matrices and data frames
#'
#' Base-R views of the draws kept after warm-up.  The variables are the
#' network parameters in the layout of [bnn_parameter_names()] followed by
#' `lp__`, the log posterior density up to a constant, as in Stan.  Chains
#' that failed are left out (with a warning).  These are the formats
#' bayesplot accepts directly, e.g. `bayesplot::mcmc_trace(as.array(fit))`.
#'
#' Scales: the network is fitted to standardised predictors and response,
#' and its weights and biases are shown on that scale, as stored.  `sigma`
#' (the Gaussian likelihood's noise sd, when sampled) is shown on the
#' response's scale, so that `median(as.matrix(fit)[, "sigma"])` is
#' [sigma()] -- here and in every view of the draws: posterior's formats,
#' `summarise_draws()`, tidybayes' `spread_draws()`, [posterior_interval()],
#' [coef()], `summary()`, the plots.  (The stored `fit$draws`, which the
#' samplers' diagnostics and the papers' tables use, keep the standardised
#' value; [prior_summary()] gives the prior on that scale.)
#'
#' A linear model (a fit without hidden layer, returned by the default's
#' check or asked for with `hidden = integer(0)`) has in addition, first,
#' its coefficients on the data's scale, named by the columns of the model
#' matrix (`(Intercept)`, `wt`, ...), as rstanarm's `as.matrix()` of a
#' `stan_glm` names them; they are the variables [coef()] and
#' [posterior_interval()] summarise.  Its raw parameters (`W1[j,1]`,
#' `b1[1]`, on the standardised scale) follow unchanged, so that nothing
#' that reads them by name changes and the data-scale coefficients can be
#' checked against them.
#'
#' @param x A `bnnfit`.
#' @param variable Names of the variables to keep (all by default), or
#'   regular expressions when `regex = TRUE`.
#' @param regex Treat `variable` as regular expressions.
#' @param inc_warmup Must be `FALSE`: a `bnnfit` does not keep warm-up draws.
#' @param row.names,optional Unused; for compatibility with the generic.
#' @param ... Passed on by the generics; unused.
#' @return `as.array()`: an array `[iteration, chain, variable]`.
#'   `as.matrix()`: a matrix `[draw, variable]` whose rows run through the
#'   iterations of the first chain, then of the second, and so on.
#'   `as.data.frame()`: a data frame with one column per variable and the
#'   columns `.chain`, `.iteration` and `.draw` of posterior's `draws_df`.
#' @seealso [as_draws.bnnfit()] for the posterior formats,
#'   [as.mcmc.list.bnnfit()] for coda.
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 2,
#'                warmup = 100, iter = 100, seed = 1, progress = FALSE, sampler = "nuts")
#' dim(as.array(fit))
#' head(as.matrix(fit, variable = c("W1[1,1]", "lp__")))
#' head(as.data.frame(fit)[, c("b2[1]", "lp__", ".chain", ".iteration", ".draw")])
as.array.bnnfit <- function(x, variable = NULL, regex = FALSE, inc_warmup = FALSE, ...) {
  fit_draws_array(x, variable, regex, inc_warmup)
}

#' @rdname as.array.bnnfit
#' @export
as.matrix.bnnfit <- function(x, variable = NULL, regex = FALSE, inc_warmup = FALSE, ...) {
  a <- fit_draws_array(x, variable, regex, inc_warmup)
  m <- matrix(a, prod(dim(a)[1:2]), dim(a)[3])
  dimnames(m) <- list(draw = NULL, variable = dimnames(a)[[3]])
  m
}

#' @rdname as.array.bnnfit
#' @export
as.data.frame.bnnfit <- function(x, row.names = NULL, optional = FALSE, variable = NULL,
                                 regex = FALSE, inc_warmup = FALSE, ...) {
  a <- fit_draws_array(x, variable, regex, inc_warmup)
  n_it <- dim(a)[1]
  n_ch <- dim(a)[2]
  m <- matrix(a, n_it * n_ch, dim(a)[3])
  out <- as.data.frame(m)
  names(out) <- dimnames(a)[[3]]
  out$.chain <- rep(seq_len(n_ch), each = n_it)
  out$.iteration <- rep(seq_len(n_it), times = n_ch)
  out$.draw <- seq_len(n_it * n_ch)
  out
}

#' Convert a fit to posterior's draws formats
#'
#' Methods for the generics of the \pkg{posterior} package, so that its
#' summaries and diagnostics (`summarise_draws()`, `rhat()`, `ess_bulk()`,
#' `subset_draws()`, `rvar` arithmetic) work on a `bnnfit`.  bnnmc
#' re-exports the generics, as brms does: `as_draws_df(fit)` works after
#' `library(bnnmc)` alone.  The variables are
#' those of [as.array.bnnfit()]: the network parameters (`W1[i,j]`, `b1[j]`,
#' ..., and `sigma` on the response's scale), `lp__`, and for a linear model
#' first its data-scale coefficients (`(Intercept)`, `wt`, ...).  Bracketed
#' names become matrix- and vector-valued `rvar`s in `as_draws_rvars()`
#' (`W1` is an inputs x units matrix).  `as_draws()` returns a `draws_array`, the format the draws are
#' stored in.  `nchains()`, `niterations()`, `ndraws()`, `nvariables()` and
#' `variables()` count the chains that did not fail.  `ndraws()` is also the
#' number of draws of the predictive functions (`posterior_predict()`,
#' `posterior_epred()`, `log_lik()`), for a fit that stacks two models too
#' (the default's check, [bnn_fit()]): their draws are each model's share
#' of `ndraws(fit)` by its weight.
#'
#' The sampler's statistics (`accept_stat__`, `stepsize__`, `treedepth__`,
#' `n_leapfrog__`, `divergent__`, `energy__`) are not variables of the
#' draws; get them with [nuts_params.bnnfit()] or `fit$sampler_stats`.
#'
#' @inheritParams as.array.bnnfit
#' @param ... Unused.
#' @return A `draws_array`, `draws_df`, `draws_matrix`, `draws_list` or
#'   `draws_rvars` object; a count; or a character vector of names.
#' @name as_draws.bnnfit
#' @examples
#' fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 2,
#'                warmup = 100, iter = 100, seed = 1, progress = FALSE, sampler = "nuts")
#' as_draws_df(fit)
#' posterior::summarise_draws(as_draws_array(fit, variable = "^b2", regex = TRUE))
#' as_draws_rvars(fit)$W1
#' nchains(fit)
#' ndraws(fit)
NULL

#' @rdname as_draws.bnnfit
#' @export
as_draws.bnnfit <- function(x, variable = NULL, regex = FALSE, inc_warmup = FALSE, ...) {
  posterior::as_draws_array(fit_draws_array(x, variable, regex, inc_warmup))
}

#' @rdname as_draws.bnnfit
#' @export
as_draws_array.bnnfit <- function(x, variable = NULL, regex = FALSE, inc_warmup = FALSE, ...) {
  posterior::as_draws_array(fit_draws_array(x, variable, regex, inc_warmup))
}

#' @rdname as_draws.bnnfit
#' @export
as_draws_df.bnnfit <- function(x, variable = NULL, regex = FALSE, inc_warmup = FALSE, ...) {
  posterior::as_draws_df(fit_draws_array(x, variable, regex, inc_warmup))
}

#' @rdname as_draws.bnnfit
#' @export
as_draws_matrix.bnnfit <- function(x, variable = NULL, regex = FALSE, inc_warmup = FALSE, ...) {
  posterior::as_draws_matrix(fit_draws_array(x, variable, regex, inc_warmup))
}

#' @rdname as_draws.bnnfit
#' @export
as_draws_list.bnnfit <- function(x, variable = NULL, regex = FALSE, inc_warmup = FALSE, ...) {
  posterior::as_draws_list(fit_draws_array(x, variable, regex, inc_warmup))
}

#' @rdname as_draws.bnnfit
#' @export
as_draws_rvars.bnnfit <- function(x, variable = NULL, regex = FALSE, inc_warmup = FALSE, ...) {
  posterior::as_draws_rvars(fit_draws_array(x, variable, regex, inc_warmup))
}

#' @rdname as_draws.bnnfit
#' @export
nchains.bnnfit <- function(x) sum(x$chain_status == "ok")

#' @rdname as_draws.bnnfit
#' @export
niterations.bnnfit <- function(x) dim(x$draws)[1]

#' @rdname as_draws.bnnfit
#' @export
ndraws.bnnfit <- function(x) dim(x$draws)[1] * sum(x$chain_status == "ok")

#' @rdname as_draws.bnnfit
#' @export
nvariables.bnnfit <- function(x, ...) length(user_variables(x)) + 1L

#' @rdname as_draws.bnnfit
#' @export
variables.bnnfit <- function(x, ...) c(user_variables(x), "lp__")

#' Convert a fit to a coda `mcmc.list`
#'
#' One `mcmc` object per chain (failed chains left out), with the variables
#' of [as.array.bnnfit()] and iteration numbers counted from the end of
#' warm-up, so coda's diagnostics and plots can be used.
#'
#' @param x A `bnnfit`.
#' @param ... Passed to [as.array.bnnfit()] (e.g. `variable`).
#' @return An object of class `mcmc.list`.
#' @exportS3Method coda::as.mcmc.list
#' @examplesIf requireNamespace("coda", quietly = TRUE)
#' fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 2,
#'                warmup = 100, iter = 100, seed = 1, progress = FALSE, sampler = "nuts")
#' ml <- coda::as.mcmc.list(fit)
#' coda::gelman.diag(ml[, c("b2[1]", "lp__")])
as.mcmc.list.bnnfit <- function(x, ...) {
  a <- as.array.bnnfit(x, ...)
  chains <- lapply(seq_len(dim(a)[2]), function(c) {
    m <- a[, c, , drop = FALSE]
    dim(m) <- dim(a)[c(1L, 3L)]
    colnames(m) <- dimnames(a)[[3]]
    coda::mcmc(m, start = x$warmup + 1L, thin = x$thin)
  })
  coda::mcmc.list(chains)
}

#' @rdname posterior_predict.bnnfit
#' @name posterior_predict.bnnfit
#' @export
posterior_interval.bnnfit <- function(object, prob = 0.9, pars = NULL, regex_pars = NULL,
                                      ...) {
  check_dots(list(...), "posterior_interval")
  check_prob(prob, "prob")
  vars <- user_variables(object)
  # by default a linear fit's data-scale coefficients and sigma (rstanarm's
  # rows), a network's parameters; any of them by name
  dflt <- if (is_linear_fit(object)) which(vars %in% c(linear_coef_names(object), "sigma")) else
    seq_along(vars)
  sel <- if (is.null(pars) && is.null(regex_pars)) dflt else
    sort(unique(c(if (!is.null(pars)) select_variables(vars, pars, FALSE, "pars"),
                  if (!is.null(regex_pars)) select_variables(vars, regex_pars, TRUE,
                                                             "regex_pars"))))
  m <- as.matrix.bnnfit(object, variable = vars[sel])
  rstantools::posterior_interval(m, prob = prob)
}

# The quantities of a network's chains that can be read -- its log-likelihood,
# log posterior, noise parameters and predictions at a few points -- as a
# draws array for bayesplot's MCMC plots (bnn_mcmc_plot()) and plot(fit)'s
# overview, in place of hundreds of unidentified weights.

# [iteration, chain, quantity] of the network's own chains that did not
# fail (for a stacked or mixed fit: the first model's chains, all their
# draws): `log_lik` (of the training data, summed over its rows), `lp__`,
# the family's parameters (a linear model's coefficients named by its
# predictors first), and the expected response `mu[i]` at `points` training
# rows (those at evenly spaced quantiles of the posterior mean).
readable_draws <- function(x, points = 3L) {
  # every draw of every chain, in order
  net <- bnnfit_with(network_only(x), stacking = NULL)
  ok <- which(x$chain_status == "ok")
  if (!length(ok)) stop("All chains of this fit failed; there are no draws.", call. = FALSE)
  n_it <- dim(x$draws)[1]
  n_ch <- length(ok)
  ll <- log_lik.bnnfit(net)
  ll <- rowSums(ll[, colSums(is.na(ll)) == 0L, drop = FALSE])
  a <- fit_draws_array(x, variable = c(default_trace_pars(x)))
  vars <- c("log_lik", dimnames(a)[[3]])
  vals <- c(list(ll), lapply(dimnames(a)[[3]], function(v) as.vector(a[, , v])))
  if (points > 0L && !is.null(x$X)) {
    mu <- posterior_epred.bnnfit(net)
    if (length(dim(mu)) == 3L) mu <- mu[, , dim(mu)[3], drop = TRUE]  # the last class
    m <- colMeans(mu)
    rows <- unique(order(m)[round(seq(1, length(m), length.out = min(points, length(m))))])
    vars <- c(vars, sprintf("mu[%s]", colnames(mu)[rows] %||% rows))
    vals <- c(vals, lapply(rows, function(i) mu[, i]))
  }
  out <- array(unlist(vals, use.names = FALSE), c(n_it, n_ch, length(vars)))
  dimnames(out) <- list(iteration = as.character(seq_len(n_it)), chain = as.character(ok),
                        variable = vars)
  out
}

#' MCMC plots of the quantities that can be read
#'
#' Trace plots (drawn with \pkg{ggplot2} as bayesplot's `mcmc_trace()`
#' draws them: one panel per quantity, one line per chain; bayesplot's own
#' with arguments in `...`) and \pkg{bayesplot}'s other MCMC plots
#' (`mcmc_dens_overlay()`, `mcmc_rank_overlay()`, ...) of a fit's readable
#' quantities rather than of
#' its weights, as `mcmc_plot()` in \pkg{brms}: the log-likelihood of the
#' training data (`log_lik`, summed over its rows), the log posterior
#' (`lp__`), `sigma` and the family's other parameters, and the expected
#' response at `points` training rows (`mu[<row>]`, at evenly spaced
#' quantiles of the posterior mean; for a categorical response the last
#' class's probability).  A linear model's coefficients, named by its
#' predictors, come first.  A network's weights are not identified and
#' hundreds of them make no readable picture; they are plotted on request
#' (`variable = c("W1[1,1]", ...)`, any names of `as.array(fit)`).  For a
#' stacked fit the chains are those of its first model.
#'
#' @param fit A `bnnfit`.
#' @param type The bayesplot function without its `mcmc_` prefix, e.g.
#'   `"trace"` (default), `"dens_overlay"`, `"rank_overlay"`, `"areas"`.
#' @param variable Names of variables of `as.array(fit)` to plot instead of
#'   the readable quantities (e.g. weights).
#' @param points Number of training rows whose expected response is shown.
#' @param ... Passed to the bayesplot function.
#' @return A ggplot object.
#' @export
#' @examplesIf requireNamespace("ggplot2", quietly = TRUE)
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2,
#'                warmup = 150, iter = 100, seed = 42, progress = FALSE, sampler = "nuts")
#' bnn_mcmc_plot(fit)
#' bnn_mcmc_plot(fit, variable = c("W1[1,1]", "W2[1,1]"))
#' if (requireNamespace("bayesplot", quietly = TRUE))
#'   bnn_mcmc_plot(fit, type = "rank_overlay", points = 1)
bnn_mcmc_plot <- function(fit, type = "trace", variable = NULL, points = 3L, ...) {
  if (!inherits(fit, "bnnfit")) stop("'fit' must be a bnnfit.", call. = FALSE)
  need_pkg("ggplot2", "bnn_mcmc_plot()")
  if (!is.character(type) || length(type) != 1L || is.na(type))
    stop("'type' must be the name of a bayesplot mcmc_ function, e.g. \"trace\".", call. = FALSE)
  points <- check_count(points, "points", 0L)
  fun_name <- paste0("mcmc_", sub("^mcmc_", "", type))
  if (fun_name != "mcmc_trace" || length(list(...))) need_pkg("bayesplot", "bnn_mcmc_plot()")
  if (requireNamespace("bayesplot", quietly = TRUE) &&
      !fun_name %in% getNamespaceExports("bayesplot"))
    stop(sprintf("'type' = \"%s\" does not name a bayesplot function (no bayesplot::%s).",
                 type, fun_name), call. = FALSE)
  a <- if (is.null(variable)) readable_draws(fit, points) else
    fit_draws_array(fit, variable = variable)
  # traces are drawn here, the same picture as mcmc_trace() without its
  # dependence on bayesplot's and ggplot2's versions agreeing
  if (fun_name == "mcmc_trace" && !length(list(...)))
    return(trace_ggplot(a, "Traces"))
  get(fun_name, envir = asNamespace("bayesplot"))(a, ...)
}

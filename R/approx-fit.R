# Approximate posteriors (Laplace, MC dropout, SWAG) as bnnfit objects.
#
# An approximation is stored like a sampler fit with one "chain": its draws
# are an array [draw, 1, parameter], sigma (if sampled) on its natural
# scale, with `lp__` (the log posterior of each draw) as the only sampler
# statistic, so predict(), bnn_metrics(), loo(), the posterior/bayesplot
# conversions and the plots work on it unchanged.  Class
# c("bnn_approx", "bnnfit"); the method's own results are in $approx.

# Build the fit.  model: from prepare_model(); theta: draws on the
# unconstrained scale, one per row (S x dim); method: a label;
# approx: the method's own results; elapsed: seconds; n_grad: gradient
# evaluations spent; seed: the seed used.
approx_fit <- function(model, theta, method, approx, elapsed, n_grad, seed, call) {
  spec <- model$spec
  dim <- spec_dim(spec)
  pars <- spec_par_names(spec)
  theta <- matrix(as.double(theta), ncol = dim)
  S <- nrow(theta)
  lp <- .Call(C_model_logpost, spec, t(theta))$lp
  draws <- array(theta, c(S, 1L, dim),
                 dimnames = list(iteration = NULL, chain = NULL, variable = pars))
  n_lik <- length(lik_par_names(spec))   # sigma, phi, nu: natural scale
  for (j in dim - n_lik + seq_len(n_lik)) draws[, , j] <- exp(draws[, , j])
  stats <- array(lp, c(S, 1L, 1L),
                 dimnames = list(iteration = NULL, chain = NULL, variable = "lp__"))
  chains <- list(
    draws = draws, sampler_stats = stats,
    warmup_stats = array(NA_real_, c(0L, 1L, 1L),
                         dimnames = list(iteration = NULL, chain = NULL, variable = "lp__")),
    n_grad = as.double(n_grad), stepsize = NA_real_, L = NA_real_, n_reverted = NA_real_,
    inv_metric = NULL,
    timing = data.frame(chain = 1L, warmup = 0, sampling = elapsed),
    chain_status = factor(chain_status_label("ok"), levels = chain_status_levels()),
    failed_at = data.frame(chain = 1L, phase = NA_character_, step = NA_real_,
                           reason = NA_character_, stringsAsFactors = FALSE),
    spec = spec, sampler = structure(list(method = method), class = "bnn_approx_method"),
    warmup = 0L, iter = S, thin = 1L, seed = seed, chains = 1L, parameters = pars)
  new_bnnfit(chains, model, call = call, elapsed = elapsed,
             approx = approx, class = "bnn_approx")
}

.approx_labels <- c(laplace = "Laplace approximation", mc_dropout = "MC dropout",
                    swag = "SWAG", ensemble = "Deep ensemble")

#' @export
format.bnn_approx_method <- function(x, ...) .approx_labels[[x$method]] %||% x$method

# An approximation has no step sizes to describe (print.bnnfit(), through
# the sampler generic of R/sampler-class.R).
sampler_stepsize_note.bnn_approx_method <- function(sampler, warmup) ""

#' @export
print.bnn_approx <- function(x, digits = 3, ...) {
  cat(format(x$sampler), "of a Bayesian neural network\n")
  print_model_lines(x)
  a <- x$approx
  for (nm in names(a$summary %||% list()))
    cat(sprintf(" %-13s%s\n", paste0(nm, ":"), a$summary[[nm]]))
  cat(sprintf(" draws:        %d\n", dim(x$draws)[1]))
  cat(sprintf(" gradients:    %s; time %.1f s\n", format(sum(x$n_grad), big.mark = ","),
              x$elapsed))
  cat(" observations:", nobs(x), "\n")
  invisible(x)
}

# Train one network for an approximation (MAP, dropout, SWAG start) with
# the optimiser; stops with a clear error if it failed.
approx_optimize <- function(spec, optimizer, seed, init = NULL, what = "optimizer",
                            member = 1L, snapshot_every = 0L) {
  if (!inherits(optimizer, "bnn_optimizer"))
    stop(sprintf("'%s' must come from bnn_optimizer().", what), call. = FALSE)
  optimizer$patience <- NULL
  res <- do.call(.bnn_optimize, c(list(spec = spec, seed = seed, member = member,
                                       init = init, snapshot_every = snapshot_every),
                                  unclass(optimizer)))
  if (res$status == "nonfinite")
    stop(sprintf(paste0("The optimiser ('%s') hit a non-finite loss or gradient; ",
                        "use a smaller learning rate."), what), call. = FALSE)
  res
}

# Validate a number of draws.
check_draws <- function(draws) check_count(draws, "draws", 1L)

#' Turn a deep ensemble into a fit
#'
#' `as_bnnfit()` stores the members of a [bnn_fit_ensemble()] as the draws of
#' one "chain" (`[member, 1, parameter]`, failed members left out), so
#' that every method of a sampler fit applies to the ensemble: besides
#' [predict()] and [bnn_metrics()], which work on the ensemble directly
#' (with identical results), also `loo()`, the posterior and bayesplot
#' conversions, the plots and `summary()`.  The predictive distribution is
#' the same equal-weight mixture over members.
#'
#' @param x A `bnn_ensemble` (or a `bnnfit`, returned unchanged).
#' @param ... Unused.
#' @return A fit of class `c("bnn_approx", "bnnfit")`; `$approx$ensemble`
#'   is the ensemble without its training data.
#' @export
#' @examples
#' ens <- bnn_fit_ensemble(mpg ~ wt + hp, data = mtcars, hidden = 4, members = 5,
#'                     likelihood = bnn_likelihood("gaussian", sigma = 0.5),
#'                     optimizer = bnn_optimizer(epochs = 200), seed = 1,
#'                     progress = FALSE)
#' fit <- as_bnnfit(ens)
#' fit
#' all.equal(predict(fit, mtcars[1:3, ]), predict(ens, mtcars[1:3, ]))
as_bnnfit <- function(x, ...) UseMethod("as_bnnfit")

#' @rdname as_bnnfit
#' @export
as_bnnfit.bnnfit <- function(x, ...) x

#' @rdname as_bnnfit
#' @export
as_bnnfit.bnn_ensemble <- function(x, ...) {
  fields <- c("formula", "terms", "xlevels", "contrasts", "x_center", "x_scale",
              "y_center", "y_scale", "y", "levels", "model_frame", "data", "hidden",
              "activation", "likelihood", "prior", "X", "y_model")
  model <- x[intersect(fields, names(x))]
  model$spec <- fit_spec(x)
  dim <- dim(x$draws)[3]
  ok <- which(x$chain_status == "ok")
  if (!length(ok)) stop("All ensemble members failed; there is nothing to convert.",
                        call. = FALSE)
  th <- t(bnn_unconstrain(x, t(matrix(x$draws[1, ok, , drop = FALSE], ncol = dim))))
  ens <- x
  ens$X <- ens$y <- ens$y_model <- ens$model_frame <- ens$data <- NULL
  approx <- list(method = "ensemble", members = ok, ensemble = ens,
                 summary = list(members = sprintf("%d of %d", length(ok), x$members)))
  approx_fit(model, th, "ensemble", approx, x$elapsed, sum(x$n_grad), x$seed,
             x$call %||% match.call())
}

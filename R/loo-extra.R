# Moment matching for PSIS-LOO and K-fold cross-validation (methods of
# loo's generics; loo is imported).

# log p(y_i | theta_s) for the columns of th (unconstrained draws, one per
# column) at the rows of the design X (with the model's offset attribute)
# and responses y on the original scale (class index 1..K for
# classification); a [draw, observation] matrix.  w: observation weights.
loglik_at <- function(object, th, X, y, w = NULL) {
  out <- .Call(C_model_forward, object$spec, th, X, .bnn_threads())   # n x K x S
  fam <- object$likelihood$family
  n <- dim(out)[1]
  S <- dim(out)[3]
  if (is_family_lik(object)) {   # counts, binomial, Student-t (R/model-family.R)
    tr <- if (is.matrix(y)) y[, 1L] + y[, 2L] else NULL
    ll <- family_log_density(family_params(object, out, th, X, tr), y)
    if (!is.null(w)) ll <- sweep(ll, 2L, w, "*")
    return(ll)
  }
  if (is_classification(object)) {
    lp <- class_log_probs(out, fam)                     # S x n x K
    ll <- matrix(lp[cbind(rep(seq_len(S), n), rep(seq_len(n), each = S),
                          rep(as.integer(y), each = S))], S, n)
  } else {
    mu <- t(matrix(out[, 1, ], n, S))
    if (fam == "hetero_gaussian") {
      sd <- exp(pmin(pmax(t(matrix(out[, 2, ], n, S)), log(1e-6)), log(1e6)))
    } else {
      sig <- if (is.null(object$likelihood$sigma)) exp(th[nrow(th), ]) else
        rep(object$likelihood$sigma, S)
      sd <- matrix(sig, S, n)
    }
    mu <- mu * object$y_scale + object$y_center
    off <- attr(X, "offset")
    if (!is.null(off)) mu <- mu + rep(off, each = S)
    ll <- stats::dnorm(matrix(y, S, n, byrow = TRUE), mu, sd * object$y_scale, log = TRUE)
  }
  if (!is.null(w)) ll <- sweep(ll, 2L, w, "*")
  ll
}

#' Moment matching for PSIS-LOO
#'
#' Improves the PSIS-LOO estimates of the observations with high Pareto k
#' by the importance-weighted moment matching of Paananen et al. (2021),
#' through [loo::loo_moment_match()]: the draws are transformed affinely
#' (on the sampler's unconstrained scale, `log sigma`) towards each
#' leave-one-out posterior and reweighted with the exact log posterior of
#' the network ([bnn_log_posterior()]), so no refit is needed.  The same as
#' `loo(fit, moment_match = TRUE)`.  Observations whose k stays high are
#' best handled by [kfold.bnnfit()].
#'
#' @param x A `bnnfit`.
#' @param loo A `psis_loo` object of `x` (from `loo(x, save_psis = TRUE)`);
#'   computed if missing.
#' @param ... Passed to [loo::loo_moment_match()] (e.g. `k_threshold`,
#'   `max_iters`, `split`, `cov`).
#' @param cores Number of cores for loo's computations.
#' @return The updated `psis_loo` object.
#' @references Paananen, T., Piironen, J., Buerkner, P.-C. and Vehtari, A.
#'   (2021). Implicitly adaptive importance sampling. *Statistics and
#'   Computing* 31, 16.
#' @name loo_moment_match.bnnfit
#' @examplesIf requireNamespace("loo", quietly = TRUE)
#' \donttest{
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2,
#'                warmup = 150, iter = 100, seed = 42, progress = FALSE, sampler = "nuts")
#' lo <- suppressWarnings(loo::loo(fit, save_psis = TRUE))
#' lo_mm <- suppressWarnings(loo::loo_moment_match(fit, lo))
#' rbind(psis = lo$estimates[1, ], moment_matched = lo_mm$estimates[1, ])
#' loo::pareto_k_table(lo_mm)
#' }
NULL

#' @rdname loo_moment_match.bnnfit
#' @method loo_moment_match bnnfit
#' @export
loo_moment_match.bnnfit <- function(x, loo = NULL, ..., cores = getOption("mc.cores", 1)) {
  need_pkg("loo", "loo_moment_match()")
  if (!is.null(x$mixture))
    stop(paste0("Moment matching transforms one model's draws; 'x' mixes two models (the ",
                "default's check: ", mixture_names(x), "). loo(x, moment_match = TRUE) moment-matches ",
                "each model's own draws and mixes their estimates; kfold(x) refits."),
         call. = FALSE)
  if (is.null(loo)) {
    ll <- pointwise_loglik(x)
    loo <- loo::loo(ll, r_eff = fit_relative_eff(x, ll), save_psis = TRUE,
                    cores = cores)
  }
  X <- x$X
  if (!is.null(x$offset)) attr(X, "offset") <- x$offset
  y <- response_values(x)
  w <- x$weights
  spec <- fit_spec(x)
  # (a binomial's response is the row of successes and failures: its trials)
  y_i <- if (is.matrix(y)) function(i) y[i, , drop = FALSE] else function(i) y[i]
  lik_i <- function(x, th, i)
    as.vector(loglik_at(x, th, X[i, , drop = FALSE], y_i(i), if (!is.null(w)) w[i]))
  # loo needs an S x d matrix of draws; they are kept on the unconstrained
  # scale throughout, so unconstrain_pars() is the identity
  # the fit goes in a wrapper without a method, so loo's default method
  # (the algorithm) runs rather than this one again
  wrap <- structure(list(fit = x), class = "bnnmc_moment_match")
  loo::loo_moment_match(
    wrap, loo = loo,
    post_draws = function(x, ...) t(draws_matrix(x$fit)),
    log_lik_i = function(x, i, ...) lik_i(x$fit, draws_matrix(x$fit), i),
    unconstrain_pars = function(x, pars, ...) pars,
    log_prob_upars = function(x, upars, ...) .Call(C_model_logpost, spec, t(upars))$lp,
    log_lik_i_upars = function(x, upars, i, ...) lik_i(x$fit, t(upars), i),
    cores = cores, ...)
}

#' K-fold cross-validation
#'
#' Refits the model `K` times, each time without one fold of the training
#' data, and computes the expected log pointwise predictive density of the
#' left-out observations, `elpd_kfold` (Vehtari, Gelman and Gabry 2017), as
#' rstanarm's and brms's `kfold()`.  The folds are refitted through
#' `future` (one future per fold, like chains), each with the fit's own
#' seed, so the result does not depend on the `future` plan.  The result is
#' loo's `kfold` object: [loo::loo_compare()] compares it with other
#' `kfold` objects of the same data.  The refits use the training data kept
#' in the fit (`fit$data`: the rows and columns the model used), as
#' rstanarm's do, so the data frame need not be in the session, and later
#' changes to it do not change the result.  A fit that keeps no data (made
#' by an older version) is refitted to the data frame its call names, which
#' must still give the fit's model frame.
#'
#' @param x A `bnnfit`.
#' @param K Number of folds.
#' @param folds Optional fold index (1..K) for every observation of the
#'   training data; by default random folds of (nearly) equal size, drawn
#'   with the fit's seed ([loo::kfold_split_random()]).
#' @param save_fits Keep the `K` refitted models in the result (`$fits`).
#' @param ... Arguments of [bnn_fit()] to change for the refits (e.g.
#'   `chains`, `iter`).
#' @return An object of classes `kfold` and `loo` with `estimates`
#'   (`elpd_kfold`, `p_kfold`, `kfoldic`), `pointwise` and `fold`.
#' @references Vehtari, A., Gelman, A. and Gabry, J. (2017). Practical
#'   Bayesian model evaluation using leave-one-out cross-validation and WAIC.
#'   *Statistics and Computing* 27, 1413--1432.
#' @name kfold.bnnfit
#' @examplesIf requireNamespace("loo", quietly = TRUE)
#' \donttest{
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2,
#'                warmup = 150, iter = 100, seed = 42, progress = FALSE, sampler = "nuts")
#' kf <- loo::kfold(fit, K = 4)
#' kf
#' }
NULL

#' @rdname kfold.bnnfit
#' @method kfold bnnfit
#' @export
kfold.bnnfit <- function(x, K = 10, folds = NULL, save_fits = FALSE, ...) {
  need_pkg("loo", "kfold()")
  n <- nobs.bnnfit(x)
  data <- training_data(x)
  if (is.null(folds)) {
    K <- check_count(K, "K", 2L)
    if (K > n) stop(sprintf("'K' must be at most the number of observations (%d).", n),
                    call. = FALSE)
    folds <- with_seed(x$seed, loo::kfold_split_random(K = K, N = n))
  } else {
    if (!is.numeric(folds) || length(folds) != n || anyNA(folds) ||
        any(folds != round(folds)) || any(folds < 1))
      stop(sprintf("'folds' must give a fold index 1..K for each of the %d observations.", n),
           call. = FALSE)
    folds <- as.integer(folds)
    K <- max(folds)
  }
  extras <- list(...)
  env <- environment(x$formula) %||% parent.frame()
  init_given <- if (!is.null(x$call$init) && is.null(extras$init))
    tryCatch(eval(x$call$init, env), error = function(e) NULL)
  if (inherits(init_given, "bnn_ensemble"))
    stop(paste0("This fit started from a given bnn_ensemble, trained on all the data, so its ",
                "refits would see the left-out folds. Pass init = \"ensemble\" (an ensemble ",
                "trained on each fold) to kfold()."), call. = FALSE)
  base_call <- x$call
  base_call$progress <- FALSE
  base_call$subset <- NULL          # the data are already the model's rows
  if (is.null(base_call$seed)) base_call$seed <- x$seed
  for (nm in names(extras)) base_call[nm] <- list(extras[[nm]])
  one_fold <- function(k) {
    cl <- base_call
    cl$data <- data[folds != k, , drop = FALSE]
    cl$formula <- x$formula
    cl[[1L]] <- quote(bnnmc::bnn_fit)
    fit_k <- suppressWarnings(eval(cl, env))
    ll <- log_lik.bnnfit(fit_k, newdata = data[folds == k, , drop = FALSE])
    list(elpd = apply(ll, 2L, log_mean_exp), fit = if (save_fits) fit_k)
  }
  res <- dispatch_folds(seq_len(K), one_fold)
  elpd <- numeric(n)
  for (k in seq_len(K)) elpd[folds == k] <- res[[k]]$elpd
  # in-sample LPPD for p_kfold, as loo and rstanarm
  # (a block of training rows at a time: loglik_block())
  ls <- loglik_setup(x)
  lpd <- numeric(ls$n)
  for (idx in loglik_row_blocks(x, ls)) lpd[idx] <- apply(loglik_block(x, ls, idx), 2L, log_mean_exp)
  names(lpd) <- ls$names
  pw <- cbind(elpd_kfold = elpd, p_kfold = lpd - elpd, kfoldic = -2 * elpd)
  est <- cbind(Estimate = colSums(pw), SE = sqrt(n * apply(pw, 2L, stats::var)))
  out <- list(estimates = est, pointwise = pw, fold = folds,
              elpd_kfold = est[1, 1], se_elpd_kfold = est[1, 2],
              p_kfold = est[2, 1], se_p_kfold = est[2, 2])
  if (save_fits) out$fits <- lapply(res, `[[`, "fit")
  attr(out, "K") <- K
  structure(out, class = c("kfold", "loo"))
}


# The folds go through future like chains (one future per fold); inside a
# fold the fit's chains run sequentially unless the plan is nested.  The
# draws do not depend on the plan: every refit has the same seed.
dispatch_folds <- function(ids, fun) {
  if (requireNamespace("future.apply", quietly = TRUE) &&
      requireNamespace("future", quietly = TRUE))
    future.apply::future_lapply(ids, fun, future.seed = FALSE, future.packages = "bnnmc",
                                future.chunk.size = 1L, future.label = "bnnmc-fold-%d")
  else lapply(ids, fun)
}

# The rows of the original data the model was fitted to (for refits): the
# data kept in the fit, or for a fit that keeps none (made by an older
# version) the data frame its call names, if it is still the same (its
# model frame is the fit's).
training_data <- function(x) {
  if (is.data.frame(x$data)) return(x$data)
  env <- environment(x$formula)
  d <- tryCatch(eval(x$call$data, env), error = function(e) NULL)
  if (!is.data.frame(d))
    stop("The training data of this fit cannot be found (it was given as '",
         deparse1(x$call$data), "' and the fit does not keep them); refitting needs them.",
         call. = FALSE)
  if (isFALSE(same_training_data(x, d, env)))
    stop(sprintf(paste0("The data frame '%s' has changed since the fit (its model frame ",
                        "is not the fit's), and the fit does not keep its training data; ",
                        "refitting needs the data the fit was made with."),
                 deparse1(x$call$data)), call. = FALSE)
  rn <- rownames(x$model_frame)
  if (nrow(d) != length(rn) || !identical(rownames(d), rn)) {
    if (!all(rn %in% rownames(d)))
      stop("The training data have changed since the fit; refitting needs the same rows.",
           call. = FALSE)
    d <- d[rn, , drop = FALSE]
  }
  d
}

# PSIS-LOO and WAIC through the loo package (imported; its generics are
# re-exported in R/methods-conventions.R, as brms and rstanarm do).

#' Approximate leave-one-out cross-validation and WAIC
#'
#' `loo()` computes Pareto-smoothed importance-sampling leave-one-out
#' cross-validation (PSIS-LOO; Vehtari, Gelman and Gabry 2017) from the
#' pointwise log-likelihood of the training data ([log_lik.bnnfit()]), with
#' relative efficiencies as [loo::relative_eff()] computes them from the
#' chain of every draw (in compiled code).  `waic()` computes the widely applicable information criterion from
#' the same matrix.  The results are loo's own objects, so
#' [loo::loo_compare()] compares bnnmc fits with each other (and with brms or
#' rstanarm fits of the same data).
#'
#' @section PSIS-LOO for multimodal BNN posteriors:
#' The parameter posterior of a neural network is multimodal: permuting the
#' hidden units of a layer, or flipping signs for odd activations such as
#' tanh, gives the same function, so every mode comes with many symmetric
#' copies, and there are usually further, functionally different modes.
#' Chains started apart typically explore different modes and never mix
#' between them, which makes parameter-level R-hat large.  PSIS-LOO does
#' not look at the parameters, though: it works with the pointwise
#' predictive densities `p(y_i | theta_s)`, which are invariant to the
#' symmetries, and it estimates `log p(y_i | y_-i)` by importance sampling
#' over the pooled draws.  Symmetric copies of a mode therefore do no harm.
#' Functionally different modes visited by different chains are a real
#' problem: the pooled draws then over-represent whichever modes the chains
#' happened to find, and the importance weights for an observation that
#' only one mode fits well become heavy-tailed, which shows up as high
#' Pareto k values.  Check the diagnostics: `print()` of the result
#' tabulates them, and [loo::pareto_k_table()] and [loo::pareto_k_ids()]
#' list the observations; values above 0.7 mean that observation's estimate
#' is unreliable.  By default (`moment_match = "auto"`) `loo()` then
#' improves those observations by moment matching with the package's own
#' log density ([loo_moment_match.bnnfit()]), announced in a message, and
#' if some remain unreliable a warning offers [kfold.bnnfit()] with its
#' estimated cost (K refits of the time this fit took), or held-out data
#' (`log_lik(fit, newdata = test)`).  The relative
#' efficiencies (`r_eff`) are computed per chain, as loo recommends, so
#' poorly mixing chains lower them instead of being ignored.
#'
#' @section WAIC:
#' WAIC needs every observation's share of the effective number of
#' parameters (`p_waic`) to be small; for a network some are often above
#' 0.4, and [loo::waic()] then warns and recommends PSIS-LOO, whose Pareto
#' k diagnostics say which estimates to trust.  `loo()` is the estimate to
#' use for networks; `waic()` is there for comparisons with other software
#' (the example shows it on a linear model, where it is reliable).
#'
#' @param x A `bnnfit`.  Further fits given in `...` are compared with it,
#'   as in brms: `loo(fit1, fit2)` returns each model's loo and their
#'   [loo::loo_compare()] table (class `bnn_loolist`).
#' @param moment_match Improve the observations with high Pareto k by
#'   moment matching ([loo_moment_match.bnnfit()]): `"auto"` (default) when
#'   there are any, `TRUE` always, `FALSE` never.
#' @param compare With several fits: include the comparison table.
#' @param r_eff Relative efficiencies of the draws for each observation;
#'   computed from the chains by default.
#' @param cores Number of cores for loo's computations.
#' @param save_psis Keep the PSIS object in the result (needed by, e.g.,
#'   `bayesplot::ppc_loo_pit_overlay()`).
#' @param ... Passed to [loo::loo()] (e.g. `is_method`) or [loo::waic()].
#' @return An object of class `psis_loo` (`loo()`) or `waic` (`waic()`); see
#'   the loo package.
#' @references Vehtari, A., Gelman, A. and Gabry, J. (2017). Practical
#'   Bayesian model evaluation using leave-one-out cross-validation and WAIC.
#'   *Statistics and Computing* 27, 1413--1432.
#' @name loo.bnnfit
#' @examplesIf requireNamespace("loo", quietly = TRUE)
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2,
#'                warmup = 150, iter = 100, seed = 42, progress = FALSE, sampler = "nuts")
#' lo <- loo::loo(fit)
#' lo
#' loo::pareto_k_table(lo)
#' # WAIC, on a linear model of 100 rows, where every p_waic is small (for
#' # networks loo::waic() often warns that some are not: see "WAIC")
#' set.seed(1)
#' d <- data.frame(x = rnorm(100))
#' d$y <- 1 + 2 * d$x + rnorm(100)
#' lin <- bnn_fit(y ~ x, data = d, hidden = integer(0), chains = 2, warmup = 150,
#'                iter = 200, seed = 1, progress = FALSE, sampler = "nuts")
#' loo::waic(lin)
NULL

#' @rdname loo.bnnfit
#' @method loo bnnfit
#' @export
loo.bnnfit <- function(x, ..., r_eff = NULL, cores = getOption("mc.cores", 1),
                       save_psis = FALSE, moment_match = "auto", compare = TRUE) {
  need_pkg("loo", "loo()")
  if (!(isTRUE(moment_match) || isFALSE(moment_match) || identical(moment_match, "auto")))
    stop("'moment_match' must be \"auto\", TRUE or FALSE.", call. = FALSE)
  dots <- list(...)
  is_fit <- vapply(dots, inherits, logical(1), what = "bnnfit")
  if (any(is_fit)) {
    # loo(fit1, fit2, ...): one loo per model and loo::loo_compare(), as brms
    if (!is.null(r_eff))
      stop("'r_eff' belongs to one model; it cannot be given when comparing several.",
           call. = FALSE)
    nms <- vapply(as.list(substitute(list(x, ...)))[-1L], deparse1, character(1))
    fits <- c(list(x), dots[is_fit])
    names(fits) <- make.unique(c(nms[1L], nms[-1L][is_fit]))
    loos <- lapply(fits, function(f)
      do.call(loo.bnnfit, c(list(f), dots[!is_fit],
                            list(cores = cores, save_psis = save_psis,
                                 moment_match = moment_match))))
    out <- list(loos = loos)
    if (isTRUE(compare)) out$diffs <- loo::loo_compare(loos)
    return(structure(out, class = "bnn_loolist"))
  }
  ll <- pointwise_loglik(x)
  if (is.null(r_eff)) r_eff <- fit_relative_eff(x, ll)
  # loo's own Pareto k warnings are replaced by one warning of k_pointer()
  # below, given only if some k are still high after moment matching
  out <- muffle_pareto_k(loo::loo(ll, ..., r_eff = r_eff,
                                  save_psis = save_psis || !isFALSE(moment_match),
                                  cores = cores))
  rm(ll)
  if (identical(moment_match, "auto")) {
    n_high <- sum(out$diagnostics$pareto_k > (out$diagnostics$k_threshold %||% 0.7),
                  na.rm = TRUE)
    # a mixture of two models has no one parameter space to transform
    moment_match <- n_high > 0L && is.null(x$mixture)
    if (moment_match)
      message(sprintf(paste0("loo(): %d observation(s) have high Pareto k; improving them by ",
                             "moment matching (moment_match = FALSE skips this)."), n_high))
  }
  if (isTRUE(moment_match)) out <- moment_match_or_keep(x, out, cores)
  if (!save_psis) out$psis_object <- NULL
  k_pointer(out, moment_match, x$elapsed)
  out
}

# loo_moment_match() of a fit's PSIS-LOO `lo`, or `lo` itself, with a
# warning that says why, when moment matching fails: loo computes each
# point's relative efficiency from its likelihood values, which are all 0
# when the point's log-likelihood is below about -745 in every draw (a
# heteroscedastic network's training outlier), and then stops with a
# missing Pareto k.  `mm` is the moment matching (a test gives its own).
moment_match_or_keep <- function(x, lo, cores, mm = loo_moment_match.bnnfit) {
  out <- tryCatch(muffle_pareto_k(mm(x, lo, cores = cores)), error = function(e) e)
  if (!inherits(out, "error")) return(out)
  warn_cond(sprintf(paste0("loo(): moment matching failed (%s); the PSIS-LOO estimate is kept ",
                           "as it was."), conditionMessage(out)), "bnnmc_loo_moment_match")
  lo
}

# Evaluates expr without loo's warnings about high Pareto k (loo() and
# loo_moment_match() each give one); other warnings pass.
muffle_pareto_k <- function(expr) {
  withCallingHandlers(expr, warning = function(w) {
    if (grepl("Pareto k", conditionMessage(w), fixed = TRUE))
      invokeRestart("muffleWarning")
  })
}

# When PSIS is unreliable for some observations, say what to do next.
k_pointer <- function(lo, moment_match = FALSE, elapsed = NULL) {
  k <- lo$diagnostics$pareto_k
  thr <- lo$diagnostics$k_threshold %||% 0.7
  n_bad <- sum(k > thr, na.rm = TRUE)
  cost <- if (is.numeric(elapsed) && length(elapsed) == 1L && is.finite(elapsed))
    sprintf(" (10 refits: about %s)", format_duration(10 * elapsed)) else ""
  if (n_bad)
    warn_cond(sprintf(paste0("%d observation(s) have Pareto k above %.2f, so their PSIS-LOO ",
                             "estimates are unreliable. %sK-fold cross-validation: kfold(fit, K = 10)%s, ",
                             "or held-out data: log_lik(fit, newdata = test)."),
                      n_bad, thr,
                      if (moment_match) "Moment matching did not fix them all; use " else
                        "Try loo(fit, moment_match = TRUE), or use ", cost),
              "bnnmc_loo_pareto_k")
  invisible(n_bad)
}

#' @export
print.bnn_loolist <- function(x, ...) {
  for (nm in names(x$loos)) {
    cat("Output of model '", nm, "':\n", sep = "")
    print(x$loos[[nm]], ...)
    cat("\n")
  }
  if (!is.null(x$diffs)) {
    cat("Model comparisons:\n")
    print(x$diffs, ...)
  }
  invisible(x)
}

#' @rdname loo.bnnfit
#' @method waic bnnfit
#' @export
waic.bnnfit <- function(x, ...) {
  need_pkg("loo", "waic()")
  loo::waic(pointwise_loglik(x), ...)
}


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
#' @section Many observations:
#' PSIS, the relative efficiencies and every pointwise value belong to one
#' observation, so `loo()` and `waic()` compute them a block of
#' observations at a time and put loo's objects of the blocks together:
#' the same result as from the whole `[draw, observation]` log-likelihood
#' matrix, in the memory of a block (2,000 draws of a million observations
#' would be 16 GB).  Moment matching recomputes the observations it
#' improves and needs no more.  Only `save_psis = TRUE`, which keeps the
#' importance weights of every draw and observation, computes the whole
#' matrix.
#'
#' @section Stacked fits:
#' When the default's check stacks two models (the network and the linear
#' model, or the heteroscedastic Gaussian and the Student-t network; see
#' [bnn_fit()]), the draws of the two posteriors pooled are not one
#' posterior, so `loo()` does not apply PSIS to them: it computes each
#' model's own PSIS-LOO (moment matching each as `moment_match` says) and
#' mixes their leave-one-out densities of every observation with the
#' stacking weights, `elpd_i = log(w_1 exp(elpd_1,i) + w_2 exp(elpd_2,i))`,
#' the quantity the weights maximise (Yao, Vehtari, Simpson and Gelman
#' 2018).  An observation's Pareto k is the larger of the two models'.
#' `print()` of the fit shows each model's elpd alone and this stacked one;
#' the result's attribute `"stacked"` holds the weights and each model's
#' elpd.  `waic()` mixes the two models' WAIC the same way.  `r_eff` and `save_psis = TRUE` are not available for such a fit.
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
#' @param ... Further `bnnfit`s to compare (`loo()`), and for `loo()` the
#'   argument `is_method` of [loo::loo()].  Any other argument is an error
#'   naming it.  `newdata` is refused: leave-one-out cross-validation and
#'   WAIC estimate the predictive accuracy for the training data (as in
#'   rstanarm); for held-out data use `log_lik(fit, newdata = nd)` (the
#'   pointwise log-likelihood) or [bnn_metrics()]`(fit, newdata = nd)`.
#' @return An object of class `psis_loo` (`loo()`) or `waic` (`waic()`); see
#'   the loo package.
#' @references Vehtari, A., Gelman, A. and Gabry, J. (2017). Practical
#'   Bayesian model evaluation using leave-one-out cross-validation and WAIC.
#'   *Statistics and Computing* 27, 1413--1432.
#'
#'   Yao, Y., Vehtari, A., Simpson, D. and Gelman, A. (2018). Using stacking
#'   to average Bayesian predictive distributions. *Bayesian Analysis* 13,
#'   917--1007.
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
  check_loo_dots(dots[!is_fit], "loo", c("r_eff", "cores", "save_psis", "moment_match",
                                         "compare", "is_method"), pass = "is_method")
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
  if (!is.null(x$mixture)) {
    # a stack of two models: each model's own PSIS-LOO (moment matched as
    # asked), mixed with the stack's weights (stacked_elpd_object())
    if (!is.null(r_eff))
      stop("'r_eff' belongs to one model's draws; a stacked fit's loo() computes each model's own.",
           call. = FALSE)
    if (isTRUE(save_psis))
      stop(paste0("save_psis = TRUE needs one set of draws, but this fit stacks two models (",
                  mixture_names(x), "); loo(fit)$pointwise has the stack's elpd of every ",
                  "observation."), call. = FALSE)
    parts <- lapply(mixture_components(x), function(f)
      loo_one(f, dots[!is_fit], NULL, cores, FALSE, moment_match))
    out <- stacked_elpd_object(lapply(parts, `[[`, "loo"), x$mixture$weights, "loo")
    k_pointer(out, any(vapply(parts, `[[`, logical(1), "matched")), x$elapsed)
    return(out)
  }
  res <- loo_one(x, dots[!is_fit], r_eff, cores, save_psis, moment_match)
  k_pointer(res$loo, res$matched, x$elapsed)
  res$loo
}

# PSIS-LOO of one model's fit `x` (no mixture): list(loo = the psis_loo
# object, matched = whether moment matching was tried).  dots: arguments
# for loo::loo() (is_method).  loo's own Pareto k warnings are left out;
# the caller gives k_pointer()'s.
# Without save_psis the pointwise log-likelihood is never held whole: PSIS,
# the relative efficiencies and loo's pointwise values are each computed
# observation by observation, so loo_blocks() computes them a block of
# observations at a time, the same numbers; moment matching needs no PSIS
# object either (it recomputes the points it improves).
loo_one <- function(x, dots, r_eff, cores, save_psis, moment_match) {
  out <- muffle_pareto_k(if (save_psis) {
    ll <- pointwise_loglik(x)
    if (is.null(r_eff)) r_eff <- fit_relative_eff(x, ll)
    if (is.null(dots$is_method))
      loo::loo(ll, r_eff = r_eff, save_psis = TRUE, cores = cores) else
        loo::loo(ll, r_eff = r_eff, save_psis = TRUE, cores = cores,
                 is_method = dots$is_method)
  } else loo_blocks(x, r_eff, cores, dots$is_method))
  if (identical(moment_match, "auto")) {
    n_high <- sum(out$diagnostics$pareto_k > (out$diagnostics$k_threshold %||% 0.7),
                  na.rm = TRUE)
    moment_match <- n_high > 0L
    if (moment_match)
      message(sprintf(paste0("loo(): %d observation(s) have high Pareto k; improving them by ",
                             "moment matching (moment_match = FALSE skips this)."), n_high))
  }
  if (isTRUE(moment_match)) out <- moment_match_or_keep(x, out, cores)
  if (!save_psis) out$psis_object <- NULL
  list(loo = out, matched = isTRUE(moment_match))
}

# loo::loo() of the pointwise log-likelihood of x's training data
# (pointwise_loglik(x)), with r_eff (fit_relative_eff() of it when NULL),
# computed on blocks of observations (loglik_row_blocks(), of 8 times the
# prediction blocks' bytes: bnnmc.block_bytes) and put together by
# bind_loo_blocks(): the same object, without the [draw, observation]
# matrix of all observations.  loo's warnings are given once each.
loo_blocks <- function(x, r_eff = NULL, cores = getOption("mc.cores", 1), is_method = NULL,
                       bytes = 8 * pred_block_bytes()) {
  ls <- loglik_setup(x)
  if (!is.null(r_eff) && !all(is.na(r_eff))) {
    # loo's own checks of r_eff, on all observations rather than a block's
    if (length(r_eff) != ls$n)
      stop("'r_eff' must have one value per observation.", call. = FALSE)
    if (anyNA(r_eff)) stop("Can't mix NA and not NA values in 'r_eff'.", call. = FALSE)
  }
  parts <- list()
  warns <- character(0)
  for (idx in loglik_row_blocks(x, ls, bytes)) {
    ll <- loglik_block(x, ls, idx, x$weights)
    colnames(ll) <- ls$names[idx]
    re <- if (is.null(r_eff)) fit_relative_eff(x, ll) else r_eff[idx]
    parts[[length(parts) + 1L]] <- withCallingHandlers(
      if (is.null(is_method)) loo::loo(ll, r_eff = re, save_psis = FALSE, cores = cores) else
        loo::loo(ll, r_eff = re, save_psis = FALSE, cores = cores, is_method = is_method),
      warning = function(w) {
        warns <<- union(warns, conditionMessage(w))
        invokeRestart("muffleWarning")
      })
  }
  for (msg in warns) warning(msg, call. = FALSE)
  bind_loo_blocks(parts, c(ls$S, ls$n))
}

# waic() of the pointwise log-likelihood of x's training data, a block of
# observations at a time (as loo_blocks()), with loo's warning about large
# p_waic counted over all observations, as loo::waic() gives it.
waic_blocks <- function(x, bytes = 8 * pred_block_bytes()) {
  ls <- loglik_setup(x)
  parts <- list()
  for (idx in loglik_row_blocks(x, ls, bytes)) {
    ll <- loglik_block(x, ls, idx, x$weights)
    colnames(ll) <- ls$names[idx]
    parts[[length(parts) + 1L]] <- withCallingHandlers(loo::waic(ll), warning = function(w) {
      if (grepl("p_waic estimates greater than 0.4", conditionMessage(w), fixed = TRUE))
        invokeRestart("muffleWarning")
    })
  }
  out <- bind_loo_blocks(parts, c(ls$S, ls$n))
  bad <- out$pointwise[, "p_waic"] > 0.4
  if (any(bad))
    warning(paste0("\n", sum(bad), " (", format(round(100 * mean(bad), 1), nsmall = 1),
                   "%) p_waic estimates greater than 0.4. We recommend trying loo instead."),
            call. = FALSE)
  out
}

# loo's object (psis_loo or waic) of all observations from the objects of
# consecutive blocks of them: their pointwise rows and diagnostics put
# together, the estimates of all observations as loo computes them (its
# table_of_estimates(): column sums and sqrt(n) times the columns' sd, by
# matrixStats), and the dims [draws, observations].
bind_loo_blocks <- function(parts, dims) {
  out <- parts[[1L]]
  if (length(parts) > 1L) {
    out$pointwise <- do.call(rbind, lapply(parts, `[[`, "pointwise"))
    if (!is.null(out$diagnostics))
      out$diagnostics <- lapply(stats::setNames(nm = names(out$diagnostics)), function(d)
        do.call(c, lapply(parts, function(p) p$diagnostics[[d]])))
  }
  pw <- out$pointwise
  pw <- pw[, !colnames(pw) %in% c("mcse_elpd_loo", "influence_pareto_k"), drop = FALSE]
  est <- cbind(Estimate = matrixStats::colSums2(pw),
               SE = sqrt(nrow(pw) * matrixStats::colVars(pw)))
  rownames(est) <- colnames(pw)
  out$estimates <- est
  old <- c(rownames(est), paste0("se_", rownames(est)))
  for (k in seq_along(old)) out[[old[k]]] <- est[[k]]
  attr(out, "dims") <- dims
  out
}

# The PSIS-LOO or WAIC (`what`) of a stack of models from each model's
# (`parts`, loo's objects of the same observations) and the stack's weights
# `w`: the predictive density of observation i is the weighted sum of the
# models' (Yao, Vehtari, Simpson and Gelman 2018), elpd_i =
# log(sum_k w_k exp(elpd_k,i)), the quantity the stacking weights maximise
# (the draws of two posteriors pooled are not a posterior, so PSIS over the
# pooled draws would not estimate it, nor WAIC's variance penalty).  The
# in-sample lpd mixes the same way (p = lpd - elpd); for PSIS-LOO an
# observation's Pareto k is the larger of the models' (its estimate is as
# reliable as the less reliable one) and its Monte Carlo SE the models'
# combined by the delta method.
stacked_elpd_object <- function(parts, w, what = c("loo", "waic")) {
  what <- match.arg(what)
  nm <- function(x) paste0(x, "_", what)
  n <- nrow(parts[[1L]]$pointwise)
  col <- function(cn) vapply(parts, function(p) p$pointwise[, cn], numeric(n))
  e <- col(nm("elpd"))
  e_mix <- log_mix(e, w)
  out <- parts[[1L]]
  out$pointwise[, nm("elpd")] <- e_mix
  out$pointwise[, nm("p")] <- log_mix(e + col(nm("p")), w) - e_mix
  out$pointwise[, if (what == "loo") "looic" else "waic"] <- -2 * e_mix
  if (what == "loo") {
    share <- exp(sweep(e, 2L, log(as.numeric(w) / sum(w)), "+") - e_mix)
    out$pointwise[, "mcse_elpd_loo"] <- sqrt(rowSums((share * col("mcse_elpd_loo"))^2))
    k <- apply(col("influence_pareto_k"), 1L, max)
    out$pointwise[, "influence_pareto_k"] <- k
    out$diagnostics$pareto_k <- k
    if (!is.null(out$diagnostics$n_eff))
      out$diagnostics$n_eff <- apply(vapply(parts, function(p) p$diagnostics$n_eff,
                                            numeric(n)), 1L, min)
    out$psis_object <- NULL
  }
  cols <- c(nm("elpd"), nm("p"), if (what == "loo") "looic" else "waic")
  pw <- out$pointwise[, cols, drop = FALSE]
  est <- cbind(Estimate = colSums(pw), SE = sqrt(n * apply(pw, 2L, stats::var)))
  out$estimates <- est
  for (cn in cols) {
    out[[cn]] <- est[cn, "Estimate"]
    out[[paste0("se_", cn)]] <- est[cn, "SE"]
  }
  attr(out, "stacked") <- list(weights = as.numeric(w) / sum(w),
                               elpd = vapply(parts, function(p) p$estimates[1L, "Estimate"],
                                             numeric(1)))
  out
}

# The arguments of loo() or waic() given in `...` that are not fits: only
# those in `pass` go on to loo's own function; `newdata` is refused with the
# functions that do evaluate new data (leave-one-out is an estimate for the
# training data; the elpd of held-out data needs no importance sampling),
# and any other name is an error naming it (a misspelt 'moment_match' is
# not ignored).
check_loo_dots <- function(dots, fun, formals, pass = character(0)) {
  if (!length(dots)) return(invisible(NULL))
  nm <- names(dots) %||% rep("", length(dots))
  if (any(!nzchar(nm)))
    stop(sprintf("%s(): %d unnamed argument(s) that are not bnnfit objects; name them.",
                 fun, sum(!nzchar(nm))), call. = FALSE)
  if (any(nm %in% c("newdata", "new_data")))
    stop(sprintf(paste0("%s() estimates the predictive accuracy for the training data and ",
                        "does not take 'newdata'. For held-out data no approximation is ",
                        "needed: log_lik(fit, newdata = nd) gives the pointwise ",
                        "log-likelihood [draw, observation], whose elpd is ",
                        "sum(apply(ll, 2, function(l) log(mean(exp(l))))), and ",
                        "bnn_metrics(fit, newdata = nd) its LPPD per observation ",
                        "with coverage and calibration."), fun), call. = FALSE)
  bad <- dots[!nm %in% pass]
  if (length(bad) && !length(formals))
    stop(sprintf("%s(): unknown argument(s): %s; it takes none besides the fit.", fun,
                 paste0("'", names(bad), "'", collapse = ", ")), call. = FALSE)
  stop_unknown_args(bad, formals, fun)
  invisible(NULL)
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
  dots <- list(...)
  if (any(vapply(dots, inherits, logical(1), what = "bnnfit")))
    stop(paste0("waic() takes one fit; compare fits with loo(fit1, fit2), or with ",
                "loo::loo_compare(waic(fit1), waic(fit2))."), call. = FALSE)
  check_loo_dots(dots, "waic", character(0))
  # a stack of two models: each model's WAIC mixed with the weights, as loo()
  if (!is.null(x$mixture))
    return(stacked_elpd_object(lapply(mixture_components(x), waic_blocks),
                               x$mixture$weights, "waic"))
  waic_blocks(x)
}


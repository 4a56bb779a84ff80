# tidybayes: add_epred_draws(), add_linpred_draws(), add_predicted_draws()
# (and epred_draws() etc.) with the chain and iteration of every draw.
#
# tidybayes' default methods already call the rstantools generics, but they
# pass `re_formula` (which bnnmc's methods accept only as NULL or NA) and leave
# `.chain` and `.iteration` missing.  These methods (delayed S3
# registration; tidybayes is only suggested) give the same values as
# posterior_epred() / posterior_linpred() / posterior_predict(), one row per
# observation and draw, with `.draw` numbered as in as_draws_df(fit), so the
# rows join with spread_draws(fit, ...) by `.draw`.  spread_draws() and
# gather_draws() need nothing here: tidybayes reads fits through
# posterior::as_draws_df(), which bnnmc provides.

# Chain, iteration and draw number of the draws posterior_epred() uses.
tidy_draw_ids <- function(object, ndraws = NULL) {
  # a mixture's draws come from two models' chains (R/predict-mixture.R)
  if (!is.null(object$mixture)) {
    S <- pooled_ndraws(object, ndraws)
    return(data.frame(.chain = NA_integer_, .iteration = NA_integer_, .draw = seq_len(S)))
  }
  d <- object$draws
  ok <- which(object$chain_status == "ok")
  n_it <- dim(d)[1]
  m <- matrix(d[, ok, , drop = FALSE], ncol = dim(d)[3])
  ids <- which(stats::complete.cases(m))
  if (!is.null(ndraws)) {
    ndraws <- check_count(ndraws, "ndraws", 1L)
    if (ndraws < length(ids)) ids <- ids[unique(round(seq(1, length(ids), length.out = ndraws)))]
  }
  data.frame(.chain = ok[(ids - 1L) %/% n_it + 1L], .iteration = (ids - 1L) %% n_it + 1L,
             .draw = ids)
}

tidy_pred_draws <- function(object, newdata, draws, value, category) {
  eco_need("dplyr", "tidybayes' *_draws() on a bnnfit")
  ids <- tidy_draw_ids(object, NULL)
  if (nrow(ids) != dim(draws)[1]) stop("internal: draws and their ids differ.", call. = FALSE)
  newdata <- as.data.frame(newdata)
  n <- nrow(newdata)
  S <- dim(draws)[1]
  K <- if (length(dim(draws)) == 3L) dim(draws)[3] else 1L
  # rows: observation-major, then category, then draw (as tidybayes)
  row <- rep(seq_len(n), each = S * K)
  cat_k <- rep(rep(seq_len(K), each = S), n)
  draw <- rep(seq_len(S), n * K)
  out <- newdata[row, , drop = FALSE]
  rownames(out) <- NULL
  out$.row <- row
  out$.chain <- ids$.chain[draw]
  out$.iteration <- ids$.iteration[draw]
  out$.draw <- ids$.draw[draw]
  if (K > 1L) {
    out[[category]] <- factor(object$levels[cat_k], levels = object$levels)
    out[[value]] <- draws[cbind(draw, row, cat_k)]
  } else {
    out[[value]] <- draws[cbind(draw, row)]
  }
  groups <- c(names(newdata), ".row", if (K > 1L) category)
  dplyr::group_by(dplyr::as_tibble(out), dplyr::across(dplyr::all_of(groups)))
}

check_tidy_args <- function(re_formula, dpar = NULL) {
  # NA is brms's "no group-level terms", which is this model's case
  if (!is.null(re_formula) && !(length(re_formula) == 1L && !is.language(re_formula) &&
                                is.na(re_formula)))
    stop(paste0("'re_formula' must be NULL or NA: a bnnfit has no group-level terms ",
                "(brms's re_formula = NA, which is what it always predicts)."), call. = FALSE)
  if (!is.null(dpar) && !isFALSE(dpar))
    stop("'dpar' is not available for a bnnfit.", call. = FALSE)
}

#' tidybayes for Bayesian neural networks
#'
#' With \pkg{tidybayes} installed, `add_epred_draws()`, `add_linpred_draws()`
#' and `add_predicted_draws()` (and `epred_draws()`, ...) work on a
#' `bnnfit`: one row per row of `newdata` and posterior draw (and class,
#' for a categorical response's `epred` and `linpred`, in `.category`), with
#' the values of [posterior_epred()], [posterior_linpred()] and
#' [posterior_predict()], and `.chain`, `.iteration` and `.draw` numbered
#' as in `posterior::as_draws_df(fit)`, so they join with
#' `spread_draws(fit, ...)`.  `spread_draws()`, `gather_draws()` and
#' `tidy_draws()` read the parameters (`W1[i,j]`, `b1[j]`, ..., `sigma`,
#' `lp__`) through `posterior::as_draws_df()`, so `spread_draws(fit, sigma)`
#' has `sigma` on the response's scale (its median is [sigma()]) and a
#' linear model's data-scale coefficients are there by name
#' (`spread_draws(fit, wt)`); see [as.array.bnnfit()].
#'
#' `ndraws` takes that many draws spread evenly over the chains (the same
#' draws as `posterior_epred(fit, ndraws = )`), not a random subset; `seed`
#' is the seed of `posterior_predict()`'s noise.
#'
#' @name bnnmc_tidybayes
#' @param object A `bnnfit`.
#' @param newdata A data frame of predictors.
#' @param value Name of the column of values.
#' @param ndraws Number of draws (all by default).
#' @param seed Seed of the predictive noise (`predicted_draws()`).
#' @param re_formula `NULL` or `NA` (brms's "no group-level terms", this
#'   model's case); anything else is an error.
#' @param dpar Must be `NULL`.
#' @param n,scale,prediction tidybayes' deprecated arguments: an error.
#' @param category Name of the class column (categorical responses).
#' @param ... Unused.
#' @return A grouped tibble.
#' @examples
#' if (requireNamespace("tidybayes", quietly = TRUE)) {
#'   fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2,
#'                  warmup = 100, iter = 100, seed = 1, sampler = "nuts",
#'                  progress = FALSE)
#'   tidybayes::add_epred_draws(mtcars[1:2, c("wt", "hp")], fit)
#'   tidybayes::spread_draws(fit, b2[i])
#' }
NULL

#' @rdname bnnmc_tidybayes
#' @exportS3Method tidybayes::epred_draws
epred_draws.bnnfit <- function(object, newdata, ..., value = ".epred", ndraws = NULL,
                               seed = NULL, re_formula = NULL, category = ".category",
                               dpar = NULL) {
  check_tidy_args(re_formula, dpar)
  ep <- posterior_epred(object, newdata = newdata)
  tidy_subset(tidy_pred_draws(object, newdata, ep, value, category), object, ndraws)
}

#' @rdname bnnmc_tidybayes
#' @exportS3Method tidybayes::linpred_draws
linpred_draws.bnnfit <- function(object, newdata, ..., value = ".linpred", ndraws = NULL,
                                 seed = NULL, re_formula = NULL, category = ".category",
                                 dpar = NULL, n, scale) {
  check_tidy_args(re_formula, dpar)
  if (!missing(n) || !missing(scale))
    stop("'n' and 'scale' are tidybayes' deprecated arguments; use 'ndraws'.", call. = FALSE)
  lp <- posterior_linpred(object, newdata = newdata)
  tidy_subset(tidy_pred_draws(object, newdata, lp, value, category), object, ndraws)
}

#' @rdname bnnmc_tidybayes
#' @exportS3Method tidybayes::predicted_draws
predicted_draws.bnnfit <- function(object, newdata, ..., value = ".prediction",
                                   ndraws = NULL, seed = NULL, re_formula = NULL,
                                   category = ".category", n, prediction) {
  check_tidy_args(re_formula)
  if (!missing(n) || !missing(prediction))
    stop("'n' and 'prediction' are tidybayes' deprecated arguments; use 'ndraws' and 'value'.",
         call. = FALSE)
  pp <- posterior_predict(object, newdata = newdata, seed = seed)
  tidy_subset(tidy_pred_draws(object, newdata, pp, value, category), object, ndraws)
}

# Keeps the draws posterior_epred(fit, ndraws = ) would use.
tidy_subset <- function(out, object, ndraws) {
  if (is.null(ndraws)) return(out)
  keep <- tidy_draw_ids(object, ndraws)$.draw
  out[out$.draw %in% keep, , drop = FALSE]
}

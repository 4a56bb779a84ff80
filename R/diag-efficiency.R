# Sampling efficiency of fits: ESS over parameters, per second, and the
# speed-up of FBNN's tables (Moslemi et al.): min-ESS/s relative to a
# reference fit.

#' Sampling efficiency and speed-up of fits
#'
#' For each fit: the minimum, median and maximum effective sample size over
#' its parameters ([bnn_ess()], bulk by default, pooled over the chains that
#' did not fail), the wall-clock time (`$elapsed`: for a
#' calibration-emulation-sampling fit, all three stages), the minimum ESS
#' per second and the speed-up `spdup`, the ratio of a fit's min-ESS/s to
#' the reference fit's (the FBNN paper's definition, with BNN-SGHMC as the
#' reference).  A fit that ran faster than the clock's resolution has no
#' measurable rate: its `min_ess_per_s` and `spdup` are `NA`, with a
#' warning.  Gradient-free and gradient-based samplers are compared by
#' time, not by evaluations; `n_eval` reports the evaluations of the log
#' density each fit made (for CES: exact and emulated, in that order).
#'
#' @param ... Fits (`bnnfit`), named or not, or one list of fits.
#' @param reference The reference fit: a name or position among `...`, or
#'   a `bnnfit`; by default the first fit.
#' @param type The ESS of [bnn_ess()] (`"bulk"`, `"tail"`, `"basic"`, ...).
#' @param parameters Parameter names to use (default: all).
#' @return A data frame with one row per fit: `fit`, `ess_min`,
#'   `ess_median`, `ess_max`, `time`, `min_ess_per_s`, `spdup`, `n_exact`,
#'   `n_emulated`.
#' @export
#' @examples
#' a <- bnn_fit(mpg ~ wt, data = mtcars, hidden = integer(0),
#'              likelihood = bnn_likelihood("gaussian", sigma = 0.5),
#'              sampler = "rwm", chains = 2, warmup = 200, iter = 400, seed = 1)
#' b <- update(a, sampler = "pcn")
#' bnn_efficiency(rwm = a, pcn = b)
bnn_efficiency <- function(..., reference = 1L, type = "bulk", parameters = NULL) {
  fits <- list(...)
  if (length(fits) == 1L && is.list(fits[[1]]) && !inherits(fits[[1]], "bnnfit"))
    fits <- fits[[1]]
  if (!length(fits) || !all(vapply(fits, inherits, logical(1), "bnnfit")))
    stop("'...' must be one or more bnnfit objects.", call. = FALSE)
  nm <- names(fits) %||% rep("", length(fits))
  nm[!nzchar(nm)] <- paste0("fit", which(!nzchar(nm)))
  names(fits) <- nm
  one <- function(f) {
    d <- ok_draws(f)
    if (!is.null(parameters)) {
      bad <- setdiff(parameters, dimnames(d)[[3]])
      if (length(bad))
        stop("Unknown parameter(s): ", paste(bad, collapse = ", "), ".", call. = FALSE)
      d <- d[, , parameters, drop = FALSE]
    }
    ess <- bnn_ess(d, type = type)
    ess <- ess[is.finite(ess)]
    tm <- f$elapsed
    n_ex <- if (is.null(f$ces)) sum(f$n_grad) else f$ces$n_exact
    n_em <- if (is.null(f$ces)) 0 else f$ces$n_emulated
    c(ess_min = if (length(ess)) min(ess) else NA_real_,
      ess_median = if (length(ess)) stats::median(ess) else NA_real_,
      ess_max = if (length(ess)) max(ess) else NA_real_,
      time = tm, n_exact = n_ex, n_emulated = n_em)
  }
  tab <- as.data.frame(do.call(rbind, lapply(fits, one)))
  per_s <- function(ess, tm) ifelse(is.finite(tm) & tm > 0, ess / tm, NA_real_)
  fast <- nm[!is.na(tab$time) & tab$time <= 0]
  if (length(fast))
    warning(sprintf(paste0("Fit(s) %s took less than the clock's resolution (1 ms): their ",
                           "ESS per second cannot be measured and is NA; run longer chains."),
                    paste(fast, collapse = ", ")), call. = FALSE)
  tab$min_ess_per_s <- per_s(tab$ess_min, tab$time)
  ref <- if (inherits(reference, "bnnfit")) {
    r <- one(reference)
    per_s(r[["ess_min"]], r[["time"]])
  } else {
    if (is.character(reference)) {
      i <- match(reference, nm)
      if (is.na(i)) stop(sprintf("'reference' = \"%s\" is not among the fits.", reference),
                         call. = FALSE)
    } else {
      i <- check_count(reference, "reference", 1L)
      if (i > length(fits)) stop("'reference' is beyond the number of fits.", call. = FALSE)
    }
    tab$min_ess_per_s[i]
  }
  tab$spdup <- tab$min_ess_per_s / ref
  data.frame(fit = nm, tab[c("ess_min", "ess_median", "ess_max", "time", "min_ess_per_s",
                             "spdup", "n_exact", "n_emulated")],
             row.names = NULL, stringsAsFactors = FALSE)
}

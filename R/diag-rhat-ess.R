# Convergence diagnostics: R-hat, ESS, MCSE (as the 'posterior' package),
# chain-wise R-hat and layer summaries, cumulative LPPD (Sommer et al. 2024).
# The computations are in C (src/diag/diagnostics.c, ranks.c, rhat.c, ess.c,
# lppd.c; autocovariances in acov.c, fft.c); this file validates input
# and shapes the output.

# ---- input handling ---------------------------------------------------------

# Coerces x to a double array [iteration, chain, variable].  Returns a list
# with the array and whether x had three dimensions.
.bnn_draws3 <- function(x, arg = "x") {
  if (is.data.frame(x) || !(is.numeric(x) || is.logical(x))) {
    stop(sprintf(paste0("'%s' must be a numeric vector (one chain), a matrix ",
                        "[iteration, chain] or a 3-D array [iteration, chain, ",
                        "variable]."), arg), call. = FALSE)
  }
  d <- dim(x)
  dn <- dimnames(x)
  if (is.null(d) || length(d) == 1L) {
    a <- array(as.double(x), c(length(x), 1L, 1L))
    is3 <- FALSE
  } else if (length(d) == 2L) {
    a <- array(as.double(x), c(d, 1L),
               if (!is.null(dn)) list(dn[[1L]], dn[[2L]], NULL))
    is3 <- FALSE
  } else if (length(d) == 3L) {
    # a double array is passed on as it is (no copy; other attributes such
    # as the class of a posterior draws_array are ignored by the C code)
    a <- if (is.double(x)) x else array(as.double(x), d, dn)
    is3 <- TRUE
  } else {
    stop(sprintf("'%s' must have at most 3 dimensions [iteration, chain, variable].",
                 arg), call. = FALSE)
  }
  if (dim(a)[1L] < 1L) stop(sprintf("'%s' must have at least one iteration.", arg), call. = FALSE)
  if (dim(a)[2L] < 1L) stop(sprintf("'%s' must have at least one chain.", arg), call. = FALSE)
  list(x = a, is3 = is3)
}

.bnn_var_names <- function(a) {
  nm <- dimnames(a)[[3L]]
  if (is.null(nm) && dim(a)[3L] > 0L) nm <- paste0("V", seq_len(dim(a)[3L]))
  nm
}

.bnn_chain_names <- function(a) {
  nm <- dimnames(a)[[2L]]
  if (is.null(nm)) nm <- as.character(seq_len(dim(a)[2L]))
  nm
}

# One pass of the C diagnostics over all variables of a [iter, chain, var]
# array.  Warns (once) when ESS values were capped, as posterior does.
# options(bnnmc.simd = FALSE) forces the portable autocovariance routine
# instead of the AVX2/FMA one (for testing; results differ by rounding).
# Variables are spread over .bnn_threads() OpenMP threads.
.bnn_diag <- function(a, stats, probs = numeric(), kappa = 4L,
                      chainwise = FALSE, moments = FALSE) {
  res <- .Call(C_diag, a, as.character(stats), as.double(probs),
               as.integer(kappa), chainwise, moments,
               !isFALSE(getOption("bnnmc.simd")), .bnn_threads())
  if (res$n_capped > 0L) {
    warning(sprintf(paste0("The ESS has been capped to avoid unstable estimates ",
                           "(%d value%s)."), res$n_capped,
                    if (res$n_capped > 1L) "s" else ""), call. = FALSE)
  }
  res
}

.bnn_check_kappa <- function(kappa) {
  if (!is.numeric(kappa) || length(kappa) != 1L || is.na(kappa) ||
      kappa != round(kappa) || kappa < 2) {
    stop("'kappa' must be a single whole number >= 2.", call. = FALSE)
  }
  as.integer(kappa)
}

.bnn_check_probs <- function(probs) {
  if (!is.numeric(probs) || length(probs) < 1L || anyNA(probs) ||
      any(probs < 0 | probs > 1)) {
    stop("'probs' must be a numeric vector of probabilities in [0, 1].", call. = FALSE)
  }
  as.double(probs)
}

# named vector over variables (3-D input) or a single number
.bnn_shape_vec <- function(v, d) {
  if (d$is3) stats::setNames(as.vector(v), .bnn_var_names(d$x)) else as.vector(v)[1L]
}

# ---- R-hat --------------------------------------------------------------------

#' R-hat convergence diagnostics
#'
#' Rank-normalised split R-hat and its variants, computed as in the
#' \pkg{posterior} package (Vehtari et al. 2021), in C.
#'
#' * `"rhat"`: the maximum of the bulk and tail R-hat (posterior's `rhat()`).
#' * `"rhat_bulk"`: split R-hat of the rank-normalised draws (ranks pooled
#'   over all chains, average ties, normal scores
#'   `qnorm((r - 3/8) / (S + 1/4))`).
#' * `"rhat_tail"`: the same on the folded draws `abs(x - median(x))`.
#' * `"rhat_basic"`: split R-hat of the raw draws, without rank normalisation.
#'
#' Chains are split in halves; with an odd number of iterations the middle
#' draw is dropped, as in posterior.
#'
#' @param x Draws: a 3-D array `[iteration, chain, variable]` (also a
#'   `posterior::draws_array`), a matrix `[iteration, chain]` (one variable), a
#'   numeric vector (one chain), or a `bnnfit` object (its `draws` are used).
#' @param type Which R-hat to compute (see Details).
#' @param ... Passed on to methods.
#' @return For a 3-D array or a `bnnfit`, a numeric vector named by variable;
#'   otherwise a single number.  `NA` where posterior gives `NA`: when the
#'   draws contain `NA`/`NaN`, when they are constant, when split chains have
#'   fewer than 2 draws (fewer than 4 iterations; with 2 or 3 iterations
#'   posterior 1.4.0 returns values because its split then loses the matrix
#'   dimension and compares first and last draws across chains), and, for
#'   `"rhat_basic"`
#'   (and `"rhat_tail"` when the median is infinite), when there are infinite
#'   values.  Bulk R-hat (and hence `"rhat"`) is computed from ranks and is
#'   finite in the presence of `Inf`.
#' @references Vehtari, A., Gelman, A., Simpson, D., Carpenter, B., and
#'   Bürkner, P.-C. (2021). Rank-normalization, folding, and localization: An
#'   improved R-hat for assessing convergence of MCMC. *Bayesian Analysis*,
#'   16(2), 667-718.
#' @seealso [bnn_ess()], [bnn_mcse()], [bnn_chainwise_rhat()],
#'   [bnn_summarize_draws()]
#' @examples
#' set.seed(1)
#' x <- array(rnorm(400 * 4 * 3), c(400, 4, 3),
#'            dimnames = list(NULL, NULL, c("a", "b", "c")))
#' bnn_rhat(x)
#' bnn_rhat(x, type = "rhat_basic")
#' # one variable as a matrix [iteration, chain]; chains that disagree
#' y <- cbind(rnorm(500), rnorm(500, 1))
#' bnn_rhat(y)
#' @export
bnn_rhat <- function(x, ...) UseMethod("bnn_rhat")

#' @rdname bnn_rhat
#' @export
bnn_rhat.default <- function(x, type = c("rhat", "rhat_bulk", "rhat_tail", "rhat_basic"),
                             ...) {
  type <- match.arg(type)
  d <- .bnn_draws3(x)
  res <- .bnn_diag(d$x, type)
  .bnn_shape_vec(res$stats[, 1L], d)
}

#' @rdname bnn_rhat
#' @export
bnn_rhat.bnnfit <- function(x, ...) bnn_rhat.default(ok_draws(x), ...)

# ---- ESS ----------------------------------------------------------------------

#' Effective sample size
#'
#' Effective sample sizes as in the \pkg{posterior} package (Vehtari et al.
#' 2021), computed in C: autocorrelations of the split chains combined over
#' chains, truncated by Geyer's initial monotone sequence.
#'
#' * `"bulk"`: ESS of the rank-normalised split draws (posterior's
#'   `ess_bulk()`).
#' * `"tail"`: the minimum of the ESS of the indicators `x <= q05` and
#'   `x <= q95` (posterior's `ess_tail()`).
#' * `"basic"`: ESS of the raw split draws (posterior's `ess_basic()`).
#' * `"mean"`: the same as `"basic"` (posterior's `ess_mean()`).
#' * `"sd"`: ESS of `(x - mean(x))^2` (posterior's `ess_sd()` from version
#'   1.5.0 on; version 1.4.0 used `abs(x - mean(x))`).
#'
#' When the autocorrelation estimate would give an ESS above
#' `S * log10(S)` (`S` the number of split draws), it is capped there with a
#' warning, as posterior does.
#'
#' @inheritParams bnn_rhat
#' @param type Which ESS to compute (see Details).
#' @return As for [bnn_rhat()].  `NA` (as in posterior) when split chains
#'   have fewer than 3 draws (fewer than 6 iterations; but see [bnn_rhat()]
#'   for 2 or 3 iterations), when the draws are
#'   constant or contain `NA`/`NaN`, and, except for `"bulk"`, when they
#'   contain infinite values.
#' @seealso [bnn_rhat()], [bnn_mcse()]
#' @examples
#' set.seed(2)
#' ar1 <- function(n, phi) as.numeric(stats::filter(rnorm(n), phi, "recursive"))
#' x <- array(c(replicate(4, ar1(1000, 0.9)), replicate(4, rnorm(1000))),
#'            c(1000, 4, 2), dimnames = list(NULL, NULL, c("sticky", "iid")))
#' bnn_ess(x)
#' bnn_ess(x, type = "tail")
#' @export
bnn_ess <- function(x, ...) UseMethod("bnn_ess")

#' @rdname bnn_ess
#' @export
bnn_ess.default <- function(x, type = c("bulk", "tail", "basic", "mean", "sd"), ...) {
  type <- match.arg(type)
  d <- .bnn_draws3(x)
  res <- .bnn_diag(d$x, paste0("ess_", type))
  .bnn_shape_vec(res$stats[, 1L], d)
}

#' @rdname bnn_ess
#' @export
bnn_ess.bnnfit <- function(x, ...) bnn_ess.default(ok_draws(x), ...)

# ---- MCSE ---------------------------------------------------------------------

#' Monte Carlo standard errors
#'
#' Monte Carlo standard error of the posterior mean, `sd(x) / sqrt(ESS)` with
#' the basic ESS, or of posterior quantiles, as in the \pkg{posterior}
#' package: the ESS of the quantile indicator defines a Beta distribution
#' whose 15.9% and 84.1% quantiles are mapped back to order statistics of the
#' draws; the MCSE is half their distance.
#'
#' @inheritParams bnn_rhat
#' @param type `"mean"` or `"quantile"`.
#' @param probs Probabilities of the quantiles (for `type = "quantile"`).
#' @return For `type = "mean"`, as for [bnn_rhat()].  For `type =
#'   "quantile"`, a matrix `[variable, probability]` for 3-D input, else a
#'   vector with one value per probability; the names are `mcse_q5`,
#'   `mcse_q95`, ... as in posterior.  `NA` when the ESS is `NA` (see
#'   [bnn_ess()]).
#' @seealso [bnn_ess()]
#' @examples
#' set.seed(3)
#' x <- matrix(rnorm(2000), 500, 4)
#' bnn_mcse(x)
#' bnn_mcse(x, type = "quantile", probs = c(0.05, 0.5, 0.95))
#' @export
bnn_mcse <- function(x, ...) UseMethod("bnn_mcse")

#' @rdname bnn_mcse
#' @export
bnn_mcse.default <- function(x, type = c("mean", "quantile"), probs = c(0.05, 0.95),
                             ...) {
  type <- match.arg(type)
  d <- .bnn_draws3(x)
  if (type == "mean") {
    res <- .bnn_diag(d$x, "mcse_mean")
    return(.bnn_shape_vec(res$stats[, 1L], d))
  }
  probs <- .bnn_check_probs(probs)
  res <- .bnn_diag(d$x, "mcse_quantile", probs)
  pn <- paste0("mcse_q", probs * 100)
  if (d$is3) {
    out <- res$stats
    dimnames(out) <- list(.bnn_var_names(d$x), pn)
    out
  } else {
    stats::setNames(as.vector(res$stats[1L, ]), pn)
  }
}

#' @rdname bnn_mcse
#' @export
bnn_mcse.bnnfit <- function(x, ...) bnn_mcse.default(ok_draws(x), ...)

# ---- summary ------------------------------------------------------------------

#' Summarize posterior draws
#'
#' One row per variable with the usual posterior summaries and convergence
#' diagnostics, computed in one pass in C (each variable is sorted once).
#' The values equal posterior's `summarise_draws()` defaults (`mean`,
#' `median`, `sd`, `q5`, `q95`, `rhat`, `ess_bulk`, `ess_tail`) and
#' `mcse_mean`; optionally the chain-wise R-hat (see [bnn_chainwise_rhat()])
#' is added, summarised over chains.
#'
#' @inheritParams bnn_rhat
#' @param chainwise If `TRUE` (default), add the columns `cw_rhat_mean` and
#'   `cw_rhat_max`: the mean and maximum over chains (ignoring `NA`) of the
#'   chain-wise R-hat.
#' @param kappa Number of sub-chains of the chain-wise R-hat.
#' @return A data frame with columns `variable`, `mean`, `median`, `sd`,
#'   `q5`, `q95`, `rhat`, `ess_bulk`, `ess_tail`, `mcse_mean` (and
#'   `cw_rhat_mean`, `cw_rhat_max`).  Quantiles are of type 7 (as
#'   `stats::quantile()`) over all draws; they are `NA` if a draw is `NA`.
#'   See [bnn_rhat()], [bnn_ess()] and [bnn_chainwise_rhat()] for when the
#'   diagnostics are `NA`.
#' @examples
#' set.seed(4)
#' x <- array(rnorm(1000 * 4 * 3), c(1000, 4, 3),
#'            dimnames = list(NULL, NULL, c("W1[1,1]", "b1[1]", "sigma")))
#' bnn_summarize_draws(x)
#' @export
bnn_summarize_draws <- function(x, ...) UseMethod("bnn_summarize_draws")

#' @rdname bnn_summarize_draws
#' @export
bnn_summarize_draws.default <- function(x, chainwise = TRUE, kappa = 4, ...) {
  if (!is.logical(chainwise) || length(chainwise) != 1L || is.na(chainwise)) {
    stop("'chainwise' must be TRUE or FALSE.", call. = FALSE)
  }
  kappa <- .bnn_check_kappa(kappa)
  d <- .bnn_draws3(x)
  res <- .bnn_diag(d$x, c("mean", "median", "sd", "quantile", "rhat", "ess_bulk",
                          "ess_tail", "mcse_mean"), c(0.05, 0.95), kappa = kappa,
                   chainwise = chainwise)
  s <- res$stats
  vn <- .bnn_var_names(d$x)
  if (is.null(vn)) vn <- character()
  out <- data.frame(variable = vn, mean = s[, 1L], median = s[, 2L], sd = s[, 3L],
                    q5 = s[, 4L], q95 = s[, 5L], rhat = s[, 6L], ess_bulk = s[, 7L],
                    ess_tail = s[, 8L], mcse_mean = s[, 9L], stringsAsFactors = FALSE,
                    row.names = NULL)
  if (chainwise) {
    cw <- res$chainwise
    ok <- colSums(!is.na(cw)) > 0L
    out$cw_rhat_mean <- ifelse(ok, colMeans(cw, na.rm = TRUE), NA_real_)
    out$cw_rhat_max <- ifelse(ok, suppressWarnings(apply(cw, 2L, max, na.rm = TRUE)), NA_real_)
  }
  out
}

#' @rdname bnn_summarize_draws
#' @export
bnn_summarize_draws.bnnfit <- function(x, ...) bnn_summarize_draws.default(ok_draws(x), ...)

# ---- chain-wise R-hat and layer summaries -----------------------------------

#' Chain-wise R-hat
#'
#' The chain-wise rank-normalised split R-hat \eqn{\hat{cR}^{(\kappa)}} of
#' Sommer et al. (2024, App. B): each chain on its own is cut into `kappa`
#' contiguous sub-chains of equal length, its draws are rank normalised
#' within the chain (average ties, `qnorm((r - 3/8) / (S + 1/4))`), and the
#' R-hat of the sub-chains is computed.  It measures within-chain
#' stationarity and does not penalise chains that sit in different modes,
#' which is expected for multimodal BNN posteriors.  Values near or below 1.1
#' went with well-performing models in that paper.
#'
#' With `kappa = 2` and an even number of iterations this equals posterior's
#' bulk R-hat applied to each chain alone.  When the number of iterations is
#' not a multiple of `kappa`, the first `n_iter %% kappa` draws of each chain
#' are dropped so that the sub-chains have equal length.
#'
#' @inheritParams bnn_rhat
#' @param kappa Number of sub-chains per chain (a whole number >= 2).
#' @return A matrix `[chain, variable]`.  `NA` for a chain that contains
#'   `NA`/`NaN`, whose draws are all equal, or when the sub-chains have fewer
#'   than 2 draws (`n_iter < 2 * kappa`).
#' @references Sommer, E., Wimmer, L., Papamarkou, T., Bothmann, L., Bischl,
#'   B., and Rügamer, D. (2024). Connecting the dots: Is mode-connectedness
#'   the key to feasible sample-based inference in Bayesian neural networks?
#'   *ICML 2024*. \doi{10.48550/arXiv.2402.01484}
#' @seealso [bnn_layer_summary()], [bnn_rhat()]
#' @examples
#' set.seed(5)
#' n <- 800
#' x <- array(rnorm(n * 3 * 2), c(n, 3, 2),
#'            dimnames = list(NULL, NULL, c("stationary", "trend")))
#' x[, , "trend"] <- x[, , "trend"] + seq(0, 3, length.out = n)
#' bnn_chainwise_rhat(x)
#' @export
bnn_chainwise_rhat <- function(x, ...) UseMethod("bnn_chainwise_rhat")

#' @rdname bnn_chainwise_rhat
#' @export
bnn_chainwise_rhat.default <- function(x, kappa = 4, ...) {
  kappa <- .bnn_check_kappa(kappa)
  d <- .bnn_draws3(x)
  res <- .bnn_diag(d$x, character(), kappa = kappa, chainwise = TRUE)
  out <- res$chainwise
  dimnames(out) <- list(chain = .bnn_chain_names(d$x), variable = .bnn_var_names(d$x))
  out
}

#' @rdname bnn_chainwise_rhat
#' @export
bnn_chainwise_rhat.bnnfit <- function(x, ...) bnn_chainwise_rhat.default(ok_draws(x), ...)

# Layer and role of parameter names W<l>[i,j], b<l>[j]; anything else is
# role "other" with layer NA.
.bnn_parse_param_names <- function(nm) {
  m <- regmatches(nm, regexec("^([Wb])([0-9]+)\\[", nm))
  ok <- lengths(m) == 3L
  layer <- rep(NA_integer_, length(nm))
  role <- rep("other", length(nm))
  layer[ok] <- as.integer(vapply(m[ok], `[`, "", 3L))
  role[ok] <- ifelse(vapply(m[ok], `[`, "", 2L) == "W", "weight", "bias")
  data.frame(layer = layer, role = role, stringsAsFactors = FALSE)
}

#' Layer-wise convergence summary
#'
#' Aggregates convergence diagnostics per layer and role (weights, biases,
#' other parameters), following the layer-wise analyses of Sommer et al.
#' (2024, Sec. 5-6, Figs. 3, 4, 7, 8).  Parameter names follow the package's
#' flat layout: `W1[3,2]` is the weight of layer 1 from input 3 to unit 2,
#' `b2[5]` the bias of unit 5 of layer 2; other names (such as `sigma`) form
#' the role `"other"` with layer `NA`.
#'
#' Per parameter, the function computes posterior's R-hat (see [bnn_rhat()]),
#' the chain-wise R-hat (see [bnn_chainwise_rhat()]) averaged over the chains
#' where it is defined, the within-chain variance (mean over chains of the
#' chain variances) and between-chain variance (variance of the chain
#' means), both with denominators n as in the paper's code, and the mean
#' over chains of the absolute OLS slope of the draws on sampling time
#' `t = (s - 1) / n_iter` (the "range of motion" of Fig. 3).  These are then
#' averaged over the parameters of a group, ignoring `NA`s.
#'
#' @inheritParams bnn_chainwise_rhat
#' @return A data frame with one row per layer and role and columns `layer`,
#'   `role`, `n_params`, `rhat_mean`, `rhat_se`, `cw_rhat_mean`,
#'   `cw_rhat_se`, `within_var_mean`, `between_var_mean`, `abs_slope_mean`.
#'   Standard errors are `sd / sqrt(k)` over the `k` non-`NA` values (`NA` if
#'   `k < 2`).  The between-chain variance is 0 with one chain.
#' @seealso [bnn_chainwise_rhat()]
#' @examples
#' set.seed(6)
#' nm <- c("W1[1,1]", "W1[2,1]", "b1[1]", "W2[1,1]", "b2[1]", "sigma")
#' x <- array(rnorm(400 * 4 * 6), c(400, 4, 6), dimnames = list(NULL, NULL, nm))
#' bnn_layer_summary(x)
#' @export
bnn_layer_summary <- function(x, ...) UseMethod("bnn_layer_summary")

#' @rdname bnn_layer_summary
#' @export
bnn_layer_summary.default <- function(x, kappa = 4, ...) {
  kappa <- .bnn_check_kappa(kappa)
  d <- .bnn_draws3(x)
  nm <- dimnames(d$x)[[3L]]
  if (is.null(nm)) {
    stop(paste0("'x' needs variable names (dimnames(x)[[3]]) such as ",
                "'W1[3,2]', 'b2[5]' or 'sigma'."), call. = FALSE)
  }
  res <- .bnn_diag(d$x, "rhat", kappa = kappa, chainwise = TRUE, moments = TRUE)
  nn <- function(v) v[!is.na(v)]
  cmean <- function(v) if (length(v <- nn(v))) mean(v) else NA_real_
  per <- .bnn_parse_param_names(nm)
  per$rhat <- res$stats[, 1L]
  per$cw <- apply(res$chainwise, 2L, cmean)
  per$within <- res$within
  per$between <- res$between
  per$slope <- apply(res$slope, 2L, cmean)
  se <- function(v) {
    v <- nn(v)
    if (length(v) < 2L) NA_real_ else stats::sd(v) / sqrt(length(v))
  }
  role_rank <- match(per$role, c("weight", "bias", "other"))
  key <- order(is.na(per$layer), per$layer, role_rank)
  groups <- unique(per[key, c("layer", "role")])
  rows <- lapply(seq_len(nrow(groups)), function(g) {
    sel <- per$role == groups$role[g] &
      ((is.na(per$layer) & is.na(groups$layer[g])) |
         (!is.na(per$layer) & !is.na(groups$layer[g]) & per$layer == groups$layer[g]))
    p <- per[sel, , drop = FALSE]
    data.frame(layer = groups$layer[g], role = groups$role[g], n_params = nrow(p),
               rhat_mean = cmean(p$rhat), rhat_se = se(p$rhat),
               cw_rhat_mean = cmean(p$cw), cw_rhat_se = se(p$cw),
               within_var_mean = cmean(p$within), between_var_mean = cmean(p$between),
               abs_slope_mean = cmean(p$slope), stringsAsFactors = FALSE)
  })
  out <- do.call(rbind, rows)
  rownames(out) <- NULL
  out
}

#' @rdname bnn_layer_summary
#' @export
bnn_layer_summary.bnnfit <- function(x, ...) bnn_layer_summary.default(ok_draws(x), ...)

# ---- cumulative LPPD ----------------------------------------------------------

#' Cumulative (expanding-window) LPPD per chain
#'
#' The chain-wise expanding-window log pointwise predictive density of
#' Sommer et al. (2024, Eq. 8): for chain `c` and each `t`, the LPPD of the
#' first `t` draws of that chain,
#' \deqn{\mathrm{LPPD}_t = \frac{1}{n}\sum_{i=1}^n \log\Big(\frac{1}{t}
#'   \sum_{s \le t} p(y_i \mid \theta_s)\Big),}
#' computed stably with a running log-sum-exp per observation (O(S n)).
#'
#' @param loglik Log-likelihood values `log p(y_i | theta_s)` of held-out
#'   observations: an array `[iteration, chain, observation]`, or a matrix
#'   `[iteration, observation]` for a single chain.
#' @return A matrix `[iteration, chain]`.  Values of `-Inf` in `loglik` are
#'   zero densities; `NA`/`NaN` make the affected and all later values `NA`.
#' @seealso [bnn_lppd_stop()]
#' @examples
#' set.seed(7)
#' ll <- array(dnorm(rnorm(200 * 2 * 30), log = TRUE), c(200, 2, 30))
#' cl <- bnn_cumulative_lppd(ll)
#' matplot(cl, type = "l", xlab = "draw", ylab = "cumulative LPPD")
#' @export
bnn_cumulative_lppd <- function(loglik) {
  if (!is.numeric(loglik) || is.data.frame(loglik)) {
    stop("'loglik' must be a numeric array [iteration, chain, observation].", call. = FALSE)
  }
  d <- dim(loglik)
  if (length(d) == 2L) {
    a <- array(as.double(loglik), c(d[1L], 1L, d[2L]))
  } else if (length(d) == 3L) {
    a <- array(as.double(loglik), d)
  } else {
    stop(paste0("'loglik' must be an array [iteration, chain, observation] or a ",
                "matrix [iteration, observation]."), call. = FALSE)
  }
  if (any(dim(a) < 1L)) {
    stop("'loglik' must have at least one iteration, chain and observation.", call. = FALSE)
  }
  out <- .Call(C_cumulative_lppd, a)
  if (length(d) == 3L && !is.null(dimnames(loglik)[[2L]])) {
    colnames(out) <- dimnames(loglik)[[2L]]
  }
  out
}

#' Stopping rule for the cumulative LPPD
#'
#' The convergence rule of Sommer et al. (2024, Eq. 9): a chain has
#' converged at draw `l` when the cumulative LPPD differs from its mean over
#' the preceding `window` draws by less than `epsilon`,
#' \deqn{\Big|\frac{1}{\varpi}\sum_{l-\varpi \le \tilde{l} < l}
#'   \mathrm{LPPD}_{\tilde{l}} - \mathrm{LPPD}_l\Big| < \epsilon.}
#' The paper does not state values of `epsilon` and `window`.
#'
#' @param cum_lppd Cumulative LPPD: a matrix `[iteration, chain]` (as from
#'   [bnn_cumulative_lppd()]) or a numeric vector (one chain).
#' @param epsilon Tolerance (a positive number).
#' @param window Window length \eqn{\varpi} (a whole number >= 1).
#' @return An integer vector with one value per chain: the first iteration
#'   `l` (> `window`) at which the rule fires, `NA` if it never does.  A
#'   window containing a non-finite value cannot fire.
#' @seealso [bnn_cumulative_lppd()]
#' @examples
#' set.seed(8)
#' ll <- array(dnorm(rnorm(500 * 3 * 20), log = TRUE), c(500, 3, 20))
#' bnn_lppd_stop(bnn_cumulative_lppd(ll), epsilon = 0.001, window = 20)
#' @export
bnn_lppd_stop <- function(cum_lppd, epsilon, window) {
  if (!is.numeric(cum_lppd) || is.data.frame(cum_lppd)) {
    stop("'cum_lppd' must be a numeric matrix [iteration, chain] or vector.", call. = FALSE)
  }
  if (is.null(dim(cum_lppd))) cum_lppd <- matrix(cum_lppd, ncol = 1L)
  if (length(dim(cum_lppd)) != 2L) {
    stop("'cum_lppd' must be a numeric matrix [iteration, chain] or vector.", call. = FALSE)
  }
  if (!is.numeric(epsilon) || length(epsilon) != 1L || is.na(epsilon) ||
      !is.finite(epsilon) || epsilon <= 0) {
    stop("'epsilon' must be a single positive number.", call. = FALSE)
  }
  if (!is.numeric(window) || length(window) != 1L || is.na(window) ||
      window != round(window) || window < 1) {
    stop("'window' must be a single whole number >= 1.", call. = FALSE)
  }
  m <- matrix(as.double(cum_lppd), nrow(cum_lppd), ncol(cum_lppd))
  out <- .Call(C_lppd_stop, m, as.double(epsilon), as.integer(window))
  names(out) <- colnames(cum_lppd)
  out
}


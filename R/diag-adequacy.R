# The third part of the fit's verdict: does the model fit?
#
# The first two parts (R/diag-convergence.R) ask whether the chains agree
# and have settled; neither sees a model that misses the data's shape
# (a network whose prior is too smooth for a sharp feature on few rows
# predicts the same wrong curve in every chain).  This part asks whether
# the fit leaves structure that a smoother finds: the leave-one-out
# quantile residuals (Dunn and Smyth 1996) of the training points the
# verdict uses, z_i = qnorm(LOO-PIT_i), are N(0, 1) and independent of
# the inputs under an adequate model.  Each input (and the fitted values)
# gets a regression spline of the residuals (smooth_residual_test());
# the check fires when a smooth is significant after Holm's correction at
# .adequacy_alpha and explains at least .adequacy_min_r2 of the residuals'
# variance (an effect-size floor, so that many rows do not make negligible
# structure significant).  Thresholds and false-alarm rate:
# inst/benchmarks/decisions/adequacy_panel.R.

# Holm-adjusted p-value below which a smooth of the residuals is structure.
.adequacy_alpha <- 0.001
# Share of the residuals' variance a smooth must explain to count.
.adequacy_min_r2 <- 0.1
# Columns with fewer distinct values than this get a linear term, not a smooth.
.adequacy_min_unique <- 5L
# Degrees of freedom of the spline of the residuals on an input, at most.
.adequacy_max_df <- 6L
# The factor by which the advice (and the default, R/fit-choice.R,
# choose_wider_prior()) widens the default's prior scale.
.wider_prior_factor <- 3

# The model-adequacy part from function_draws() at the verdict's points
# idx: NULL where it does not apply (categorical likelihoods, fewer than 20
# points), else list(adequate, tests (one row per input and the
# fitted values: term, p, p_holm, r2, structure), inputs (those with
# structure left), points, remedy, reasons).
model_adequacy <- function(object, fs, idx, seed = object$seed %||% 1L) {
  if (length(idx) < 20L) return(NULL)
  # (NULL: a categorical response, where the check does not apply; an
  # error is the verdict's to report)
  z <- loo_quantile_residuals(object, fs, idx, seed)
  if (is.null(z)) return(NULL)
  if (sum(is.finite(z)) < 20L) stop("fewer than 20 finite leave-one-out residuals", call. = FALSE)
  X <- object$X[idx, , drop = FALSE]
  cols <- c(stats::setNames(lapply(seq_len(ncol(X)), function(j) X[, j]),
                            colnames(X) %||% paste0("x", seq_len(ncol(X)))),
            list(`fitted values` = fs$fitted))
  tests <- smooth_residual_tests(z, cols)
  tests$structure <- !is.na(tests$p_holm) & tests$p_holm < .adequacy_alpha &
    !is.na(tests$r2) & tests$r2 >= .adequacy_min_r2
  found <- tests$term[tests$structure]
  inputs <- setdiff(found, "fitted values")
  out <- list(adequate = !length(found), tests = tests, inputs = inputs,
              points = length(idx), reasons = character(0), remedy = NULL,
              spread = residual_spread(z, cols))
  if (length(found)) {
    best <- tests[tests$structure, , drop = FALSE]
    out$reasons <- sprintf(
      "the leave-one-out residuals still follow %s (a spline of them explains %s of their variance; Holm-adjusted p %s)",
      paste(if (length(inputs)) inputs else "the fitted values", collapse = ", "),
      paste(sprintf("%.0f%%", 100 * best$r2[best$term %in% (if (length(inputs)) inputs else found)]),
            collapse = ", "),
      paste(format.pval(best$p_holm[best$term %in% (if (length(inputs)) inputs else found)],
                        digits = 2, eps = 1e-16), collapse = ", "))
    out$remedy <- adequacy_remedy(object)
  }
  out
}

# Holm-adjusted p-value below which the residuals' spread counts as
# varying (residual_spread()): a hint is enough, since the default keeps
# its likelihood stack where the spread varies and a missed variation
# costs much more than a needless stack.  On airfoil the homoscedastic
# network's residuals gave p of 0.005 and 0.014 on two of ten splits where
# the stack was 0.44 and 0.59 nats per test point better; on Friedman's
# function (noise of one sd) 0.43 and 1
# (inst/benchmarks/decisions/stack_spread_gate.R).
.spread_alpha <- 0.1

# Does the residuals' spread change with an input or the fitted values?
# The same smooths of |z| instead of z (under a model whose noise is right
# |z| is half-normal whatever the inputs): list(tests (term, p, r2,
# p_holm), p_min (the smallest Holm-adjusted p), varies (p_min below
# .spread_alpha; no effect-size floor)).  The default's likelihood stack
# (R/fit-choice.R) asks it of its homoscedastic (Student-t) network: where the spread
# does not vary, the heteroscedastic network has nothing to add.
residual_spread <- function(z, cols) {
  tests <- smooth_residual_tests(abs(z), cols)
  p_min <- suppressWarnings(min(tests$p_holm, na.rm = TRUE))
  list(tests = tests, p_min = p_min, varies = is.finite(p_min) && p_min < .spread_alpha)
}

# smooth_residual_test() of z on each of the named columns `cols`, with
# Holm's correction over them: a data frame of term, p, r2 and p_holm.
smooth_residual_tests <- function(z, cols) {
  tests <- do.call(rbind, lapply(names(cols), function(nm) {
    r <- smooth_residual_test(z, cols[[nm]])
    data.frame(term = nm, p = r[["p"]], r2 = r[["r2"]], stringsAsFactors = FALSE)
  }))
  tests$p_holm <- stats::p.adjust(tests$p, "holm")
  tests
}

# p-value and share of variance explained (adjusted R-squared) of a
# regression of z on x by the F test against a constant: a natural cubic
# spline (splines::ns(), knots at quantiles of x's distinct values) of 2
# degrees of freedom
# (smooth curvature) and one of up to .adequacy_max_df (sharper features;
# at most one per 5 points), the better of the two with its p-value
# doubled (Bonferroni); a linear term where x has fewer than
# .adequacy_min_unique distinct values; NA where x is constant.  A
# penalised mgcv::gam() (REML) of the same residuals gave the same verdict
# on all 29 fits of inst/benchmarks/decisions/adequacy_panel.R at 3 to 70
# times the cost (median 19).
smooth_residual_test <- function(z, x) {
  ok <- is.finite(z) & is.finite(x)
  z <- z[ok]
  x <- x[ok]
  nu <- length(unique(x))
  if (nu < 2L) return(c(p = NA_real_, r2 = NA_real_))
  dfs <- if (nu < .adequacy_min_unique) 1L else
    unique(pmin(c(2L, .adequacy_max_df), max(1L, min(nu - 1L, length(z) %/% 5L))))
  res <- vapply(dfs, function(df) spline_f_test(z, x, df), numeric(2))
  best <- which.min(res[1L, ])
  if (!length(best)) return(c(p = NA_real_, r2 = NA_real_))
  c(p = min(1, res[1L, best] * length(dfs)), r2 = res[2L, best])
}

# The F test of a regression of z on a natural spline of x with df degrees
# of freedom (x itself for df = 1): c(p, adjusted R-squared).
spline_f_test <- function(z, x, df) {
  # interior knots at quantiles of the distinct values (quantiles of x
  # itself coincide where x has ties, and the basis would be singular)
  B <- if (df == 1L) cbind(x) else
    splines::ns(x, knots = stats::quantile(unique(x), seq_len(df - 1L) / df, names = FALSE),
                Boundary.knots = range(x))
  m <- stats::lm.fit(cbind(1, B), z)
  rss <- sum(m$residuals^2)
  tss <- sum((z - mean(z))^2)
  k <- m$rank - 1L
  dfr <- length(z) - m$rank
  if (k < 1L || dfr < 1L || tss <= 0) return(c(NA_real_, NA_real_))
  f <- ((tss - rss) / k) / (rss / dfr)
  c(stats::pf(f, k, dfr, lower.tail = FALSE), 1 - (rss / dfr) / (tss / (length(z) - 1L)))
}

# Leave-one-out quantile residuals at the verdict's points: the PSIS-LOO
# predictive CDF at the observed value (at most 1,000 draws), randomised
# between the CDF just below and at the value for discrete responses (with
# the fit's seed), mapped through qnorm().
loo_quantile_residuals <- function(object, fs, idx, seed, max_draws = 1000L) {
  fam <- object$likelihood$family
  if (fam %in% c("gaussian", "hetero_gaussian", "student")) {
    # the verdict's own leave-one-out PIT (loo_pit_continuous())
    if (is.null(fs$loo_pit) || anyNA(fs$loo_pit))
      stop("the PSIS weights of the leave-one-out residuals could not be computed",
           call. = FALSE)
    return(stats::qnorm(clamp01(fs$loo_pit)))
  }
  ll <- fs$loglik_point
  S <- nrow(ll)
  keep <- if (S > max_draws) unique(round(seq(1, S, length.out = max_draws))) else seq_len(S)
  ll <- ll[keep, , drop = FALSE]
  w <- exp(psis_log_weights(-ll)$log_weights)
  if (anyNA(w)) stop("the PSIS weights of the leave-one-out residuals could not be computed",
                    call. = FALSE)
  y <- if (is.null(dim(object$y))) object$y[idx] else object$y[idx, , drop = FALSE]
  pp <- fs$pp
  sub <- function(m) m[keep, , drop = FALSE]
  n <- ncol(ll)
  Y <- function(v) matrix(v, length(keep), n, byrow = TRUE)
  # discrete: P(Y < y) and P(Y <= y) under the LOO predictive
  cdf <- switch(fam,
    bernoulli = {
      p1 <- sub(fs$prob1)
      y1 <- as.integer(y) == 2L
      list(lo = colSums(w * ifelse(Y(y1), 1 - p1, 0)), hi = colSums(w * ifelse(Y(y1), 1, 1 - p1)))
    },
    poisson = list(lo = colSums(w * stats::ppois(Y(y - 1), sub(pp$mu))),
                   hi = colSums(w * stats::ppois(Y(y), sub(pp$mu)))),
    negbinomial = {
      ph <- pp$phi[keep]
      list(lo = colSums(w * stats::pnbinom(Y(y - 1), size = ph, mu = sub(pp$mu))),
           hi = colSums(w * stats::pnbinom(Y(y), size = ph, mu = sub(pp$mu))))
    },
    binomial = {
      N <- Y(y[, 1L] + y[, 2L])
      list(lo = colSums(w * stats::pbinom(Y(y[, 1L] - 1), N, sub(pp$prob))),
           hi = colSums(w * stats::pbinom(Y(y[, 1L]), N, sub(pp$prob))))
    },
    NULL)
  if (is.null(cdf)) return(NULL)
  u <- with_seed(seed, stats::runif(n))
  stats::qnorm(clamp01(cdf$lo + u * (cdf$hi - cdf$lo)))
}

clamp01 <- function(p, eps = 1e-6) pmin(pmax(p, eps), 1 - eps)

# What to do when structure is left, one step at a time: a fit that has
# already taken a step gets the next.  Verified on MASS::mcycle
# (tests/testthat/test-adequacy.R): the default network leaves the sharp
# dip near times = 20; a prior three times wider removes it.
adequacy_remedy <- function(object) {
  pr <- object$prior
  hid <- object$hidden %||% integer(0)
  scale <- if (!is.null(pr)) max(pr$scale) else 1
  if (!length(hid))
    return(paste0("a linear model cannot follow it: fit a network, bnn_fit(..., hidden = c(16, 16)) ",
                  "(giving 'hidden' keeps the network when the default's check would return ",
                  "the linear model)"))
  if (scale < .wider_prior_factor)
    return(sprintf(paste0("a wider prior lets the network follow sharper features: ",
                          "bnn_fit(..., prior = bnn_prior(scale = %s, fan_in = %s))"),
                   format(.wider_prior_factor * scale), if (is.null(pr)) "TRUE" else format(pr$fan_in)))
  paste0("a wider prior did not remove it: compare a wider network (e.g. hidden = c(32, 32)) ",
         "or a model with these inputs transformed, with loo(), and check the predictions on ",
         "held-out data")
}

# Where a check that fired found structure: its inputs, else the fitted values.
adequacy_terms <- function(ad) {
  if (length(ad$inputs)) paste(ad$inputs, collapse = ", ") else "the fitted values"
}

# The model-fit line of the verdict, with the default's choice of the prior
# scale when it was made (choose_wider_prior(), R/fit-choice.R).
format_adequacy <- function(ad) {
  if (is.null(ad)) return(NULL)
  if (is.na(ad$adequate))
    return(sprintf("could not be checked: %s", paste(ad$reasons, collapse = "; ")))
  wp <- ad$wider_prior
  chosen <- if (!is.null(wp) && identical(wp$chosen, "wider"))
    sprintf("; the prior is %s times the default's, which left structure%s (a second fit, %.1f s%s)",
            format(.wider_prior_factor),
            if (isTRUE(wp$loo_holds)) sprintf(" (PSIS-LOO elpd %.1f against the default's %.1f)",
                                              wp$elpd[["wider"]], wp$elpd[["default"]])
            else "", wp$seconds,
            if (isTRUE(wp$warm_start)) ", started where the default's chains ended" else "")
    else ""
  if (isTRUE(ad$adequate))
    return(sprintf(paste0("no structure left (splines of the leave-one-out residuals on each ",
                          "input and the fitted values, %d training points)%s"), ad$points,
                   chosen))
  sprintf("structure left: %s%s. What to do: %s", paste(ad$reasons, collapse = "; "), chosen,
          ad$remedy)
}

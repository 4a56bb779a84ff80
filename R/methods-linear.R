# A fit without hidden layer is a (generalised) linear model: the data-scale
# coefficients that coef(), posterior_interval(), summary(), print() and the
# draws' conversions (R/methods-draws.R) show for it, named as lm() and
# rstanarm name them, and the response-scale sigma that every user-facing
# view of the draws shows.  The stored draws (fit$draws), which the samplers,
# diagnostics and the papers' tables use, stay on the standardised scale.

# Whether a fit is a linear model (no hidden layer), chosen by the default's
# check or asked for with hidden = integer(0).
is_linear_fit <- function(x) {
  length(x$hidden) == 0L && length(x$spec$sizes) == 2L && !is.null(x$X)
}

# Names of the data-scale coefficients of a linear fit: the model matrix's
# columns, "(Intercept)" first, as coef(lm()).  A categorical response has
# one set per class (`mu<class>_<column>`, brms's names) and the
# heteroscedastic likelihood a second set for the log noise sd
# (`sigma_<column>`, brms's names for a distributional sd, log link).  Where
# a name would clash with a parameter of the network (a predictor called
# `sigma`, say), every coefficient name gets brms's prefix `b_`.
linear_coef_names <- function(x) {
  cols <- c("(Intercept)", colnames(x$X) %||% sprintf("x%d", seq_len(ncol(x$X))))
  K <- x$spec$sizes[2L]
  fam <- x$likelihood$family
  nm <- if (K == 1L) cols else if (fam == "hetero_gaussian")
    c(cols, paste0("sigma_", cols)) else
      paste0("mu", rep(x$levels %||% seq_len(K), each = length(cols)), "_", cols)
  if (any(nm %in% c(x$parameters, "lp__"))) nm <- paste0("b_", nm)
  nm
}

# Draws of the data-scale coefficients from raw draws d [iteration, chain,
# parameter] (the layout of bnn_parameter_names()).  With standardised
# predictors x_j = (X_j - c_j) / s_j and response y = y_c + y_s * eta, output
# unit k of the linear model, eta_k = b_k + sum_j W1[j,k] x_j, is on the
# data's scale
#   beta_jk = a_k W1[j,k] / s_j,   intercept_k = m_k + a_k (b_k - sum_j W1[j,k] c_j / s_j),
# with (a_k, m_k) = (y_s, y_c) for a Gaussian or Student-t location, (1,
# log y_s) for the heteroscedastic log sd, (1, 0) for the logits of a factor
# response and (1, eta_center) for a count or binomial linear predictor.
linear_coef_draws <- function(x, d) {
  p <- x$spec$sizes[1L]
  K <- x$spec$sizes[2L]
  fam <- x$likelihood$family
  cx <- as.double(x$x_center)
  sx <- as.double(x$x_scale)
  # a Student-t location is standardised as a Gaussian mean; the linear
  # predictor of a count or binomial model has the fixed centre eta_center
  # (the log of the mean rate, or the logit of the overall proportion)
  std <- fam %in% c("gaussian", "hetero_gaussian", "student")
  ys <- if (std) x$y_scale else 1
  yc <- if (std) x$y_center else (x$likelihood$eta_center %||% 0)
  n_it <- dim(d)[1]
  n_ch <- dim(d)[2]
  out <- array(NA_real_, c(n_it, n_ch, K * (p + 1L)))
  for (k in seq_len(K)) {
    a <- if (fam == "hetero_gaussian" && k == 2L) 1 else ys
    m <- if (fam == "hetero_gaussian" && k == 2L) log(ys) else yc
    W <- matrix(d[, , sprintf("W1[%d,%d]", seq_len(p), k), drop = FALSE], ncol = p)
    b <- as.vector(d[, , sprintf("b1[%d]", k)])
    slope <- sweep(W, 2L, sx, "/")
    icpt <- m + a * (b - drop(slope %*% cx))
    out[, , (k - 1L) * (p + 1L) + seq_len(p + 1L)] <- cbind(icpt, a * slope)
  }
  dimnames(out) <- list(dimnames(d)[[1]], dimnames(d)[[2]], linear_coef_names(x))
  out
}

# The draws a user meets, [iteration, chain, variable] of the chains that did
# not fail: for a linear fit its data-scale coefficients first, then the
# network's parameters as stored, except `sigma`, which is on the response's
# scale (the stored draws have it on the standardised scale the model is
# fitted on).
user_draws <- function(x, ok = which(x$chain_status == "ok")) {
  d <- x$draws[, ok, , drop = FALSE]
  if ("sigma" %in% dimnames(d)[[3]]) d[, , "sigma"] <- d[, , "sigma"] * sigma_scale(x)
  if (!is_linear_fit(x)) return(d)
  cf <- linear_coef_draws(x, x$draws[, ok, , drop = FALSE])
  out <- array(NA_real_, c(dim(d)[1:2], dim(cf)[3] + dim(d)[3]))
  out[, , seq_len(dim(cf)[3])] <- cf
  out[, , dim(cf)[3] + seq_len(dim(d)[3])] <- d
  dimnames(out) <- list(dimnames(d)[[1]], dimnames(d)[[2]],
                        c(dimnames(cf)[[3]], dimnames(d)[[3]]))
  out
}

# The factor that takes the stored sigma to the response's scale.
sigma_scale <- function(x) {
  s <- x$y_scale
  if (is.numeric(s) && length(s) == 1L && is.finite(s)) s else 1
}

# The names of user_draws(x)'s variables, without computing them.
user_variables <- function(x) {
  c(if (is_linear_fit(x)) linear_coef_names(x), x$parameters)
}

# Posterior summary of the data-scale coefficients (and sigma) of a linear
# fit, one row per coefficient: mean, sd, median, MAD SD (rstanarm's
# print), the quantiles `probs`, R-hat and bulk and tail ESS.
linear_coef_table <- function(x, probs = c(0.05, 0.5, 0.95)) {
  d <- user_draws(x)
  vars <- c(linear_coef_names(x), intersect("sigma", dimnames(d)[[3]]))
  m <- matrix(d[, , vars, drop = FALSE], ncol = length(vars), dimnames = list(NULL, vars))
  qs <- t(apply(m, 2L, stats::quantile, probs = probs, na.rm = TRUE, names = FALSE))
  if (length(probs) == 1L) qs <- t(qs)
  colnames(qs) <- paste0("q", format(100 * probs, trim = TRUE))
  diag <- bnn_summarize_draws(d[, , vars, drop = FALSE], chainwise = FALSE)
  data.frame(mean = colMeans(m), sd = apply(m, 2L, stats::sd),
             median = apply(m, 2L, stats::median), mad_sd = apply(m, 2L, stats::mad), qs,
             rhat = diag$rhat, ess_bulk = diag$ess_bulk, ess_tail = diag$ess_tail,
             row.names = vars, check.names = FALSE)
}

# The title of print(): what kind of model the fit is.
fit_title <- function(x) {
  if (!is_linear_fit(x)) return("Bayesian neural network")
  switch(x$likelihood$family,
         bernoulli = "Bayesian linear model (logistic regression)",
         categorical = "Bayesian linear model (multinomial logistic regression)",
         hetero_gaussian = "Bayesian linear model (with a linear model for the log noise sd)",
         "Bayesian linear model")
}

# print()'s lines of a linear fit's coefficients: posterior median and MAD
# SD on the data's scale, as rstanarm's print() of stan_glm.
print_linear_coefs <- function(x, digits = 3) {
  if (!is_linear_fit(x) || !any(x$chain_status == "ok")) return(invisible(NULL))
  tab <- linear_coef_table(x, probs = 0.5)
  cat(" coefficients (posterior median and MAD SD, on the data's scale):\n")
  m <- vapply(tab[c("median", "mad_sd")], formatC, character(nrow(tab)), digits = digits,
              format = "g")
  m <- matrix(m, nrow(tab), dimnames = list(rownames(tab), c("Median", "MAD_SD")))
  out <- utils::capture.output(print(m, quote = FALSE, right = TRUE))
  cat(paste0("   ", out), sep = "\n")
  invisible(NULL)
}

# print()'s time lines: the whole call when the default's check ran (the
# network, the linear model and the check, then the chains of the model
# returned), otherwise the chains' time.
format_time_line <- function(x) {
  tm <- attr(x$model_choice, "timing")
  chains <- sprintf("warm-up %.1f s, sampling %.1f s, summed over chains%s",
                    sum(x$timing$warmup), sum(x$timing$sampling),
                    if (is.numeric(x$cost_estimate) && length(x$cost_estimate) == 1L)
                      sprintf("; estimated %s", format_duration(x$cost_estimate)) else "")
  if (is.null(tm))
    return(sprintf(" time:         %.1f s (%s)", x$elapsed, chains))
  parts <- if ("heteroscedastic" %in% names(tm)) {
    # the stack's second model: the homoscedastic network, or the Student-t
    # one (options(bnnmc.stack_second = "student"))
    t2nd <- "student" %in% names(tm)
    second <- if (t2nd) "Student-t" else "homoscedastic"
    t_second <- tm[[if (t2nd) "student" else "homoscedastic"]]
    if (isTRUE(tm["together"] == 1))
      sprintf(paste("heteroscedastic and %s network %.1f s, their chains side by",
                    "side (%.1f s and %.1f s summed over each one's chains)"),
              second, tm[["models"]], tm[["heteroscedastic"]], t_second) else
      sprintf("heteroscedastic network %.1f s, %s network %.1f s",
              tm[["heteroscedastic"]], second, t_second)
  } else
    sprintf("network %.1f s, linear model %.1f s", tm[["network"]], tm[["linear"]])
  c(sprintf(" time:         %.1f s in all: %s, check %.1f s", tm[["total"]], parts, tm[["check"]]),
    sprintf("               (the model returned: %s)", chains))
}

# summary()'s table of a linear fit's coefficients on the data's scale
# (rstanarm's summary(): mean, sd, quantiles, R-hat, ESS).
print_summary_coefs <- function(x, digits = 3) {
  tab <- x$coefficients
  cat("\nCoefficients on the data's scale (posterior mean, sd and quantiles; R-hat and ESS\n",
      "are meaningful here: a linear model has no symmetries of the network's kind):\n",
      sep = "")
  print(tab[setdiff(names(tab), c("median", "mad_sd"))], digits = digits)
  invisible(NULL)
}

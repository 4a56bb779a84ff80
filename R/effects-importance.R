# What a network says about its predictors: permutation importance with
# posterior intervals (bnn_importance()) and partial dependence or
# conditional effects with credible bands (bnn_effects(), R/effects-pd.R).
# Both go through the fit's own prediction code (pred_setup(),
# block_params(), block_loglik(); the C forward pass), a block of rows at a
# time, so stacked fits are weighted as their predictions are and memory is
# that of one block, never rows x draws x predictors.

# The data to take covariate ranges and reference values from.
plot_data <- function(x, newdata, vars) {
  if (!is.null(newdata)) {
    if (!is.data.frame(newdata)) stop("'newdata' must be a data frame.", call. = FALSE)
    miss <- setdiff(vars, names(newdata))
    if (length(miss))
      stop("'newdata' lacks column(s) used by the model: ", paste(miss, collapse = ", "),
           ".", call. = FALSE)
    return(newdata)
  }
  mf <- x$model_frame
  if (all(vars %in% names(mf))) return(mf)
  d <- tryCatch(eval(x$call$data, environment(x$formula)), error = function(e) NULL)
  if (!is.data.frame(d) || !all(vars %in% names(d)))
    stop("The model's formula transforms its variables and the training data cannot be ",
         "found; pass the data as 'newdata'.", call. = FALSE)
  d
}

# Most frequent value, keeping the variable's type (and factor levels).
mode_value <- function(v) {
  tab <- table(v)
  top <- names(tab)[which.max(tab)]
  if (is.factor(v)) return(factor(top, levels = levels(v)))
  if (is.logical(v)) return(as.logical(top))
  if (is.numeric(v)) return(as.numeric(top))
  top
}

# The model's predictor variables: the variables of the formula's terms
# (a factor is one variable, whatever its levels; a variable in several
# terms, e.g. x and I(x^2), is one), not the offset's nor the response's.
predictor_vars <- function(fit) {
  tt <- stats::delete.response(fit$terms)
  labs <- attr(tt, "term.labels")
  unique(unlist(lapply(labs, function(t) all.vars(str2lang(t)))))
}

# Variables used as factors (factor, character or logical columns, or a
# numeric one inside factor()): discrete in grids and reference values.
discrete_vars <- function(fit, d) {
  in_factors <- unique(unlist(lapply(names(fit$xlevels), function(nm) all.vars(str2lang(nm)))))
  names(d)[vapply(names(d), function(nm) !is.numeric(d[[nm]]) || nm %in% in_factors,
                  logical(1))]
}

# The data importance and effects are computed on: `newdata`, or the
# training data (the model frame when it holds the variables, else the data
# of the call), complete in the model's variables; with y, the response of
# each row in response_values()'s coding, or NULL when the data lack it
# (need_y = FALSE).
effects_data <- function(fit, newdata, need_y = TRUE) {
  if (!inherits(fit, "bnnfit")) stop("'fit' must be a bnnfit.", call. = FALSE)
  if (is.null(fit$terms) || is.null(fit$X))
    stop("Importance and effects need a fit made from a formula and a data frame.",
         call. = FALSE)
  vars <- predictor_vars(fit)
  if (!length(vars)) stop("The model has no predictors.", call. = FALSE)
  all_v <- all.vars(stats::delete.response(fit$terms))
  # with the response's variables where they can be found (a binomial
  # fit's predictions take its trials from them)
  d <- if (is.null(newdata))
    tryCatch(plot_data(fit, NULL, union(all_v, all.vars(fit$formula[[2L]]))),
             error = function(e) NULL)
  if (is.null(d)) d <- plot_data(fit, newdata, all_v)
  training <- is.null(newdata) && nrow(d) == nrow(fit$X)
  y <- if (training) response_values(fit) else
    tryCatch(response_values(fit, d), error = function(e) if (need_y) stop(e) else NULL)
  ok <- stats::complete.cases(d[all_v])
  if (!all(ok)) {
    d <- d[ok, , drop = FALSE]
    if (!is.null(y)) y <- if (is.matrix(y)) y[ok, , drop = FALSE] else y[ok]
  }
  if (!nrow(d)) stop("No complete rows in the data.", call. = FALSE)
  list(d = d, y = y, vars = vars, discrete = intersect(discrete_vars(fit, d[all_v]), vars))
}

# Per draw, the mean over the rows of d of the log-likelihood of y
# (measure "loglik") or of the squared error of the mean function
# ("rmse"), accumulated a block of rows at a time.
draw_loss <- function(fit, d, y, ndraws, measure) {
  ps <- pred_setup(fit, d, ndraws)
  n <- nrow(ps$X)
  S <- ps_ndraws(ps)
  acc <- numeric(S)
  K <- if (is_classification(fit)) n_classes(fit) else 3L
  for (idx in row_blocks(n, S, K)) {
    yb <- if (is.matrix(y)) y[idx, , drop = FALSE] else y[idx]
    if (measure == "loglik") {
      acc <- acc + rowSums(block_loglik(fit, ps, idx, yb))
    } else {
      mu <- block_params(fit, ps, idx, sd = FALSE)$mu
      acc <- acc + rowSums((mu - rep(yb, each = S))^2)
    }
  }
  if (any(!is.finite(acc)))
    stop("The log-likelihood or the squared error is not finite for some draws.", call. = FALSE)
  acc / n
}

#' Importance of a network's predictors
#'
#' Permutation importance computed draw by draw: for each predictor (a
#' variable of the formula; a factor with all its levels, and a variable
#' with every term it enters, such as `x` with `I(x^2)` and `x:z`), its
#' values are permuted over the rows of the data, breaking its link with
#' the response and the other predictors, and each posterior draw's fit to
#' the data is compared with and without the permutation.  The importance
#' of a draw is the drop in its mean log-likelihood per observation
#' (`measure = "loglik"`, in nats, for every family) or the rise in the
#' RMSE of its mean function (`measure = "rmse"`, in the response's units,
#' for a numeric response); the result gives the posterior mean and the
#' equal-tailed interval of probability `level` over the draws.  A predictor
#' that the model does not use has importance near 0; one it uses, clearly
#' above.  Stacked fits use the draws of each model in proportion to its
#' weight, as their predictions do.
#'
#' Single draws of a network vary with inputs that the posterior mean
#' ignores, so an unused predictor's importance is small but rarely exactly
#' 0 draw by draw: its interval starts near 0 (on Friedman's function with
#' five pure-noise inputs, below 1% of the weakest real input's estimate;
#' see `inst/benchmarks/speed/importance_effects.R`), and it is its size
#' next to the others' that tells.
#'
#' The draws see the same permutation(s), so their differences are paired;
#' `nperm` permutations are averaged (more of them shrink the permutation's
#' own noise, which on a few hundred rows can matter for weak predictors).
#' The computation is a forward pass over the rows for each draw and
#' predictor, a block of rows at a time (memory of one block, whatever the
#' number of rows, draws and predictors).  Importance is measured on the
#' training data by default, as BART's variable counts are; on held-out
#' `newdata` (with the response) it measures what the predictor adds to
#' predictions out of sample.
#'
#' @param fit A `bnnfit` fitted with a formula.
#' @param newdata A data frame with the predictors and the response; the
#'   training data by default.
#' @param measure `"loglik"` (default) or `"rmse"` (numeric responses).
#' @param nperm Number of permutations per predictor, averaged.
#' @param ndraws Use this many draws, spread evenly over the chains (all by
#'   default).
#' @param level Probability of the posterior intervals.
#' @param seed Seed of the permutations (R's RNG; its state is restored).
#' @param ... Unused (a warning names them).
#' @return A data frame of class `bnn_importance`, one row per predictor in
#'   decreasing order of importance: `variable`, `estimate` (posterior mean),
#'   `sd`, `lower`, `upper`, with attributes `draws` (the `[draw, predictor]`
#'   matrix of importances), `measure`, `level`, `baseline` (the posterior
#'   mean of the unpermuted mean log-likelihood or RMSE) and `nobs`.  Its
#'   [plot()][plot.bnn_importance] method draws it with \pkg{ggplot2}.
#' @seealso [bnn_effects()] for how the response moves with each predictor.
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt + hp + qsec, data = mtcars, hidden = 4, chains = 2,
#'                warmup = 150, iter = 100, seed = 42, progress = FALSE, sampler = "nuts")
#' imp <- bnn_importance(fit)
#' imp
#' bnn_importance(fit, measure = "rmse", nperm = 3)
#' if (requireNamespace("ggplot2", quietly = TRUE)) plot(imp)
bnn_importance <- function(fit, newdata = NULL, measure = c("loglik", "rmse"), nperm = 1L,
                           ndraws = NULL, level = 0.9, seed = 1L, ...) {
  newdata <- check_dots(list(...), "bnn_importance", newdata)
  if (identical(measure, c("loglik", "rmse"))) measure <- "loglik"
  measure <- match_choice(measure, c("loglik", "rmse"), "measure")
  nperm <- check_count(nperm, "nperm", 1L)
  seed <- check_count(seed, "seed", 0L)
  check_prob(level, "level")
  ed <- effects_data(fit, newdata, need_y = TRUE)
  if (measure == "rmse" && (is_classification(fit) || is.matrix(ed$y)))
    stop("measure = \"rmse\" needs a numeric response; use measure = \"loglik\".", call. = FALSE)
  d <- ed$d
  n <- nrow(d)
  base <- draw_loss(fit, d, ed$y, ndraws, measure)
  tf <- if (measure == "rmse") sqrt else identity
  perms <- with_seed(seed, lapply(seq_len(nperm), function(r) sample.int(n)))
  imp <- matrix(0, length(base), length(ed$vars), dimnames = list(NULL, ed$vars))
  for (j in seq_along(ed$vars)) {
    v <- ed$vars[j]
    for (pm in perms) {
      dp <- d
      dp[[v]] <- d[[v]][pm]
      lp <- draw_loss(fit, dp, ed$y, ndraws, measure)
      imp[, j] <- imp[, j] + (if (measure == "loglik") base - lp else tf(lp) - tf(base)) / nperm
    }
  }
  a <- (1 - level) / 2
  q <- apply(imp, 2L, stats::quantile, probs = c(a, 1 - a), names = FALSE)
  tab <- data.frame(variable = ed$vars, estimate = colMeans(imp), sd = apply(imp, 2L, stats::sd),
                    lower = q[1L, ], upper = q[2L, ], stringsAsFactors = FALSE)
  o <- order(tab$estimate, decreasing = TRUE)
  tab <- tab[o, , drop = FALSE]
  rownames(tab) <- NULL
  structure(tab, draws = imp[, o, drop = FALSE], measure = measure, level = level,
            baseline = mean(tf(base)), nobs = n, nperm = nperm,
            class = c("bnn_importance", "data.frame"))
}

importance_label <- function(measure) {
  if (measure == "loglik") "drop in mean log-likelihood per observation (nats)" else
    "rise in RMSE of the mean function (response units)"
}

#' @export
print.bnn_importance <- function(x, digits = 3, ...) {
  # a subset (x[1:3, ]) keeps the class but not the attributes
  if (is.null(attr(x, "measure"))) {
    print(as.data.frame(unclass(x), stringsAsFactors = FALSE), digits = digits, ...)
    return(invisible(x))
  }
  cat(sprintf("Permutation importance: %s,\nposterior mean and %g%% interval over draws;\n",
              importance_label(attr(x, "measure")), 100 * attr(x, "level")))
  cat(sprintf("%d rows, %d permutation%s per predictor; unpermuted %s %s\n",
              attr(x, "nobs"), attr(x, "nperm"), if (attr(x, "nperm") > 1L) "s" else "",
              if (attr(x, "measure") == "loglik") "mean log-likelihood" else "RMSE",
              format(signif(attr(x, "baseline"), digits))))
  print(as.data.frame(unclass(x)[c("variable", "estimate", "sd", "lower", "upper")],
                      stringsAsFactors = FALSE), digits = digits, row.names = FALSE)
  invisible(x)
}

# ggplot2::aes() of columns given by name: gg_aes(x = "estimate") is
# aes(x = estimate), without non-standard names in the package's code.
gg_aes <- function(...) {
  cols <- list(...)
  do.call(ggplot2::aes, lapply(cols, as.name))
}

#' Plot predictor importance
#'
#' The posterior mean importance of each predictor (point) with its
#' interval (line), the most important at the top.
#'
#' @param x A `bnn_importance` from [bnn_importance()].
#' @param ... Unused.
#' @return A ggplot object.
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt + hp + qsec, data = mtcars, hidden = 4, chains = 2,
#'                warmup = 150, iter = 100, seed = 42, progress = FALSE, sampler = "nuts")
#' if (requireNamespace("ggplot2", quietly = TRUE)) plot(bnn_importance(fit))
plot.bnn_importance <- function(x, ...) {
  need_pkg("ggplot2", "plot() of a bnn_importance")
  df <- data.frame(variable = factor(x$variable, levels = rev(x$variable)),
                   estimate = x$estimate, lower = x$lower, upper = x$upper)
  ggplot2::ggplot(df, gg_aes(x = "estimate", y = "variable")) +
    ggplot2::geom_vline(xintercept = 0, colour = "grey60", linetype = 2) +
    ggplot2::geom_linerange(gg_aes(xmin = "lower", xmax = "upper"),
                            colour = "steelblue", linewidth = 1) +
    ggplot2::geom_point(size = 2.5) +
    ggplot2::labs(x = if (is.null(attr(x, "measure"))) "importance" else
                    sprintf("%s\n(posterior mean, %g%% interval)",
                            importance_label(attr(x, "measure")), 100 * attr(x, "level")),
                  y = NULL, title = "Predictor importance (permutation)") +
    ggplot2::theme_minimal()
}

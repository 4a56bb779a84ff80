# summary(), print(), plot() and bnn_mcp_curve() of a coverage study.

#' Summaries and plots of a coverage study
#'
#' `summary()` gives one row per method at level `level`: the MCP with its
#' Monte Carlo standard error over training sets, the mean absolute error of
#' CCP to the level, the spread (sd) of the PICP over training sets, the
#' mean Q^2 of the mean prediction with its standard error, the mean
#' interval width, the mean function-space MMD^2 to the reference (if any),
#' the mean seconds and gradient evaluations per fit, and the mean over
#' training sets of the largest function-space R-hat over the test inputs
#' (`rhat_max`; fits with several chains).
#' `bnn_mcp_curve()` gives the MCP of every method at every level.
#'
#' `plot()` draws, with base graphics: `type = "mcp"`, MCP against the
#' nominal level, with the diagonal; `"hist"`, histograms of the PICP (one
#' value per training set) and of the CCP (one per test point) of each
#' method, with the MCP and the level marked (Staber and Da Veiga's Figure
#' 7); `"ccp"`, the CCP against the input for one-dimensional tasks (one
#' point per test point, a lowess smooth, and the training inputs' support
#' of a task shaded).
#'
#' @param object,x A `bnn_coverage_study`.
#' @param level Nominal level (one of the study's levels).
#' @param type Plot type.
#' @param methods Labels of the methods to plot (all by default).
#' @param ... Passed to [graphics::plot()] (`"mcp"`, `"ccp"`).
#' @return `summary()`: a data frame.  `bnn_mcp_curve()`: a matrix, levels x
#'   methods.  `plot()`: `x`, invisibly.
#' @export
#' @examples
#' \donttest{
#' task <- bnn_paper_task("AF1")
#' task$hidden <- 8
#' st <- bnn_coverage_study(task, list(bnn_method("ensemble", members = 4,
#'                          optimizer = bnn_optimizer(epochs = 300))), n_sets = 3,
#'                          seed = 2, progress = FALSE)
#' summary(st)
#' bnn_mcp_curve(st)[c("0.50", "0.95"), ]
#' plot(st, type = "hist")
#' }
summary.bnn_coverage_study <- function(object, level = object$target, ...) {
  li <- study_level(object, level)
  rows <- lapply(seq_along(object$methods), function(k) {
    I <- object$inside[, k, li, , drop = TRUE]
    if (is.null(dim(I))) I <- matrix(I, nrow = object$n_sets)
    ok <- stats::complete.cases(I)
    jb <- object$jobs[object$jobs$method == object$methods[k], ]
    q2 <- object$q2[ok, k]
    cm <- if (any(ok)) bnn_coverage_metrics(I[ok, , drop = FALSE], object$levels[li]) else
      list(mcp = NA_real_, mcp_se = NA_real_, mae_ccp = NA_real_, picp = NA_real_)
    data.frame(method = object$methods[k], level = object$levels[li], n_sets = sum(ok),
               mcp = cm$mcp, mcp_se = cm$mcp_se, mae_ccp = cm$mae_ccp,
               picp_sd = if (sum(ok) > 1) stats::sd(cm$picp) else NA_real_,
               q2 = if (any(ok)) mean(q2) else NA_real_,
               q2_se = if (sum(ok) > 1) stats::sd(q2) / sqrt(sum(ok)) else NA_real_,
               width = mean(object$width[ok, k, li]),
               mmd_ref = if (!is.null(object$mmd_ref)) mean(object$mmd_ref[ok, k]) else NA_real_,
               seconds = mean(jb$seconds[jb$status == "ok"]),
               n_grad = mean(jb$n_grad[jb$status == "ok"]),
               rhat_max = mean(jb$rhat_max[jb$status == "ok"]),
               stringsAsFactors = FALSE)
  })
  do.call(rbind, rows)
}

study_level <- function(object, level) {
  li <- which(abs(object$levels - level) < 1e-9)
  if (length(li) != 1L)
    stop(sprintf("'level' must be one of the study's levels (%s).",
                 paste(format(object$levels), collapse = ", ")), call. = FALSE)
  li
}

#' @rdname summary.bnn_coverage_study
#' @export
bnn_mcp_curve <- function(object) {
  if (!inherits(object, "bnn_coverage_study"))
    stop("'object' must be a bnn_coverage_study.", call. = FALSE)
  out <- apply(object$inside, c(3L, 2L), mean, na.rm = TRUE)
  dimnames(out) <- list(level = format(object$levels), method = object$methods)
  out
}

#' @export
print.bnn_coverage_study <- function(x, ...) {
  what <- if (!is.null(x$task)) sprintf("task %s", x$task$name) else "bootstrap resamples"
  cat(sprintf("Coverage study: %s, %d training sets, %d test points, %d levels, %s intervals\n",
              what, x$n_sets, length(x$y_test), length(x$levels), x$interval))
  s <- summary(x)
  num <- vapply(s, is.numeric, logical(1))
  s[num] <- lapply(s[num], function(v) signif(v, 3))
  print(s, row.names = FALSE)
  invisible(x)
}

#' @rdname summary.bnn_coverage_study
#' @export
plot.bnn_coverage_study <- function(x, type = c("mcp", "hist", "ccp"), level = x$target,
                                    methods = x$methods, ...) {
  type <- match.arg(type)
  ks <- match(methods, x$methods)
  if (anyNA(ks)) stop("'methods' must be labels of the study's methods.", call. = FALSE)
  cols <- grDevices::hcl.colors(max(3L, length(x$methods)), "Dark 3")[seq_along(x$methods)]
  if (type == "mcp") {
    cur <- bnn_mcp_curve(x)
    graphics::plot(c(0, 1), c(0, 1), type = "n", xlab = "nominal level (1 - alpha)",
                   ylab = "marginal coverage (MCP)", ...)
    graphics::abline(0, 1, lty = 2, col = "grey50")
    for (k in ks) graphics::lines(x$levels, cur[, k], type = "b", pch = 19, cex = 0.6,
                                  col = cols[k])
    graphics::legend("topleft", legend = x$methods[ks], col = cols[ks], lwd = 1, pch = 19,
                     bty = "n")
    return(invisible(x))
  }
  li <- study_level(x, level)
  lv <- x$levels[li]
  if (type == "hist") {
    op <- graphics::par(mfrow = c(length(ks), 2L), mar = c(4, 4, 2, 1))
    on.exit(graphics::par(op))
    for (k in ks) {
      I <- matrix(x$inside[, k, li, ], nrow = x$n_sets)
      I <- I[stats::complete.cases(I), , drop = FALSE]
      if (!nrow(I)) next
      cm <- bnn_coverage_metrics(I, lv)
      for (what in c("picp", "ccp")) {
        v <- cm[[what]]
        graphics::hist(v, breaks = seq(0, 1, by = 0.025), col = cols[k], border = "white",
                       main = sprintf("%s: %s", x$methods[k], toupper(what)),
                       xlab = if (what == "picp") "PICP of each training set" else
                         "CCP of each test point", xlim = c(min(v, lv) - 0.05, 1))
        graphics::abline(v = c(cm$mcp, lv), lty = c(1, 2), lwd = 2, col = c("black", "grey40"))
      }
    }
    return(invisible(x))
  }
  inp <- ccp_input(x)
  xv <- inp$value
  o <- order(xv)
  graphics::plot(range(xv), c(0, 1), type = "n", xlab = inp$name,
                 ylab = sprintf("conditional coverage (CCP), level %s", format(lv)), ...)
  graphics::abline(h = lv, lty = 2, col = "grey50")
  for (k in ks) {
    I <- matrix(x$inside[, k, li, ], nrow = x$n_sets)
    ccp <- colMeans(I[stats::complete.cases(I), , drop = FALSE])
    graphics::points(xv, ccp, col = grDevices::adjustcolor(cols[k], 0.6), pch = 19, cex = 0.5)
    graphics::lines(stats::lowess(xv[o], ccp[o], f = 0.2), col = cols[k], lwd = 2)
  }
  if (!is.null(x$task)) {
    tr <- x$task$train
    graphics::rect(tr[, 1], -0.1, tr[, 2], 1.1, col = grDevices::adjustcolor("grey", 0.25),
                   border = NA)
  }
  graphics::legend("bottomleft", legend = x$methods[ks], col = cols[ks], lwd = 1.5, bty = "n")
  invisible(x)
}

# The one numeric input of a study's test set.
ccp_input <- function(x) {
  vars <- all.vars(x$formula)[-1]
  if (identical(vars, ".")) vars <- setdiff(names(x$test), all.vars(x$formula)[1])
  if (length(vars) != 1L || !is.numeric(x$test[[vars]]))
    stop("type = \"ccp\" is for studies with one numeric input.", call. = FALSE)
  list(name = vars, value = x$test[[vars]])
}

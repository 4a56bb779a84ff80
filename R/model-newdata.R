# New data on the model's scale: its standardised design matrix and offset
# (for predictions, metrics and plots) and its response (for metrics,
# diagnostics and the approximations' validation data).

# The response of new data on the model's scale (standardised, or class
# indices from 0).  With offset = TRUE the model's offset is subtracted
# first (the scale of the network's own output, for the optimiser).
model_response <- function(object, newdata, offset = FALSE) {
  tt <- object$terms
  yname <- all.vars(tt)[attr(tt, "response")]
  if (is.null(newdata[[yname]]) && !yname %in% names(newdata)) {
    mf <- tryCatch(stats::model.frame(tt, newdata, na.action = stats::na.pass),
                   error = function(e) stop("'newdata' lacks the response '", yname, "'.",
                                            call. = FALSE))
    yv <- stats::model.response(mf)
  } else {
    mf <- stats::model.frame(tt, newdata, xlev = object$xlevels, na.action = stats::na.pass)
    yv <- stats::model.response(mf)
  }
  if (anyNA(yv)) stop("'newdata' has missing values in the response.", call. = FALSE)
  if (is_classification(object)) {
    f <- if (is.logical(yv)) factor(yv, levels = c(FALSE, TRUE)) else factor(yv)
    bad <- setdiff(levels(droplevels(f)), object$levels)
    if (length(bad))
      stop("'newdata' has response level(s) not seen in training: ",
           paste(bad, collapse = ", "), ".", call. = FALSE)
    return(as.double(match(as.character(f), object$levels) - 1L))
  }
  # counts and binomial: the count scale, or the model's y columns (offset
  # and centre of the linear predictor included) on the model's scale
  if (isTRUE(object$likelihood$family %in% .count_families))
    return(if (offset) count_model_y(object, yv, design_offset(object, newdata)) else yv)
  if (offset && !is.null(object$offset)) yv <- yv - design_offset(object, newdata)
  as.double((yv - object$y_center) / object$y_scale)
}

# Factor predictors of newdata must only have levels seen in training.
check_new_levels <- function(object, newdata) {
  for (v in names(object$xlevels)) {
    if (v %in% names(newdata)) {
      new_lev <- setdiff(unique(as.character(newdata[[v]])), c(object$xlevels[[v]], NA))
      if (length(new_lev))
        stop(sprintf("'newdata' has level(s) of factor '%s' not seen in training: %s.",
                     v, paste(new_lev, collapse = ", ")), call. = FALSE)
    }
  }
  invisible(TRUE)
}

# Variables that were numeric in training must be numeric in newdata (a
# numeric column read as character would otherwise be treated as a factor
# and fail with an unrelated message about contrasts).
check_new_types <- function(object, newdata) {
  cls <- attr(object$terms, "dataClasses")
  for (v in intersect(names(cls), names(newdata))) {
    if (cls[[v]] %in% c("numeric", "nmatrix") && !is.numeric(newdata[[v]]))
      stop(sprintf("'newdata' column '%s' is %s, but it was numeric in the training data; convert it with as.numeric().",
                   v, class(newdata[[v]])[1L]), call. = FALSE)
  }
  invisible(TRUE)
}

# The offset of the model (offset() terms of the formula) for new data, on
# the response's scale; NULL when the model has none.
design_offset <- function(object, newdata = NULL) {
  if (is.null(object$offset)) return(NULL)
  if (is.null(newdata)) return(object$offset)
  X <- new_design(object, newdata)
  attr(X, "offset")
}

# Standardised design matrix for new data, with the model's offset (if any)
# as attribute "offset".  With allow_na = TRUE, rows with missing values in
# the model's variables are not an error: they are zeros in X, and their
# indices are attribute "missing" (the predictions set them to NA, as
# predict.lm() with na.pass).
new_design <- function(object, newdata, allow_na = FALSE) {
  if (missing(newdata) || is.null(newdata)) {
    X <- object$X
    if (!is.null(object$offset)) attr(X, "offset") <- object$offset
    return(X)
  }
  if (!is.data.frame(newdata)) stop("'newdata' must be a data frame.", call. = FALSE)
  tt <- stats::delete.response(object$terms)
  need <- all.vars(tt)
  miss <- setdiff(need, names(newdata))
  if (length(miss))
    stop("'newdata' lacks column(s) used by the model: ", paste(miss, collapse = ", "),
         ".", call. = FALSE)
  check_new_levels(object, newdata)
  check_new_types(object, newdata)
  mf <- stats::model.frame(tt, newdata, xlev = object$xlevels, na.action = stats::na.pass)
  X <- stats::model.matrix(tt, mf, contrasts.arg = object$contrasts)
  X <- X[, colnames(X) != "(Intercept)", drop = FALSE]
  off <- if (!is.null(object$offset)) stats::model.offset(mf)
  miss <- NULL
  if (allow_na) {
    bad <- !stats::complete.cases(X)
    if (!is.null(off)) bad <- bad | is.na(off)
    if (any(bad)) {
      miss <- which(bad)
      X[miss, ] <- 0
      if (!is.null(off)) off[miss] <- 0
    }
  }
  if (anyNA(X)) {
    rows <- which(!stats::complete.cases(X))
    rn <- rownames(newdata)[rows]
    shown <- if (length(rows) > 10L) c(utils::head(rn, 10L), "...") else rn
    stop(sprintf(paste0("'newdata' has missing values in the model's variables in %d row(s): %s. ",
                        "Predict the complete rows, e.g. newdata[complete.cases(newdata[, %s]), ], ",
                        "or impute the missing values first."),
                 length(rows), paste(shown, collapse = ", "),
                 paste0("c(", paste0("\"", need, "\"", collapse = ", "), ")")),
         call. = FALSE)
  }
  nonfin <- colSums(!is.finite(X)) > 0
  if (any(nonfin))
    stop("'newdata' has non-finite values (Inf, -Inf) in: ",
         paste(colnames(X)[nonfin], collapse = ", "), ".", call. = FALSE)
  X <- sweep(sweep(X, 2L, object$x_center, "-"), 2L, object$x_scale, "/")
  storage.mode(X) <- "double"
  if (!is.null(object$offset)) {
    if (is.null(off)) off <- numeric(nrow(X))
    if (any(!is.finite(off)))
      stop("'newdata' gives a missing or non-finite offset.", call. = FALSE)
    attr(X, "offset") <- as.double(off)
  }
  if (!is.null(miss)) attr(X, "missing") <- miss
  X
}

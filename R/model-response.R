# The response of new data on the model's scale (for metrics, diagnostics and
# the approximations' validation data).

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
  if (offset && !is.null(object$offset)) yv <- yv - design_offset(object, newdata)
  as.double((yv - object$y_center) / object$y_scale)
}

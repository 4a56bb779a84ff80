# The model of a formula fit: model frame, design matrix, response,
# likelihood and the network's specification (prepare_model(), shared by
# bnn_fit() and the approximations).  The response of new data on the
# model's scale is R/model-newdata.R.

# Model frame, design, response and specification shared by bnn_fit() and
# bnn_fit_ensemble().  mf is the matched call reduced to formula/data/subset/
# na.action; env is the caller's frame.
prepare_model <- function(mf, env, formula, data, hidden, activation, likelihood,
                          prior, standardize, per_par = NULL, notes = TRUE) {
  if (missing(formula) || !inherits(formula, "formula"))
    stop("'formula' must be a formula such as y ~ x1 + x2.", call. = FALSE)
  if (missing(data) || !is.data.frame(data))
    stop("'data' must be a data frame.", call. = FALSE)
  hidden <- check_hidden(hidden)
  activation <- match_choice(activation, names(.activations), "activation")
  if (!is.null(prior)) prior <- as_prior(prior)
  wexpr <- mf$weights
  mf$drop.unused.levels <- TRUE
  if (is.null(mf$na.action)) mf$na.action <- quote(stats::na.fail)
  mf[[1L]] <- quote(stats::model.frame)
  mf <- tryCatch(eval(mf, env), error = function(e) {
    msg <- conditionMessage(e)
    if (grepl("missing values", msg) && !is.null(mf$weights)) {
      wv <- tryCatch(eval(mf$weights, data, env), error = function(e) NULL)
      if (anyNA(wv))
        stop(sprintf(paste0("'weights' has missing values (NA) for %d of %d observations; ",
                            "give every observation a weight, or leave those rows out ",
                            "(subset = , or na.action = na.omit)."),
                     sum(is.na(wv)), length(wv)), call. = FALSE)
    }
    if (grepl("missing values", msg))
      stop("'data' has missing values in the model's variables; remove them or set ",
           "na.action = na.omit (the default na.action here is na.fail).", call. = FALSE)
    stop("Cannot build the model frame from 'formula' and 'data': ", msg, call. = FALSE)
  })
  design <- design_from_frame(mf, standardize)
  src <- list(design = design, weights = frame_weights(mf), offset = stats::model.offset(mf),
              model_frame = mf, formula = formula, data = model_data(data, mf, wexpr),
              standardize = standardize)
  model_from_source(src, hidden, activation, likelihood, prior, per_par, notes)
}

# The model of `hidden`, `activation`, `likelihood` and `prior` on the data
# of `src` (prepare_model()'s frame, design, weights and offset): the
# network's specification and what the fit keeps of the data.  The source
# is the model's attribute "source" (not a field of the fit), from which
# model_variant() makes the default's other models without reading the
# data again.
model_from_source <- function(src, hidden, activation, likelihood, prior, per_par = NULL,
                              notes = TRUE) {
  hidden <- check_hidden(hidden)
  activation <- match_choice(activation, names(.activations), "activation")
  if (!is.null(prior)) prior <- as_prior(prior)
  design <- src$design
  mf <- src$model_frame
  # a 0/1 response is a Bernoulli, binomial() resolved (R/model-family.R)
  fr <- family_response(design$y, likelihood, notes)
  y <- fr$y
  likelihood <- fr$likelihood
  lik <- response_likelihood(y, likelihood)
  prior <- prior %||% default_prior(y, likelihood, lik)   # R/model-defaults.R
  w <- src$weights
  off <- src$offset
  if (!is.null(off)) {
    if (lik$family %in% c("bernoulli", "categorical"))
      stop("offset() in the formula is supported for numeric responses only.", call. = FALSE)
    if (!is.numeric(off) || any(!is.finite(off)))
      stop("The offset must be finite numbers.", call. = FALSE)
    off <- as.double(off)
  }
  # an offset enters the mean on the response's scale, y = f(x) + offset, so
  # the network models y - offset (exactly the same Gaussian likelihood);
  # the count likelihoods take it on the scale of their link
  yinfo <- if (lik$family %in% .count_families) encode_count_response(y, lik, off) else
    encode_response(if (is.null(off)) y else y - off, lik, src$standardize)
  if (!is.null(yinfo$eta_center)) lik$eta_center <- yinfo$eta_center
  sizes <- layer_sizes(ncol(design$X), hidden, lik, n_class = yinfo$n_class)
  check_model_size(sizes, per_par)
  spec <- make_spec(sizes, activation, lik, prior, X = design$X, y = yinfo$y)
  if (!is.null(w)) spec$weights <- w
  structure(
    list(spec = spec, weights = w, offset = off, na_action = attr(mf, "na.action"),
         formula = src$formula, terms = design$terms, xlevels = design$xlevels,
         contrasts = design$contrasts, x_center = design$center, x_scale = design$scale,
         y_center = yinfo$center, y_scale = yinfo$scale, y = y, levels = yinfo$levels,
         model_frame = mf, data = src$data, hidden = hidden,
         activation = activation, likelihood = lik, prior = prior, X = design$X,
         y_model = yinfo$y),
    source = src)
}

# Another model on the same data (the default's linear model, its
# heteroscedastic network, its network with a wider prior): `model` with
# `hidden`, `likelihood` and `prior` replaced (NULL: the default's for the
# data), through model_from_source() without reading the data again.
model_variant <- function(model, hidden = model$hidden, likelihood = NULL, prior = NULL,
                          notes = FALSE) {
  model_from_source(attr(model, "source"), hidden, model$activation, likelihood, prior,
                    notes = notes)
}

# The training data as the model used them, kept in the fit (as rstanarm
# keeps `data`) so that kfold() and update() refit to the data the fit was
# made with, also in a new session or after the data frame was changed:
# the rows of the model frame (after subset and na.action) and the columns
# of `data` that the formula (its `.` expanded) and the weights name.
model_data <- function(data, mf, wexpr = NULL) {
  vars <- unique(c(all.vars(stats::formula(attr(mf, "terms"))),
                   if (!is.null(wexpr)) all.vars(wexpr)))
  keep <- intersect(names(data), vars)
  rn <- rownames(mf)
  rows <- if (identical(rn, rownames(data))) seq_len(nrow(data)) else match(rn, rownames(data))
  if (anyNA(rows)) return(NULL)        # rows the data frame does not name: not kept
  data[rows, keep, drop = FALSE]
}

# The model frame that the call of fit `x` builds from the data frame `d`
# (evaluated in `env`), or NULL if it cannot be built: compared with the
# fit's own model frame, it tells whether `d` are the data of the fit.
refit_frame <- function(x, d, env) {
  cl <- x$call
  mf <- cl[c(1L, match(c("formula", "data", "subset", "na.action", "weights"),
                       names(cl), 0L))]
  mf$formula <- x$formula
  mf$data <- d
  mf$drop.unused.levels <- TRUE
  if (is.null(mf$na.action)) mf$na.action <- quote(stats::na.fail)
  mf[[1L]] <- quote(stats::model.frame)
  tryCatch(eval(mf, env), error = function(e) NULL)
}

# Are the data frame `d` (as the fit's call uses them) the data fit `x` was
# made with?  NA when the fit keeps no model frame to compare with.
same_training_data <- function(x, d, env) {
  if (is.null(x$model_frame) || is.null(x$call)) return(NA)
  f <- refit_frame(x, d, env)
  is.data.frame(f) && identical(dim(f), dim(x$model_frame)) &&
    identical(rownames(f), rownames(x$model_frame)) &&
    isTRUE(all.equal(f, x$model_frame, check.attributes = FALSE, tolerance = 0))
}

# Observation weights of the model frame (weights = in bnn_fit()): NULL or
# finite non-negative doubles, not all zero.
frame_weights <- function(mf) {
  w <- stats::model.weights(mf)
  if (is.null(w)) return(NULL)
  if (!is.numeric(w) || any(!is.finite(w)) || any(w < 0) || !any(w > 0))
    stop("'weights' must be finite non-negative numbers, not all zero, one per observation.",
         call. = FALSE)
  as.double(w)
}

# Design matrix without intercept, standardised columns.
design_from_frame <- function(mf, standardize) {
  mt <- attr(mf, "terms")
  y <- stats::model.response(mf)
  if (is.null(y)) stop("'formula' must have a response on its left-hand side.", call. = FALSE)
  attr(mt, "intercept") <- 1L
  X <- stats::model.matrix(mt, mf)
  X <- X[, colnames(X) != "(Intercept)", drop = FALSE]
  if (ncol(X) == 0L) stop("'formula' has no predictors.", call. = FALSE)
  center <- colMeans(X)
  scale <- apply(X, 2L, stats::sd)
  if (nrow(X) < 2L) stop("'data' must have at least 2 rows.", call. = FALSE)
  nonfin <- colSums(!is.finite(X)) > 0
  if (any(nonfin))
    stop("'data' has non-finite values (Inf, -Inf) in predictor(s): ",
         paste(colnames(X)[nonfin], collapse = ", "), ". Remove or replace them.",
         call. = FALSE)
  const <- !is.finite(scale) | scale == 0
  if (any(const))
    stop("Constant predictor(s) in 'data': ", paste(colnames(X)[const], collapse = ", "),
         ". Remove them from the formula.", call. = FALSE)
  if (!standardize) {
    center[] <- 0
    scale[] <- 1
  }
  Xs <- sweep(sweep(X, 2L, center, "-"), 2L, scale, "/")
  storage.mode(Xs) <- "double"
  attr(Xs, "assign") <- NULL
  attr(Xs, "contrasts") <- NULL
  list(X = Xs, y = y, terms = mt, center = center, scale = scale,
       xlevels = stats::.getXlevels(mt, mf), contrasts = attr(X, "contrasts"))
}

response_likelihood <- function(y, likelihood) {
  if (is.factor(y) || is.logical(y)) {
    nlev <- if (is.logical(y)) 2L else nlevels(y)
    if (nlev < 2L) stop("The response factor must have at least 2 levels.", call. = FALSE)
    dflt <- if (nlev == 2L) "bernoulli" else "categorical"
    lik <- as_likelihood(likelihood %||% dflt)
    if (!lik$family %in% c("bernoulli", "categorical"))
      stop(sprintf("A factor response needs likelihood \"%s\", not \"%s\".", dflt, lik$family),
           call. = FALSE)
    if (lik$family == "bernoulli" && nlev != 2L)
      stop("likelihood \"bernoulli\" needs a response with 2 levels; use \"categorical\".",
           call. = FALSE)
    return(lik)
  }
  if (is.numeric(y) && is.matrix(y) && ncol(y) == 2L) {
    # cbind(successes, failures), as glm's binomial
    lik <- as_likelihood(likelihood %||% "binomial")
    if (lik$family != "binomial")
      stop(sprintf(paste0("A cbind(successes, failures) response needs family = binomial() ",
                          "(likelihood \"binomial\"), not \"%s\"."), lik$family), call. = FALSE)
    return(lik)
  }
  if (!is.numeric(y) || is.matrix(y))
    stop("The response must be a numeric vector (regression), a factor ",
         "(classification) or cbind(successes, failures) (binomial), not ",
         class(y)[1], ".", call. = FALSE)
  lik <- as_likelihood(likelihood %||% default_numeric_likelihood(y))
  if (lik$family %in% c("bernoulli", "categorical"))
    stop(sprintf("likelihood \"%s\" needs a factor response.", lik$family), call. = FALSE)
  if (lik$family == "binomial")
    stop("likelihood \"binomial\" needs cbind(successes, failures) as the response.",
         call. = FALSE)
  lik
}

encode_response <- function(y, lik, standardize) {
  if (lik$family %in% c("bernoulli", "categorical")) {
    f <- if (is.logical(y)) factor(y, levels = c(FALSE, TRUE)) else y
    return(list(y = as.double(as.integer(f) - 1L), center = 0, scale = 1,
                levels = levels(f), n_class = nlevels(f)))
  }
  if (!all(is.finite(y))) stop("The response has non-finite values.", call. = FALSE)
  center <- if (standardize) mean(y) else 0
  scale <- if (standardize) stats::sd(y) else 1
  if (!(scale > 0)) stop("The response is constant.", call. = FALSE)
  # a response near the largest double: its sd (squares) overflows to Inf,
  # or its predictive variances would, so every prediction would be NaN
  if (!is.finite(center) || !is.finite(scale^2) || any(!is.finite((y - center) / scale)))
    stop(sprintf(paste0("The response is too large to compute with: its largest absolute ",
                        "value is %s, and its variance overflows double precision. Rescale ",
                        "it (e.g. divide it by %s) and fit again."),
                 format(signif(max(abs(y)), 3)),
                 format(10^floor(log10(max(abs(y)))))), call. = FALSE)
  if (!standardize && lik$family == "hetero_gaussian") {
    # the heteroscedastic likelihood bounds the predictive sd to [1e-6, 1e6]
    # on the model's scale (as MILE's code); a response far from unit scale
    # would be fitted with a clipped sd (and the unit prior cannot reach its
    # mean), so refuse rather than return intervals of the wrong width
    sy <- stats::sd(y)
    if (max(abs(y)) > 1e4 || sy < 1e-4)
      stop(sprintf(paste0("With standardize = FALSE the response must be on a moderate scale: ",
                          "its sd is %s and its largest absolute value %s, but the ",
                          "heteroscedastic likelihood bounds the predictive sd to [1e-6, 1e6] ",
                          "and the prior assumes unit scale. Use standardize = TRUE (the default), ",
                          "or rescale the response (e.g. to thousands)."),
                   format(signif(sy, 3)), format(signif(max(abs(y)), 3))), call. = FALSE)
  }
  if (!standardize && lik$family == "gaussian" && max(abs(y)) > 1e6) {
    # the network's output under its unit-scale prior is of order 1-10, and
    # sigma's prior is on unit scale: a response of 1e6 or more is out of
    # their reach, and its chains stay where they started (at 1e19 or more
    # its squares overflow single precision)
    stop(sprintf(paste0("With standardize = FALSE the response must be on a moderate scale: ",
                        "its largest absolute value is %s (sd %s), but the network's output and ",
                        "sigma's prior are on unit scale, so the chains could not reach it. Use ",
                        "standardize = TRUE (the default), or rescale the response (e.g. to ",
                        "millions)."),
                 format(signif(max(abs(y)), 3)), format(signif(stats::sd(y), 3))), call. = FALSE)
  }
  list(y = as.double((y - center) / scale), center = center, scale = scale,
       levels = NULL, n_class = NA_integer_)
}

# Deep ensembles: a model of their own, and the start points of DEI-MCMC and
# MILE chains.

#' Fit a deep ensemble
#'
#' Trains `members` networks independently (Glorot-uniform starts, each from
#' its own random stream of `seed`) by Adam/AdamW on the mean negative
#' log-likelihood.  The result predicts as an equal-weight mixture of its
#' members' predictive distributions, and provides the starting points of
#' DEI-MCMC (`bnn_fit(..., sampler = "dei")`) and MILE
#' (`sampler = "mile"`), or of any sampler through `bnn_fit(init = ens)`.
#'
#' @inheritParams bnn_fit
#' @param members Number of networks.
#' @param progress A progress bar through \pkg{progressr}: `NULL` (default) in
#'   interactive sessions, `TRUE` always, `FALSE` never.
#' @param optimizer A [bnn_optimizer()] or [bnn_optimizer_preset()].
#' @param valid_data Optional data frame for early stopping (needed when the
#'   optimizer has a `patience`; without it, patience is ignored).
#' @param weights Optional pre-trained networks: a list of parameter vectors
#'   in the layout of [bnn_parameter_names()] (on the scale of the
#'   standardised data); no training is done then.
#' @param precision `"double"` (default) or `"single"`: the network's
#'   forward and backward pass in float32 while training (as in
#'   [bnn_fit()]; the optimiser's state stays in double).  Not with
#'   dropout.  Recorded as `$precision`.
#' @return An object of class `bnn_ensemble`.
#' @export
#' @examples
#' ens <- bnn_fit_ensemble(mpg ~ wt + hp, data = mtcars, hidden = 4, members = 3,
#'                     optimizer = bnn_optimizer(epochs = 300), seed = 1)
#' ens
#' predict(ens, mtcars[1:3, ], type = "interval")
bnn_fit_ensemble <- function(formula, data, members = 12, hidden = c(16, 16),
                         activation = "relu", likelihood = NULL,
                         prior = NULL, optimizer = bnn_optimizer_preset("dei"),
                         valid_data = NULL, weights = NULL, seed = NULL,
                         standardize = TRUE, subset, na.action,
                         progress = interactive(), precision = c("double", "single")) {
  call <- match.call()
  mf <- match.call(expand.dots = FALSE)
  m <- match(c("formula", "data", "subset", "na.action"), names(mf), 0L)
  mf <- mf[c(1L, m)]
  members <- check_count(members, "members", 1L)
  precision <- check_precision(precision)
  model <- prepare_model(mf, parent.frame(), formula, data, hidden, activation,
                         likelihood, prior, standardize, per_par = 8 * (6 * members + 8))
  if (is.null(seed)) seed <- new_seed()
  seed <- check_count(seed, "seed", 0L)
  model$spec <- spec_set_precision(model$spec, precision)
  ens <- train_ensemble(model, members, optimizer, valid_data, weights, seed, progress)
  ens$precision <- precision
  ens$call <- call
  check_sd_collapse(ens)
  ens
}

# The function of dispatch_chains() that trains member k: made here so
# that what goes to the workers is these four (not train_ensemble()'s
# frame, with the model frame and the data a second time).
member_trainer <- function(spec, valid, seed, optimizer) {
  force(spec); force(valid); force(seed); force(optimizer)
  function(k) do.call(.bnn_optimize, c(list(spec = spec, valid = valid, seed = seed, member = k),
                                       unclass(optimizer)))
}

# Train (or take) the members; returns a bnn_ensemble object.
train_ensemble <- function(model, members, optimizer, valid_data, weights, seed,
                           progress = FALSE) {
  if (!inherits(optimizer, "bnn_optimizer"))
    stop("'optimizer' must come from bnn_optimizer() or bnn_optimizer_preset().",
         call. = FALSE)
  spec <- model$spec
  # the members are trained without observation weights: they only give the
  # chains their starting points (the optimiser shuffles rows for
  # minibatches); the chains sample the weighted posterior
  spec$weights <- NULL
  dim <- spec_dim(spec)
  valid <- NULL
  if (!is.null(valid_data)) {
    vX <- new_design(model, valid_data)
    vy <- model_response(model, valid_data, offset = TRUE)
    valid <- list(X = vX, y = vy)
  } else if (!is.null(optimizer$patience)) {
    optimizer$patience <- NULL   # early stopping needs validation data
  }
  t0 <- proc.time()[[3]]
  if (!is.null(weights)) {
    if (!is.list(weights)) weights <- list(weights)
    members <- length(weights)
    fits <- lapply(seq_along(weights), function(k) {
      w <- weights[[k]]
      if (!is.numeric(w) || length(w) != dim)
        stop(sprintf("'weights[[%d]]' must be a numeric vector of length %d.", k, dim),
             call. = FALSE)
      list(par = as.double(w), n_grad = 0, status = "given", best_epoch = NA_integer_,
           train_loss = numeric(0), valid_loss = NULL, epochs = 0L)
    })
  } else {
    fits <- dispatch_chains(seq_len(members), member_trainer(spec, valid, seed, optimizer))
  }
  elapsed <- proc.time()[[3]] - t0
  pars <- spec_par_names(spec)
  draws <- array(NA_real_, c(1L, members, dim),
                 dimnames = list(iteration = NULL, chain = NULL, variable = pars))
  for (k in seq_len(members)) draws[1, k, ] <- fits[[k]]$par
  n_lik <- length(lik_par_names(spec))   # sigma, phi, nu: natural scale
  for (j in dim - n_lik + seq_len(n_lik)) draws[, , j] <- exp(draws[, , j])
  status <- vapply(fits, function(f) f$status, character(1))
  ens <- c(model[setdiff(names(model), "spec")], list(
    draws = draws,
    chain_status = factor(ifelse(status == "nonfinite", "failed", "ok"),
                          levels = c("ok", "failed")),
    optimizer = optimizer, members = members, seed = seed,
    train_loss = lapply(fits, function(f) f$train_loss),
    valid_loss = lapply(fits, function(f) f$valid_loss),
    best_epoch = vapply(fits, function(f) as.integer(f$best_epoch %||% NA_integer_), integer(1)),
    epochs = vapply(fits, function(f) as.integer(f$epochs), integer(1)),
    member_status = status,
    n_grad = vapply(fits, function(f) as.double(f$n_grad), numeric(1)),
    elapsed = elapsed, parameters = pars))
  ens$spec <- spec
  ens$spec$X <- NULL
  ens$spec$y <- NULL
  if (all(status == "nonfinite"))
    warn_cond(sprintf(paste0("All %d ensemble members hit a non-finite loss: the ensemble ",
                             "has no usable network (try a smaller learning rate)."), members),
              "bnnmc_chain_failure")
  else if (any(status == "nonfinite"))
    warn_cond(sprintf("%d ensemble member(s) hit a non-finite loss; they are left out.",
                      sum(status == "nonfinite")), "bnnmc_chain_failure")
  class(ens) <- "bnn_ensemble"
  ens
}

# A member of the ensemble alone (bnn_metrics(by = "chain"); a fit's
# chain_subset() is R/metrics-fit.R's).
chain_subset.bnn_ensemble <- function(x, chain) {
  x$draws <- x$draws[, chain, , drop = FALSE]
  x$chain_status <- x$chain_status[chain]
  x
}

#' @export
print.bnn_ensemble <- function(x, ...) {
  failed <- sum(x$chain_status != "ok")
  cat("Deep ensemble of", x$members, "networks",
      if (failed == x$members) "-- ALL MEMBERS FAILED (non-finite training loss); it cannot predict"
      else if (failed) sprintf("(%d failed: non-finite training loss; left out)", failed),
      "\n")
  cat(" formula:     ", deparse1(x$formula), "\n")
  cat(" network:     ", paste(x$spec$sizes, collapse = " - "),
      sprintf("(%s hidden activation, %d parameters)",
              if (length(x$hidden)) x$activation else "no", length(x$parameters)), "\n")
  cat(" likelihood:  ", format(x$likelihood), "\n")
  o <- x$optimizer
  cat(sprintf(" optimizer:    %s, lr %s, weight decay %s, %s, %d epochs max%s\n",
              o$optimizer, fmt_num(o$lr), fmt_num(o$weight_decay),
              if (is.null(o$batch_size)) "full batch" else paste("batch", o$batch_size),
              o$epochs, if (is.null(o$patience)) "" else
                paste0(", patience ", o$patience,
                       if (identical(o$stopping, "window")) " (window rule)" else "")))
  fl <- vapply(x$train_loss, function(l) if (length(l)) l[length(l)] else NA_real_, numeric(1))
  if (any(!is.na(fl)))
    cat(" final training loss (mean NLL): ",
        paste(formatC(fl, digits = 3, format = "f"), collapse = " "), "\n", sep = "")
  cat(sprintf(" gradients:    %s; time %.1f s\n", format(sum(x$n_grad), big.mark = ","),
              x$elapsed))
  invisible(x)
}

#' @rdname predict.bnnfit
#' @export
predict.bnn_ensemble <- function(object, newdata = NULL,
                                 type = c("response", "draws", "interval", "mean_draws",
                                          "prob", "class"),
                                 level = 0.9, ndraws = NULL, seed = NULL, summary = TRUE,
                                 probs = NULL, ...) {
  if (missing(type)) return(predict.bnnfit(object, newdata = newdata, level = level,
                                           ndraws = ndraws, seed = seed, summary = summary,
                                           probs = probs, ...))
  predict.bnnfit(object, newdata = newdata, type = type, level = level,
                 ndraws = ndraws, seed = seed, summary = summary, probs = probs, ...)
}

#' @export
nobs.bnn_ensemble <- function(object, ...) nrow(object$X)

#' @export
formula.bnn_ensemble <- function(x, ...) x$formula

# Starting points from an ensemble, one per chain (recycled if fewer).
ensemble_inits <- function(ens, chains, dim, spec) {
  ok <- which(ens$chain_status == "ok")
  if (!length(ok)) stop("All ensemble members failed; no starting points.", call. = FALSE)
  if (!identical(as.integer(ens$spec$sizes), as.integer(spec$sizes)) ||
      ens$spec$lik != spec$lik)
    stop("'init' ensemble has a different architecture or likelihood than the model.",
         call. = FALSE)
  th <- bnn_unconstrain(ens, t(matrix(ens$draws[1, ok, , drop = FALSE], ncol = dim)))
  lapply(seq_len(chains), function(c) th[, ok_index(c, length(ok))])
}

ok_index <- function(c, n) ((c - 1L) %% n) + 1L

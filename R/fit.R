# bnn_fit(): formula interface, data handling and the fit object.

#' Fit a Bayesian neural network by MCMC
#'
#' Builds a fully connected network from a formula, standardises predictors
#' and response with the training data's mean and standard deviation, and
#' samples the posterior of all weights and biases with the chosen sampler,
#' one independent chain at a time (or in parallel through the `future`
#' framework when a parallel plan is set).
#'
#' @param formula A model formula, e.g. `y ~ .`; factors and interactions are
#'   expanded with [stats::model.matrix()] and every column is standardised.
#' @param data A data frame.
#' @param hidden Widths of the hidden layers, e.g. `c(16, 16)` (the papers'
#'   default); `integer(0)` gives a (Bayesian) linear model.
#' @param activation Activation of the hidden layers; see [bnn_activations()].
#' @param likelihood A likelihood name or [bnn_likelihood()] object.  Numeric
#'   responses default to the heteroscedastic Gaussian of the papers.
#' @param prior A [bnn_prior()] object or `"normal"` / `"laplace"`.
#' @param sampler `"nuts"` (default), `"hmc"`, or a settings object from
#'   [bnn_nuts()] or [bnn_hmc()].
#' @param chains Number of chains.
#' @param warmup Warm-up (adaptation) iterations per chain, not kept.
#' @param iter Sampling iterations per chain after warm-up.
#' @param thin Keep every `thin`-th sampling iteration.
#' @param init Initial values: `"random"` (uniform(-2, 2) per coordinate, as
#'   Stan and NumPyro), `"prior"` (a draw from the prior), a list with one
#'   numeric vector per chain, a matrix with one row per chain, or a function
#'   of the chain index returning a vector.  Values are on the unconstrained
#'   scale (`log sigma`).  Inits with a non-finite log posterior are
#'   redrawn up to 100 times for `"random"`; a user-supplied one fails that
#'   chain.
#' @param seed A whole number.  The same seed gives the same draws for each
#'   chain, whatever the order or the number of workers the chains run on.
#'   `NULL` draws one from R's RNG.
#' @param subset,na.action As in [stats::lm()].  Missing values are an error
#'   unless `na.action = na.omit` (or another function) is given.
#' @param standardize Standardise predictors and response with the training
#'   data's statistics (strongly recommended: the priors assume it).
#' @param progress Show progress; on by default in interactive sessions.
#' @param ... Ignored; a warning names unused arguments.
#' @return An object of class `bnnfit` with the draws as an array
#'   `[iteration, chain, parameter]` (`$draws`), sampler statistics with
#'   Stan's names (`$sampler_stats`), the number of gradient evaluations and
#'   timings per chain, and everything [predict.bnnfit()] needs.
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 4, chains = 2,
#'                warmup = 150, iter = 100, seed = 42)
#' fit
#' head(predict(fit, newdata = mtcars[1:5, ], type = "interval"))
bnn_fit <- function(formula, data, hidden = c(16, 16), activation = "tanh",
                    likelihood = NULL, prior = bnn_prior(), sampler = "nuts",
                    chains = 4, warmup = 1000, iter = 1000, thin = 1,
                    init = "random", seed = NULL, subset, na.action,
                    standardize = TRUE, progress = interactive(), ...) {
  call <- match.call()
  dots <- list(...)
  if (length(dots))
    warning("Unused arguments: ", paste(names(dots) %||% "<unnamed>", collapse = ", "),
            call. = FALSE)
  if (missing(formula) || !inherits(formula, "formula"))
    stop("'formula' must be a formula such as y ~ x1 + x2.", call. = FALSE)
  if (missing(data) || !is.data.frame(data))
    stop("'data' must be a data frame.", call. = FALSE)
  hidden <- check_hidden(hidden)
  activation <- match_choice(activation, names(.activations), "activation")
  prior <- as_prior(prior)
  sampler <- as_sampler(sampler)
  chains <- check_count(chains, "chains", 1L)
  warmup <- check_count(warmup, "warmup", 0L)
  iter <- check_count(iter, "iter", 1L)
  thin <- check_count(thin, "thin", 1L)
  if (is.null(seed)) seed <- new_seed()
  seed <- check_count(seed, "seed", 0L)

  # model frame
  mf <- match.call(expand.dots = FALSE)
  m <- match(c("formula", "data", "subset", "na.action"), names(mf), 0L)
  mf <- mf[c(1L, m)]
  mf$drop.unused.levels <- TRUE
  if (is.null(mf$na.action)) mf$na.action <- quote(stats::na.fail)
  mf[[1L]] <- quote(stats::model.frame)
  mf <- tryCatch(eval(mf, parent.frame()), error = function(e) {
    msg <- conditionMessage(e)
    if (grepl("missing values", msg))
      stop("'data' has missing values in the model's variables; remove them or set ",
           "na.action = na.omit (the default na.action here is na.fail).", call. = FALSE)
    stop("Cannot build the model frame from 'formula' and 'data': ", msg, call. = FALSE)
  })
  design <- design_from_frame(mf, standardize)
  y <- design$y
  lik <- response_likelihood(y, likelihood)
  yinfo <- encode_response(y, lik, standardize)
  sizes <- layer_sizes(ncol(design$X), hidden, lik, n_class = yinfo$n_class)
  spec <- make_spec(sizes, activation, lik, prior, X = design$X, y = yinfo$y)
  dim <- spec_dim(spec)
  inits <- make_inits(init, chains, dim, spec, prior, seed)

  pars <- bnn_parameter_names(sizes, sigma = has_sigma(spec))
  prog <- make_progress(isTRUE(progress), chains, warmup + iter)
  t_start <- proc.time()[[3]]
  res <- dispatch_chains(seq_len(chains), function(cid) {
    run_chain(spec, inits[[cid]], seed, cid, sampler, warmup, iter, thin,
              progress = prog)
  })
  elapsed <- proc.time()[[3]] - t_start
  fit <- assemble_fit(res, pars, spec, sampler, warmup, iter, thin, seed, chains)
  fit$call <- call
  fit$formula <- formula
  fit$terms <- design$terms
  fit$xlevels <- design$xlevels
  fit$contrasts <- design$contrasts
  fit$x_center <- design$center
  fit$x_scale <- design$scale
  fit$y_center <- yinfo$center
  fit$y_scale <- yinfo$scale
  fit$y <- y
  fit$levels <- yinfo$levels
  fit$model_frame <- mf
  fit$hidden <- hidden
  fit$activation <- activation
  fit$likelihood <- lik
  fit$prior <- prior
  fit$inits <- inits
  fit$elapsed <- elapsed
  fit$spec$X <- NULL
  fit$spec$y <- NULL
  fit$X <- design$X
  fit$y_model <- yinfo$y
  report_failures(fit)
  fit
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
  if (!is.numeric(y) || is.matrix(y))
    stop("The response must be a numeric vector (regression) or a factor ",
         "(classification), not ", class(y)[1], ".", call. = FALSE)
  lik <- as_likelihood(likelihood %||% "hetero_gaussian")
  if (lik$family %in% c("bernoulli", "categorical"))
    stop(sprintf("likelihood \"%s\" needs a factor response.", lik$family), call. = FALSE)
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
  list(y = as.double((y - center) / scale), center = center, scale = scale,
       levels = NULL, n_class = NA_integer_)
}

# One initial vector per chain (unconstrained scale).
make_inits <- function(init, chains, dim, spec, prior, seed) {
  finite_lp <- function(th) {
    lp <- .Call(C_model_logpost, spec, matrix(th, ncol = 1L))$lp
    is.finite(lp)
  }
  if (is.character(init) && length(init) == 1L) {
    init <- match_choice(init, c("random", "prior"), "init")
    return(with_seed(seed, lapply(seq_len(chains), function(cid) {
      for (attempt in 1:100) {
        th <- if (init == "random") stats::runif(dim, -2, 2) else {
          s <- spec$prior_scale
          net <- if (prior$family == "normal") stats::rnorm(length(s), 0, s) else
            s * (stats::rexp(length(s)) - stats::rexp(length(s)))
          if (dim > length(s)) c(net, stats::runif(1, -2, 2)) else net
        }
        if (finite_lp(th)) return(th)
      }
      stop(sprintf("Could not find initial values with a finite log posterior for chain %d after 100 attempts.", cid),
           call. = FALSE)
    })))
  }
  if (is.function(init)) init <- lapply(seq_len(chains), init)
  if (is.matrix(init)) init <- lapply(seq_len(nrow(init)), function(i) init[i, ])
  if (is.numeric(init) && !is.list(init)) {
    if (chains != 1L)
      stop(sprintf("'init' must be a list with one vector per chain (%d).", chains),
           call. = FALSE)
    init <- list(init)
  }
  if (!is.list(init))
    stop("'init' must be \"random\", \"prior\", a list of vectors, a matrix or a function.",
         call. = FALSE)
  if (length(init) != chains)
    stop(sprintf("'init' has %d starting points but there are %d chains.", length(init), chains),
         call. = FALSE)
  lapply(seq_along(init), function(i) {
    v <- init[[i]]
    if (!is.numeric(v) || length(v) != dim || anyNA(v))
      stop(sprintf("'init' for chain %d must be a numeric vector of length %d (the number of parameters), not length %d.",
                   i, dim, length(v)), call. = FALSE)
    as.double(v)
  })
}

assemble_fit <- function(res, pars, spec, sampler, warmup, iter, thin, seed, chains) {
  n_keep <- nrow(res[[1]]$draws)
  dim <- length(pars)
  draws <- array(NA_real_, c(n_keep, chains, dim),
                 dimnames = list(iteration = NULL, chain = NULL, variable = pars))
  stats <- array(NA_real_, c(n_keep, chains, length(.stat_names)),
                 dimnames = list(iteration = NULL, chain = NULL, variable = .stat_names))
  wstats <- array(NA_real_, c(warmup, chains, length(.stat_names)),
                  dimnames = list(iteration = NULL, chain = NULL, variable = .stat_names))
  for (c in seq_len(chains)) {
    draws[, c, ] <- res[[c]]$draws
    stats[, c, ] <- res[[c]]$stats
    wstats[, c, ] <- res[[c]]$warmup_stats
  }
  if (has_sigma(spec)) draws[, , dim] <- exp(draws[, , dim])
  status <- vapply(res, function(r) r$status, integer(1))
  structure(list(
    draws = draws, sampler_stats = stats, warmup_stats = wstats,
    n_grad = vapply(res, function(r) r$n_grad, numeric(1)),
    stepsize = vapply(res, function(r) r$stepsize, numeric(1)),
    inv_metric = do.call(rbind, lapply(res, function(r) r$inv_metric)),
    timing = data.frame(chain = seq_len(chains),
                        warmup = vapply(res, function(r) r$time_warmup, numeric(1)),
                        sampling = vapply(res, function(r) r$time_sampling, numeric(1))),
    chain_status = factor(.chain_status[status + 1L], levels = .chain_status),
    spec = spec, sampler = sampler, warmup = warmup, iter = iter, thin = thin,
    seed = seed, chains = chains, parameters = pars),
    class = "bnnfit")
}

report_failures <- function(fit) {
  bad <- which(fit$chain_status != "ok")
  for (c in bad)
    warn_cond(sprintf("Chain %d failed: %s. Its draws are NA.", c, fit$chain_status[c]),
              "bnnmc_chain_failure")
  div <- sum(fit$sampler_stats[, , "divergent__"], na.rm = TRUE)
  if (div > 0)
    warn_cond(paste0(sprintf("%d divergent transitions after warm-up (%.1f%% of draws). ",
                             div, 100 * div / prod(dim(fit$sampler_stats)[1:2])),
                     "The draws near them may be biased; consider a larger adapt_delta, ",
                     "a smaller prior scale, or ensemble starts."), "bnnmc_divergence")
  if (fit$sampler$method == "nuts") {
    hit <- sum(fit$sampler_stats[, , "treedepth__"] >= fit$sampler$max_treedepth, na.rm = TRUE)
    if (hit > 0)
      warn_cond(sprintf("%d transitions hit the maximum tree depth of %d.", hit,
                        fit$sampler$max_treedepth), "bnnmc_treedepth")
  }
  invisible(NULL)
}

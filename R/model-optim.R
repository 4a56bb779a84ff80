# Network training by optimisation: Adam / AdamW in C (src/model/optim.c), used by
# the approximations (deep ensembles, SWAG, Laplace, dropout) and the
# samplers (SG-MCMC starts, the CES emulator), and the papers' presets of
# it (bnn_optimizer_preset(); the protocols' ensembles, R/sampler-protocol.R).
# The .omc_check_* helpers of its scalar arguments are in R/utils-args.R.

#' Optimiser settings for deep-ensemble training
#'
#' Settings for training the members of a deep ensemble, which are the
#' deep-ensemble baseline and the starting points of the chains (DEI-MCMC,
#' MILE). Each member is trained by Adam or AdamW in C, with Glorot-uniform
#' initial weights, zero biases, and optional validation-based early
#' stopping.
#'
#' The loss is per training observation, so learning rate and weight decay
#' mean the same as with a PyTorch or optax "mean" loss:
#' \itemize{
#'   \item `loss = "nll"`: \eqn{-\frac1n \sum_i \log p(y_i \mid x_i, \theta)},
#'     the Gaussian (or categorical, Bernoulli) negative log-likelihood of the
#'     model's likelihood, as in MILE and DEI-MCMC;
#'   \item `loss = "posterior"`: \eqn{-\frac1n [\sum_i \log p(y_i \mid x_i,
#'     \theta) + \log p(\theta)]}, a MAP fit under the model's prior.
#' }
#' With minibatches the rows are reshuffled every epoch and a batch
#' \eqn{B} estimates the sum over rows by \eqn{(n/|B|)\sum_{i \in B}}, so
#' every batch loss is unbiased for the full loss; the last, smaller batch
#' is kept (MILE's loader drops it).
#'
#' The heteroscedastic Gaussian likelihood uses the network's second output
#' as log standard deviation, exactly as the sampler does. (DEI-MCMC's
#' PyTorch ensemble passed its exponential to `GaussianNLLLoss` as a
#' variance, i.e. treated it as a log variance.)
#'
#' Updates use bias-corrected moments with `eps` added to the square root of
#' the second moment (PyTorch and optax conventions). `"adamw"` applies
#' decoupled weight decay, \eqn{\theta \leftarrow \theta - lr(\hat m/(\sqrt{\hat
#' v} + \epsilon) + wd\,\theta)} (optax `adamw`, `torch.optim.AdamW`);
#' `"adam"` with `weight_decay > 0` adds \eqn{wd\,\theta} to the gradient
#' (coupled L2 decay of `torch.optim.Adam`, which DEI-MCMC used with
#' `weight_decay = 0.01`). The defaults are DEI-MCMC's ensemble settings
#' (learning rate and weight decay 0.01, 5000 full-batch epochs); MILE's UCI
#' runs used AdamW with `lr = 1e-3`, `weight_decay = 1e-3`, `batch_size = 32`,
#' `epochs = 500` and `patience = 10`.
#'
#' Early stopping monitors the mean negative log-likelihood per validation
#' row after every epoch. With `stopping = "best"` training stops once the
#' loss has not improved on its best value for `patience` epochs (the rule
#' of Keras and PyTorch Lightning). `stopping = "window"` is the rule of
#' MILE's reference code: stop once each of the last `patience` losses is
#' at least the loss `patience + 1` epochs back (at epoch `patience`, the
#' first loss, which is one of the window, so `patience = 1` stops after
#' the first epoch, as that code does); a slowly improving but noisy loss
#' trains longer than with `"best"`. With
#' `restore_best = TRUE` the parameters of the best epoch are returned
#' (MILE's code keeps the last ones).
#'
#' @param optimizer `"adamw"` (decoupled weight decay), `"adam"`, `"sgd"`
#'   (plain stochastic gradient descent with optional heavy-ball `momentum`,
#'   PyTorch's convention \eqn{v \leftarrow \mu v + g + wd\,\theta},
#'   \eqn{\theta \leftarrow \theta - lr\, v}; used by [bnn_fit_swag()]), or
#'   `"rmsprop"` (as `torch.optim.RMSprop` without momentum, which the deep
#'   ensembles of Wiese et al. 2023 used): \eqn{v \leftarrow \beta_2 v +
#'   (1 - \beta_2) g^2}, \eqn{\theta \leftarrow \theta - lr\, g /
#'   (\sqrt{v} + \epsilon)}, with \eqn{g} including `weight_decay` times
#'   \eqn{\theta}; `beta2` then defaults to PyTorch's 0.99 and `beta1` is
#'   not used.
#' @param lr Learning rate, > 0.
#' @param weight_decay Weight decay, >= 0.
#' @param epochs Maximum number of epochs (passes over the training rows).
#' @param batch_size Rows per minibatch; `NULL` for full-batch training.
#' @param patience Epochs without improvement of the validation loss before
#'   stopping; `NULL` for no early stopping. Needs validation data.
#' @param loss `"nll"` or `"posterior"`, see Details.
#' @param restore_best With validation data, return the parameters of the
#'   epoch with the lowest validation loss (`TRUE`) or the last ones.
#' @param beta1,beta2 Adam's moment decay rates, in `[0, 1)`.
#' @param eps Adam's denominator offset, > 0.
#' @param stopping Early-stopping rule with `patience`: `"best"` or
#'   `"window"`, see Details.
#' @param lr_decay Exponential learning-rate decay per epoch, in `(0, 1]`:
#'   epoch \eqn{e = 0, 1, \dots} uses `lr * lr_decay^e`.  The default 1 keeps
#'   the learning rate constant.  Staber and Da Veiga (2022) train the MAP of
#'   their stochastic-gradient samplers by Adam "with an exponentially
#'   decaying learning rate" (see [bnn_sgld()]).
#' @param momentum Momentum of `"sgd"`, in `[0, 1)`.
#' @param dropout Dropout rates of the hidden layers' outputs during
#'   training: `NULL` (no dropout, the default), one rate for every hidden
#'   layer, or one per hidden layer; each in `[0, 1)`.  Inverted dropout:
#'   each unit of each training row is dropped independently with the
#'   layer's rate and the kept ones are scaled by \eqn{1/(1-p)}, with masks
#'   drawn from the optimiser's own random stream; the validation loss uses
#'   the full network.  For example `dropout = c(0.2, 0), input_dropout =
#'   0.1` on a network with two hidden layers drops the inputs and the
#'   first hidden layer's outputs only.  See [bnn_fit_mc_dropout()].
#' @param input_dropout Dropout rate of the inputs, in `[0, 1)` (default 0).
#'   (With `dropout = NULL` and `input_dropout = 0` training is exactly as
#'   without these arguments.)
#' @return A list of class `"bnn_optimizer"` with the validated settings.
#' @examples
#' # DEI-MCMC's ensemble training (full batch)
#' bnn_optimizer()
#' # MILE's UCI settings
#' bnn_optimizer(lr = 1e-3, weight_decay = 1e-3, epochs = 500,
#'               batch_size = 32, patience = 10)
#' # ... with the early stopping of MILE's code
#' bnn_optimizer(lr = 1e-3, weight_decay = 1e-3, epochs = 500,
#'               batch_size = 32, patience = 10, stopping = "window",
#'               restore_best = FALSE)
#' # SGD with momentum; dropout 0.1 on both hidden layers and 0.2 on the inputs
#' bnn_optimizer("sgd", lr = 1e-3, momentum = 0.9, dropout = 0.1, input_dropout = 0.2)
#' @export
bnn_optimizer <- function(optimizer = c("adamw", "adam", "sgd", "rmsprop"), lr = 1e-2,
                          weight_decay = 1e-2, epochs = 5000,
                          batch_size = NULL, patience = NULL,
                          loss = c("nll", "posterior"), restore_best = TRUE,
                          beta1 = 0.9, beta2 = 0.999, eps = 1e-8,
                          stopping = "best", lr_decay = 1, momentum = 0, dropout = NULL,
                          input_dropout = 0) {
  optimizer <- match.arg(optimizer)
  if (optimizer == "rmsprop" && missing(beta2)) beta2 <- 0.99
  loss <- match.arg(loss)
  stopping <- match_choice(stopping, c("best", "window"), "stopping")
  structure(list(
    optimizer = optimizer,
    lr = .omc_check_number(lr, "lr", 0, Inf, lower_open = TRUE, upper_open = TRUE),
    weight_decay = .omc_check_number(weight_decay, "weight_decay", 0, Inf,
                                 upper_open = TRUE),
    epochs = .omc_check_count(epochs, "epochs", 0),
    batch_size = .omc_check_count(batch_size, "batch_size", 1, null_ok = TRUE),
    patience = .omc_check_count(patience, "patience", 1, null_ok = TRUE),
    loss = loss,
    restore_best = .omc_check_flag(restore_best, "restore_best"),
    beta1 = .omc_check_number(beta1, "beta1", 0, 1, upper_open = TRUE),
    beta2 = .omc_check_number(beta2, "beta2", 0, 1, upper_open = TRUE),
    eps = .omc_check_number(eps, "eps", 0, Inf, lower_open = TRUE, upper_open = TRUE),
    stopping = stopping,
    lr_decay = .omc_check_number(lr_decay, "lr_decay", 0, 1, lower_open = TRUE),
    momentum = .omc_check_number(momentum, "momentum", 0, 1, upper_open = TRUE),
    dropout = check_dropout_rates(dropout, "dropout"),
    input_dropout = check_dropout_rates(input_dropout, "input_dropout", scalar = TRUE)
  ), class = "bnn_optimizer")
}

# Dropout rates: NULL or numbers in [0, 1).
check_dropout_rates <- function(x, name, scalar = FALSE) {
  if (is.null(x) && !scalar) return(NULL)
  if (!is.numeric(x) || !length(x) || anyNA(x) || any(x < 0) || any(x >= 1) ||
      (scalar && length(x) != 1L))
    stop(sprintf("'%s' must be %s in [0, 1) (a dropout rate), not %s.", name,
                 if (scalar) "a single number" else "NULL or numbers", deparse1(x)),
         call. = FALSE)
  as.double(x)
}

# Train one ensemble member.
#
# spec: the model spec with the training data (see R/bnnmc-package.R);
# valid: NULL or list(X = <n_valid x p>, y = <n_valid>); init: NULL for
# Glorot-uniform weights from the RNG seeded by (seed, member), or a start
# vector. The remaining arguments are those of bnn_optimizer(), so
# do.call(.bnn_optimize, c(list(spec = spec, ...), unclass(settings))) works.
#
# Returns list(par, train_loss (per epoch: mean over its batches of the loss
# before each update), valid_loss (per epoch, mean NLL per validation row;
# NULL without validation data), best_epoch (NA without validation data),
# epochs (completed), n_grad (gradient evaluations, one per batch), status
# ("ok", "early_stop" or "nonfinite": a non-finite loss or gradient stopped
# training and the last finite parameters are returned), init, snapshots
# (with snapshot_every > 0: a dim x kept matrix of the parameters after
# every snapshot_every-th epoch; NULL otherwise).
.bnn_optimize <- function(spec, valid = NULL, init = NULL, seed = 1,
                          member = 1L, optimizer = "adamw", lr = 1e-2,
                          weight_decay = 1e-2, epochs = 5000,
                          batch_size = NULL, patience = NULL,
                          loss = c("nll", "posterior"), restore_best = TRUE,
                          beta1 = 0.9, beta2 = 0.999, eps = 1e-8,
                          stopping = "best", lr_decay = 1, momentum = 0, dropout = NULL,
                          input_dropout = 0, snapshot_every = 0L) {
  s <- bnn_optimizer(optimizer = optimizer, lr = lr,
                     weight_decay = weight_decay, epochs = epochs,
                     batch_size = batch_size, patience = patience,
                     loss = loss, restore_best = restore_best, beta1 = beta1,
                     beta2 = beta2, eps = eps, stopping = stopping,
                     lr_decay = lr_decay,
                     momentum = momentum, dropout = dropout,
                     input_dropout = input_dropout)
  seed <- .omc_check_seed(seed)
  member <- .omc_check_count(member, "member", 0)
  if (!is.list(spec) || is.null(spec$X) || is.null(spec$y))
    stop("'spec' must be a model spec list with training data 'X' and 'y'",
         call. = FALSE)
  if (!is.null(s$patience) && is.null(valid))
    stop("'patience' needs validation data in 'valid'", call. = FALSE)
  # the dropout pass (src/model/dropout.c) has no single-precision version: say
  # so rather than train in double
  if (identical(spec_precision(spec), "single") &&
      (length(s$dropout) && any(s$dropout > 0) || isTRUE(s$input_dropout > 0)))
    stop("precision = \"single\" is not available with dropout (bnn_optimizer(dropout = , ",
         "input_dropout = )); use precision = \"double\".", call. = FALSE)
  valid_spec <- NULL
  if (!is.null(valid)) {
    if (!is.list(valid) || is.null(valid$X) || is.null(valid$y))
      stop("'valid' must be NULL or a list with 'X' and 'y'", call. = FALSE)
    vX <- as.matrix(valid$X)
    storage.mode(vX) <- "double"
    vy <- as.double(valid$y)
    if (is.matrix(valid$y)) vy <- matrix(vy, nrow(valid$y))   # the count likelihoods' columns
    if (ncol(vX) != spec$sizes[1L] || nrow(vX) != NROW(vy) || NROW(vy) < 1L)
      stop(sprintf("'valid$X' must have %d columns and as many rows as 'valid$y'",
                   spec$sizes[1L]), call. = FALSE)
    valid_spec <- spec
    valid_spec$X <- vX
    valid_spec$y <- vy
  }
  if (!is.null(init)) init <- as.double(init)
  n_hidden <- length(spec$sizes) - 2L
  if (!is.null(s$dropout)) {
    if (length(s$dropout) == 1L) s$dropout <- rep(s$dropout, n_hidden)
    if (length(s$dropout) != n_hidden)
      stop(sprintf("'dropout' must have 1 or %d rates (one per hidden layer), not %d.",
                   n_hidden, length(s$dropout)), call. = FALSE)
  }
  cs <- list(
    optimizer = match(s$optimizer, c("adam", "adamw", "sgd", "rmsprop")) - 1L,
    loss = if (s$loss == "nll") 0L else 1L,
    epochs = s$epochs,
    batch_size = if (is.null(s$batch_size)) 0L else s$batch_size,
    patience = if (is.null(s$patience)) 0L else s$patience,
    restore_best = as.integer(s$restore_best),
    stopping = if (s$stopping == "best") 0L else 1L,
    lr = s$lr, weight_decay = s$weight_decay,
    beta1 = s$beta1, beta2 = s$beta2, eps = s$eps, lr_decay = s$lr_decay
  )
  # the new settings only when used, so the default path is untouched
  if (s$optimizer == "sgd") cs$momentum <- s$momentum
  if (!is.null(s$dropout) && n_hidden > 0L) cs$dropout <- s$dropout
  if (s$input_dropout > 0) cs$input_dropout <- s$input_dropout
  snapshot_every <- .omc_check_count(snapshot_every, "snapshot_every", 0)
  if (snapshot_every > 0L) cs$snapshot_every <- snapshot_every
  .Call(C_optimize, spec, valid_spec, init, seed, member, cs)
}

#' Optimiser settings of the papers' deep ensembles
#'
#' `"dei"`: Sommer et al. (2024): Adam with (coupled, PyTorch-style) weight
#' decay 0.01, learning rate 0.01, full batch, 5000 epochs, no early
#' stopping.  `"mile"`: Sommer et al. (2025), UCI configuration of the
#' ensemble that starts MILE and BDE chains: AdamW (decoupled decay 0.001),
#' learning rate 0.001, batch size 32, at most 500 epochs, early stopping
#' with patience 10 when validation data are given.  `"mile_de"`: the same
#' paper's configuration of its deep-ensemble *baseline* (`de.yaml` in the
#' reference code): as `"mile"` but learning rate 0.01 and patience 20.
#' `"mile_class"`: the same paper's configuration for tabular
#' classification (ionosphere, income and the PGPS comparison of its Table
#' 6): as `"mile"` but learning rate 0.01 and patience 20; the initial MCLMC
#' step size of `sampler = "mile"` is then 0.01 too (it equals the
#' ensemble's learning rate).  `bnn_fit(sampler = "mile")` uses
#' `"mile_class"` for a factor response and `"mile"` otherwise.
#' The loss is the mean negative log-likelihood per observation of
#' the same likelihood the sampler uses (Gaussian; for a factor response the
#' Bernoulli or categorical cross-entropy) (the network's second output is the
#' log standard deviation in both stages; the DEI reference code treated it
#' as a log variance when training, which we do not copy).
#'
#' @param protocol `"dei"`, `"mile"`, `"mile_de"` or `"mile_class"`.
#' @param ... Settings of [bnn_optimizer()] that override the preset.
#' @return A `bnn_optimizer` object.
#' @export
#' @examples
#' bnn_optimizer_preset("mile")
bnn_optimizer_preset <- function(protocol = c("dei", "mile", "mile_de", "mile_class"), ...) {
  protocol <- match.arg(protocol)
  base <- switch(protocol,
    dei = list(optimizer = "adam", lr = 1e-2, weight_decay = 1e-2, epochs = 5000),
    mile = list(optimizer = "adamw", lr = 1e-3, weight_decay = 1e-3, epochs = 500,
                batch_size = 32, patience = 10),
    mile_de = , mile_class = list(optimizer = "adamw", lr = 1e-2, weight_decay = 1e-3,
                                  epochs = 500, batch_size = 32, patience = 20))
  over <- list(...)
  base[names(over)] <- over
  do.call(bnn_optimizer, base)
}

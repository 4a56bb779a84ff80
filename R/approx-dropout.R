# MC dropout (Gal & Ghahramani 2016): a network trained with dropout, whose
# predictive distribution averages forward passes with random masks.

#' MC dropout
#'
#' Trains one network with dropout on the outputs of every hidden layer
#' (and optionally on the inputs), then represents the MC-dropout
#' predictive distribution by `draws` parameter vectors, one per set of
#' masks, so that the result is a fit like a sampler's and works with
#' [predict.bnnfit()], [bnn_metrics()], `loo()` and the plots.
#'
#' **Training** uses [bnn_optimizer()] with the given `dropout` and
#' `input_dropout` (they replace the optimiser's own): inverted dropout
#' with masks drawn independently for every training row and unit from the
#' optimiser's random stream (see `dropout` there).
#'
#' **Prediction.** One MC-dropout draw is one set of masks (one per unit of
#' each dropped layer) applied to a forward pass.  Dropping unit \eqn{j} of
#' hidden layer \eqn{l} sets its output to 0 and scales a kept one by
#' \eqn{1/(1-p_l)}, which is exactly the same as zeroing row \eqn{j} of the
#' next layer's weight matrix `W<l+1>` or scaling it by \eqn{1/(1-p_l)};
#' input dropout likewise acts on the rows of `W1`; biases are unchanged.
#' A draw is therefore the trained parameter vector with these rows
#' masked, and every method of a sampler fit applies.  The mask of a draw
#' is shared by all the test rows it predicts (the standard MC-dropout
#' predictive: one mask per forward pass); each test row's predictive
#' distribution is the same as with independent masks per row, only the
#' dependence between rows of one draw differs.  (The weight-space
#' "draws" are masked copies of one network, not posterior draws of the
#' weights; weight-space diagnostics of them mean little.)
#'
#' The paper of Staber & Da Veiga studies rates 0.1 to 0.5 with 2000
#' forward passes; their optimiser, loss and epochs are not stated.
#'
#' @inheritParams bnn_fit
#' @param prior A [bnn_prior()] object or `"normal"` / `"laplace"` (default
#'   Normal(0, 1) on every weight and bias, whatever the likelihood).
#' @param dropout Dropout rate of the hidden layers' outputs: one number or
#'   one per hidden layer, in `[0, 1)`.
#' @param input_dropout Dropout rate of the inputs, in `[0, 1)`.
#' @param optimizer A [bnn_optimizer()] for training.
#' @param draws Number of MC-dropout forward passes (parameter vectors).
#' @return A fit of class `c("bnn_approx", "bnnfit")` with draws
#'   `[draw, 1, parameter]`; `$approx` holds the trained parameters
#'   (`weights`), the rates and the optimiser's result (`optim`).
#' @export
#' @examples
#' set.seed(1)
#' d <- data.frame(x = runif(60, -2, 2))
#' d$y <- sin(2 * d$x) + rnorm(60, sd = 0.1)
#' md <- bnn_fit_mc_dropout(y ~ x, d, hidden = c(32, 32), dropout = 0.1,
#'                      likelihood = bnn_likelihood("gaussian", sigma = 0.2),
#'                      optimizer = bnn_optimizer(optimizer = "adam", lr = 0.01,
#'                                                weight_decay = 0, epochs = 300,
#'                                                batch_size = 16),
#'                      draws = 200, seed = 1)
#' md
#' head(predict(md, d, type = "interval"))
bnn_fit_mc_dropout <- function(formula, data, hidden = c(16, 16), activation = "relu",
                           likelihood = NULL, prior = bnn_prior(), dropout = 0.1,
                           input_dropout = 0,
                           optimizer = bnn_optimizer(optimizer = "adam", weight_decay = 0,
                                                     epochs = 1000, batch_size = 32,
                                                     loss = "posterior"),
                           draws = 1000, seed = NULL, subset, na.action,
                           standardize = TRUE) {
  call <- match.call()
  dropout <- check_dropout_rates(dropout, "dropout")
  if (is.null(dropout)) dropout <- 0
  input_dropout <- check_dropout_rates(input_dropout, "input_dropout", scalar = TRUE)
  draws <- check_draws(draws)
  if (!inherits(optimizer, "bnn_optimizer"))
    stop("'optimizer' must come from bnn_optimizer().", call. = FALSE)
  mf <- match.call(expand.dots = FALSE)
  m <- match(c("formula", "data", "subset", "na.action"), names(mf), 0L)
  mf <- mf[c(1L, m)]
  model <- prepare_model(mf, parent.frame(), formula, data, hidden, activation,
                         likelihood, prior, standardize)
  spec <- model$spec
  n_hidden <- length(spec$sizes) - 2L
  if (length(dropout) == 1L) dropout <- rep(dropout, n_hidden)
  if (length(dropout) != n_hidden)
    stop(sprintf("'dropout' must have 1 or %d rates (one per hidden layer), not %d.",
                 n_hidden, length(dropout)), call. = FALSE)
  if (is.null(seed)) seed <- new_seed()
  seed <- check_count(seed, "seed", 0L)
  optimizer$dropout <- dropout
  optimizer$input_dropout <- input_dropout
  t0 <- proc.time()[[3]]
  opt <- approx_optimize(spec, optimizer, seed)
  th <- with_seed(seed, dropout_draws(opt$par, spec$sizes, dropout, input_dropout, draws))
  elapsed <- proc.time()[[3]] - t0
  approx <- list(method = "mc_dropout", weights = opt$par, dropout = dropout,
                 input_dropout = input_dropout, optim = opt,
                 summary = list(rates = paste0(paste(fmt_num(dropout), collapse = ", "),
                                               " (hidden)", if (input_dropout > 0)
                                                 paste0(", ", fmt_num(input_dropout),
                                                        " (inputs)") else ""),
                                training = sprintf("%s, %d epochs, final loss %s",
                                                   optimizer$optimizer, opt$epochs,
                                                   fmt_num(opt$train_loss[length(opt$train_loss)]))))
  approx_fit(model, th, "mc_dropout", approx, elapsed, opt$n_grad, seed, call)
}

# draws x dim matrix: the trained vector theta with the rows of each weight
# matrix that multiply a dropped unit zeroed and the kept ones scaled by
# 1 / (1 - p) (one independent set of masks per draw, from R's RNG).
dropout_draws <- function(theta, sizes, rates, input_rate, draws) {
  L <- length(sizes) - 1L
  mult <- matrix(1, draws, length(theta))
  off <- 0L
  for (l in seq_len(L)) {
    fin <- sizes[l]
    fout <- sizes[l + 1L]
    p <- if (l == 1L) input_rate else rates[l - 1L]
    if (p > 0) {
      keep <- matrix(stats::runif(draws * fin) >= p, draws, fin) / (1 - p)
      mult[, off + seq_len(fin * fout)] <- keep[, rep(seq_len(fin), fout)]
    }
    off <- off + fin * fout + fout
  }
  mult * rep(theta, each = draws)
}

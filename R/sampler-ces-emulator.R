# The emulator of calibration-emulation-sampling: an MLP from a network's
# parameters to the network's outputs on its training inputs (src/mcmc/emulator.c),
# trained with the package's own optimiser (src/model/optim.c) on a squared-error
# (multi-output Gaussian) loss.

# Table 2 of Moslemi et al. (FBNN): emulator hidden widths and dropout rate
# per data set (ReLU, 1000 epochs).  The paper applies the rate to the input
# and the first hidden layer; the presets apply it to the input layer only
# (bnn_emulator()'s "Presets": on first hidden layers of 3 to 8 units the
# rate leaves the emulator nearly constant).
.emulator_presets <- list(
  boston = list(hidden = c(3L, 32L), dropout = 0.7),
  wine = list(hidden = c(3L, 32L), dropout = 0.5),
  alzheimer = list(hidden = c(4L, 64L), dropout = 0.5),
  year = list(hidden = c(4L, 64L), dropout = 0.5),
  simulation = list(hidden = c(8L, 64L, 32L), dropout = 0.5),
  adult = list(hidden = c(4L, 32L), dropout = 0.5),
  mnist = list(hidden = c(3L, 64L), dropout = 0.5),
  celeba = list(hidden = c(3L, 32L), dropout = 0.5),
  svhn = list(hidden = c(4L, 64L, 32L), dropout = 0.7))

#' Emulator settings for calibration-emulation-sampling
#'
#' The emulator of FBNN (Moslemi et al.) is a fully connected network
#' \eqn{G_e} from the flat vector \eqn{\theta} of the network's weights and
#' biases (dimension \eqn{d}) to the network's outputs \eqn{G(X; \theta)} on
#' all \eqn{N} training inputs (\eqn{N} values, or \eqn{N K} with \eqn{K}
#' outputs per row).  It is trained on the \eqn{J} calibration pairs
#' \eqn{(\theta_j, G(X; \theta_j))} with the package's optimiser
#' ([bnn_optimizer()]) on the squared error of the standardised outputs
#' (each input coordinate and each output is centred and scaled by its
#' calibration mean and standard deviation; a constant coordinate gets
#' scale 1).  The emulated log-likelihood is the model's own likelihood at
#' the emulated outputs, \eqn{\log p(y \mid G_e(\theta))}; for the
#' Gaussian likelihood with fixed \eqn{\sigma} this is \eqn{-\Phi_e(\theta)
#' = -\frac12 \|Y - G_e(\theta)\|^2_\Gamma} up to a constant, with
#' \eqn{\Gamma = \sigma^2 I}.  For classification the emulator emulates
#' the logits, and the Bernoulli or categorical likelihood is evaluated on
#' them.  Its gradient with respect to \eqn{\theta} is exact
#' (backpropagation through the emulator to its input).
#'
#' A fraction `holdout` of the calibration pairs is held out of training
#' and used to check the emulator: the \eqn{R^2} of its outputs and the
#' correlation of the true and emulated log-likelihoods on those draws (as
#' in the paper's Figure 5; see [bnn_ces_check()]).  A held-out \eqn{R^2}
#' below `min_r2` gives a warning that names it.  With `inflate = TRUE`
#' (Gaussian likelihood with fixed \eqn{\sigma} only; beyond the paper, as
#' CalibrateEmulateSample.jl adds the emulator's covariance) the noise
#' variance is inflated by the emulator's held-out mean squared error,
#' \eqn{\Gamma = (\sigma^2 + \mathrm{MSE}) I}.
#'
#' Dropout (inverted, as `bnn_optimizer(dropout = , input_dropout = )`)
#' acts during training only, on the inputs and (`dropout`) on the first
#' hidden layer; the trained emulator is evaluated without it.
#'
#' **Presets.** `preset` takes the paper's Table 2 widths and rate, but
#' applies the rate to the input layer only (`dropout = 0` unless given).
#' The table's first hidden layers have 3 to 8 units: dropping each with
#' probability 0.7 (Boston) leaves none of the 3 in 34\% of the training
#' passes, and the emulator learns little more than the mean output.  On
#' 200 SGHMC calibration pairs of the 3,009-parameter Boston network (160
#' for training, 40 held out) the held-out \eqn{R^2} was 0.20 with both
#' rates and 0.99 with input dropout only
#' (`inst/benchmarks/papers/fbnn/fbnn_emulator.csv`).
#'
#' **Optimiser.** The default is Adam with learning rate 0.01 on full
#' batches (all training pairs) for the paper's 1000 epochs.  On the
#' pairs above (without dropout) it reached the held-out \eqn{R^2} of
#' minibatches of 32 at learning rate 0.001 (0.992 and 0.993) in about a
#' third of the time (1.2 s instead of 3.2 s on a 2-core machine): an epoch
#' costs a forward and backward pass per pair either way, but a full batch
#' makes one weight update per epoch instead of \eqn{J/32}.  The paper
#' gives no optimiser, learning rate or batch size.
#'
#' @param hidden Hidden widths, e.g. `c(3, 32)`, or a string as printed in
#'   the paper's Table 2, e.g. `"3,32"` (fields separated by commas,
#'   semicolons or blanks; none may be empty).  Each width is a whole number
#'   from 1 to 1,000,000.
#' @param preset A data set name of the paper's Table 2 (`"boston"`,
#'   `"wine"`, `"alzheimer"`, `"year"`, `"simulation"`, `"adult"`,
#'   `"mnist"`, `"celeba"`, `"svhn"`), which sets `hidden` and
#'   `input_dropout` (the table's rate) unless they are given; `dropout`
#'   stays 0 unless given (see Presets).
#' @param activation `"relu"` (the paper's) or `"tanh"`.
#' @param dropout Dropout rate of the first hidden layer (0: none).
#' @param input_dropout Dropout rate of the input layer (0: none).
#' @param optimizer A [bnn_optimizer()]: by default Adam with learning rate
#'   0.01, no weight decay, full batches and the paper's 1000 epochs.
#' @param holdout Fraction of the calibration pairs held out for the check.
#' @param min_r2 Held-out \eqn{R^2} below which a warning is given.
#' @param inflate Inflate the noise variance by the held-out error.
#' @return A `bnn_emulator_settings` object.
#' @export
#' @examples
#' bnn_emulator()
#' bnn_emulator(preset = "boston")
#' bnn_emulator(hidden = "8,64,32")
bnn_emulator <- function(hidden = c(32L, 32L), preset = NULL, activation = "relu",
                         dropout = NULL, input_dropout = NULL,
                         optimizer = bnn_optimizer("adam", lr = 1e-2, weight_decay = 0,
                                                   epochs = 1000, batch_size = NULL),
                         holdout = 0.2, min_r2 = 0.5, inflate = FALSE) {
  if (!is.null(preset)) {
    preset <- match_choice(preset, names(.emulator_presets), "preset")
    pr <- .emulator_presets[[preset]]
    if (missing(hidden)) hidden <- pr$hidden
    input_dropout <- input_dropout %||% pr$dropout
  }
  hidden <- parse_widths(hidden)
  activation <- match_choice(activation, c("relu", "tanh"), "activation")
  for (nm in c("dropout", "input_dropout")) {
    v <- get(nm) %||% 0
    if (!is.numeric(v) || length(v) != 1L || is.na(v) || v < 0 || v >= 1)
      stop(sprintf("'%s' must be a number in [0, 1).", nm), call. = FALSE)
    assign(nm, v)
  }
  if (!inherits(optimizer, "bnn_optimizer"))
    stop("'optimizer' must be a bnn_optimizer() object.", call. = FALSE)
  if (!is.numeric(holdout) || length(holdout) != 1L || is.na(holdout) ||
      holdout < 0 || holdout >= 1)
    stop("'holdout' must be a number in [0, 1).", call. = FALSE)
  if (!is.numeric(min_r2) || length(min_r2) != 1L || is.na(min_r2) || min_r2 >= 1)
    stop("'min_r2' must be a number below 1.", call. = FALSE)
  if (!is.logical(inflate) || length(inflate) != 1L || is.na(inflate))
    stop("'inflate' must be TRUE or FALSE.", call. = FALSE)
  structure(list(hidden = hidden, preset = preset, activation = activation,
                 dropout = dropout, input_dropout = input_dropout,
                 optimizer = optimizer, holdout = holdout, min_r2 = min_r2,
                 inflate = inflate), class = "bnn_emulator_settings")
}

#' @export
format.bnn_emulator_settings <- function(x, ...) {
  sprintf("MLP theta -> G(X; theta), hidden %s (%s)%s, %d epochs",
          paste(x$hidden, collapse = "-"), x$activation,
          if (x$dropout > 0 || x$input_dropout > 0)
            sprintf(", dropout %s/%s", x$input_dropout, x$dropout) else "",
          x$optimizer$epochs)
}

#' @export
print.bnn_emulator_settings <- function(x, ...) {
  cat("<bnn_emulator>", format(x), "\n")
  invisible(x)
}

# Hidden widths from a vector or a string such as "3,32" (Table 2): each
# width a whole number from 1 to .max_emulator_width.  A string is split at
# commas, semicolons or blanks; an empty field ("3,,32") is an error, not
# skipped.
.max_emulator_width <- 1e6
parse_widths <- function(hidden) {
  bad <- function(what)
    stop(sprintf(paste0("The emulator's 'hidden' %s: it must be layer widths, positive ",
                        "whole numbers up to %s, e.g. c(3, 32) or \"3,32\"."),
                 what, format(.max_emulator_width, big.mark = ",", scientific = FALSE)),
         call. = FALSE)
  lab <- if (is.character(hidden)) sprintf("\"%s\"", hidden[1L]) else
    if (is.numeric(hidden) && length(hidden) == 1L) as.character(hidden) else
      paste0("c(", paste(as.character(hidden), collapse = ", "), ")")
  if (is.character(hidden)) {
    if (length(hidden) != 1L || is.na(hidden))
      stop("'hidden' must be a vector of widths or one string such as \"3,32\".",
           call. = FALSE)
    s <- trimws(hidden)
    parts <- if (grepl("[,;]", s)) trimws(strsplit(s, "[,;]")[[1L]]) else
      strsplit(s, "[[:space:]]+")[[1L]]
    if (grepl("[,;][[:space:]]*$", s)) parts <- c(parts, "")   # "3,32,"
    if (!length(parts) || any(!nzchar(parts)))
      bad(sprintf("= \"%s\" has an empty field", hidden))
    num <- suppressWarnings(as.numeric(parts))
    if (anyNA(num) || any(!grepl("^[0-9.eE+]+$", parts)))
      bad(sprintf("= \"%s\" does not parse", hidden))
    hidden <- num
  }
  if (!is.numeric(hidden) || !length(hidden))
    bad("is not a numeric vector of widths")
  if (anyNA(hidden) || any(!is.finite(hidden)) || any(hidden != round(hidden)) ||
      any(hidden < 1) || any(hidden > .max_emulator_width))
    bad(sprintf("= %s is not valid", lab))
  as.integer(hidden)
}

# Centre and scale of the columns of M (scale 1 for constant columns).
col_standardiser <- function(M) {
  ctr <- colMeans(M)
  sc <- sqrt(pmax(colSums(sweep(M, 2L, ctr)^2) / max(nrow(M) - 1L, 1L), 0))
  sc[!(sc > 1e-12 * pmax(1, abs(ctr))) | !is.finite(sc)] <- 1
  list(center = ctr, scale = sc)
}

# Train the emulator on calibration pairs: theta (J x n_net) and outputs
# (J x D).  Returns the C-side emulator list plus the training record.
train_emulator <- function(theta, outputs, settings, seed) {
  s <- settings
  zi <- col_standardiser(theta)
  zo <- col_standardiser(outputs)
  Xs <- sweep(sweep(theta, 2L, zi$center), 2L, zi$scale, "/")
  Ys <- sweep(sweep(outputs, 2L, zo$center), 2L, zo$scale, "/")
  sizes <- c(ncol(theta), s$hidden, ncol(outputs))
  spec <- list(type = "bnn", sizes = as.integer(sizes),
               act = .activations[[s$activation]], lik = 5L, sigma_fixed = 1,
               sigma_prior = 0L, sigma_prior_scale = 1, prior = 0L,
               prior_scale = rep(1, bnn_n_parameters(sizes)),
               X = Xs, y = as.double(Ys))
  storage.mode(spec$X) <- "double"
  opt <- unclass(s$optimizer)
  # the paper's dropout: on the input and on the first hidden layer only
  opt$input_dropout <- s$input_dropout
  opt$dropout <- if (s$dropout > 0) c(s$dropout, rep(0, length(s$hidden) - 1L)) else NULL
  t0 <- proc.time()[[3]]
  res <- do.call(.bnn_optimize, c(list(spec = spec, valid = NULL, init = NULL,
                                       seed = seed, member = 1L), opt))
  if (res$status == "nonfinite")
    stop("Training the emulator failed: a non-finite loss or gradient.", call. = FALSE)
  list(sizes = as.integer(sizes), act = .activations[[s$activation]],
       weights = res$par, in_center = zi$center, in_scale = zi$scale,
       out_center = zo$center, out_scale = zo$scale,
       train_loss = res$train_loss, n_grad = res$n_grad,
       time = proc.time()[[3]] - t0)
}

# The emulated spec of a model spec (with its training data): emulator NULL
# is the exact forward map.
emulated_spec <- function(model_spec, emulator) {
  em <- if (is.null(emulator)) NULL else
    emulator[c("sizes", "act", "weights", "in_center", "in_scale", "out_center",
               "out_scale")]
  list(type = "emulated", model = model_spec, emulator = em)
}

# SWAG (Maddox et al. 2019): a Gaussian with diagonal plus low-rank
# covariance fitted to the iterates of an SGD trajectory started at the MAP.

#' SWAG: stochastic weight averaging Gaussian
#'
#' Trains the network to its MAP, continues from there with plain SGD at a
#' constant learning rate (minibatches, optional momentum), collects the
#' parameters after every `collect_every` epochs, and fits the Gaussian
#' \eqn{N(\bar\theta, \frac12(\Sigma_{diag} + \hat D\hat D^\top/(K-1)))}
#' of Maddox et al. (2019) to the \eqn{S} collected iterates
#' \eqn{\theta_1, \dots, \theta_S}:
#' \eqn{\bar\theta} their mean, \eqn{\Sigma_{diag}} their per-coordinate
#' variance (divisor \eqn{S}, i.e. \eqn{\overline{\theta^2} -
#' \bar\theta^2}, computed in two passes for accuracy), and \eqn{\hat D}
#' the deviations \eqn{\theta_s - \bar\theta} of the last \eqn{K} =
#' `rank` iterates.  A draw is
#' \deqn{\theta = \bar\theta + \tfrac{1}{\sqrt2}\Sigma_{diag}^{1/2}z_1 +
#' \tfrac{1}{\sqrt{2(K-1)}}\hat D z_2,\quad z_1 \sim N(0, I_d),\ z_2 \sim
#' N(0, I_K),}
#' so `rank` must be at least 2 (and at most \eqn{S}).  The result is a
#' fit like a sampler's (one "chain") for [predict.bnnfit()],
#' [bnn_metrics()], `loo()` and the plots.
#'
#' The loss of bnnmc's optimiser is per training row (the negative log
#' posterior divided by \eqn{n}), so a learning rate \eqn{\eta} here is
#' \eqn{\eta / n} on the summed negative log posterior of Staber & Da
#' Veiga (grid `logspace(-7, -5)` there, with rank, epochs and batch size
#' not stated; their later code uses batch 32, one snapshot per epoch,
#' 2000 epochs and rank 100).  The default rank 20 is Maddox et al.'s.
#'
#' @inheritParams bnn_fit
#' @param prior A [bnn_prior()] object or `"normal"` / `"laplace"` (default
#'   Normal(0, 1) on every weight and bias, whatever the likelihood).
#' @param rank Rank \eqn{K} of the low-rank part, \eqn{2 \le K \le S}.
#' @param epochs SGD epochs after the MAP.
#' @param collect_every Collect the parameters after every this many epochs
#'   (\eqn{S} = `floor(epochs / collect_every)` iterates).
#' @param lr,momentum,batch_size SGD's constant learning rate, momentum
#'   (heavy ball, PyTorch's convention) and minibatch size (`NULL`: full
#'   batch).
#' @param optimizer A [bnn_optimizer()] for the MAP (its `loss` is set to
#'   `"posterior"`), unless `map` is given.
#' @param map Optional starting point on the unconstrained scale (layout of
#'   [bnn_parameter_names()]); with it the MAP is not trained.
#' @param draws Number of draws.
#' @param keep_iterates Keep the collected iterates (`$approx$iterates`,
#'   \eqn{S \times d}) in the fit.
#' @return A fit of class `c("bnn_approx", "bnnfit")` with draws
#'   `[draw, 1, parameter]`; `$approx` holds `mean`, `diag` (the diagonal
#'   of \eqn{\Sigma_{diag}}), `D` (\eqn{d \times K}), `rank`, `iterates`
#'   and the optimisers' results (`map_optim`, `sgd`).
#' @export
#' @examples
#' set.seed(1)
#' d <- data.frame(x = runif(60, -2, 2))
#' d$y <- sin(2 * d$x) + rnorm(60, sd = 0.1)
#' sw <- bnn_fit_swag(y ~ x, d, hidden = c(16, 16), rank = 10, epochs = 100,
#'                lr = 1e-3, likelihood = bnn_likelihood("gaussian", sigma = 0.2),
#'                optimizer = bnn_optimizer(optimizer = "adam", lr = 0.01,
#'                                          weight_decay = 0, epochs = 300),
#'                draws = 200, seed = 1)
#' sw
#' bnn_metrics(sw, d)$rmse
bnn_fit_swag <- function(formula, data, hidden = c(16, 16), activation = "relu",
                     likelihood = NULL, prior = bnn_prior(), rank = 20, epochs = 200,
                     collect_every = 1, lr = 1e-3, momentum = 0, batch_size = 32,
                     optimizer = bnn_optimizer(optimizer = "adam", weight_decay = 0,
                                               epochs = 1000, loss = "posterior"),
                     map = NULL, draws = 1000, keep_iterates = TRUE, seed = NULL,
                     subset, na.action, standardize = TRUE) {
  call <- match.call()
  epochs <- check_count(epochs, "epochs", 1L)
  collect_every <- check_count(collect_every, "collect_every", 1L)
  n_iter <- epochs %/% collect_every
  if (n_iter < 2L)
    stop(sprintf(paste0("'epochs' / 'collect_every' must give at least 2 collected ",
                        "iterates, not %d."), n_iter), call. = FALSE)
  if (!is.numeric(rank) || length(rank) != 1L || is.na(rank) || rank != round(rank) ||
      rank < 2 || rank > n_iter)
    stop(sprintf(paste0("'rank' must be a whole number from 2 to the number of collected ",
                        "iterates (%d = floor(epochs / collect_every)), not %s; SWAG's ",
                        "low-rank part divides by rank - 1."), n_iter, deparse1(rank)),
         call. = FALSE)
  rank <- as.integer(rank)
  draws <- check_draws(draws)
  sgd <- bnn_optimizer("sgd", lr = lr, momentum = momentum, weight_decay = 0,
                       epochs = epochs, batch_size = batch_size, loss = "posterior")
  mf <- match.call(expand.dots = FALSE)
  m <- match(c("formula", "data", "subset", "na.action"), names(mf), 0L)
  mf <- mf[c(1L, m)]
  model <- prepare_model(mf, parent.frame(), formula, data, hidden, activation,
                         likelihood, prior, standardize)
  spec <- model$spec
  dim <- spec_dim(spec)
  if (is.null(seed)) seed <- new_seed()
  seed <- check_count(seed, "seed", 0L)
  t0 <- proc.time()[[3]]
  map_opt <- NULL
  if (is.null(map)) {
    optimizer$loss <- "posterior"
    map_opt <- approx_optimize(spec, optimizer, seed)
    map <- map_opt$par
  } else if (!is.numeric(map) || length(map) != dim || anyNA(map)) {
    stop(sprintf("'map' must be a numeric vector of length %d (the number of parameters).",
                 dim), call. = FALSE)
  }
  run <- approx_optimize(spec, sgd, seed, init = as.double(map), what = "lr",
                         member = 2L, snapshot_every = collect_every)
  W <- t(run$snapshots)                         # S x d
  fitg <- swag_moments(W, rank)
  th <- with_seed(seed, swag_draws(fitg, draws))
  elapsed <- proc.time()[[3]] - t0
  approx <- c(list(method = "swag"), fitg,
              list(iterates = if (keep_iterates) W, map = as.double(map),
                   map_optim = map_opt, sgd = run[setdiff(names(run), "snapshots")],
                   summary = list(
                     trajectory = sprintf("SGD, lr %s, momentum %s, %s, %d epochs",
                                          fmt_num(lr), fmt_num(momentum),
                                          if (is.null(batch_size)) "full batch" else
                                            paste("batch", batch_size), epochs),
                     iterates = sprintf("%d (every %d epoch%s), rank %d", nrow(W),
                                        collect_every, if (collect_every > 1) "s" else "",
                                        rank))))
  n_grad <- run$n_grad + if (is.null(map_opt)) 0 else map_opt$n_grad
  approx_fit(model, th, "swag", approx, elapsed, n_grad, seed, call)
}

# Mean, diagonal variance (divisor S) and the last K deviations of the
# iterates W (S x d).
swag_moments <- function(W, rank) {
  S <- nrow(W)
  mu <- colMeans(W)
  dev <- W - rep(mu, each = S)
  list(mean = mu, diag = colMeans(dev^2),
       D = t(dev[(S - rank + 1L):S, , drop = FALSE]), rank = rank)
}

# draws x d: mean + sqrt(diag / 2) z1 + D z2 / sqrt(2 (K - 1)); z1 is drawn
# first (d x draws), then z2 (K x draws).
swag_draws <- function(g, draws) {
  d <- length(g$mean)
  z1 <- matrix(stats::rnorm(d * draws), d, draws)
  z2 <- matrix(stats::rnorm(g$rank * draws), g$rank, draws)
  t(g$mean + sqrt(g$diag / 2) * z1 + (g$D %*% z2) / sqrt(2 * (g$rank - 1)))
}

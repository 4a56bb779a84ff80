# Stochastic-gradient MCMC settings: SGLD, pSGLD and SGHMC with minibatch,
# control-variate and SVRG gradients and cyclical step sizes.  The kernels
# are src/mcmc/sgld.c and src/mcmc/sghmc.c, the minibatch target src/mcmc/minibatch.c; they
# run on the generic chain driver (run_chain()).

.sg_gradients <- c(minibatch = 0L, cv = 1L, svrg = 2L)

#' Stochastic-gradient Langevin dynamics settings
#'
#' Samplers for data sets too large for full-batch gradients: each step uses
#' an unbiased estimate of the log-posterior gradient from a minibatch of
#' rows, and no Metropolis correction, so a step costs one minibatch
#' gradient whatever the number of rows \eqn{N}, and the draws carry a bias
#' that shrinks with the step size.
#'
#' **SGLD** (Welling and Teh 2011): with \eqn{\hat g} the estimate of
#' \eqn{\nabla \log \pi(\theta)} and \eqn{\xi \sim N(0, I)},
#' \deqn{\theta \leftarrow \theta + \epsilon_k \hat g(\theta) + \sqrt{2\epsilon_k}\,\xi.}{
#'   theta <- theta + eps_k g(theta) + sqrt(2 eps_k) xi.}
#' This is the convention \eqn{\theta \leftarrow \theta - \epsilon \nabla U +
#' \sqrt{2\epsilon}\xi}{theta <- theta - eps grad U + sqrt(2 eps) xi} of Staber and Da Veiga (2022), of BlackJAX (`sgld`,
#' step size \eqn{h = \epsilon}) and of pbnn.  The R package sgmcmc writes
#' \eqn{\theta \leftarrow \theta + \frac{\epsilon'}{2}\hat g + N(0, \epsilon')}{theta <- theta + eps'/2 g + N(0, eps')}:
#' its `stepsize` \eqn{\epsilon'} is `2 * stepsize` here.  On a Gaussian
#' target of precision \eqn{\lambda} with exact gradients, SGLD's stationary
#' variance is \eqn{1/(\lambda(1 - \epsilon\lambda/2))}: the step size must
#' be small against the inverse of the largest posterior precision.
#'
#' **pSGLD** ([bnn_psgld()], Li et al. 2016) preconditions with RMSprop:
#' \eqn{V \leftarrow \alpha V + (1-\alpha)\hat g^2}{V <- alpha V + (1 - alpha) g^2},
#' \eqn{D = 1/(\lambda + \sqrt V)}{D = 1 / (lambda + sqrt(V))},
#' \eqn{\theta \leftarrow \theta + \epsilon D \hat g +
#' \sqrt{2\epsilon D}\,\xi}{theta <- theta + eps D g + sqrt(2 eps D) xi}, neglecting the correction term \eqn{\Gamma} (as
#' Li et al. and the paper do).  \eqn{V} starts at the first squared gradient
#' and is updated with the gradient at the current position before each move
#' (the authors' code, pbnn); \eqn{\hat g} is the full \eqn{N}-scaled
#' gradient with the prior, as in Staber and Da Veiga (Li et al. average
#' the mean minibatch gradient instead).  Defaults \eqn{\alpha = 0.95},
#' \eqn{\lambda = 10^{-6}} are pbnn's (the paper gives none).
#'
#' **Minibatches.**  The estimate is \eqn{(N/|B|)\sum_{i\in B}\nabla\log
#' p(y_i \mid x_i, \theta) + \nabla \log p(\theta)}.  Each chain draws its
#' batches from its own random stream of `seed` and the chain number, so
#' the draws do not depend on how chains are scheduled.  By default
#' (`replace = FALSE`) a batch is the next `batch_size` rows of a random
#' permutation, reshuffled when fewer than `batch_size` rows are left (an
#' epoch is `floor(N / batch_size)` disjoint batches); with `replace = TRUE`
#' (pbnn) the rows are drawn independently.  Every gradient gets a fresh
#' batch.  Within an epoch a batch depends on the earlier ones, which moved
#' the chain, so the draws' mean picks up a bias of the order of the step
#' size (on the conjugate linear model of the tests, about 2\% of a
#' posterior standard deviation at a step size of 2e-3); `replace = TRUE`
#' avoids it at the price of noisier epochs.  `batch_size = NULL` uses all rows (exact gradients: the
#' unadjusted Langevin algorithm).
#'
#' **Control variates.**  `gradient = "cv"` (SGLD-CV, Baker et al. 2019)
#' uses \eqn{\hat g(\theta) - \hat g(\hat\theta) + g(\hat\theta)} on one
#' batch, with \eqn{g(\hat\theta)} the full-data gradient at a centre
#' \eqn{\hat\theta}, the MAP: its variance vanishes at the MAP.
#' `gradient = "svrg"` (Dubey et al. 2016) starts at the MAP and moves the
#' centre to the current point every `svrg_period` gradient estimates (100
#' in the paper), at the cost of one full-data gradient each.  (For SGLD a
#' gradient estimate is a step; for [bnn_sghmc()] it is a leapfrog step.)
#' Each CV or SVRG estimate costs two minibatch gradients.
#'
#' **The MAP.**  Staber and Da Veiga (2022) and their code start every
#' stochastic-gradient chain at the MAP.  [bnn_fit()] trains it with the
#' `map` optimiser (Adam with an exponentially decaying learning rate, as in
#' the paper; seeded by `seed`) when the gradient needs a centre (unless
#' `centre` is given) or when `start = "map"`.  `start = "auto"` starts
#' the chains at the centre for `"cv"` and `"svrg"` and at [bnn_fit()]'s
#' `init` otherwise, unless `init` is given; `start = "map"` starts them
#' at the MAP whatever `init`; `start = "init"` always uses `init`.  The
#' MAP is kept in `fit$sampler$centre`.
#'
#' **Cyclical step sizes** (cSGLD, Zhang et al. 2020): with `cycles = M`,
#' \eqn{\epsilon_k = \frac{\epsilon_0}{2}\left(\cos\frac{\pi\,
#' \mathrm{mod}(k, c)}{c} + 1\right)}, \eqn{c = \lceil K/M \rceil}, over the
#' \eqn{K} = `warmup + iter` transitions, \eqn{k = 0, \dots, K-1}.  `M` is
#' the **number of cycles** (the reading of the formula of Zhang et al. and
#' of Staber and Da Veiga's equation; their text calls \eqn{M \in \{10, 100,
#' 1000\}} the "cycle length", which the formula contradicts).  Noise is
#' added at every step (no exploration stage).
#'
#' **Warm-up and thinning.**  `warmup` transitions of [bnn_fit()] are
#' burn-in (nothing is adapted); `thin` keeps every `thin`-th draw, and
#' [bnn_thin_mmd()] thins a run to a given number of representative draws
#' as the paper does.  A chain whose position or gradient turns non-finite
#' (a step size too large) is a failed chain, with where it failed in
#' `$failed_at`; its draws are `NA`.  Sampler statistics: `lp__` (the
#' log-posterior estimate at the last gradient) and `stepsize__`.
#'
#' The paper's grids: SGLD and its variants \eqn{\epsilon \in}
#' `10^seq(-8, -5, length.out = 10)`, pSGLD `10^seq(-4, -1, length.out =
#' 10)`, on networks of unstandardised scale with \eqn{N = 100}.
#'
#' @param stepsize Step size \eqn{\epsilon} (> 0), the maximum of a
#'   cyclical schedule.
#' @param batch_size Rows per minibatch, from 1 to the number of rows; `NULL`
#'   for full-batch gradients.
#' @param gradient `"minibatch"`, `"cv"` (control variates at the MAP) or
#'   `"svrg"` (centre refreshed every `svrg_period` gradients).
#' @param cycles `NULL` (constant step size) or the number of cycles \eqn{M}
#'   of the cyclical schedule (at most `warmup + iter`).
#' @param replace Draw batch rows with replacement.
#' @param svrg_period Gradient estimates between SVRG re-centrings.
#' @param centre Centre of the control variates (unconstrained scale, one
#'   value per parameter); `NULL` trains the MAP with `map`.
#' @param start Where the chains start: `"auto"`, `"map"` or `"init"`, see
#'   Details.
#' @param map A [bnn_optimizer()] for the MAP (its `loss` is set to
#'   `"posterior"`); by default Adam, learning rate 0.01 decaying by 0.999
#'   per epoch, 2000 full-batch epochs.  For large data use minibatches,
#'   e.g. `bnn_optimizer("adam", batch_size = 256, epochs = 20, lr_decay = 0.9)`.
#' @return A sampler settings object of class `c("bnn_sgld", "bnn_sgmcmc",
#'   "bnn_sampler")` (`bnn_psgld()`: `"bnn_psgld"` first) for [bnn_fit()].
#' @references Welling, M. and Teh, Y. W. (2011). Bayesian learning via
#'   stochastic gradient Langevin dynamics. ICML.
#'
#'   Li, C., Chen, C., Carlson, D. and Carin, L. (2016). Preconditioned
#'   stochastic gradient Langevin dynamics for deep neural networks. AAAI.
#'
#'   Baker, J., Fearnhead, P., Fox, E. B. and Nemeth, C. (2019). Control
#'   variates for stochastic gradient MCMC. Statistics and Computing.
#'
#'   Zhang, R., Li, C., Zhang, J., Chen, C. and Wilson, A. G. (2020).
#'   Cyclical stochastic gradient MCMC for Bayesian deep learning. ICLR.
#'
#'   Staber, B. and Da Veiga, S. (2022). Benchmarking Bayesian neural
#'   networks and evaluation metrics for regression tasks. arXiv:2206.06779.
#' @seealso [bnn_sghmc()], [bnn_thin_mmd()].
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = integer(0),
#'                likelihood = bnn_likelihood("gaussian", sigma = 0.5),
#'                sampler = bnn_sgld(stepsize = 1e-3, batch_size = 8),
#'                chains = 2, warmup = 1000, iter = 2000, seed = 1)
#' fit
#' # control variates at the MAP, cyclical step sizes
#' bnn_sgld(1e-3, batch_size = 8, gradient = "cv")
#' bnn_sgld(1e-3, batch_size = 8, cycles = 4)
bnn_sgld <- function(stepsize = 1e-4, batch_size = 32, gradient = "minibatch",
                     cycles = NULL, replace = FALSE, svrg_period = 100,
                     centre = NULL, start = "auto", map = NULL) {
  sg_settings("sgld", "sgld", list(stepsize = check_positive(stepsize, "stepsize")),
              batch_size, gradient, cycles, replace, svrg_period, centre, start, map)
}

#' @rdname bnn_sgld
#' @param alpha pSGLD: decay rate of the squared-gradient average, in
#'   `[0, 1)`.
#' @param lambda pSGLD: regulariser added to its square root (> 0).
#' @export
bnn_psgld <- function(stepsize = 1e-3, alpha = 0.95, lambda = 1e-6,
                      batch_size = 32, gradient = "minibatch", cycles = NULL,
                      replace = FALSE, svrg_period = 100, centre = NULL,
                      start = "auto", map = NULL) {
  alpha <- .omc_check_number(alpha, "alpha", 0, 1, upper_open = TRUE)
  lambda <- .omc_check_number(lambda, "lambda", 0, Inf, lower_open = TRUE,
                              upper_open = TRUE)
  sg_settings("psgld", "psgld",
              list(stepsize = check_positive(stepsize, "stepsize"), alpha = alpha,
                   lambda = lambda),
              batch_size, gradient, cycles, replace, svrg_period, centre, start, map)
}

#' Stochastic-gradient Hamiltonian Monte Carlo settings
#'
#' SGHMC (Chen, Fox and Guestrin 2014) in the form Staber and Da Veiga
#' (2022) use.  One transition resamples the momentum and runs
#' `n_leapfrog` = \eqn{L} steps, then stores the position:
#' \deqn{v \sim N(0, \epsilon I);\quad \text{repeat } L \text{ times: }
#'   g = \hat g(w),\; w \leftarrow w + v,\;
#'   v \leftarrow (1-\alpha) v + \epsilon g + \sqrt{2\alpha\epsilon}\,\xi}{
#'   v ~ N(0, eps I); repeat L times: g = g(w), w <- w + v,
#'   v <- (1 - alpha) v + eps g + sqrt(2 alpha eps) xi}
#' with friction \eqn{\alpha} = `friction` in (0, 1], \eqn{\xi \sim N(0, I)}
#' and no gradient-noise correction (\eqn{\hat\beta = 0}).  \eqn{v} is the
#' momentum in the paper's variables \eqn{v = \eta M^{-1} r}, whose
#' stationary law is \eqn{N(0, \epsilon I)}; it is refreshed as
#' \eqn{\sqrt{\epsilon}N(0, I)} like BlackJAX (the paper's "centred
#' normalised Gaussian" read in those variables).  So the momentum is
#' resampled every \eqn{L} steps (10 in the paper), and `iter` counts
#' transitions of \eqn{L} gradient estimates each.
#'
#' **Conventions.** BlackJAX's `sghmc` (which the paper used; step size
#' \eqn{h}, default \eqn{\alpha = 0.01}, \eqn{\beta = 0}) updates
#' \eqn{v \leftarrow (1-\alpha)v + h g + \sqrt{2\alpha h}\xi}{v <- (1 - alpha) v + h g + sqrt(2 alpha h) xi},
#' \eqn{w \leftarrow w + v}{w <- w + v}: ours with \eqn{\epsilon = h}.  The R package sgmcmc
#' (`sghmc`, `alpha = 0.01`, `L = 5`) updates \eqn{\nu \leftarrow \nu +
#' \epsilon g - \alpha\nu + N(0, 2\alpha\epsilon)}{nu <- nu + eps g - alpha nu + N(0, 2 alpha eps)},
#' \eqn{\theta \leftarrow \theta + \nu}{theta <- theta + nu}: the same \eqn{\epsilon} and \eqn{\alpha}, with the
#' position moved after the momentum.
#'
#' **Minibatches.**  `batch = "step"` draws a fresh batch for every leapfrog
#' step (sgmcmc, Chen et al.); `batch = "iteration"` uses one batch for the
#' \eqn{L} steps of a transition (BlackJAX, and so the paper).  See
#' [bnn_sgld()] for the batches, the control-variate and SVRG gradients
#' (`svrg_period` counts leapfrog steps here), the cyclical schedule (per
#' transition), the MAP, warm-up, thinning and failed chains.  The paper's
#' grid: \eqn{\epsilon \in} `10^seq(-8, -6, length.out = 10)`.
#'
#' @inheritParams bnn_sgld
#' @param friction Friction \eqn{\alpha}, in (0, 1].
#' @param n_leapfrog Leapfrog steps per transition (momentum resampled
#'   between transitions).
#' @param batch `"step"` or `"iteration"`, see Details.
#' @return A sampler settings object of class `c("bnn_sghmc", "bnn_sgmcmc",
#'   "bnn_sampler")` for [bnn_fit()].
#' @references Chen, T., Fox, E. and Guestrin, C. (2014). Stochastic gradient
#'   Hamiltonian Monte Carlo. ICML.
#' @seealso [bnn_sgld()], [bnn_thin_mmd()].
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = integer(0),
#'                likelihood = bnn_likelihood("gaussian", sigma = 0.5),
#'                sampler = bnn_sghmc(stepsize = 1e-4, batch_size = 8),
#'                chains = 2, warmup = 200, iter = 500, seed = 1)
#' fit
bnn_sghmc <- function(stepsize = 1e-5, friction = 0.01, n_leapfrog = 10,
                      batch = c("step", "iteration"), batch_size = 32,
                      gradient = "minibatch", cycles = NULL, replace = FALSE,
                      svrg_period = 100, centre = NULL, start = "auto", map = NULL) {
  if (missing(batch)) batch <- "step"
  batch <- match_choice(batch, c("step", "iteration"), "batch")
  friction <- .omc_check_number(friction, "friction", 0, 1, lower_open = TRUE)
  n_leapfrog <- check_count(n_leapfrog, "n_leapfrog", 1L)
  s <- sg_settings("sghmc", "sghmc",
                   list(stepsize = check_positive(stepsize, "stepsize"),
                        friction = friction, n_leapfrog = n_leapfrog,
                        batch_per_iteration = batch == "iteration"),
                   batch_size, gradient, cycles, replace, svrg_period, centre, start, map)
  s$batch <- batch
  s
}

# The settings object shared by the stochastic-gradient samplers.
sg_settings <- function(method, driver, kernel, batch_size, gradient, cycles,
                        replace, svrg_period, centre, start, map) {
  start <- match_choice(start, c("auto", "map", "init"), "start")
  if (!is.null(batch_size)) batch_size <- check_count(batch_size, "batch_size", 1L)
  gradient <- match_choice(gradient, names(.sg_gradients), "gradient")
  if (!is.null(cycles)) cycles <- check_count(cycles, "cycles", 1L)
  replace <- .omc_check_flag(replace, "replace")
  svrg_period <- check_count(svrg_period, "svrg_period", 1L)
  if (!is.null(centre) && (!is.numeric(centre) || anyNA(centre) || any(!is.finite(centre))))
    stop("'centre' must be a vector of finite numbers (one per parameter).", call. = FALSE)
  if (gradient != "minibatch" && is.null(batch_size))
    stop(sprintf("gradient = \"%s\" needs a 'batch_size'.", gradient), call. = FALSE)
  if (is.null(map))
    map <- bnn_optimizer("adam", lr = 1e-2, weight_decay = 0, epochs = 2000,
                         loss = "posterior", lr_decay = 0.999)
  if (!inherits(map, "bnn_optimizer"))
    stop("'map' must come from bnn_optimizer().", call. = FALSE)
  map$loss <- "posterior"
  new_sampler(list(
    method = method, driver = driver, stepsize = kernel$stepsize,
    batch_size = batch_size, gradient = gradient, cycles = cycles,
    replace = replace, svrg_period = svrg_period, centre = centre, start = start,
    map = map,
    c_settings = c(kernel, list(
      cycles = cycles, batch_size = batch_size, replace = replace,
      gradient = .sg_gradients[[gradient]], svrg_period = svrg_period,
      centre = if (is.null(centre)) NULL else as.double(centre)))),
    method, "bnn_sgmcmc")
}

#' @export
format.bnn_sgmcmc <- function(x, ...) {
  name <- switch(x$method, sgld = "SGLD", psgld = "pSGLD", sghmc = "SGHMC")
  if (!is.null(x$cycles)) name <- paste0("cyclical ", name, " (", x$cycles, " cycles)")
  grad <- switch(x$gradient, minibatch = "", cv = ", control variates at the MAP",
                 svrg = sprintf(", SVRG (re-centred every %d gradients)", x$svrg_period))
  batch <- if (is.null(x$batch_size)) "full batch" else
    sprintf("batch %d%s", x$batch_size, if (x$replace) " with replacement" else "")
  extra <- if (x$method == "sghmc")
    sprintf(", friction %s, %d leapfrog steps, a batch per %s", trimws(fmt_num(x$c_settings$friction)),
            x$c_settings$n_leapfrog, x$batch) else ""
  sprintf("%s (step size %s, %s%s%s)", name, trimws(fmt_num(x$stepsize)), batch, grad, extra)
}

# Before the chains run (bnn_fit()): check the settings against the data and
# the run length, train the MAP for control variates or a start there, and
# start the chains there as `start` says.  Returns list(sampler, inits).
sg_prepare <- function(sampler, spec, inits, seed, warmup, iter, given_init) {
  n <- length(spec$y)
  if (!is.null(sampler$batch_size) && sampler$batch_size > n)
    stop(sprintf("'batch_size' (%d) must be at most the number of rows (%d).",
                 sampler$batch_size, n), call. = FALSE)
  if (!is.null(sampler$cycles) && sampler$cycles > warmup + iter)
    stop(sprintf("'cycles' (%d) must not exceed the number of iterations (warmup + iter = %d).",
                 sampler$cycles, warmup + iter), call. = FALSE)
  dim <- length(inits[[1L]])
  if (!is.null(sampler$centre) && length(sampler$centre) != dim)
    stop(sprintf("'centre' must have one value per parameter (%d).", dim), call. = FALSE)
  cv <- sampler$gradient != "minibatch"
  if (cv || sampler$start == "map") {
    if (is.null(sampler$centre)) {
      opt <- do.call(.bnn_optimize, c(list(spec = spec, seed = seed, member = 0L),
                                      unclass(sampler$map)))
      if (opt$status == "nonfinite")
        stop("The MAP for the control variates diverged; give 'map' a smaller learning rate.",
             call. = FALSE)
      sampler$centre <- opt$par
      sampler$c_settings$centre <- as.double(opt$par)
    }
    if (sampler$start == "map" || (sampler$start == "auto" && cv && !given_init))
      inits <- rep(list(as.double(sampler$centre)), length(inits))
  }
  list(sampler = sampler, inits = inits)
}

# ---- its methods of the sampler generics (R/sampler-class.R) ----------------

sampler_units.bnn_sgmcmc <- function(sampler)
  list(warmup = "burn-in iterations", phase = "warm-up")

sampler_prepare.bnn_sgmcmc <- function(sampler, spec, inits, seed, warmup, iter, given_init) {
  sg_prepare(sampler, spec, inits, seed, warmup, iter, given_init)
}

# The emulator maps theta to all N outputs at once: a minibatch would save
# nothing, so stochastic-gradient samplers get the exact gradient of the
# emulated log posterior.
sampler_for_emulator.bnn_sgmcmc <- function(sampler) {
  if (!identical(sampler$gradient, "minibatch"))
    stop("A stochastic-gradient sampler on the emulated posterior needs ",
         "gradient = \"minibatch\" (it runs with the full emulated gradient).", call. = FALSE)
  sampler$batch_size <- NULL
  sampler$c_settings$batch_size <- NULL
  sampler
}

sampler_minibatch.bnn_sgmcmc <- function(sampler) TRUE

# Gradients per chain: a minibatch gradient is the fraction batch / rows of
# a full one; `per_step` minibatch gradients per transition (SGHMC: its
# leapfrog steps); control variates (gradient = "cv", "svrg") double it.
sg_chain_gradients <- function(sampler, warmup, iter, n_obs, per_step = 1) {
  cs <- sampler$c_settings %||% list()
  b <- sampler$batch_size %||% cs$batch_size %||% n_obs
  b <- min(as.double(b), n_obs)
  per <- (b / n_obs) * per_step
  if (!identical(sampler$gradient %||% "minibatch", "minibatch")) per <- 2 * per
  list(n = (warmup + iter) * per, exact = TRUE)
}

chain_gradients.bnn_sgmcmc <- function(sampler, warmup, iter, n_obs) {
  sg_chain_gradients(sampler, warmup, iter, n_obs)
}

chain_gradients.bnn_sghmc <- function(sampler, warmup, iter, n_obs) {
  sg_chain_gradients(sampler, warmup, iter, n_obs,
                     per_step = sampler$c_settings$n_leapfrog %||% 10)
}

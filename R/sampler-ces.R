# Calibration-emulation-sampling (FBNN, Moslemi et al.): its settings
# (the pipeline that runs them is R/fit-ces.R).

#' Calibration-emulation-sampling settings (FBNN)
#'
#' FBNN (Moslemi, Meng, Lan and Shahbaba) in three stages:
#' 1. **calibration**: a short run of `calibration` on the exact posterior;
#'    `J` draws \eqn{\theta_j} are kept (evenly spaced over the sampling
#'    iterations of all chains; with the defaults, all of them) together
#'    with the network's outputs \eqn{G(X; \theta_j)} on the training
#'    inputs;
#' 2. **emulation**: an emulator network \eqn{G_e: \theta \mapsto G(X;
#'    \theta)} is trained on those pairs ([bnn_emulator()]);
#' 3. **sampling**: `sampler` runs on the emulated posterior
#'    \eqn{\propto p(y \mid G_e(\theta))\, p(\theta)}, chain \eqn{c}
#'    starting at the last calibration draw of chain \eqn{c}, with
#'    `bnn_fit()`'s `warmup`, `iter` and `thin`.
#'
#' The result is an ordinary `bnnfit` whose draws are the sampling stage's:
#' predictions use the original network at each draw, so [predict()],
#' [bnn_metrics()], [loo()][loo::loo] and the plots work unchanged.
#' `$ces` records the time of each stage (`times`: calibration including
#' the forward passes of the `J` pairs, emulator training and its held-out
#' check, sampling, and the check at sampled draws; their sum is the fit's
#' elapsed time), the numbers of exact and
#' emulated evaluations, the calibration draws and the emulator check
#' ([bnn_ces_check()]).  The calibration run uses the seed `seed + 1`, the
#' sampling stage `seed` itself, so with `emulator = "exact"` (the true
#' forward map in place of the emulator) the sampling stage gives the same
#' draws as `bnn_fit(sampler = <sampler>, init = fit$ces$init, seed = seed)`.
#'
#' The paper's four variants are calibration x sampling in {SGHMC, pCN}^2,
#' SGHMC-pCN being the main one.  The calibration sampler may be any of
#' the package's samplers; the sampling stage needs a kernel of the generic
#' chain driver ([bnn_pcn()], [bnn_sghmc()], [bnn_sgld()], [bnn_rwm()]).  A
#' stochastic-gradient sampler in the sampling stage runs with the full
#' gradient of the emulated log posterior (its `batch_size` is dropped: the
#' emulator maps \eqn{\theta} to all \eqn{N} outputs at once, so a
#' minibatch would save nothing).  A likelihood with a
#' sampled `sigma` keeps `sigma` exact (it is not emulated).
#'
#' **When the emulator can work.** The sampling stage is only as good as
#' the emulator where pCN goes, and pCN proposes moves in every direction
#' of the prior.  The `J` pairs must therefore show the emulator how the
#' outputs change in the directions the posterior allows, which 200 pairs
#' of a network with thousands of weights rarely do:
#' * from a start far from the data (`init = "random"`, uniform(-2, 2)), the
#'   first 200 SGHMC iterations of the 3,009-weight Boston network are a
#'   transient along which the outputs change along an almost
#'   one-dimensional path; the paper's (3, 32) emulator learns it (held-out
#'   \eqn{R^2} 0.99), but pCN leaves the path at once, where the emulated
#'   likelihood stays high while the network's collapses;
#' * from a start near the data (PyTorch's fan-in initialisation), the
#'   calibration draws are posterior draws whose outputs vary through a few
#'   stiff directions hidden among thousands of weakly identified weights;
#'   160 training pairs do not identify them (held-out \eqn{R^2} at most
#'   0.37 for the emulators tried, 0.43 for a linear least-squares map).
#'
#' In both cases pCN, whose tuned step stays large (\eqn{\beta} 0.18-0.32
#' on Boston), leaves the calibration draws within a few dozen iterations
#' for parameters where the emulated likelihood is far above the true one,
#' and the test error of the original network at its draws is many times
#' the exact samplers' (MSE 103-289 against 13-17 on Boston).  [bnn_ces_check()] with `draws = "sampled"` shows it,
#' and `bnn_fit()` warns.  The figures are in
#' `inst/benchmarks/papers/fbnn/fbnn_emulator.csv` (script
#' `inst/benchmarks/papers/fbnn/ces_emulator.R`) and `vignette("ces")`.
#'
#' @param calibration Sampler of the calibration stage (a name or settings
#'   object, see [bnn_fit()]); `NULL`: [bnn_sghmc()] with its defaults
#'   (minibatches of 32), the paper's choice.
#' @param calibration_warmup,calibration_iter Warm-up and sampling
#'   iterations per chain of the calibration run.
#' @param J Number of calibration pairs (the paper's 200).
#' @param emulator A [bnn_emulator()], or `"exact"`: the network's true
#'   forward map (no emulation; for checking the pipeline).
#' @param sampler Sampler of the sampling stage (default [bnn_pcn()]).
#' @return A sampler settings object of class `c("bnn_ces", "bnn_sampler")` for
#'   `bnn_fit(sampler = )`.
#' @references Moslemi, Z., Meng, Y., Lan, S. and Shahbaba, B. Scaling up
#'   Bayesian neural networks with neural networks. TMLR,
#'   <https://openreview.net/forum?id=cD209UgDX7>.
#' @export
#' @examples
#' \donttest{
#' set.seed(1)
#' d <- data.frame(x1 = rnorm(60), x2 = rnorm(60))
#' d$y <- d$x1 - 0.5 * d$x2 + rnorm(60, sd = 0.3)
#' # a network without hidden layers: its forward map is linear in theta,
#' # which an emulator learns from 100 calibration draws (a deeper
#' # network's needs far more; see vignette("ces"))
#' ces <- bnn_ces(calibration = bnn_nuts(), calibration_warmup = 100,
#'                calibration_iter = 100, J = 100,
#'                emulator = bnn_emulator(hidden = c(16, 16),
#'                  optimizer = bnn_optimizer("adam", lr = 3e-3, weight_decay = 0,
#'                                            epochs = 300, batch_size = 16)))
#' fit <- bnn_fit(y ~ x1 + x2, data = d, hidden = integer(0),
#'                likelihood = bnn_likelihood("gaussian", sigma = 0.3),
#'                sampler = ces, chains = 1, warmup = 300, iter = 500, seed = 1)
#' fit
#' head(bnn_ces_check(fit))
#' }
bnn_ces <- function(calibration = NULL, calibration_warmup = 100, calibration_iter = 200,
                    J = 200, emulator = bnn_emulator(), sampler = bnn_pcn()) {
  calibration <- if (is.null(calibration)) default_calibration() else as_sampler(calibration)
  if (inherits(calibration, "bnn_ces"))
    stop("'calibration' must be a sampler, not bnn_ces().", call. = FALSE)
  sampler <- sampler_for_emulator(as_sampler(sampler))
  if (identical(emulator, "exact")) {
    emulator <- NULL
  } else if (!inherits(emulator, "bnn_emulator_settings")) {
    stop("'emulator' must be a bnn_emulator() object or \"exact\".", call. = FALSE)
  }
  J <- check_count(J, "J", 2L)
  if (!is.null(emulator)) check_ces_holdout(emulator$holdout, J)
  new_sampler(list(method = "ces", calibration = calibration,
                 calibration_warmup = check_count(calibration_warmup, "calibration_warmup", 0L),
                 calibration_iter = check_count(calibration_iter, "calibration_iter", 1L),
                 J = J, emulator = emulator, sampler = sampler),
              "ces")
}

default_calibration <- function() bnn_sghmc()

# The emulator is trained on the J calibration pairs left after holding out
# round(holdout * J) of them: at least one must be left (none left would
# give the optimiser a zero-row spec).
check_ces_holdout <- function(holdout, J) {
  n_hold <- as.integer(round(holdout * J))
  if (n_hold >= J)
    stop(sprintf(paste0("bnn_emulator(holdout = %s) holds out round(%s * J) = %d of J = %d ",
                        "calibration pairs, leaving none to train the emulator: ",
                        "lower 'holdout' or raise 'J'."),
                 format(holdout), format(holdout), n_hold, J), call. = FALSE)
  n_hold
}

#' @export
format.bnn_ces <- function(x, ...) {
  sprintf("calibration-emulation-sampling (%s calibration, J = %d; %s; sampling by %s)",
          x$calibration$method %||% "mclmc", x$J,
          if (is.null(x$emulator)) "exact forward map, no emulator" else
            sprintf("emulator %s", paste(x$emulator$hidden, collapse = "-")),
          format(x$sampler))
}

# ---- its methods of the sampler generics (R/sampler-class.R) ----------------

sampler_units.bnn_ces <- function(sampler)
  list(warmup = "iterations of the sampling stage", phase = "warm-up")

# no waves, chain ids or combined fits: its chains sample an emulated
# posterior calibrated on the fit's own calibration run
sampler_allows.bnn_ces <- function(sampler, what) FALSE

sampler_draws_sampler.bnn_ces <- function(sampler) sampler$sampler

# CES: every stage's storage (ces_stage_bytes()).
bytes_per_parameter.bnn_ces <- function(sampler, chains, n_keep) {
  sum(ces_stage_bytes(sampler, chains, n_keep, n_par = 1, n_out = 0))
}

# Bytes of each stage of a CES fit (bnn_ces()) of a network with n_par
# parameters and n_out outputs on the training data (rows x outputs): the
# calibration run's draws (kept in the fit's $ces, all calibration_iter of
# every chain: they are not thinned), the J emulator training pairs (theta
# and G(X; theta), with their transposed and standardised copies) and the
# sampling stage's draws, not only iter / thin.
ces_stage_bytes <- function(ces, chains, n_keep, n_par, n_out) {
  J <- as.double(ces$J)
  c(calibration = n_par * bytes_per_parameter(ces$calibration, chains,
                                              as.double(ces$calibration_iter)),
    emulator = 8 * 3 * J * (n_par + n_out),
    sampling = n_par * bytes_per_parameter(ces$sampler, chains, n_keep))
}

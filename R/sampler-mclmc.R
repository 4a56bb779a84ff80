# Microcanonical Langevin Monte Carlo (src/mcmc/mclmc.c): settings, budget and the
# per-chain driver that tunes and samples in blocks.

#' MCLMC sampler settings
#'
#' Settings for unadjusted microcanonical Langevin Monte Carlo (MCLMC;
#' Robnik et al. 2023) as implemented in BlackJAX, with the tuning of
#' microcanonical Langevin ensembles (MILE; Sommer et al. 2025) or BlackJAX's
#' own `mclmc_find_L_and_step_size`.
#'
#' One MCLMC step is a half partial momentum refresh, one step of the
#' isokinetic integrator and another half refresh (BlackJAX's
#' `with_isokinetic_maruyama`, the version MILE ran). The momentum has unit
#' norm; the refresh is \eqn{u \leftarrow (u + \nu z)/|u + \nu z|} with
#' \eqn{\nu = \sqrt{(e^{\epsilon/L} - 1)/d}} for each half. There is no
#' Metropolis correction: the step size controls the bias through the
#' energy error.
#'
#' **Tuning** has three stages:
#' \enumerate{
#'   \item Stage 1 adapts the step size so that the energy-error variance
#'     per dimension, \eqn{\mathrm{Var}[\Delta E]/d}, matches `energy_var`,
#'     with a weighted moving average (window `n_eff`, weights governed by
#'     `trust`) and \eqn{\mathrm{Var}[\Delta E] \propto \epsilon^6}.
#'   \item Stage 2 continues and sets \eqn{L = \sqrt{\sum_i \mathrm{Var}\,
#'     \theta_i}} from step-size-weighted moments; with `diag_precond` the
#'     square roots of these variances become the diagonal preconditioner,
#'     \eqn{L = \sqrt d}, and `floor(n_tune[2] / 3)` more steps re-adapt the
#'     step size.
#'   \item Stage 3 runs at fixed step size and \eqn{L} and sets
#'     \eqn{L = } `Lfactor` \eqn{\cdot\, \epsilon \cdot \mathrm{mean}_i(n_3 /
#'     \mathrm{ESS}_i)} from single-chain effective sample sizes.
#' }
#' **Non-finite values** (`safeguard`). With `safeguard = "revert"` (the
#' default) a step with a non-finite position, momentum, gradient, log
#' density or energy error is reverted: the position is kept, the momentum
#' is redrawn uniformly on the sphere, and in stages 1 and 2 the step size
#' is capped at `shrink` times its current value (MILE), while in stage 3
#' and during sampling it is multiplied by `shrink`. Reverted steps are
#' counted and never become draws; the draw of such a step repeats the
#' previous position. Such a chain cannot fail.
#'
#' `safeguard = "blackjax"` does exactly what BlackJAX 1.2.2 does (the
#' version MILE pins), e.g. to reproduce the failure rates of naive MCLMC
#' in Table 5 of Sommer et al. (2025):
#' \itemize{
#'   \item in tuning stages 1 and 2 (BlackJAX's `handle_nans`) only a
#'     non-finite *position* is caught: the whole previous state (momentum
#'     included) is kept, the step-size cap becomes `shrink` (0.8) times the
#'     step size used, and the step enters the step-size estimator with an
#'     energy error of 0. Any other proposal is accepted after `nan_to_num`
#'     (NaN becomes 0, \eqn{\pm}Inf becomes \eqn{\pm}`.Machine$double.xmax`)
#'     of its momentum, gradient, log density and energy error, and the
#'     step-size estimator runs without guards. A non-finite log density at a
#'     finite position therefore gives an infinite energy error, a zero
#'     weight, \eqn{0 \cdot \infty} = NaN in the moving average and a NaN
#'     step size, from which BlackJAX never recovers (the average stays NaN,
#'     every later tuning step is caught, and the first unchecked step of
#'     stage 3 turns the position NaN);
#'   \item stage 3 and sampling check nothing, so non-finite values
#'     propagate.
#' }
#' A chain whose position, momentum or gradient becomes non-finite (any of
#' them makes the next position NaN), or whose step size becomes NaN in
#' stages 1 or 2, has **failed**: it is stopped at once (its gradient count
#' is what it actually evaluated), all its draws are `NA`, and [bnn_fit()]
#' reports it (chain status `"non-finite state (NaN/Inf): the chain
#' diverged"`, a warning naming the chain, and where it failed in
#' `fit$failed_at`). The formulas of stages 2 and 3 are then also applied
#' without bnnmc's guards (a NaN \eqn{L} is kept and makes the next step
#' non-finite), and a non-finite tuned step size or \eqn{L} is not an error
#' by itself. bnnmc computes in double precision, which overflows only
#' beyond about 1.8e308; MILE's code does not switch on JAX's 64-bit mode,
#' so it ran in single precision (overflow beyond about 3.4e38), and the
#' same settings can fail more often there.
#'
#' **Presets.** `tuning = "mile"` (the default) uses MILE's settings: stage
#' lengths 40000 / 5000 / 5000, initial step size the learning rate of the
#' deep ensemble that provides the starting points (1e-3, MILE's UCI value,
#' when none is known), initial \eqn{L = \max(\sqrt d, 15)}, desired energy
#' variance decreasing linearly from 0.5 to 0.1 over stages 1 and 2
#' (exponentially when the start value exceeds 2, as in MILE's code),
#' `n_eff = 100`, no preconditioning, and stage 3 on at most 2000 randomly
#' chosen parameters and 10000 equally spaced steps. `tuning = "blackjax"`
#' uses BlackJAX's defaults: stage lengths `floor(0.1 * n_samples) + 1`,
#' `floor(0.1 * n_samples) + 1`, `floor(0.1 * n_samples)`, initial step size
#' \eqn{0.25\sqrt d}, initial \eqn{L = \sqrt d}, constant energy variance
#' 5e-4, `n_eff = 150`, diagonal preconditioning and no ESS subsampling.
#' `tuning = "naive"` is the "naive MCLMC" baseline of MILE's Table 5 (the
#' reference code's `feasibility/feas.yaml`): MILE's tuning code and stage
#' lengths as for `"mile"`, but BlackJAX's constant energy variance 5e-4,
#' initial step size \eqn{\sqrt d} (the configuration's 26.0 is
#' \eqn{\sqrt{674}}, \eqn{d} of a 16-16-16 network on airfoil) and
#' `safeguard = "blackjax"`.
#' Any argument given explicitly overrides the preset.
#'
#' **Cost.** Each step evaluates the gradient once per position update: 2
#' for `"mclachlan"`, 1 for `"leapfrog"`; reverted steps cost the same. With
#' the initial evaluation a chain uses exactly \eqn{1 + k(n_1 + n_2 + n_p +
#' n_3 + n_{samples})} gradient evaluations, with \eqn{n_p = \lfloor n_2/3
#' \rfloor} preconditioning steps if `diag_precond` and 0 otherwise, which
#' [bnn_mclmc_budget()] computes before running: 120001 for the MILE
#' defaults.
#'
#' Deviations from BlackJAX 1.2.2/MILE, all in degenerate cases: the
#' step-size cap uses `min()` (BlackJAX's expression returns 0 when the
#' proposal equals the cap); non-finite log densities, gradients and momenta,
#' not only positions, revert a step, and a reverted step redraws the
#' momentum (as newer BlackJAX does; with the old momentum the next step
#' heads for the same non-finite region); zero-variance coordinates are left
#' out of \eqn{L} and of the preconditioner; and a step is also reverted
#' (with step-size shrinkage) during stage 3 and sampling, where BlackJAX
#' 1.2.2 has no safeguard. None of these applies with `safeguard =
#' "blackjax"`, except the choice of random numbers.
#'
#' @param integrator `"mclachlan"` (minimal-norm two-stage integrator,
#'   \eqn{b_1 = 0.1931833275037836}, 2 gradients per step) or `"leapfrog"`
#'   (velocity Verlet, 1 gradient per step). Both are second order.
#' @param tuning `"mile"`, `"blackjax"` or `"naive"`: the preset for every
#'   `NULL` argument below.
#' @param n_tune Steps of tuning stages 1, 2 and 3 (whole numbers >= 0).
#'   `c(0, 0, 0)` samples at the given `stepsize` and `L` without tuning.
#' @param n_samples Sampling steps after tuning.
#' @param thin Keep sampling step \eqn{i = 0, 1, \ldots} when
#'   \eqn{i \bmod} `thin` \eqn{= 0}, giving `ceiling(n_samples / thin)`
#'   draws (MILE: 10000 steps, thinning 10, 1000 draws).
#' @param diag_precond Estimate a diagonal preconditioner in stage 2.
#' @param stepsize Initial step size (the step size when not tuned).
#' @param L Initial momentum decoherence length (the value used when not
#'   tuned); `Inf` switches the momentum noise off.
#' @param energy_var Desired energy-error variance per dimension, one value
#'   or `c(start, end)` for MILE's schedule over stages 1 and 2.
#' @param n_eff Effective number of steps in the step-size estimator's
#'   moving average (decay \eqn{(n_{eff} - 1)/(n_{eff} + 1)}).
#' @param trust BlackJAX's `trust_in_estimate`.
#' @param Lfactor Factor of the stage-3 rule for \eqn{L}.
#' @param fft_params,fft_samples Maximum number of parameters (chosen at
#'   random) and of equally spaced stage-3 steps entering the ESS in stage
#'   3; `Inf` for all.
#' @param shrink Step-size factor after a non-finite step, in (0, 1).
#' @param safeguard `"revert"` (bnnmc: no chain can fail) or `"blackjax"`
#'   (BlackJAX 1.2.2: chains can turn non-finite and are reported as
#'   failed); see **Non-finite values**. `NULL`: `"blackjax"` for `tuning =
#'   "naive"`, `"revert"` otherwise.
#' @param normal How the momentum refresh draws its standard normal
#'   deviates (two per parameter per step): `"polar"` (Marsaglia's polar
#'   method, the papers' protocols) or `"ziggurat"` (Marsaglia and Tsang's
#'   ziggurat, exact too and about three times faster per deviate; the
#'   default fit's). The two give different chains from the same seed.
#' @return A sampler settings object of class `c("bnn_mclmc", "bnn_sampler")`
#'   for [bnn_fit()]; dimension-dependent defaults
#'   (`NULL` `stepsize` and `L`) are resolved when a chain starts.
#' @references
#' Robnik, J., De Luca, G. B., Silverstein, E. and Seljak, U. (2023).
#' Microcanonical Hamiltonian Monte Carlo. *Journal of Machine Learning
#' Research* 24(311).
#'
#' Sommer, E., Robnik, J., Nozadze, G., Seljak, U. and Ruegamer, D. (2025).
#' Microcanonical Langevin Ensembles: Advancing the Sampling of Bayesian
#' Neural Networks. *ICLR*. \doi{10.48550/arXiv.2502.06335}
#' @seealso [bnn_mclmc_budget()]
#' @examples
#' s <- bnn_mclmc()                      # MILE: 50k tuning + 10k sampling steps
#' bnn_mclmc_budget(s)$n_grad            # 120001 gradient evaluations per chain
#' bnn_mclmc(tuning = "blackjax", n_samples = 2000)
#' bnn_mclmc(n_tune = c(4000, 500, 500), n_samples = 1000, thin = 1)
#' # MILE's naive-MCLMC baseline (Table 5) as its configuration ran it
#' bnn_mclmc(tuning = "naive", stepsize = 26)
#' @export
bnn_mclmc <- function(integrator = c("mclachlan", "leapfrog"),
                      tuning = c("mile", "blackjax", "naive"), n_tune = NULL,
                      n_samples = 10000, thin = 10, diag_precond = NULL,
                      stepsize = NULL, L = NULL, energy_var = NULL,
                      n_eff = NULL, trust = 1.5, Lfactor = 0.4,
                      fft_params = NULL, fft_samples = NULL, shrink = 0.8,
                      safeguard = NULL, normal = c("polar", "ziggurat")) {
  integrator <- match.arg(integrator)
  normal <- match_choice(normal[1L], c("polar", "ziggurat"), "normal")
  tuning <- match.arg(tuning)
  # "naive" runs MILE's tuning code with BlackJAX's targets
  mile <- tuning %in% c("mile", "naive")
  if (is.null(safeguard)) safeguard <- if (tuning == "naive") "blackjax" else "revert"
  safeguard <- match_choice(safeguard, c("revert", "blackjax"), "safeguard")
  n_samples <- .omc_check_count(n_samples, "n_samples", 0)
  thin <- .omc_check_count(thin, "thin", 1)
  if (is.null(n_tune)) {
    n_tune <- if (mile) c(40000L, 5000L, 5000L) else {
      k <- as.integer(floor(0.1 * n_samples))
      c(k + 1L, k + 1L, k)
    }
  }
  if (!is.numeric(n_tune) || length(n_tune) != 3L || anyNA(n_tune) ||
      any(n_tune < 0) || any(n_tune != round(n_tune)) ||
      any(n_tune > .Machine$integer.max))
    stop("'n_tune' must be 3 whole numbers >= 0 (steps of tuning stages 1-3)",
         call. = FALSE)
  if (is.null(diag_precond)) diag_precond <- !mile
  diag_precond <- .omc_check_flag(diag_precond, "diag_precond")
  if (!is.null(stepsize))
    stepsize <- .omc_check_number(stepsize, "stepsize", 0, Inf,
                                  lower_open = TRUE, upper_open = TRUE)
  if (!is.null(L)) L <- .omc_check_number(L, "L", 0, Inf, lower_open = TRUE)
  if (is.null(energy_var))
    energy_var <- if (tuning == "mile") c(0.5, 0.1) else 5e-4
  if (!is.numeric(energy_var) || !length(energy_var) %in% 1:2 ||
      anyNA(energy_var) || any(energy_var <= 0) || any(!is.finite(energy_var)))
    stop("'energy_var' must be one or two positive numbers (start, end)",
         call. = FALSE)
  energy_var <- rep_len(as.double(energy_var), 2L)
  if (is.null(n_eff)) n_eff <- if (mile) 100 else 150
  if (is.null(fft_params)) fft_params <- if (mile) 2000 else Inf
  if (is.null(fft_samples)) fft_samples <- if (mile) 10000 else Inf
  lim <- function(x, name) {
    if (identical(x, Inf)) return(Inf)
    .omc_check_count(x, name, 2)
  }
  new_sampler(list(
    integrator = integrator, tuning = tuning,
    n_tune = as.integer(n_tune), n_samples = n_samples, thin = thin,
    diag_precond = diag_precond, stepsize = stepsize, L = L,
    energy_var = energy_var,
    n_eff = .omc_check_number(n_eff, "n_eff", 1, Inf, upper_open = TRUE),
    trust = .omc_check_number(trust, "trust", 0, Inf, lower_open = TRUE,
                              upper_open = TRUE),
    Lfactor = .omc_check_number(Lfactor, "Lfactor", 0, Inf, lower_open = TRUE,
                                upper_open = TRUE),
    fft_params = lim(fft_params, "fft_params"),
    fft_samples = lim(fft_samples, "fft_samples"),
    shrink = .omc_check_number(shrink, "shrink", 0, 1, lower_open = TRUE,
                               upper_open = TRUE),
    safeguard = safeguard, normal = normal
  ), "mclmc")
}

#' Gradient evaluations of an MCLMC chain
#'
#' The cost of an MCLMC chain is fixed before it runs: every step evaluates
#' the gradient once per position update of the integrator (2 for
#' `"mclachlan"`, 1 for `"leapfrog"`), whether or not it is reverted, and
#' the chain evaluates it once more at its starting point.
#'
#' @param settings Settings from [bnn_mclmc()].
#' @return A list with `steps` (named: `stage1`, `stage2`, `precond`
#'   (the extra stage-2 steps with `diag_precond`), `stage3`, `sampling`),
#'   `grads_per_step`, `n_grad` (total gradient evaluations per chain,
#'   including the initial one) and `n_draws` (kept draws per chain).
#' @examples
#' bnn_mclmc_budget(bnn_mclmc())$n_grad                        # 120001
#' bnn_mclmc_budget(bnn_mclmc(integrator = "leapfrog"))$n_grad # 60001
#' @export
bnn_mclmc_budget <- function(settings = bnn_mclmc()) {
  if (!inherits(settings, "bnn_mclmc"))
    stop("'settings' must come from bnn_mclmc()", call. = FALSE)
  nt <- as.double(settings$n_tune)
  steps <- c(stage1 = nt[1], stage2 = nt[2],
             precond = if (settings$diag_precond) floor(nt[2] / 3) else 0,
             stage3 = nt[3], sampling = as.double(settings$n_samples))
  k <- .Call(C_mclmc_grads_per_step,
             if (settings$integrator == "leapfrog") 0L else 1L)
  list(steps = steps, grads_per_step = k, n_grad = 1 + k * sum(steps),
       n_draws = ceiling(settings$n_samples / settings$thin))
}

# Settings of the driver's "mclmc" kernel (C_kchain_new; src/api/api_mclmc.c)
# with the dimension-dependent defaults resolved.
# lr: learning rate of the ensemble that produced the start (MILE's initial
# step size), or NULL.
.mclmc_c_settings <- function(settings, dim, lr = NULL) {
  tuning <- settings$tuning
  mile <- tuning %in% c("mile", "naive")
  stepsize <- settings$stepsize
  if (is.null(stepsize)) {
    stepsize <- if (tuning == "blackjax") 0.25 * sqrt(dim) else
      if (tuning == "naive") sqrt(dim) else if (!is.null(lr)) {
      .omc_check_number(lr, "lr", 0, Inf, lower_open = TRUE, upper_open = TRUE)
    } else 1e-3
  }
  L <- settings$L
  if (is.null(L)) L <- if (mile) max(sqrt(dim), 15) else sqrt(dim)
  lim <- function(x) if (is.finite(x)) as.integer(x) else 0L
  list(integrator = if (settings$integrator == "leapfrog") 0L else 1L,
       n_tune = settings$n_tune, diag_precond = as.integer(settings$diag_precond),
       stepsize = as.double(stepsize), L = as.double(L),
       energy_var = settings$energy_var, n_eff = settings$n_eff,
       trust = settings$trust, Lfactor = settings$Lfactor,
       fft_params = lim(settings$fft_params),
       fft_samples = lim(settings$fft_samples), shrink = settings$shrink,
       safeguard = if (identical(settings$safeguard, "blackjax")) 1L else 0L,
       ziggurat = as.integer(mclmc_ziggurat(settings)))
}

# The tuning's transitions per stage: n1, n2 plus the preconditioning steps
# (floor(n2 / 3) with diag_precond), n3.
mclmc_tune_steps <- function(settings) {
  nt <- as.integer(settings$n_tune)
  c(nt[1L], nt[2L] + if (isTRUE(settings$diag_precond)) nt[2L] %/% 3L else 0L, nt[3L])
}

# The phase ("stage1".."stage3", "sampling") and step (from 1 within it) of
# transition `it` (1-based over tuning and sampling).
mclmc_phase <- function(it, stages) {
  ends <- cumsum(stages)
  if (it > ends[3L]) return(list(phase = "sampling", step = as.double(it - ends[3L])))
  st <- which(it <= ends)[1L]
  list(phase = paste0("stage", st), step = as.double(it - c(0L, ends)[st]))
}

# MCLMC's part of run_chain()'s result: its statistics (L, number of
# reverted steps, the preconditioner as an inverse metric sigma^2), the
# tuning's statistics in $tuning_stats (not in the fit's warm-up
# statistics, which MCLMC leaves empty), where a chain that turned
# non-finite failed (phase "stage1".."stage3" or "sampling", reason
# "state" or "stepsize") and, in $mclmc, what .mclmc_chain() reports.
mclmc_chain_result <- function(res, info, stages, warmup) {
  res$L <- info$L
  res$n_reverted <- info$n_reverted
  res$tuning_stats <- res$warmup_stats
  res$warmup_stats <- res$warmup_stats[0L, , drop = FALSE]
  status <- chain_status_name(info$status)
  res$failed_at <- NULL
  if (status == "nonfinite")
    res$failed_at <- c(mclmc_phase(info$failed_iter + 1L, stages),
                       list(reason = c("state", "stepsize")[info$fail_reason]))
  done <- c(info$done1, info$done2, info$done3)
  res$mclmc <- list(
    stepsize = info$stepsize, L = info$L, sqrt_diag_cov = sqrt(info$inv_metric),
    n_grad = info$n_grad, n_reverted = info$n_reverted,
    status = status,
    done = as.integer(done), total = as.integer(stages),
    iter = info$n_sample_steps, eevpd = if (is.nan(info$eevpd)) NA_real_ else info$eevpd,
    position = info$position, failed_at = res$failed_at,
    tune = if (info$stage == 4) list(stepsize = info$tuned_stepsize, L = info$tuned_L) else
      list(stepsize = info$stepsize, L = info$L))
  res
}

#' @export
format.bnn_mclmc <- function(x, ...) {
  tun <- switch(x$tuning, mile = "MILE", blackjax = "BlackJAX",
                naive = "naive (MILE's code, BlackJAX's targets)", x$tuning)
  sprintf("MCLMC (%s integrator, %s tuning %s%s, %d sampling steps thinned by %d%s%s%s)",
          x$integrator, tun, paste(x$n_tune, collapse = "/"),
          if (!is.null(x$warm_rows))
            sprintf(" (on a subsample of %s rows but for the last %s steps)",
                    format(x$warm_rows, big.mark = ","),
                    format(mclmc_warm_split(x)[["full"]], big.mark = ",")) else "",
          x$n_samples, x$thin,
          if (x$diag_precond) ", diagonal preconditioning" else "",
          if (identical(x$safeguard, "blackjax"))
            ", BlackJAX 1.2.2 safeguard: chains can fail" else "",
          if (mclmc_ziggurat(x)) ", ziggurat normals" else "")
}

#' @export
print.bnn_mclmc <- function(x, ...) {
  cat("<bnn_mclmc>", format(x), "\n")
  invisible(x)
}

# ---- its methods of the sampler generics (R/sampler-class.R) ----------------

# MCLMC's run lives in its settings (the tuning's steps, n_samples, thin):
# `iter` and `thin`, when given, set the sampling steps and thinning, and
# `warmup`, when given, the tuning steps (split 80/10/10 over the stages).
sampler_resolve_run.bnn_mclmc <- function(sampler, warmup, iter, thin, given) {
  if (given[["iter"]] || given[["thin"]]) sampler$n_samples <- iter * thin
  sampler$thin <- thin
  if (given[["warmup"]])
    sampler$n_tune <- as.integer(round(warmup * c(0.8, 0.1, 0.1)))
  list(sampler = sampler, warmup = sum(sampler$n_tune), iter = sampler$n_samples,
       thin = sampler$thin, n_keep = ceiling(sampler$n_samples / sampler$thin))
}

sampler_default_thin.bnn_mclmc <- function(sampler) as.integer(sampler$thin)

sampler_units.bnn_mclmc <- function(sampler) list(warmup = "tuning steps", phase = "tuning")

sampler_stepsize_note.bnn_mclmc <- function(sampler, warmup) ""

sampler_no_nuts_params.bnn_mclmc <- function(sampler) {
  paste0("this fit used MCLMC, which has no tree depth, divergences or Hamiltonian ",
         "energy. Its statistics (energy_change__, stepsize__, L__, ...) are in ",
         "fit$sampler_stats; log_posterior(fit) and mcmc_trace() work.")
}

sampler_kernel.bnn_mclmc <- function(sampler, warmup, iter, dim = NULL, lr = NULL) {
  list(name = "mclmc",
       settings = c(.mclmc_c_settings(sampler, dim, lr),
                    list(warmup = as.integer(warmup), iter = as.integer(iter))))
}

sampler_chain_schedule.bnn_mclmc <- function(sampler, warmup, iter, thin) {
  stages <- mclmc_tune_steps(sampler)
  # progress in the fit's units: without the preconditioning steps
  n_pre <- stages[2L] - as.integer(sampler$n_tune[2L])
  pre0 <- sum(as.integer(sampler$n_tune[1:2]))
  list(warmup = sum(stages), iter = as.integer(sampler$n_samples),
       thin = as.integer(sampler$thin), stages = stages,
       report = function(progress, chain_id) function(done, total)
         progress(chain_id, done - min(max(done - pre0, 0L), n_pre), total - n_pre))
}

sampler_chain_result.bnn_mclmc <- function(sampler, res, info, schedule) {
  mclmc_chain_result(res, info, schedule$stages, schedule$warmup)
}

# MCLMC: known in advance from its settings (as bnn_mclmc_budget()).
# The steps' own work -- 2 d normal draws and a few passes over d numbers
# per step -- costs as much as a gradient on small data: timed on a
# standard normal target of the model's dimension (C_mclmc_step_cost).
# The CPU time of a step depends only on the dimension, the integrator and
# the normal deviates, not on the data or the load, and grows in proportion
# to the dimension: it is timed once per session for each integrator,
# deviates and band of dimensions (a fifth wide), and scaled to the
# dimension within the band (the default's stack fits two models of nearly
# the same dimension, and a session fits many).
chain_sampler_seconds.bnn_mclmc <- function(sampler, warmup, iter, dim) {
  k <- if (identical(sampler$integrator, "leapfrog")) 0L else 1L
  d <- as.integer(max(2, dim))
  zg <- mclmc_ziggurat(sampler)
  key <- paste(round(4 * log2(d)), k, zg)
  hit <- .step_cost_cache[[key]]
  if (is.null(hit)) {
    hit <- c(d = d, per_step = time_per_rep(function(reps)
      .Call(C_mclmc_step_cost, d, k, as.integer(reps), zg))[["cpu"]])
    assign(key, hit, envir = .step_cost_cache)
  }
  mclmc_chain_steps(sampler) * hit[["per_step"]] * d / hit[["d"]]
}

# CPU seconds per MCLMC step, and the dimension they were timed at, by
# "band integrator ziggurat", this session.
.step_cost_cache <- new.env(parent = emptyenv())

# TRUE when the settings draw the momentum's deviates by the ziggurat
# (settings made before the option existed have none: the polar method).
mclmc_ziggurat <- function(settings) identical(settings$normal, "ziggurat")

# The default's warm-up on a subsample of the rows (`warm_rows`, set on
# large data, R/run-warm-subsample.R): of the tuning's steps, those on the
# subsample (`sub`: stage 1, stage 2 but for its last .warm_full_stage2
# steps, and stage 3 when .warm_stage3_sub) and those on all rows (`full`:
# the last `stage2_full` steps of stage 2, which adapt the step size to
# all rows, and stage 3 unless .warm_stage3_sub).
.warm_full_stage2 <- 500L
.warm_stage3_sub <- TRUE
mclmc_warm_split <- function(sampler) {
  nt <- as.integer(sampler$n_tune)
  n2_full <- min(nt[2L], .warm_full_stage2)
  s3 <- if (.warm_stage3_sub) c(sub = nt[3L], full = 0L) else c(sub = 0L, full = nt[3L])
  c(sub = nt[1L] + nt[2L] - n2_full + s3[["sub"]], full = n2_full + s3[["full"]],
    stage2_full = n2_full, stage3_sub = s3[["sub"]])
}

# Steps of a chain: tuning (with the preconditioning steps) and sampling.
mclmc_chain_steps <- function(sampler) {
  nt <- as.double(sampler$n_tune)
  pre <- if (isTRUE(sampler$diag_precond) || is.null(sampler$diag_precond)) floor(nt[2] / 3) else 0
  sum(nt) + pre + as.double(sampler$n_samples)
}

chain_gradients.bnn_mclmc <- function(sampler, warmup, iter, n_obs) {
  k <- if (identical(sampler$integrator, "leapfrog")) 1 else 2
  steps <- mclmc_chain_steps(sampler)
  m <- sampler$warm_rows
  if (!is.null(m) && !is.null(n_obs) && m < n_obs) {
    # the warm-up on a subsample (R/run-warm-subsample.R): its steps' gradients
    # cost m / n_obs of a full one each
    steps <- steps - mclmc_warm_split(sampler)[["sub"]] * (1 - m / n_obs)
  }
  list(n = 1 + k * steps, exact = TRUE)
}

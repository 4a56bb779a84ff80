# Sampler settings constructors.

#' No-U-Turn sampler settings
#'
#' NUTS as implemented in Stan: multinomial sampling with biased progressive
#' sampling at the top of the tree, the generalised U-turn criterion with the
#' additional checks across subtrees, divergence when the energy error
#' exceeds 1000, Stan's step-size initialisation, dual averaging and windowed
#' adaptation of a diagonal metric.
#'
#' **Short warm-ups.** When `init_buffer + window + term_buffer` exceeds the
#' warm-up, Stan switches to 15% / 75% / 10% buffers but forgets to restart
#' its window counter (stan-dev/stan#3380), so the metric is never
#' adapted.  bnnmc does the intended thing: with the DEI-MCMC default of 100
#' warm-up iterations the metric is estimated from iterations 16 to 90 and
#' the step size is re-tuned in the last 10.  The final step size is
#' `exp(x_bar)` of dual averaging only if it was updated since the last
#' restart (Stan before 2.37 reset it to 1 otherwise).  With fewer than 20
#' warm-up iterations only the step size is adapted, as in Stan.
#'
#' @param max_treedepth Maximum tree depth (at most `2^max_treedepth - 1`
#'   leapfrog steps per iteration).
#' @param adapt_delta Target acceptance statistic of dual averaging.
#' @param stepsize Initial step size.
#' @param adapt_stepsize,adapt_metric Whether to adapt during warm-up.
#' @param init_buffer,term_buffer,window Stan's windowed adaptation.
#' @param gamma,kappa,t0 Dual averaging constants.
#' @param inv_metric Optional initial diagonal inverse metric.
#' @return A sampler settings object of class `c("bnn_nuts", "bnn_sampler")`
#'   for [bnn_fit()].
#' @export
#' @examples
#' bnn_nuts(adapt_delta = 0.9)
bnn_nuts <- function(max_treedepth = 10, adapt_delta = 0.8, stepsize = 1,
                     adapt_stepsize = TRUE, adapt_metric = TRUE,
                     init_buffer = 75, term_buffer = 50, window = 25,
                     gamma = 0.05, kappa = 0.75, t0 = 10, inv_metric = NULL) {
  max_treedepth <- check_count(max_treedepth, "max_treedepth", 1L)
  if (max_treedepth > 30L) stop("'max_treedepth' must be at most 30.", call. = FALSE)
  new_sampler(list(
    method = "nuts", kernel = 0L, max_treedepth = max_treedepth,
    adapt_delta = check_prob(adapt_delta, "adapt_delta"),
    stepsize = check_positive(stepsize, "stepsize"),
    adapt_stepsize = isTRUE(adapt_stepsize), adapt_metric = isTRUE(adapt_metric),
    init_buffer = check_count(init_buffer, "init_buffer"),
    term_buffer = check_count(term_buffer, "term_buffer"),
    window = check_count(window, "window", 1L),
    gamma = check_positive(gamma, "gamma"), kappa = check_positive(kappa, "kappa"),
    t0 = check_positive(t0, "t0"), inv_metric = check_inv_metric(inv_metric)),
    "nuts")
}

#' Static Hamiltonian Monte Carlo settings
#'
#' HMC with a fixed step size and integration time (the number of leapfrog
#' steps is `floor(trajectory_length / stepsize)`), a Metropolis correction
#' and optional adaptation.  The defaults reproduce the setting of Izmailov
#' et al. (2021) used in the DEI-MCMC paper's HMC-vs-NUTS comparison: step
#' size 1e-5, trajectory length pi * 0.1 / 2, no adaptation.
#'
#' @param stepsize Step size.
#' @param trajectory_length Integration time.
#' @param adapt_stepsize,adapt_metric Adapt the step size (dual averaging to
#'   `adapt_delta`) and the diagonal metric during warm-up.
#' @param adapt_delta Target acceptance rate when adapting.
#' @inheritParams bnn_nuts
#' @return A sampler settings object of class `c("bnn_hmc", "bnn_sampler")`
#'   for [bnn_fit()].
#' @export
#' @examples
#' bnn_hmc(stepsize = 0.01, trajectory_length = 1, adapt_stepsize = TRUE)
bnn_hmc <- function(stepsize = 1e-5, trajectory_length = pi * 0.1 / 2,
                    adapt_stepsize = FALSE, adapt_metric = FALSE,
                    adapt_delta = 0.8, init_buffer = 75, term_buffer = 50,
                    window = 25, inv_metric = NULL) {
  check_positive(stepsize, "stepsize")
  check_positive(trajectory_length, "trajectory_length")
  if (trajectory_length / stepsize >= .Machine$integer.max)
    stop(sprintf(paste0("'trajectory_length' / 'stepsize' = %s leapfrog steps per transition; ",
                        "it must be below %d (.Machine$integer.max)."),
                 format(trajectory_length / stepsize), .Machine$integer.max), call. = FALSE)
  new_sampler(list(
    method = "hmc", kernel = 1L, max_treedepth = 1L,
    stepsize = check_positive(stepsize, "stepsize"),
    int_time = check_positive(trajectory_length, "trajectory_length"),
    adapt_stepsize = isTRUE(adapt_stepsize), adapt_metric = isTRUE(adapt_metric),
    adapt_delta = check_prob(adapt_delta, "adapt_delta"),
    init_buffer = check_count(init_buffer, "init_buffer"),
    term_buffer = check_count(term_buffer, "term_buffer"),
    window = check_count(window, "window", 1L),
    gamma = 0.05, kappa = 0.75, t0 = 10, inv_metric = check_inv_metric(inv_metric)),
    "hmc")
}

#' Random-walk Metropolis settings
#'
#' A gradient-free baseline: proposals \eqn{\theta' = \theta + \epsilon
#' M^{-1/2} \xi}, \eqn{\xi \sim N(0, I)}, accepted with probability
#' \eqn{\min(1, \pi(\theta')/\pi(\theta))}.  During warm-up the scale
#' \eqn{\epsilon} is tuned by Stan's dual averaging towards
#' `target_accept` (0.234, the optimal acceptance rate of random-walk
#' proposals in high dimension; Roberts, Gelman and Gilks 1997) and then
#' fixed.  A chain that accepts no proposal during warm-up is reported as a
#' failed chain.  Random-walk Metropolis needs of the order of `d` steps per
#' effective draw in `d` dimensions, so it is practical only for small
#' networks; it runs on the package's generic chain driver, as the
#' stochastic-gradient samplers and pCN do.
#'
#' @param stepsize Initial proposal scale \eqn{\epsilon}.
#' @param target_accept Target acceptance rate of the warm-up tuning.
#' @param adapt_stepsize Tune the proposal scale during warm-up.
#' @inheritParams bnn_nuts
#' @return A sampler settings object of class `c("bnn_rwm", "bnn_sampler")`
#'   for [bnn_fit()].
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = integer(0),
#'                likelihood = "gaussian", sampler = bnn_rwm(), chains = 2,
#'                warmup = 1000, iter = 1000, thin = 5, seed = 1)
#' fit
bnn_rwm <- function(stepsize = 0.1, adapt_stepsize = TRUE, target_accept = 0.234,
                    inv_metric = NULL) {
  stepsize <- check_positive(stepsize, "stepsize")
  target_accept <- check_prob(target_accept, "target_accept")
  if (!is.null(inv_metric) &&
      (!is.numeric(inv_metric) || anyNA(inv_metric) || any(!is.finite(inv_metric)) ||
       any(inv_metric <= 0)))
    stop("'inv_metric' must be a vector of positive finite numbers.", call. = FALSE)
  new_sampler(list(
    method = "rwm", driver = "rwm", stepsize = stepsize,
    adapt_stepsize = isTRUE(adapt_stepsize), target_accept = target_accept,
    inv_metric = inv_metric,
    c_settings = list(stepsize = stepsize, adapt_stepsize = isTRUE(adapt_stepsize),
                      target_accept = target_accept,
                      inv_metric = if (is.null(inv_metric)) NULL else as.double(inv_metric))),
    "rwm")
}

#' @export
print.bnn_sampler <- function(x, ...) {
  cat("<bnn_sampler>", format(x), "\n")
  invisible(x)
}

# format() of a sampler: one method per class (R/sampler-class.R); this one
# serves objects of older versions (class "bnn_sampler" only), by `method`.
#' @export
format.bnn_sampler <- function(x, ...) {
  up <- sampler_upgrade(x)
  if (!identical(class(up), class(x))) format(up, ...) else x$method %||% "sampler"
}

#' @export
format.bnn_nuts <- function(x, warmup = NULL, ...) {
  # with warmup = 0 nothing is adapted, whatever the settings say
  adapting <- is.null(warmup) || warmup > 0
  sprintf("NUTS (max treedepth %d, adapt_delta %s, metric %s)",
          x$max_treedepth, x$adapt_delta,
          if (x$adapt_metric && adapting) "diagonal, adapted" else "fixed")
}

#' @export
format.bnn_hmc <- function(x, warmup = NULL, ...) {
  adapting <- is.null(warmup) || warmup > 0
  sprintf("static HMC (step size %s%s, integration time %s)",
          fmt_num(x$stepsize), if (x$adapt_stepsize && adapting) " adapted" else "",
          fmt_num(x$int_time))
}

#' @export
format.bnn_rwm <- function(x, ...) {
  sprintf("random-walk Metropolis (scale %s%s)", fmt_num(x$stepsize),
          if (x$adapt_stepsize) sprintf(", tuned to acceptance %s", x$target_accept) else "")
}

# How the step sizes of a fit were set, for print() (an approximation's
# label has a method too: R/approx-fit.R).
stepsize_note <- function(x) sampler_stepsize_note(sampler_upgrade(x$sampler), x$warmup)

# A diagonal inverse metric: NULL (the identity) or positive finite numbers
# (a zero, negative or non-finite entry freezes or breaks the chain).
check_inv_metric <- function(x) {
  if (is.null(x)) return(NULL)
  if (!is.numeric(x) || length(x) < 1L)
    stop("'inv_metric' must be NULL or a numeric vector (the diagonal of the inverse metric).",
         call. = FALSE)
  bad <- which(!(is.finite(x) & x > 0))
  if (length(bad))
    stop(sprintf("'inv_metric' must have positive finite entries; entr%s %s %s %s.",
                 if (length(bad) > 1L) "ies" else "y",
                 paste(bad[seq_len(min(5L, length(bad)))], collapse = ", "),
                 if (length(bad) > 1L) "are" else "is",
                 paste(unique(format(x[bad])), collapse = ", ")), call. = FALSE)
  as.double(x)
}

# The settings list of the "nuts" and "hmc" kernels (C_kchain_new, src/api/api_kernel.c).
sampler_c_settings <- function(s, warmup) {
  list(kernel = s$kernel, max_treedepth = s$max_treedepth, warmup = as.integer(warmup),
       adapt_stepsize = as.integer(s$adapt_stepsize),
       adapt_metric = as.integer(s$adapt_metric),
       init_buffer = s$init_buffer, term_buffer = s$term_buffer, window = s$window,
       stepsize = s$stepsize, adapt_delta = s$adapt_delta, gamma = s$gamma,
       kappa = s$kappa, t0 = s$t0, int_time = s$int_time %||% 1,
       inv_metric = if (is.null(s$inv_metric)) NULL else as.double(s$inv_metric))
}

# ---- its methods of the sampler generics (R/sampler-class.R) ----------------

# Stan's NUTS, its statistics under Stan's names (shinystan's NUTS pages).
sampler_stan_algorithm.bnn_nuts <- function(sampler) "NUTS"

sampler_kernel.bnn_nuts <- function(sampler, warmup, iter, dim = NULL, lr = NULL) {
  list(name = if (identical(sampler$kernel, 1L)) "hmc" else "nuts",
       settings = c(sampler_c_settings(sampler, warmup), list(iter = as.integer(iter))))
}

sampler_kernel.bnn_hmc <- sampler_kernel.bnn_nuts

sampler_unmoved_fails.bnn_nuts <- function(sampler) TRUE

sampler_unmoved_fails.bnn_hmc <- function(sampler) TRUE

# NUTS: transitions whose tree reached the maximum depth (their
# trajectories were cut short).
sampler_fit_warnings.bnn_nuts <- function(sampler, fit, ok) {
  hit <- sum(fit$sampler_stats[, ok, "treedepth__"] >= sampler$max_treedepth, na.rm = TRUE)
  if (hit > 0)
    warn_cond(sprintf("%d transitions hit the maximum tree depth of %d.", hit,
                      sampler$max_treedepth), "bnnmc_treedepth")
  invisible(NULL)
}

# NUTS: a typical tree (the trees adapt to the posterior).
chain_gradients.bnn_nuts <- function(sampler, warmup, iter, n_obs) {
  list(n = (warmup + iter) * (2^min(sampler$max_treedepth, 6) - 1), exact = FALSE)
}

# Static HMC: floor(int_time / step size) leapfrog steps (at least one) per
# transition, as src/mcmc/hmc.c runs them; exact unless the step size adapts.
chain_gradients.bnn_hmc <- function(sampler, warmup, iter, n_obs) {
  L <- max(1, floor(sampler$int_time / sampler$stepsize))
  list(n = (warmup + iter) * L, exact = !isTRUE(sampler$adapt_stepsize))
}

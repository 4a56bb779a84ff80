# Preconditioned Crank-Nicolson settings (the kernel is src/mcmc/pcn.c).

#' Preconditioned Crank-Nicolson settings
#'
#' pCN (Cotter, Roberts, Stuart and White 2013) for a network with a Normal
#' prior \eqn{N(0, C)}, \eqn{C} diagonal with the prior's per-parameter
#' variances ([bnn_prior()]).  In the prior-whitened coordinates \eqn{z =
#' C^{-1/2}\theta} the proposal is \deqn{z' = \sqrt{1 - \beta^2}\, z + \beta
#' \xi, \quad \xi \sim N(0, I),}{z' = sqrt(1 - beta^2) z + beta xi,} i.e.
#' \eqn{\theta' = \sqrt{1-\beta^2}\,\theta + \beta C^{1/2}\xi}; it leaves
#' the prior invariant, so it is accepted with probability
#' \eqn{\min(1, \exp(\Phi(\theta) - \Phi(\theta')))} where \eqn{\Phi} is
#' the negative log-likelihood alone.  Its acceptance rate does not
#' collapse as the number of parameters grows, unlike random-walk
#' Metropolis.  In the \eqn{h} parametrisation of Cotter et al., of the
#' FBNN code and of CalibrateEmulateSample.jl, \eqn{\rho = \sqrt{1 -
#' \beta^2} = (1 - h/4)/(1 + h/4)}, i.e. \eqn{\beta = \sqrt h / (1 + h/4)}
#' (FBNN's \eqn{h = 0.01} is \eqn{\beta \approx 0.0998}).
#'
#' During warm-up \eqn{\beta} is tuned by Stan's dual averaging on
#' \eqn{\log\beta} towards `target_accept` (kept at most 1, where a
#' proposal is an independent prior draw) and then fixed.  The default
#' target 0.25 is CalibrateEmulateSample.jl's: pCN is a random-walk
#' proposal in the prior-whitened coordinates, whose optimal acceptance
#' rate in high dimension is about 0.234; FBNN's 0.65 is the target of
#' Hamiltonian samplers, whose proposals use gradients.
#'
#' A parameter outside the network with a non-Gaussian prior (the `log
#' sigma` of `bnn_likelihood("gaussian")` with a sampled `sigma`) is
#' updated in the same transition by a random-walk Metropolis step on its
#' full conditional (Metropolis-within-Gibbs), with its scale tuned during
#' warm-up by Robbins-Monro towards an acceptance rate of 0.44 (statistic
#' `accept_extra__`).  A Laplace prior is an error.  The fit's `n_grad`
#' counts log-likelihood evaluations, which pCN makes without gradients
#' (one per transition, two with a sampled `sigma`).
#'
#' @param beta Initial step \eqn{\beta \in (0, 1]}.
#' @param adapt_beta Tune \eqn{\beta} during warm-up.
#' @param target_accept Target acceptance rate of the tuning.
#' @param extra_stepsize Initial random-walk scale of `log sigma`.
#' @return A sampler settings object of class `c("bnn_pcn", "bnn_sampler")` for
#'   [bnn_fit()].
#' @references Cotter, S. L., Roberts, G. O., Stuart, A. M. and White, D.
#'   (2013). MCMC methods for functions: modifying old algorithms to make
#'   them faster. Statistical Science 28(3), 424-446.
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = integer(0),
#'                likelihood = bnn_likelihood("gaussian", sigma = 0.5),
#'                sampler = bnn_pcn(), chains = 2, warmup = 1000, iter = 1000, thin = 5,
#'                seed = 1)
#' fit
bnn_pcn <- function(beta = 0.1, adapt_beta = TRUE, target_accept = 0.25,
                    extra_stepsize = 0.1) {
  if (!is.numeric(beta) || length(beta) != 1L || is.na(beta) || !(beta > 0) || beta > 1)
    stop("'beta' must be a number in (0, 1].", call. = FALSE)
  target_accept <- check_prob(target_accept, "target_accept")
  extra_stepsize <- check_positive(extra_stepsize, "extra_stepsize")
  if (!is.logical(adapt_beta) || length(adapt_beta) != 1L || is.na(adapt_beta))
    stop("'adapt_beta' must be TRUE or FALSE.", call. = FALSE)
  new_sampler(list(
    method = "pcn", driver = "pcn", beta = as.double(beta), adapt_beta = adapt_beta,
    target_accept = target_accept, extra_stepsize = extra_stepsize,
    c_settings = list(beta = as.double(beta), adapt_beta = adapt_beta,
                      target_accept = target_accept, extra_stepsize = extra_stepsize)),
    "pcn")
}

#' @export
format.bnn_pcn <- function(x, ...) {
  sprintf("preconditioned Crank-Nicolson (beta %s%s)", fmt_num(x$beta),
          if (x$adapt_beta) sprintf(", tuned to acceptance %s", x$target_accept) else "")
}

# pCN's proposal keeps only a Gaussian prior invariant (check_sampler_model(),
# R/sampler-class.R).
check_sampler_model.bnn_pcn <- function(sampler, prior) {
  if (!identical(prior$family, "normal"))
    stop("sampler = bnn_pcn() needs prior = bnn_prior(\"normal\"): pCN's proposal keeps ",
         "a Gaussian prior invariant, so a ", prior$family, " prior cannot be used.",
         call. = FALSE)
  invisible(NULL)
}

#' bnnmc: Sample-Based Bayesian Inference for Neural Networks
#'
#' Markov chain Monte Carlo for Bayesian neural networks (BNNs) with a native
#' C backend: the No-U-Turn sampler as in Stan, static HMC, deep-ensemble
#' initialised chains (DEI-MCMC) and microcanonical Langevin ensembles (MILE),
#' with diagnostics that are honest about BNN posteriors (chain-wise and
#' layer-wise R-hat, cumulative LPPD) and predictive metrics.
#'
#' Start with [bnn_fit()]; see `vignette("getting-started", package = "bnnmc")`.
#'
#' @section Speed and options:
#' The network's hot loops run in C routines whose SIMD level is chosen,
#' by default, from what the CPU supports: AVX-512, AVX2 with FMA, or
#' portable C (see "Reproducibility (SIMD level)" below).  The levels
#' agree to rounding (1e-12 relative on the log density), so draws are
#' reproducible on one SIMD level, not bit for bit across levels.
#' Chains run in parallel through the \pkg{future} framework
#' (see [bnn_fit()]).  The convergence diagnostics spread the variables,
#' and predictions (`predict()`, `posterior_epred()`, `log_lik()`, ...)
#' the posterior draws, over OpenMP threads: `options(bnnmc.threads = n)`
#' sets their number (default 2; the results do not depend on it, and
#' `OMP_THREAD_LIMIT` is honoured).
#'
#' @template reproducibility
#' @template habits
#'
#' @keywords internal
#' @useDynLib bnnmc, .registration = TRUE
#' @importFrom stats nobs formula coef fitted residuals predict
"_PACKAGE"

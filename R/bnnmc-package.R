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
#' The network's hot loops run in C compute kernels whose SIMD level is
#' chosen, by default, from what the CPU supports: AVX-512, AVX2 with FMA,
#' or portable C.  They agree to rounding (1e-12 relative on the log
#' density), so draws are reproducible on one SIMD level, not bit for bit
#' across levels.
#' Chains run in parallel through the \pkg{future} framework
#' (see [bnn_fit()]).  The convergence diagnostics spread the variables,
#' and predictions (`predict()`, `posterior_epred()`, `log_lik()`, ...)
#' the posterior draws, over OpenMP threads: `options(bnnmc.threads = n)`
#' sets their number (default 2; the results do not depend on it, and
#' `OMP_THREAD_LIMIT` is honoured).
#'
#' @section Deprecated option names:
#' `options(bnnmc.kernels = )` and the environment variable
#' `BNNMC_KERNELS` are the former names of `options(bnnmc.simd = )` and
#' `BNNMC_SIMD` ("kernel" now means only a sampler's transition kernel).
#' They still work in this version, with a warning, when the new name is
#' not set, and will be removed in the next.
#' @template reproducibility
#' @template habits
#'
#' @keywords internal
#' @useDynLib bnnmc, .registration = TRUE
#' @importFrom stats nobs formula coef fitted residuals predict
"_PACKAGE"

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
#' @keywords internal
#' @useDynLib bnnmc, .registration = TRUE
#' @importFrom stats nobs formula coef fitted residuals predict
"_PACKAGE"

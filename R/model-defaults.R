# The default likelihood and prior of a numeric response.
#
# The default was once the papers' model (see NEWS): the heteroscedastic
# Gaussian (the network outputs a mean and a log sd) with Normal(0, 1)
# priors on all weights.  On small or noisy data its predictive
# distribution was far too wide and heavy-tailed: the log-sd head is a
# network output under unit priors, so its prior predictive sd spans many
# orders of magnitude, and a few dozen rows do not pin it down (mtcars:
# predictive draws 265,000 response sds from their median; 90% intervals
# covering every test and training point).  A panel of 22 regression sets
# (inst/benchmarks/decisions/default_panel.R, vignette("benchmarks"),
# section "A default chosen for calibration") compared it with the
# homoscedastic Gaussian (one sigma, half-normal(1) prior on the
# standardised scale), a per-data-set choice between the two by PSIS-LOO,
# and the homoscedastic Gaussian with the weights' prior scaled by
# 1/sqrt(fan-in) (biases Normal(0, 1)): the Normal(0, 1) weights of a 16-16
# network put prior functions of many response sds on standardised data,
# which small data do not tame either.
#
# The default, when neither `likelihood` nor `prior` is given, is therefore
# likelihood = "gaussian" with prior = bnn_prior(fan_in = TRUE).  A
# likelihood given explicitly keeps the Normal(0, 1) prior, so
# likelihood = "hetero_gaussian" is exactly the papers' model (and the old
# default), one argument away; a prior given explicitly is used as it is.
#
# Still open (vignette("benchmarks") and inst/benchmarks/decisions/):
# * over 20 splits (default_panel_tiny.R) this default's test log density
#   is below lm's by 0.06-0.22 per point on six near-linear sets of at most
#   50 rows (attitude, trees, hills, swiss, cars, LifeCycleSavings); its 90%
#   coverage is within [0.80, 0.98] there (the 1.00 seen on 5 splits was
#   test-set noise).  A halved prior scale was worse, an identity-activation
#   network closed the gap on 2 of 3 sets, PSIS-LOO on so few rows did not
#   pick the better one (default_panel_candidates.R);
# * the default fails its own convergence verdict on yacht, energy,
#   concrete and airfoil: MILE's training log-likelihood (and sigma with it)
#   has an autocorrelation time of 40-270 kept draws, about 20 would pass;
#   no sampler setting, prior or width tried made a fit pass
#   (default_verdict_diagnosis.R/.csv).  The verdict is computed correctly.

# With more data the papers' model is the better default.  On every panel
# set of more than 500 training rows with a continuous response (energy,
# concrete, airfoil) the heteroscedastic Gaussian with Normal(0, 1) weights
# predicted better than the homoscedastic one, by 0.2 to 0.55 nats per test
# point, with 90% coverage of 0.89-0.94; on wine_red, whose response takes
# six values, it collapsed onto them (see R/diag-ties.R).  So a numeric
# response of more than .hetero_min_rows training rows that is continuous
# (no value in 10% of the rows, and at least 100 distinct values, or half
# of them) gets likelihood = "hetero_gaussian" with the papers' prior;
# smaller or discrete responses keep the homoscedastic Gaussian (and the
# check against a linear model, R/fit-choice.R, on at most 500 rows).
# Measured with the default's budget: inst/benchmarks/decisions/
# default_likelihood.R and vignette("benchmarks").
.hetero_min_rows <- 500L

# A response with many ties: its most frequent value in at least 10% of
# the observations and at least 10 of them (R/diag-ties.R: the
# heteroscedastic head collapses onto such values).
.tie_share_min <- 0.10
.tie_count_min <- 10L

# The most frequent value of a numeric response and its share.
response_ties <- function(y) {
  tab <- table(y)
  k <- which.max(tab)
  list(value = as.numeric(names(tab)[k]), count = as.integer(tab[[k]]),
       share = as.numeric(tab[[k]]) / length(y))
}

many_ties <- function(y) {
  t <- response_ties(y)
  t$share >= .tie_share_min && t$count >= .tie_count_min
}

# Is a numeric response continuous enough for the heteroscedastic
# likelihood?  No value in many rows (many_ties()) and at least 100
# distinct values, or half of them (a rounded response repeats values as
# rows accumulate; wine quality's six values do not qualify).
continuous_response <- function(y) {
  !many_ties(y) && length(unique(y)) >= min(100, 0.5 * length(y))
}

# Default likelihood of a numeric response (likelihood = NULL).
default_numeric_likelihood <- function(y) {
  if (length(y) > .hetero_min_rows && continuous_response(y)) "hetero_gaussian" else "gaussian"
}

# Default prior (prior = NULL): fan-in scaled for a numeric response whose
# likelihood is the default homoscedastic Gaussian, Normal(0, 1) otherwise
# (the heteroscedastic default of larger data, an explicit likelihood such
# as the papers' "hetero_gaussian", or a factor response).
default_prior <- function(y, likelihood, lik = NULL) {
  numeric_y <- is.numeric(y) && !is.matrix(y)
  # the count and Student-t likelihoods are not the papers' models: they get
  # the default's fan-in prior however they were asked for
  new_family <- !is.null(lik) && lik$family %in% c(.count_families, "student")
  default_hetero <- is.null(likelihood) && identical(lik$family, "hetero_gaussian")
  if ((is.null(likelihood) && numeric_y && !default_hetero) || new_family)
    bnn_prior(fan_in = TRUE) else bnn_prior()
}

# The default likelihood and prior of a numeric response (issue #23 item 1).
#
# Until issue #23 the default was the papers' model: the heteroscedastic
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

# Default likelihood of a numeric response (likelihood = NULL).
default_numeric_likelihood <- function(y) "gaussian"

# Default prior (prior = NULL): fan-in scaled for a numeric response whose
# likelihood is the default, Normal(0, 1) otherwise (an explicit likelihood,
# e.g. the papers' "hetero_gaussian", or a factor response).
default_prior <- function(y, likelihood) {
  numeric_y <- is.numeric(y) && !is.matrix(y)
  if (is.null(likelihood) && numeric_y) bnn_prior(fan_in = TRUE) else bnn_prior()
}

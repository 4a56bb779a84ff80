# The papers' protocols as sampler objects: a protocol is a sampler with
# the paper's starts and warm-up, of class c("bnn_<name>", "bnn_protocol",
# <the sampler's classes>), so that it runs as its sampler does and
# bnn_fit() asks its methods, not its name, what it changes.
#   "mile": MILE (Sommer et al. 2025): MCLMC with MILE's tuning, started
#           from the members of a deep ensemble trained with MILE's preset
#           (its classification preset for a factor response).
#   "dei":  DEI-MCMC (Sommer et al. 2024): NUTS started from a deep
#           ensemble (DEI's preset), 100 warm-up iterations.
# Users name them (bnn_fit(sampler = "mile")); .sampler_registry builds them.

# `sampler` as the protocol `name`.
new_protocol <- function(sampler, name) {
  class(sampler) <- c(paste0("bnn_", name), "bnn_protocol", class(sampler))
  sampler
}

sampler_protocol_default.bnn_mile <- function(sampler, what, default) {
  switch(what, init = "ensemble", default)
}

sampler_ensemble_preset.bnn_mile <- function(sampler, likelihood) {
  if (likelihood$family %in% c("bernoulli", "categorical"))
    return(bnn_optimizer_preset("mile_class"))
  bnn_optimizer_preset("mile")
}

sampler_protocol_default.bnn_dei <- function(sampler, what, default) {
  switch(what, warmup = 100L, init = "ensemble", default)
}

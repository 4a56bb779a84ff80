# The papers' protocols as sampler objects: a protocol is a sampler with
# the paper's starts and warm-up, of class c("bnn_<name>", "bnn_protocol",
# <the sampler's classes>), so that it runs as its sampler does and
# bnn_fit() asks its methods, not its name, what it changes.
#   bnn_mile(): MILE (Sommer et al. 2025): MCLMC with MILE's tuning, started
#           from the members of a deep ensemble trained with MILE's preset
#           (its classification preset for a factor response).
#   bnn_dei():  DEI-MCMC (Sommer et al. 2024): NUTS started from a deep
#           ensemble (DEI's preset), 100 warm-up iterations.
# Users name them (bnn_fit(sampler = "mile")) or build them (sampler =
# bnn_mile()): .sampler_registry's entries are these constructors.  The
# protocol's name in print() is sampler_protocol_name().

#' The papers' protocols MILE and DEI-MCMC as samplers
#'
#' `bnn_mile()` is MILE (Sommer et al. 2025): [bnn_mclmc()] with MILE's
#' tuning (40,000/5,000/5,000 tuning and 10,000 sampling steps thinned by
#' 10), its chains started from the members of a deep ensemble trained
#' with MILE's optimiser preset ([bnn_optimizer_preset()] `"mile"`, or
#' `"mile_class"` for a categorical or binary response).  `bnn_dei()` is
#' DEI-MCMC (Sommer et al. 2024): [bnn_nuts()] with 100 warm-up iterations,
#' its chains started from a deep ensemble trained with DEI's preset.
#'
#' `bnn_fit(sampler = "mile")` and `bnn_fit(sampler = bnn_mile())` are the
#' same fit (as are `"dei"` and `bnn_dei()`): the name is looked up as the
#' constructor called without arguments.  What a protocol changes are the
#' defaults of [bnn_fit()] the call does not give: `init = "ensemble"`
#' (both), `warmup = 100` (DEI-MCMC), and the ensemble's training when
#' `ensemble` is not given; `init`, `warmup` and `ensemble` given to
#' [bnn_fit()] take precedence.  The sampler's own settings can be changed
#' through `...`, which go to [bnn_mclmc()] or [bnn_nuts()] (the protocol's
#' starts stay).
#'
#' @param ... Settings of the protocol's sampler: arguments of
#'   [bnn_mclmc()] for `bnn_mile()`, of [bnn_nuts()] for `bnn_dei()`.
#'   None: the paper's.
#' @return A sampler settings object for [bnn_fit()]: for `bnn_mile()` of
#'   class `c("bnn_mile", "bnn_protocol", "bnn_mclmc", "bnn_sampler")`, for
#'   `bnn_dei()` of class `c("bnn_dei", "bnn_protocol", "bnn_nuts",
#'   "bnn_sampler")`.
#' @references
#' Sommer, E., Wimmer, L., Papamarkou, T., Bothmann, L., Bischl, B. and
#' Ruegamer, D. (2024). Connecting the Dots: Is Mode-Connectedness the Key
#' to Feasible Sample-Based Inference in Bayesian Neural Networks? *ICML*.
#'
#' Sommer, E., Robnik, J., Nozadze, G., Seljak, U. and Ruegamer, D. (2025).
#' Microcanonical Langevin Ensembles: Advancing the Sampling of Bayesian
#' Neural Networks. *ICLR*. \doi{10.48550/arXiv.2502.06335}
#' @seealso [bnn_fit()], [bnn_mclmc()], [bnn_nuts()], [bnn_split()] (the
#'   protocols' data splits).
#' @export
#' @examples
#' bnn_mile()
#' bnn_dei(adapt_delta = 0.9)
#' # a short DEI-MCMC fit: NUTS from a deep ensemble of 2 members
#' fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 2,
#'                sampler = bnn_dei(), iter = 100, seed = 1, progress = FALSE,
#'                ensemble = bnn_optimizer_preset("dei", epochs = 50))
#' fit
bnn_mile <- function(...) new_protocol(bnn_mclmc(...), "mile")

#' @rdname bnn_mile
#' @export
bnn_dei <- function(...) new_protocol(bnn_nuts(...), "dei")

#' @export
print.bnn_protocol <- function(x, ...) {
  cat(sprintf("<%s> %s: %s\n", class(x)[1L], sampler_protocol_name(x), format(x)))
  invisible(x)
}

# `sampler` as the protocol `name`.
new_protocol <- function(sampler, name) {
  class(sampler) <- c(paste0("bnn_", name), "bnn_protocol", class(sampler))
  sampler
}

# The protocol's name, for print().
sampler_protocol_name.bnn_mile <- function(sampler) "MILE"

sampler_protocol_default.bnn_mile <- function(sampler, what, default) {
  switch(what, init = "ensemble", default)
}

sampler_ensemble_preset.bnn_mile <- function(sampler, likelihood) {
  if (likelihood$family %in% c("bernoulli", "categorical"))
    return(bnn_optimizer_preset("mile_class"))
  bnn_optimizer_preset("mile")
}

sampler_protocol_name.bnn_dei <- function(sampler) "DEI-MCMC"

sampler_protocol_default.bnn_dei <- function(sampler, what, default) {
  switch(what, warmup = 100L, init = "ensemble", default)
}

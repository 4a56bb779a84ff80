# Samplers as S3 classes.
#
# Every sampler's settings object has class c("bnn_<kind>", ..., "bnn_sampler")
# (new_sampler()), and what differs between samplers is a method of one of
# the small internal generics below, with the common case in the default
# method.  This file holds the generics and their defaults only; a
# sampler's methods live in its own file, R/sampler-<kind>.R (hmc: NUTS,
# static HMC and RWM; mclmc; sgmcmc: SGLD, pSGLD, SGHMC; pcn; ces;
# protocol: the papers' protocols MILE and DEI-MCMC).
# bnn_fit() and the engine call these generics and never branch on a
# sampler's kind, nor modify the sampler object they were given:
# sampler_resolve_run() returns the settings of the run as a new object.
#
#   generic                    what it says                           methods
#   sampler_protocol_default() bnn_fit()'s warmup/init when not given  mile, dei
#   sampler_protocol_name()    the paper's protocol, for print()       mile, dei
#   sampler_ensemble_preset()  training of the starts' deep ensemble   mile
#   sampler_resolve_run()      warm-up, transitions, thinning, draws   mclmc
#   sampler_default_thin()     the thinning when `thin` is not given   mclmc
#   sampler_units()            unit and phase name of the warm-up      mclmc, sgmcmc, ces
#   sampler_allows()           options it supports (bnn_fit(), ...)    ces
#   sampler_draws_sampler()    the sampler whose chains are the draws  ces
#   sampler_prepare()          work before the chains (MAP, starts)    sgmcmc
#   sampler_for_emulator()     as CES's sampling stage (bnn_ces())     sgmcmc
#   check_sampler_model()      sampler/model combinations that fail    pcn
#   sampler_kernel()           kernel of the chain driver + settings   nuts, hmc, mclmc
#   sampler_chain_schedule()   a chain's phases, as run_chain() runs   mclmc
#   sampler_chain_result()     the kernel's own part of a chain        mclmc
#   sampler_unmoved_fails()    a chain that never moved has failed?    nuts, hmc
#   sampler_fit_warnings()     its own warnings about a fit            nuts (tree depth)
#   sampler_minibatch()        gradients from minibatches?             sgmcmc
#   sampler_stepsize_note()    how print() describes the step size     mclmc (and an
#                                                                      approximation's label,
#                                                                      R/approx-fit.R)
#   sampler_no_nuts_params()   why bayesplot's nuts_params() does not   mclmc
#                              apply to its fits
#   sampler_stan_algorithm()   Stan's name of the algorithm, if any    nuts
#                              (shinystan's NUTS pages)
#   chain_gradients()          gradients per chain (fit_cost())        mclmc, sgmcmc, sghmc, nuts, hmc
#   chain_sampler_seconds()    a chain's own work besides gradients    mclmc
#   bytes_per_parameter()      memory per parameter of a fit          ces
#   format()                   one line for print()                    every class
#   fit_engine()               the engine of bnn_fit(); its default is ces (R/fit-ces.R)
#                              in R/fit-plan.R
#
# A new sampler plugs in with: its C kernel (src/, one line in
# api_kernel.c's kernel_registry), a constructor returning
# new_sampler(list(method = , driver = , c_settings = ), "<kind>"), one
# entry in .sampler_registry (R/sampler-registry.R) if it has a name for
# bnn_fit(sampler = "<name>"), a format() method, and methods of the
# generics above only where it differs from the default, all in its
# R/sampler-<kind>.R.

# A sampler settings object of class c("bnn_<kind>", subclass, "bnn_sampler").
new_sampler <- function(x, kind, subclass = character(0)) {
  structure(x, class = c(paste0("bnn_", kind), subclass, "bnn_sampler"))
}

# The class of a sampler object from before samplers had one class per kind
# (a fit saved by an older version: class "bnn_sampler" with `method`, or
# "bnn_mclmc" alone).  Anything else (an approximation's label, the
# `sampler` of a fit that is not a chain's) is returned as it is, so that
# a fit's `$sampler` can be passed to the generics here (their default).
sampler_upgrade <- function(x) {
  if (!inherits(x, c("bnn_sampler", "bnn_mclmc"))) return(x)
  if (inherits(x, "bnn_mclmc") && !inherits(x, "bnn_sampler"))
    class(x) <- c(class(x), "bnn_sampler")
  kind <- paste0("bnn_", x$method %||% "")
  if (!is.null(x$method) && !inherits(x, kind) && !inherits(x, "bnn_sgmcmc"))
    class(x) <- c(kind, class(x))
  x
}

# The run of a fit: `warmup` (in the sampler's unit, already defaulted by
# the caller), `iter` draws kept per chain, `thin`, and which of them the
# user gave (`given`: named logical with warmup, iter, thin).  Returns a
# list with the sampler object for the run (a new object), `warmup`, `iter`
# (the sampling transitions per chain), `thin` and `n_keep` (draws kept per
# chain).
sampler_resolve_run <- function(sampler, warmup, iter, thin, given) {
  UseMethod("sampler_resolve_run")
}

sampler_resolve_run.default <- function(sampler, warmup, iter, thin, given) {
  list(sampler = sampler, warmup = warmup, iter = iter * thin, thin = thin, n_keep = iter)
}

# The thinning of a fit that does not give `thin`.
sampler_default_thin <- function(sampler) UseMethod("sampler_default_thin")

sampler_default_thin.default <- function(sampler) 1L

# The unit of the warm-up budget (`warmup` of bnn_fit(), for print()) and
# the name of the warm-up phase in the progress display.
sampler_units <- function(sampler) UseMethod("sampler_units")

sampler_units.default <- function(sampler) list(warmup = "iterations", phase = "warm-up")

# Whether the option `what` is available with this sampler: bnn_fit()'s
# "waves" (chains = bnn_waves()) and "chain_id", and "combine" (its fits'
# chains joined by bnn_combine_chains()).
sampler_allows <- function(sampler, what) UseMethod("sampler_allows")

sampler_allows.default <- function(sampler, what) TRUE

# The sampler whose chains give the fit's draws (for the memory check of
# bnn_fit(); a pipeline checks its other stages itself).
sampler_draws_sampler <- function(sampler) UseMethod("sampler_draws_sampler")

sampler_draws_sampler.default <- function(sampler) sampler

# What a sampler needs before its chains run, given the model's spec and
# the chains' starts: returns list(sampler, inits), possibly both changed
# (SG-MCMC: a MAP for control variates or as the start).
sampler_prepare <- function(sampler, spec, inits, seed, warmup, iter, given_init) {
  UseMethod("sampler_prepare")
}

sampler_prepare.default <- function(sampler, spec, inits, seed, warmup, iter, given_init) {
  list(sampler = sampler, inits = inits)
}

# The sampler as the sampling stage of CES (bnn_ces()), on the emulated
# posterior: it needs a kernel of the generic chain driver (NUTS, HMC and
# MCLMC build their own target).
sampler_for_emulator <- function(sampler) UseMethod("sampler_for_emulator")

sampler_for_emulator.default <- function(sampler) {
  if (is.null(sampler$driver))
    stop("The sampling stage needs a kernel of the generic chain driver, such as ",
         "bnn_pcn() or bnn_rwm(); '", sampler$method %||% class(sampler)[1],
         "' builds its own target and cannot sample the emulated posterior.", call. = FALSE)
  sampler
}

# Whether the sampler's gradients come from minibatches (a long full-batch
# fit is told about them).
sampler_minibatch <- function(sampler) UseMethod("sampler_minibatch")

sampler_minibatch.default <- function(sampler) FALSE

# How print() describes the fit's step sizes.
sampler_stepsize_note <- function(sampler, warmup) UseMethod("sampler_stepsize_note")

sampler_stepsize_note.default <- function(sampler, warmup) {
  if (!isTRUE(sampler$adapt_stepsize)) return("(fixed)")
  if (warmup == 0) return("(not adapted: no warm-up; Stan's initial step-size heuristic)")
  "(adapted)"
}

# The kernel of the chain driver (src/mcmc/kernel.h) that runs a sampler, and its
# settings list for C_kchain_new: by default the sampler object's `driver`
# (the kernel's C name) and `c_settings`; NUTS and static HMC build theirs
# from their fields (sampler_c_settings()), MCLMC from its fields, the
# dimension and the ensemble's learning rate `lr` (.mclmc_c_settings()).
sampler_kernel <- function(sampler, warmup, iter, dim = NULL, lr = NULL) {
  UseMethod("sampler_kernel")
}

sampler_kernel.default <- function(sampler, warmup, iter, dim = NULL, lr = NULL) {
  if (is.null(sampler$driver))
    stop("'sampler' is not a sampler of the chain driver (internal).", call. = FALSE)
  list(name = sampler$driver,
       settings = c(sampler$c_settings, list(warmup = as.integer(warmup),
                                             iter = as.integer(iter))))
}

# Whether a chain that never left its start (its position after every
# transition equal to its initial values) has failed: so for NUTS and
# static HMC, whose rejected trajectories keep the start (every transition
# rejected, e.g. NaN momenta or a step size far too large: no draws of the
# posterior).
sampler_unmoved_fails <- function(sampler) UseMethod("sampler_unmoved_fails")

sampler_unmoved_fails.default <- function(sampler) FALSE

# The sampler's own warnings about a fit's kept transitions (`ok`: the
# chains that did not fail), after the failures and divergences that
# report_failures() gives for every sampler.
sampler_fit_warnings <- function(sampler, fit, ok) UseMethod("sampler_fit_warnings")

sampler_fit_warnings.default <- function(sampler, fit, ok) invisible(NULL)

# Why bayesplot's nuts_params() and mcmc_nuts_*() plots (tree depth,
# divergences, Hamiltonian energy) do not apply to the sampler's fits, as
# the end of a sentence; NULL where they do.
sampler_no_nuts_params <- function(sampler) UseMethod("sampler_no_nuts_params")

sampler_no_nuts_params.default <- function(sampler) NULL

# Stan's name of the sampler's algorithm ("NUTS") when its fits' transition
# statistics are those of Stan's sampler under Stan's names (so shinystan's
# pages for it apply); NULL otherwise.
sampler_stan_algorithm <- function(sampler) UseMethod("sampler_stan_algorithm")

sampler_stan_algorithm.default <- function(sampler) NULL

# The name of the papers' protocol the sampler is ("MILE", "DEI-MCMC";
# R/sampler-protocol.R), NULL for a sampler that is none: print() says
# whose deep ensemble started the chains.
sampler_protocol_name <- function(sampler) UseMethod("sampler_protocol_name")

sampler_protocol_name.default <- function(sampler) NULL

# The default of bnn_fit()'s `what` ("warmup", "init") when the user did
# not give it: `default` unless the sampler is a protocol of a paper that
# changes it (R/sampler-protocol.R).
sampler_protocol_default <- function(sampler, what, default) {
  UseMethod("sampler_protocol_default")
}

sampler_protocol_default.default <- function(sampler, what, default) default

# The deep ensemble's training (a bnn_optimizer()) when the chains start
# from one trained here (init = "ensemble") and `ensemble` is not given:
# DEI's preset unless the sampler is a protocol with its own.
sampler_ensemble_preset <- function(sampler, likelihood) UseMethod("sampler_ensemble_preset")

sampler_ensemble_preset.default <- function(sampler, likelihood) bnn_optimizer_preset("dei")

# Bytes per parameter of a fit: the kept draws of all chains (twice: the
# chains' results and the assembled array), the sampler workspace of one
# chain and the prior scales and inits.
bytes_per_parameter <- function(sampler, chains, n_keep) UseMethod("bytes_per_parameter")

bytes_per_parameter.default <- function(sampler, chains, n_keep) {
  # NUTS/HMC: the tree's states; MCLMC and the kernels of the generic
  # driver: a few vectors of the dimension
  work <- if (!is.null(sampler$max_treedepth)) 10 * (sampler$max_treedepth + 1) + 25 else 16
  8 * (2 * chains * n_keep + work + 4 + chains)
}

# The phases of one chain as run_chain() runs them: `warmup` and `iter`
# transitions, every `thin`-th kept, and `report(progress, chain_id)`, the
# function of (done, total) that reports progress in the fit's units.  By
# default the fit's own; MCLMC's come from its settings (the tuning's
# transitions include the preconditioning steps, which progress leaves out).
sampler_chain_schedule <- function(sampler, warmup, iter, thin) {
  UseMethod("sampler_chain_schedule")
}

sampler_chain_schedule.default <- function(sampler, warmup, iter, thin) {
  list(warmup = warmup, iter = iter, thin = thin,
       report = function(progress, chain_id) function(done, total) progress(chain_id, done, total))
}

# The kernel's own part of run_chain()'s result (`info`: C_kchain_info()).
sampler_chain_result <- function(sampler, res, info, schedule) {
  UseMethod("sampler_chain_result")
}

sampler_chain_result.default <- function(sampler, res, info, schedule) res

# Errors for sampler/model combinations that cannot work, before any chain
# runs (called by bnn_fit() and the CES engine); nothing by default.
check_sampler_model <- function(sampler, prior) UseMethod("check_sampler_model")

check_sampler_model.default <- function(sampler, prior) invisible(NULL)

# Gradients (in units of one full-data gradient) per chain for a sampler,
# with `warmup` and `iter` sampling transitions as bnn_fit() runs them
# (fit_cost(), R/run-cost.R).  `exact` says whether the count is known
# before running (MCLMC) or a typical value (NUTS: its trees adapt to the
# posterior).  By default (RWM, pCN) one density per step.
chain_gradients <- function(sampler, warmup, iter, n_obs) UseMethod("chain_gradients")

chain_gradients.default <- function(sampler, warmup, iter, n_obs) {
  list(n = (warmup + iter), exact = TRUE)
}

# CPU seconds a chain spends besides its gradients (the sampler's own work
# per step: momentum draws and updates), for a model of `dim` parameters;
# 0 where that is small next to the gradients.
chain_sampler_seconds <- function(sampler, warmup, iter, dim) UseMethod("chain_sampler_seconds")

chain_sampler_seconds.default <- function(sampler, warmup, iter, dim) 0

# The engine of bnn_fit(): the same arguments for every method (model:
# prepare_model()'s list; the rest bnn_fit()'s checked arguments, the run
# resolved by sampler_resolve_run()).  Its default, the engine of samplers
# whose draws are their chains', is in R/fit-plan.R; the CES pipeline's
# method in R/fit-ces.R (both run chains, which R/run-chains.R does on the
# generics here: in a sampler's file they would make a loop of calls).
fit_engine <- function(model, sampler, chains, warmup, iter, thin, init, seed, progress,
                       call, given_init = FALSE, ...) {
  UseMethod("fit_engine", sampler)
}

# Samplers as S3 classes.
#
# Every sampler's settings object has class c("bnn_<kind>", ..., "bnn_sampler")
# (new_sampler()), and what differs between samplers is a method of one of
# the small internal generics below, with the common case in the default
# method.  bnn_fit() calls these generics and never branches on a sampler's
# kind, nor modifies the sampler object it was given: sampler_resolve_run()
# returns the settings of the run as a new object.
#
#   generic                    what it says                           methods
#   sampler_resolve_run()      warm-up, transitions, thinning, draws   mclmc
#   sampler_default_thin()     the thinning when `thin` is not given   mclmc
#   sampler_units()            unit and phase name of the warm-up      mclmc, sgmcmc, ces
#   sampler_allows()           bnn_fit() options it supports           ces
#   sampler_draws_sampler()    the sampler whose chains are the draws  ces
#   sampler_prepare()          work before the chains (MAP, starts)    sgmcmc
#   sampler_for_emulator()     as CES's sampling stage (bnn_ces())     sgmcmc
#   check_sampler_model()      sampler/model combinations that fail    pcn (R/sampler-pcn.R)
#   sampler_kernel()           kernel of the chain driver + settings   nuts, hmc, mclmc
#   sampler_chain_schedule()   a chain's phases, as run_chain() runs   mclmc
#   sampler_chain_result()     the kernel's own part of a chain        mclmc
#   sampler_minibatch()        gradients from minibatches?             sgmcmc
#   sampler_stepsize_note()    how print() describes the step size     mclmc
#   chain_gradients()          gradients per chain (R/run-cost.R)      mclmc, sgmcmc, nuts, hmc
#   bytes_per_parameter()      memory per parameter (R/fit-size.R)     ces
#   format()                   one line for print()                    every class
#   fit_engine()               the engine of bnn_fit() (R/fit-engine.R) ces (R/fit-ces.R)
#
# A new sampler plugs in with: its C kernel (src/, one line in
# api_kernel.c's kernel_registry), a constructor returning
# new_sampler(list(method = , driver = , c_settings = ), "<kind>"), one
# entry in .sampler_registry (R/sampler-registry.R) if it has a name for
# bnn_fit(sampler = "<name>"), a format() method, and methods of the
# generics above only where it differs from the default.

# A sampler settings object of class c("bnn_<kind>", subclass, "bnn_sampler").
new_sampler <- function(x, kind, subclass = character(0)) {
  structure(x, class = c(paste0("bnn_", kind), subclass, "bnn_sampler"))
}

# The class of a sampler object from before samplers had one class per kind
# (a fit saved by an older version: class "bnn_sampler" with `method`, or
# "bnn_mclmc" alone).
sampler_upgrade <- function(x) {
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

# MCLMC's run lives in its settings (the tuning's steps, n_samples, thin):
# `iter` and `thin`, when given, set the sampling steps and thinning, and
# `warmup`, when given, the tuning steps (split 80/10/10 over the stages).
sampler_resolve_run.bnn_mclmc <- function(sampler, warmup, iter, thin, given) {
  if (given[["iter"]] || given[["thin"]]) sampler$n_samples <- iter * thin
  sampler$thin <- thin
  if (given[["warmup"]])
    sampler$n_tune <- as.integer(round(warmup * c(0.8, 0.1, 0.1)))
  list(sampler = sampler, warmup = sum(sampler$n_tune), iter = sampler$n_samples,
       thin = sampler$thin, n_keep = ceiling(sampler$n_samples / sampler$thin))
}

# The thinning of a fit that does not give `thin`.
sampler_default_thin <- function(sampler) UseMethod("sampler_default_thin")

sampler_default_thin.default <- function(sampler) 1L

sampler_default_thin.bnn_mclmc <- function(sampler) as.integer(sampler$thin)

# The unit of the warm-up budget (`warmup` of bnn_fit(), for print()) and
# the name of the warm-up phase in the progress display.
sampler_units <- function(sampler) UseMethod("sampler_units")

sampler_units.default <- function(sampler) list(warmup = "iterations", phase = "warm-up")

sampler_units.bnn_mclmc <- function(sampler) list(warmup = "tuning steps", phase = "tuning")

sampler_units.bnn_sgmcmc <- function(sampler)
  list(warmup = "burn-in iterations", phase = "warm-up")

sampler_units.bnn_ces <- function(sampler)
  list(warmup = "iterations of the sampling stage", phase = "warm-up")

# Whether bnn_fit()'s option `what` ("waves": chains = bnn_waves();
# "chain_id") is available with this sampler.
sampler_allows <- function(sampler, what) UseMethod("sampler_allows")

sampler_allows.default <- function(sampler, what) TRUE

sampler_allows.bnn_ces <- function(sampler, what) FALSE

# The sampler whose chains give the fit's draws (for the memory check of
# bnn_fit(); a pipeline checks its other stages itself).
sampler_draws_sampler <- function(sampler) UseMethod("sampler_draws_sampler")

sampler_draws_sampler.default <- function(sampler) sampler

sampler_draws_sampler.bnn_ces <- function(sampler) sampler$sampler

# What a sampler needs before its chains run, given the model's spec and
# the chains' starts: returns list(sampler, inits), possibly both changed
# (SG-MCMC: a MAP for control variates or as the start).
sampler_prepare <- function(sampler, spec, inits, seed, warmup, iter, given_init) {
  UseMethod("sampler_prepare")
}

sampler_prepare.default <- function(sampler, spec, inits, seed, warmup, iter, given_init) {
  list(sampler = sampler, inits = inits)
}

sampler_prepare.bnn_sgmcmc <- function(sampler, spec, inits, seed, warmup, iter, given_init) {
  sg_prepare(sampler, spec, inits, seed, warmup, iter, given_init)
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

# The emulator maps theta to all N outputs at once: a minibatch would save
# nothing, so stochastic-gradient samplers get the exact gradient of the
# emulated log posterior.
sampler_for_emulator.bnn_sgmcmc <- function(sampler) {
  if (!identical(sampler$gradient, "minibatch"))
    stop("A stochastic-gradient sampler on the emulated posterior needs ",
         "gradient = \"minibatch\" (it runs with the full emulated gradient).", call. = FALSE)
  sampler$batch_size <- NULL
  sampler$c_settings$batch_size <- NULL
  sampler
}

# Whether the sampler's gradients come from minibatches (a long full-batch
# fit is told about them).
sampler_minibatch <- function(sampler) UseMethod("sampler_minibatch")

sampler_minibatch.default <- function(sampler) FALSE

sampler_minibatch.bnn_sgmcmc <- function(sampler) TRUE

# How print() describes the fit's step sizes.
sampler_stepsize_note <- function(sampler, warmup) UseMethod("sampler_stepsize_note")

sampler_stepsize_note.default <- function(sampler, warmup) {
  if (!isTRUE(sampler$adapt_stepsize)) return("(fixed)")
  if (warmup == 0) return("(not adapted: no warm-up; Stan's initial step-size heuristic)")
  "(adapted)"
}

sampler_stepsize_note.bnn_mclmc <- function(sampler, warmup) ""

# The kernel of the chain driver (src/kernel.h) that runs a sampler, and its
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

sampler_kernel.bnn_nuts <- function(sampler, warmup, iter, dim = NULL, lr = NULL) {
  list(name = if (identical(sampler$kernel, 1L)) "hmc" else "nuts",
       settings = c(sampler_c_settings(sampler, warmup), list(iter = as.integer(iter))))
}

sampler_kernel.bnn_hmc <- sampler_kernel.bnn_nuts

sampler_kernel.bnn_mclmc <- function(sampler, warmup, iter, dim = NULL, lr = NULL) {
  list(name = "mclmc",
       settings = c(.mclmc_c_settings(sampler, dim, lr),
                    list(warmup = as.integer(warmup), iter = as.integer(iter))))
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

sampler_chain_schedule.bnn_mclmc <- function(sampler, warmup, iter, thin) {
  stages <- mclmc_tune_steps(sampler)
  # progress in the fit's units: without the preconditioning steps
  n_pre <- stages[2L] - as.integer(sampler$n_tune[2L])
  pre0 <- sum(as.integer(sampler$n_tune[1:2]))
  list(warmup = sum(stages), iter = as.integer(sampler$n_samples),
       thin = as.integer(sampler$thin), stages = stages,
       report = function(progress, chain_id) function(done, total)
         progress(chain_id, done - min(max(done - pre0, 0L), n_pre), total - n_pre))
}

# The kernel's own part of run_chain()'s result (`info`: C_kchain_info()).
sampler_chain_result <- function(sampler, res, info, schedule) {
  UseMethod("sampler_chain_result")
}

sampler_chain_result.default <- function(sampler, res, info, schedule) res

sampler_chain_result.bnn_mclmc <- function(sampler, res, info, schedule) {
  mclmc_chain_result(res, info, schedule$stages, schedule$warmup)
}

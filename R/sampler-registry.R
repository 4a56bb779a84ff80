# The samplers by name: the one list that bnn_fit(sampler = "<name>")
# (as_sampler()) reads.  Each entry has the constructor of its settings
# object (called without arguments), so that a name and its constructor's
# object are the same fit; a protocol of the papers ("mile": bnn_mile(),
# "dei": bnn_dei()) is a sampler object of its own class, whose methods
# give the defaults of bnn_fit() it changes (R/sampler-protocol.R).  A new named
# sampler is one line here; its class, C kernel and methods are described
# in R/sampler-class.R.
.sampler_registry <- list(
  mile  = list(make = function() bnn_mile()),
  nuts  = list(make = function() bnn_nuts()),
  hmc   = list(make = function() bnn_hmc()),
  dei   = list(make = function() bnn_dei()),
  rwm   = list(make = function() bnn_rwm()),
  pcn   = list(make = function() bnn_pcn()),
  mclmc = list(make = function() bnn_mclmc()),
  sgld  = list(make = function() bnn_sgld()),
  psgld = list(make = function() bnn_psgld()),
  sghmc = list(make = function() bnn_sghmc()),
  ces   = list(make = function() bnn_ces())
)

# The sampler of a default bnn_fit() call (no `sampler` given): MILE --
# MCLMC from the members of a deep ensemble, with MILE's tuning -- on a
# budget of 16,000/2,000/2,000 tuning steps and 5,000 sampling steps
# thinned by 10 (50,001 gradients per chain instead of MILE's 120,001, 500
# draws per chain), run in single precision by bnn_fit(), with the
# momentum's normal deviates from the ziggurat (the polar method's
# logarithms were a sixth of a chain's time on small data).  On the UCI
# sets it gives the same test log density as MILE's budget in double
# precision (mean over seeds) at about a third of the time:
# inst/benchmarks/decisions/default_budget.R and vignette("benchmarks").
# Every 10th step instead of every 5th: the same chains, half the draws,
# so half the work after them (the verdict's and the default's check's
# passes over the draws, a fifth of a stacked fit's time on small data),
# at the same test log density (default_budget_stack.R).  sampler = "mile"
# keeps the paper's budget.
default_sampler <- function() {
  bnn_mile(n_tune = c(16000L, 2000L, 2000L), n_samples = 5000, thin = 10,
           normal = "ziggurat")
}

# A sampler settings object from a name of .sampler_registry or a settings
# object (one of an older version gets its class, sampler_upgrade()).
as_sampler <- function(x) {
  if (inherits(x, c("bnn_sampler", "bnn_mclmc"))) return(sampler_upgrade(x))
  if (is.character(x) && length(x) == 1L) {
    entry <- .sampler_registry[[x]]
    if (is.null(entry) || !nzchar(x))
      stop(sprintf("'sampler' must be one of %s or a settings object such as bnn_nuts(), not \"%s\".",
                   paste0("\"", names(.sampler_registry), "\"", collapse = ", "), x),
           call. = FALSE)
    return(entry$make())
  }
  stop("'sampler' must be a name such as \"nuts\" or a settings object such as bnn_nuts().",
       call. = FALSE)
}

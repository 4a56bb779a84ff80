# The samplers by name: the one list that bnn_fit(sampler = "<name>")
# (as_sampler()) and the protocols' defaults read.  Each entry has the
# constructor of its settings object (called without arguments) and, for a
# protocol of the papers, the defaults of bnn_fit() it changes: `warmup`
# (the warm-up when `warmup` is not given) and `init` (the starts when
# `init` is not given).  A new named sampler is one line here; its class,
# C kernel and methods are described in R/sampler-class.R.
.sampler_registry <- list(
  mile  = list(make = function() bnn_mclmc(), init = "ensemble"),
  nuts  = list(make = function() bnn_nuts()),
  hmc   = list(make = function() bnn_hmc()),
  dei   = list(make = function() bnn_nuts(), warmup = 100L, init = "ensemble"),
  rwm   = list(make = function() bnn_rwm()),
  pcn   = list(make = function() bnn_pcn()),
  mclmc = list(make = function() bnn_mclmc()),
  sgld  = list(make = function() bnn_sgld()),
  psgld = list(make = function() bnn_psgld()),
  sghmc = list(make = function() bnn_sghmc()),
  ces   = list(make = function() bnn_ces())
)

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

# The default of bnn_fit()'s `what` ("warmup", "init") under the protocol
# named by `protocol` (NA: a settings object was given), or `default`.
sampler_protocol_default <- function(protocol, what, default) {
  if (is.na(protocol)) return(default)
  .sampler_registry[[protocol]][[what]] %||% default
}

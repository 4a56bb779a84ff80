# Model size: the number of parameters and the memory a fit will need,
# checked before anything is allocated (hidden = 1e6 would otherwise
# allocate gigabytes silently, and c(1e6, 1e6) overflows C's int).

#' Size limits of a model
#'
#' Before allocating anything, [bnn_fit()] and [bnn_ensemble()] count the
#' network's parameters and estimate the memory the fit will need: the kept
#' draws of all chains (`chains x draws x parameters` doubles, held twice
#' while the fit is assembled), the sampler's workspace of a chain (NUTS keeps
#' about `10 * (max_treedepth + 1) + 25` vectors of the parameters' length)
#' and the network's own workspace.  A fit above the limit stops with both
#' numbers.  The limit is `getOption("bnnmc.max_memory")` bytes, 4 GB
#' (`4e9`) by default; raise it with e.g. `options(bnnmc.max_memory = 16e9)`.
#' Independently of the option, a network cannot have more than
#' `.Machine$integer.max` parameters (the C core indexes them with `int`).
#'
#' `bnn_model_size()` gives the estimate for given layer sizes and settings.
#'
#' @param sizes Layer sizes: number of inputs, hidden widths, outputs.
#' @param chains,warmup,iter,thin As in [bnn_fit()].
#' @param sampler A sampler name or settings object, as in [bnn_fit()].
#' @return A list with `parameters` (a double, exact even above the integer
#'   range), `bytes` (the estimate) and `limit` (the current limit in bytes).
#' @export
#' @examples
#' bnn_model_size(c(8, 16, 16, 2))
#' bnn_model_size(c(8, 1e6, 2))$bytes / 1e9   # GB
bnn_model_size <- function(sizes, chains = 4, warmup = 1000, iter = 1000, thin = 1,
                           sampler = "nuts") {
  if (!is.numeric(sizes) || length(sizes) < 2L || anyNA(sizes) || any(sizes < 1) ||
      any(sizes != round(sizes)))
    stop("'sizes' must be positive whole numbers (inputs, hidden widths, outputs).",
         call. = FALSE)
  sampler <- as_sampler(sampler)
  n_par <- n_parameters_double(sizes)
  n_keep <- if (inherits(sampler, "bnn_mclmc"))
    ceiling(sampler$n_samples / sampler$thin) else iter   # iter draws kept, as bnn_fit()
  list(parameters = n_par,
       bytes = n_par * bytes_per_parameter(sampler, chains, n_keep) +
         model_workspace_bytes(sizes),
       limit = max_memory())
}

# Parameters of a network in double arithmetic (no integer overflow).
n_parameters_double <- function(sizes) {
  sizes <- as.double(sizes)
  L <- length(sizes) - 1L
  sum(sizes[-(L + 1L)] * sizes[-1L] + sizes[-1L])
}

max_memory <- function() {
  m <- getOption("bnnmc.max_memory", 4e9)
  if (!is.numeric(m) || length(m) != 1L || is.na(m) || m <= 0)
    stop("option 'bnnmc.max_memory' must be a positive number of bytes.", call. = FALSE)
  m
}

# Bytes per parameter of a fit: the kept draws of all chains (twice: the
# chains' results and the assembled array), the sampler workspace of one
# chain and the prior scales and inits.
bytes_per_parameter <- function(sampler, chains, n_keep) {
  work <- if (inherits(sampler, "bnn_mclmc")) 16 else
    if (!is.null(sampler$max_treedepth)) 10 * (sampler$max_treedepth + 1) + 25 else
      16   # kernels of the generic driver: a few vectors of the dimension
  8 * (2 * chains * n_keep + work + 4 + chains)
}

# The network's workspace: activations and deltas of a chunk of 256 rows.
model_workspace_bytes <- function(sizes) {
  8 * 256 * (2 * sum(as.double(sizes[-1L])) + 3 * max(as.double(sizes)))
}

# Stop before allocating when the network is too large.  per_par: bytes
# per parameter of what will be run (NULL: the model alone, 64 bytes).
check_model_size <- function(sizes, per_par = NULL) {
  n_par <- n_parameters_double(sizes)
  if (n_par > .Machine$integer.max)
    stop(sprintf(paste0("The network has %s parameters (layer sizes %s), more than ",
                        "the %s the C core can index. Use narrower hidden layers."),
                 format(n_par, big.mark = ",", scientific = FALSE),
                 paste(format(sizes, scientific = FALSE, trim = TRUE), collapse = "-"),
                 format(.Machine$integer.max, big.mark = ",")), call. = FALSE)
  bytes <- n_par * (per_par %||% 64) + model_workspace_bytes(sizes)
  lim <- max_memory()
  if (bytes > lim)
    stop(sprintf(paste0("The network has %s parameters (layer sizes %s); the fit would ",
                        "need about %s of memory, above the limit of %s. Use narrower ",
                        "hidden layers, fewer chains or draws (thin), or raise the limit ",
                        "with options(bnnmc.max_memory = <bytes>) (see ?bnn_model_size)."),
                 format(n_par, big.mark = ",", scientific = FALSE),
                 paste(format(sizes, scientific = FALSE, trim = TRUE), collapse = "-"),
                 format_bytes(bytes), format_bytes(lim)), call. = FALSE)
  invisible(bytes)
}

format_bytes <- function(b) {
  if (b >= 1e9) sprintf("%.1f GB", b / 1e9) else if (b >= 1e6)
    sprintf("%.1f MB", b / 1e6) else sprintf("%.0f kB", b / 1e3)
}

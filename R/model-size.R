# The size of a network: its number of parameters and the memory of its
# workspace, checked before anything is allocated (check_model_size(), used
# by prepare_model()); the memory of a whole fit is R/fit-size.R.

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

# Model size: the number of parameters and the memory a fit will need,
# checked before anything is allocated (hidden = 1e6 would otherwise
# allocate gigabytes silently, and c(1e6, 1e6) overflows C's int).

#' Size limits of a model
#'
#' Before allocating anything, [bnn_fit()] and [bnn_fit_ensemble()] count the
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
#' A calibration-emulation-sampling fit ([bnn_ces()]) counts every stage:
#' the calibration draws (`chains x calibration_iter x parameters`, not
#' thinned), the `J` emulator training pairs (parameters and the network's
#' outputs on the training data) and the sampling stage's kept draws.
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
  # iter draws kept, as bnn_fit(); MCLMC's come from its settings
  n_keep <- sampler_resolve_run(sampler, warmup, iter, sampler_default_thin(sampler),
                                given = c(warmup = FALSE, iter = FALSE, thin = FALSE))$n_keep
  list(parameters = n_par,
       bytes = n_par * bytes_per_parameter(sampler, chains, n_keep) +
         model_workspace_bytes(sizes),
       limit = max_memory())
}

# Stop before a CES fit whose stages would need more memory than the limit,
# naming the stage(s) to reduce.
check_ces_size <- function(ces, sizes, chains, n_keep, n_out) {
  n_par <- n_parameters_double(sizes)
  b <- ces_stage_bytes(ces, chains, n_keep, n_par, n_out)
  total <- sum(b) + model_workspace_bytes(sizes)
  lim <- max_memory()
  if (total > lim) {
    what <- c(calibration = sprintf("calibration_iter (%s iterations x %d chain%s x %s parameters)",
                                    format(ces$calibration_iter, big.mark = ",",
                                           scientific = FALSE), chains,
                                    if (chains == 1) "" else "s",
                                    format(n_par, big.mark = ",", scientific = FALSE)),
              emulator = sprintf("J (%d training pairs of %s parameters and %s outputs)",
                                 ces$J, format(n_par, big.mark = ",", scientific = FALSE),
                                 format(n_out, big.mark = ",", scientific = FALSE)),
              sampling = "iter / thin")
    # the stages that make up at least half of it, largest first
    o <- names(sort(b, decreasing = TRUE))
    big <- o[seq_len(which(cumsum(b[o]) >= 0.5 * sum(b))[1L])]
    stop(sprintf(paste0("This CES fit would need about %s of memory (calibration draws %s, ",
                        "emulator training pairs %s, sampling draws %s), above the limit of %s. ",
                        "Reduce %s, or raise the limit with ",
                        "options(bnnmc.max_memory = <bytes>) (see ?bnn_model_size)."),
                 format_bytes(total), format_bytes(b[["calibration"]]),
                 format_bytes(b[["emulator"]]), format_bytes(b[["sampling"]]),
                 format_bytes(lim), paste(what[big], collapse = ", or ")), call. = FALSE)
  }
  invisible(total)
}

# The engine of bnn_fit() (fit_engine(): the chains' starts, the chains, the
# fit object), the starting values, and the fit's assembly and failure
# reports.  The user's function is R/fit.R, the model frame R/model-frame.R.

# The engine of bnn_fit() (fit_engine(), a generic of the sampler classes,
# R/sampler-class.R): this default is the engine of samplers whose draws
# are their chains' (every sampler but a pipeline such as CES, whose method
# is in R/fit-ces.R): the fit of one plan (R/fit-plan.R: the chains'
# starts, a deep ensemble trained if asked, the sampler's preparation, the
# chains, in waves if asked, the fit object and its verdict).  model:
# prepare_model()'s list; the rest are bnn_fit()'s checked arguments, the
# run resolved by sampler_resolve_run().
fit_engine.default <- function(model, sampler, chains, warmup, iter, thin, init, seed,
                               progress, call, given_init = FALSE, ...) {
  plan <- new_bnn_plan(model, sampler, chains, warmup, iter, thin, init, seed, progress, call,
                       given_init, ...)
  done <- fit_plans(list(plan))[[1L]]
  for (cnd in done$warnings) warning(cnd)
  done$fit
}

# A run that keeps fewer than 100 draws per chain: its summaries, R-hat and
# ESS are unreliable (Stan's guidance), so say so with the call to run.
# One draw from each of many chains is not a short run but the design of
# Wiese et al. (2023) that bnn_modes(), bnn_waves() and bnn_kl_convergence()
# are built for: it pools the chains and has no per-chain summaries to
# mislead (bnn_diagnostics() and bnn_function_rhat() warn, class
# bnnmc_short_chains, when asked for them), so it is not warned about.
check_short_run <- function(fit, min_draws = 100L) {
  n <- dim(fit$draws)[1]
  # with every chain failed there is nothing to summarise: the failure
  # report says what happened
  if (n >= min_draws || !any(fit$chain_status == "ok")) return(invisible(NULL))
  if (n == 1L && sum(fit$chain_status == "ok") > 1L) return(invisible(NULL))
  warn_cond(sprintf(paste0("This fit keeps %d draw(s) per chain; summaries, R-hat and ESS need at ",
                           "least %d. Run longer, e.g. update(fit, iter = %d) (iter is the number ",
                           "of draws kept per chain)."), n, min_draws, max(1000L, min_draws)),
            "bnnmc_short_run")
}

# One initial vector per chain (unconstrained scale).
make_inits <- function(init, chains, dim, spec, prior, seed) {
  finite_lp <- function(th) {
    lp <- .Call(C_model_logpost, spec, matrix(th, ncol = 1L))$lp
    is.finite(lp)
  }
  if (is.character(init) && length(init) == 1L) {
    init <- match_choice(init, c("random", "prior"), "init")
    return(with_seed(seed, lapply(seq_len(chains), function(cid) {
      for (attempt in 1:100) {
        th <- if (init == "random") stats::runif(dim, -2, 2) else {
          s <- spec$prior_scale
          net <- if (prior$family == "normal") stats::rnorm(length(s), 0, s) else
            s * (stats::rexp(length(s)) - stats::rexp(length(s)))
          if (dim > length(s)) c(net, stats::runif(dim - length(s), -2, 2)) else net
        }
        if (finite_lp(th)) return(th)
      }
      stop(sprintf("Could not find initial values with a finite log posterior for chain %d after 100 attempts.", cid),
           call. = FALSE)
    })))
  }
  from_fun <- is.function(init)
  if (from_fun) init <- lapply(seq_len(chains), init)
  if (is.matrix(init)) init <- lapply(seq_len(nrow(init)), function(i) init[i, ])
  if (is.numeric(init) && !is.list(init)) {
    if (chains != 1L)
      stop(sprintf("'init' must be a list with one vector per chain (%d).", chains),
           call. = FALSE)
    init <- list(init)
  }
  if (!is.list(init))
    stop("'init' must be \"random\", \"prior\", a list of vectors, a matrix or a function.",
         call. = FALSE)
  if (length(init) != chains)
    stop(sprintf("'init' has %d starting points but there are %d chains.", length(init), chains),
         call. = FALSE)
  lapply(seq_along(init), function(i) {
    v <- init[[i]]
    who <- if (from_fun) sprintf("The 'init' function's value for chain %d", i) else
      sprintf("'init' for chain %d", i)
    if (!is.numeric(v) || length(v) != dim)
      stop(sprintf("%s must be a numeric vector of length %d (the number of parameters), not %s of length %d.",
                   who, dim, class(v)[1L], length(v)), call. = FALSE)
    bad <- which(!is.finite(v))
    if (length(bad))
      stop(sprintf("%s has missing or non-finite values (%s at position%s %s); initial values must be finite.",
                   who, paste(unique(format(v[bad])), collapse = ", "),
                   if (length(bad) > 1L) "s" else "",
                   paste(bad[seq_len(min(5L, length(bad)))], collapse = ", ")), call. = FALSE)
    as.double(v)
  })
}

report_failures <- function(fit) {
  diverged <- chain_status_label("nonfinite")
  bad <- which(fit$chain_status != "ok" & fit$chain_status != diverged)
  for (c in bad) {
    why <- as.character(fit$chain_status[c])
    fa <- fit$failed_at
    if (!is.null(fa) && !is.na(fa$reason[c]) && why == chain_status_label("failed"))
      why <- sprintf("%s (%s, step %s)", fa$reason[c], fa$phase[c],
                     format(fa$step[c], scientific = FALSE, trim = TRUE))
    warn_cond(sprintf("Chain %d failed: %s. Its draws are NA.", fit$chain_id[c] %||% c, why),
              "bnnmc_chain_failure")
  }
  # chains that turned non-finite (MCLMC with safeguard = "blackjax"): one
  # warning naming them all and where each failed
  div_ch <- which(fit$chain_status == diverged)
  if (length(div_ch)) {
    fa <- fit$failed_at
    where <- if (is.null(fa)) rep("", length(div_ch)) else
      sprintf(" (%s, step %s%s)", fa$phase[div_ch], format(fa$step[div_ch], scientific = FALSE, trim = TRUE),
              ifelse(fa$reason[div_ch] %in% "stepsize", ", step size NaN", ""))
    warn_cond(sprintf(paste0("%d of %d chains failed: non-finite state (NaN/Inf), the chain ",
                             "diverged: chain%s %s. Their draws are NA."),
                      length(div_ch), length(fit$chain_status),
                      if (length(div_ch) > 1L) "s" else "",
                      paste0((fit$chain_id %||% seq_along(fit$chain_status))[div_ch], where,
                             collapse = ", ")),
              "bnnmc_chain_failure")
  }
  ok <- fit$chain_status == "ok"   # failed chains were reported above
  div <- if ("divergent__" %in% dimnames(fit$sampler_stats)[[3]])
    sum(fit$sampler_stats[, ok, "divergent__"], na.rm = TRUE) else 0
  if (div > 0)
    warn_cond(paste0(sprintf("%d divergent transitions after warm-up (%.1f%% of draws). ",
                             div, 100 * div / (dim(fit$sampler_stats)[1] * sum(ok))),
                     "The draws near them may be biased; consider a larger adapt_delta, ",
                     "a smaller prior scale, or ensemble starts."), "bnnmc_divergence")
  sampler_fit_warnings(fit$sampler, fit, ok)
  invisible(NULL)
}

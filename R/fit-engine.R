# The engine of bnn_fit() (fit_engine(): the chains' starts, the chains, the
# fit object), the starting values, and the fit's assembly and failure
# reports.  The user's function is R/fit.R, the model frame R/model-frame.R.

# The engine of bnn_fit() (fit_engine(), a generic of the sampler classes,
# R/sampler-class.R): this default is the engine of samplers whose draws
# are their chains' (every sampler but a pipeline such as CES, whose method
# is in R/fit-ces.R): the chains' starts (a deep ensemble trained here if
# asked), the sampler's preparation, the chains (in waves if asked) and the
# fit object.  model: prepare_model()'s list; the rest are bnn_fit()'s
# checked arguments, the run resolved by sampler_resolve_run().
fit_engine.default <- function(model, sampler, chains, warmup, iter, thin, init, seed,
                               progress, call, given_init = FALSE,
                               waves = NULL, chain_id = NULL,
                               ensemble = NULL, valid_data = NULL, precision = "double",
                               verdict = TRUE, keep_loglik = FALSE, estimate_cost = TRUE,
                               defer = FALSE, ...) {
  spec <- model$spec
  dim <- spec_dim(spec)
  # what the fit will cost, said up front when it is long (R/run-cost.R);
  # the default model's linear check skips it for its linear model, which
  # is never long (at most .linear_check_max_rows rows)
  cost <- if (estimate_cost)
    tryCatch(fit_cost(spec, sampler, chains, warmup, iter, init,
                      ensemble_opt = if (identical(init, "ensemble"))
                        ensemble %||% sampler_ensemble_preset(sampler, model$likelihood),
                      n_members = max(chain_id %||% chains)),
             error = function(e) NULL)
  if (!isFALSE(progress) || (!is.null(cost) && cost$total > 600))
    announce_cost(cost, call, chains, full_batch = !sampler_minibatch(sampler))
  # chain k of this fit is chain ids[k] of the seed: its RNG stream and its
  # start are those it has in a fit of max(ids) chains (random and prior
  # inits come from one stream, an ensemble's member k from (seed, k))
  ids <- chain_id %||% seq_len(chains)
  n_gen <- max(ids)
  pick <- function(x) if (is.null(chain_id)) x else x[ids]
  ens <- NULL
  if (inherits(init, "bnn_ensemble")) {
    ens <- init
  } else if (identical(init, "ensemble")) {
    opt <- ensemble %||% sampler_ensemble_preset(sampler, model$likelihood)
    ens <- train_ensemble(model, n_gen, opt, valid_data, NULL, seed,
                          progress %||% interactive())
  }
  if (!is.null(valid_data) && !(identical(init, "ensemble") && !inherits(init, "bnn_ensemble")))
    warn_cond(paste0("'valid_data' is only used for the early stopping of a deep ensemble ",
                     "trained here (init = \"ensemble\", sampler = \"dei\" or \"mile\"); ",
                     "it is ignored by this fit. Evaluate held-out data with ",
                     "bnn_metrics(fit, newdata = ...) instead."), "bnnmc_ignored_argument")
  inits <- if (!is.null(ens)) pick(ensemble_inits(ens, n_gen, dim, spec)) else
    if (is.character(init) || is.function(init))
      pick(make_inits(init, n_gen, dim, spec, model$prior, seed)) else
        make_inits(init, chains, dim, spec, model$prior, seed)
  prep <- sampler_prepare(sampler, spec, inits, seed, warmup, iter, given_init)
  sampler <- prep$sampler
  inits <- prep$inits

  pars <- spec_par_names(spec)
  phases <- stats::setNames(c(warmup, iter), c(sampler_units(sampler)$phase, "sampling"))
  lr <- if (!is.null(ens)) ens$optimizer$lr else NULL
  render <- isTRUE(progress %||% interactive())
  # run_one(k, prog) runs the chain at position k of this fit, reporting to
  # the progress display `prog`; run_ids(pos) runs the chains at positions
  # `pos`
  run_one <- function(k, prog) {
    run_chain(spec, inits[[k]], seed, ids[k], sampler, warmup, iter, thin,
              progress = prog, fit_shape = TRUE, lr = lr)
  }
  simd_used <- character(0)
  run_ids <- function(pos) {
    prog <- make_progress(!isFALSE(progress), length(pos), warmup + iter, phases = phases,
                          render = render)
    out <- dispatch_chains(pos, function(k) run_one(k, prog))
    simd_used <<- union(simd_used, attr(out, "simd"))
    out
  }
  # the fit of the chains' results `res` (with the run's further fields
  # `...`; run_waves() calls it on the chains of the waves so far)
  finish <- function(res, elapsed = NA_real_, ...) {
    new_bnnfit(assemble_fit(res, pars, spec, sampler, warmup, iter, thin, seed, length(res),
                            ids[seq_along(res)]),
               model, call = call, elapsed = elapsed, ...)
  }
  # the fit of all its chains' results (`simd`: the SIMD levels they ran
  # at), with its reports and verdict
  complete_fit <- function(res, elapsed, simd, wave_log = NULL) {
    fit <- finish(res, elapsed,
                  waves = if (!is.null(wave_log)) list(log = wave_log, settings = waves),
                  inits = inits, cost_estimate = cost$total, precision = precision,
                  ensemble = ens, simd = simd)
    report_failures(fit)
    check_frozen_chains(fit)
    check_sd_collapse(fit)
    check_short_run(fit)
    # the verdict (R/diag-convergence.R); the linear check computes its
    # linear model's only when that model is returned (verdict = FALSE), and
    # keeps the network's pointwise log-likelihood for its PSIS-LOO
    # (keep_loglik)
    if (!verdict) return(fit)
    bnnfit_with(fit, convergence = check_convergence(fit, keep_loglik))
  }
  # deferred: the chains are run by the caller together with another
  # fit's (run_deferred()); waves decide their chains as they go, so they
  # cannot be deferred
  if (defer && !is.null(waves)) stop("a fit in waves cannot be deferred.", call. = FALSE)
  if (defer)
    return(structure(list(chains = chains, run_one = run_one, warmup = warmup, iter = iter,
                          phases = phases, render = render, progress = progress,
                          complete = complete_fit), class = "bnn_deferred_fit"))
  t_start <- proc.time()[[3]]
  if (is.null(waves)) {
    res <- run_ids(seq_len(chains))
    wave_log <- NULL
  } else {
    wv <- run_waves(waves, run_ids, finish, verbose = render)
    res <- wv$res
    wave_log <- wv$log
    chains <- length(res)
    inits <- inits[seq_len(chains)]
  }
  complete_fit(res, proc.time()[[3]] - t_start, simd_used, wave_log)
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

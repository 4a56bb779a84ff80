# A fit as a plan: what bnn_fit() will run, as data.
#
# bnn_fit() resolves its call into one plan per model it fits (the default
# model's checks fit two: the network and the linear model, or the
# heteroscedastic and the Student-t network).  A plan holds the model
# (prepare_model()'s list), the sampler with its run resolved
# (sampler_resolve_run()), the chains, their seed and starts, and how the
# fit is completed (its verdict, the label it is known by).  Its life:
#
#   new_bnn_plan()   the call resolved; print() shows it with its cost
#                    estimate (plan_cost()) before anything runs
#   plan_start()     the work before the chains: the cost said up front when
#                    it is long, a deep ensemble trained for the starts, the
#                    sampler's preparation
#   run_plans()      the chains of all the started plans in one dispatch
#                    (sequentially, on mc.cores, or on a future plan), each
#                    chain's draws those of its plan's (seed, chain id)
#   complete_plan()  the fit object (new_bnnfit()), its reports and verdict
#
# fit_plans() does the three steps for a list of plans, holding back each
# fit's warnings on its own; fit_engine.default() (below) is the same for
# one plan.  The chains' starts (make_inits()) and the reports of a
# finished fit (report_failures(), check_short_run()) are here too.  The
# default's choices (R/fit-choice.R) are steps on the finished fits.

# The plan of one fit.  model: prepare_model()'s list (or a variant of it,
# model_variant()); sampler, warmup, iter, thin: the run resolved; the rest
# as bnn_fit()'s checked arguments; `label`: what the plan is known by in a
# choice between models ("network", "linear", "heteroscedastic", ...);
# `verdict`: compute the convergence verdict on completion; `keep_loglik`:
# keep the verdict's pointwise log-likelihood for the default's PSIS-LOO
# choice (returned beside the fit by complete_plan(), not in it);
# `estimate_cost`: time a gradient to estimate the fit's cost; `optional`:
# a plan whose failure gives no fit rather than an error (fit_plans());
# `keep_interrupted`: the plan is a whole fit, whose finished chains an
# interrupt keeps for bnn_interrupted() (FALSE for a plan of the default's
# checks, one of several models: R/run-interrupt.R); `gradient_times`: an
# environment the plans of one call share, so that a network on the same
# rows has its gradient timed once (timed_gradient(), R/run-cost.R).
new_bnn_plan <- function(model, sampler, chains, warmup, iter, thin, init, seed, progress, call,
                         given_init = FALSE, waves = NULL,
                         chain_id = NULL, ensemble = NULL, valid_data = NULL,
                         precision = "double", verdict = TRUE, keep_loglik = FALSE,
                         estimate_cost = TRUE, label = "network", optional = FALSE,
                         keep_interrupted = TRUE, gradient_times = NULL) {
  structure(list(model = model, sampler = sampler, chains = as.integer(chains),
                 warmup = warmup, iter = iter, thin = thin, init = init, seed = seed,
                 progress = progress, call = call, given_init = given_init,
                 waves = waves, chain_id = chain_id,
                 ensemble = ensemble, valid_data = valid_data, precision = precision,
                 verdict = verdict, keep_loglik = keep_loglik, estimate_cost = estimate_cost,
                 label = label, optional = optional, keep_interrupted = keep_interrupted,
                 gradient_times = gradient_times, started = FALSE),
            class = "bnn_plan")
}

# The settings of the deep ensemble a plan trains for its starts.
plan_ensemble_opt <- function(plan) {
  plan$ensemble %||% sampler_ensemble_preset(plan$sampler, plan$model$likelihood)
}

# The plan's cost estimate (R/run-cost.R, fit_cost()): NULL when the plan
# does not estimate it or the estimate fails.
plan_cost <- function(plan) {
  if (!isTRUE(plan$estimate_cost)) return(NULL)
  tryCatch(fit_cost(plan$model$spec, plan$sampler, plan$chains, plan$warmup, plan$iter,
                    plan$init,
                    ensemble_opt = if (identical(plan$init, "ensemble")) plan_ensemble_opt(plan),
                    n_members = max(plan$chain_id %||% plan$chains),
                    gradient_times = plan$gradient_times, quick = TRUE),
           error = function(e) NULL)
}

#' @export
print.bnn_plan <- function(x, ...) {
  cat(sprintf("<bnn_plan> %s: %s network, %s likelihood, prior %s\n", x$label,
              paste(x$model$spec$sizes, collapse = "-"), x$model$likelihood$family,
              format(x$model$prior)))
  cat(sprintf("  %d chain(s), %s warm-up and %s sampling transitions (thin %d), seed %s\n",
              x$chains, format(x$warmup, big.mark = ","),
              format(x$iter * x$thin, big.mark = ","), as.integer(x$thin), format(x$seed)))
  cat("  sampler:", format(x$sampler), "\n")
  cost <- x$cost %||% if (!x$started) plan_cost(x)
  if (!is.null(cost))
    cat(sprintf("  estimated time %s (%s gradients per chain)\n", format_duration(cost$total),
                format(round(cost$gradients), big.mark = ",")))
  invisible(x)
}

# The work before the plan's chains run: the cost said up front when long
# (or when progress is shown), the starts (a deep ensemble trained here if
# asked), the sampler's preparation.  Returns the plan with its starts
# (`inits`), chain ids, prepared sampler, cost and progress phases.
plan_start <- function(plan) {
  spec <- plan$model$spec
  cost <- plan_cost(plan)
  if (!isFALSE(plan$progress) || (!is.null(cost) && cost$total > 600))
    announce_cost(cost, plan$call, plan$chains, full_batch = !sampler_minibatch(plan$sampler))
  # chain k of this fit is chain ids[k] of the seed: its RNG stream and its
  # start are those it has in a fit of max(ids) chains (random and prior
  # inits come from one stream, an ensemble's member k from (seed, k))
  ids <- plan$chain_id %||% seq_len(plan$chains)
  n_gen <- max(ids)
  pick <- function(x) if (is.null(plan$chain_id)) x else x[ids]
  init <- plan$init
  ens <- NULL
  # the rows the chains tune on (the default on large data), drawn once
  plan$warm_rows <- plan_warm_rows(plan)
  if (inherits(init, "bnn_ensemble")) {
    ens <- init
  } else if (identical(init, "ensemble")) {
    # on large data the default's ensemble is trained on the subsample its
    # chains tune on (R/run-warm-subsample.R)
    ens <- train_ensemble(plan_warm_model(plan), n_gen, plan_ensemble_opt(plan),
                          plan$valid_data, NULL, plan$seed, plan$progress %||% interactive())
  }
  if (!is.null(plan$valid_data) && !identical(init, "ensemble"))
    warn_cond(paste0("'valid_data' is only used for the early stopping of a deep ensemble ",
                     "trained here (init = \"ensemble\", sampler = \"dei\" or \"mile\"); ",
                     "it is ignored by this fit. Evaluate held-out data with ",
                     "bnn_metrics(fit, newdata = ...) instead."), "bnnmc_ignored_argument")
  dim <- spec_dim(spec)
  inits <- if (!is.null(ens)) pick(ensemble_inits(ens, n_gen, dim, spec)) else
    if (is.character(init) || is.function(init))
      pick(make_inits(init, n_gen, dim, spec, plan$model$prior, plan$seed)) else
        make_inits(init, plan$chains, dim, spec, plan$model$prior, plan$seed)
  prep <- sampler_prepare(plan$sampler, spec, inits, plan$seed, plan$warmup, plan$iter,
                          plan$given_init)
  plan$sampler <- prep$sampler
  plan$inits <- prep$inits
  plan$ids <- ids
  plan$ens <- ens
  plan$cost <- cost
  plan$phases <- stats::setNames(c(plan$warmup, plan$iter),
                                 c(sampler_units(plan$sampler)$phase, "sampling"))
  plan$lines <- progress_lines(plan$progress, cost)
  plan$render <- !plan$lines && isTRUE(plan$progress %||% interactive())
  plan$started <- TRUE
  plan
}

# What the chains of a started plan need, and nothing else: the network's
# specification (with its data), the starts and the run.  This is what a
# parallel plan sends to its workers (not the model frame, the data frame
# or the model's source, nor the ensemble).
plan_chain_part <- function(plan) {
  list(spec = plan$model$spec, inits = plan$inits, seed = plan$seed, ids = plan$ids,
       sampler = plan$sampler, warmup = plan$warmup, iter = plan$iter, thin = plan$thin,
       lr = if (!is.null(plan$ens)) plan$ens$optimizer$lr, warm_rows = plan$warm_rows)
}

# The rows of the subsample the plan's chains tune on (the default on large
# data, R/run-warm-subsample.R), or NULL; the same for a plan whatever
# runs it, from its seed.
plan_warm_rows <- function(plan) {
  m <- plan$sampler$warm_rows
  n <- NROW(plan$model$spec$X)
  if (is.null(m) || m >= n) return(NULL)
  warm_subsample_rows(n, m, plan$seed)
}

# The started plan's model, on the subsample its chains tune on when there
# is one (plan$warm_rows, for its deep ensemble).
plan_warm_model <- function(plan) {
  rows <- plan$warm_rows
  if (is.null(rows)) return(plan$model)
  m <- plan$model
  m$spec <- spec_rows(m$spec, rows)
  m
}

# The function of dispatch_chains() for the chains of `parts`
# (plan_chain_part()'s): job j is chain at[j] of part part[j], reporting
# to `prog` as chain j.  Made here so that its environment holds only
# these, evaluated: an argument left a promise would take its caller's
# frame (run_plans()'s plans, with the model frame and the data) to every
# worker.
chain_runner <- function(parts, part, at, offs, prog) {
  force(parts); force(part); force(at); force(offs); force(prog)
  function(j) {
    p <- parts[[part[j]]]
    pr <- if (!is.null(prog)) function(chain, done, total) prog(chain + offs[part[j]], done, total)
    if (!is.null(p$warm_rows))
      return(run_chain_warm_subsample(p$spec, p$warm_rows, p$inits[[at[j]]], p$seed,
                                      p$ids[at[j]], p$sampler, progress = pr, fit_shape = TRUE,
                                      lr = p$lr))
    run_chain(p$spec, p$inits[[at[j]]], p$seed, p$ids[at[j]], p$sampler, p$warmup, p$iter,
              p$thin, progress = pr, fit_shape = TRUE, lr = p$lr)
  }
}

# The chains at positions `pos` of the started plans `plans` (a list; pos
# a list of position vectors, all chains by default) in one dispatch, so
# that a parallel plan runs all of them at once instead of one fit's after
# the other's.  One progress display for all the chains (a plan's chain k
# is chain k plus the chains of the plans before it there; the first plan
# sets the steps per chain).  Returns per plan list(res, elapsed, simd):
# its chains' results, the run's elapsed seconds (shared), the SIMD
# levels.  `watch` (new_interrupt_watch(), R/run-interrupt.R) records the
# run and each chain's result as it finishes, for an interrupt.
run_plans <- function(plans, pos = lapply(plans, function(p) seq_len(p$chains)),
                      watch = NULL) {
  n <- lengths(pos)
  offs <- c(0L, cumsum(n))[seq_along(plans)]
  p1 <- plans[[1L]]
  prog <- make_progress(!isFALSE(p1$progress), sum(n), p1$warmup + p1$iter,
                        phases = p1$phases, render = p1$render, lines = isTRUE(p1$lines))
  part <- rep(seq_along(plans), n)
  at <- unlist(pos, use.names = FALSE)
  t0 <- proc.time()[[3]]
  if (!is.null(watch)) {
    watch$plans <- plans
    watch$pos <- pos
    watch$res <- vector("list", length(part))
    watch$t0 <- t0
  }
  out <- dispatch_chains(seq_along(part),
                         chain_runner(lapply(plans, plan_chain_part), part, at, offs, prog),
                         keep = watch)
  elapsed <- proc.time()[[3]] - t0
  lapply(seq_along(plans), function(i)
    list(res = out[offs[i] + seq_len(n[i])], elapsed = elapsed, simd = attr(out, "simd")))
}

# The fit of a started plan's chain results `res` (with the run's further
# fields `...`): the fit object from its one constructor.
plan_fit_object <- function(plan, res, elapsed = NA_real_, ...) {
  new_bnnfit(assemble_fit(res, spec_par_names(plan$model$spec), plan$model$spec, plan$sampler,
                          plan$warmup, plan$iter, plan$thin, plan$seed, length(res),
                          plan$ids[seq_along(res)]),
             plan$model, call = plan$call, elapsed = elapsed, ...)
}

# The chains of a started plan with waves (chains = bnn_waves(),
# R/run-waves.R): wave after wave of chains, the modes of the chains so far
# counted on their fit (bnn_chains_needed()), until the chain-count bound
# for the modes found is met or max_chains have run.  Returns the run as
# run_plans()'s element, with the waves' log.
run_plan_waves <- function(plan) {
  waves <- plan$waves
  simd <- character(0)
  t0 <- proc.time()[[3]]
  res <- list()
  log <- list()
  w <- 0L
  repeat {
    w <- w + 1L
    n0 <- length(res)
    ids <- seq.int(n0 + 1L, min(waves$max_chains, n0 + waves$wave))
    r <- run_plans(list(plan), list(ids))[[1L]]
    res <- c(res, r$res)
    simd <- union(simd, r$simd)
    n <- length(res)
    row <- data.frame(wave = w, chains = n, modes = NA_integer_, min_prob = NA_real_,
                      bound = NA_integer_, note = "")
    if (n >= waves$min_chains || n >= waves$max_chains) {
      est <- tryCatch(withCallingHandlers(
        do.call(bnn_chains_needed, c(list(plan_fit_object(plan, res), p = waves$p), waves$modes)),
        bnnmc_chain_failure = function(cnd) invokeRestart("muffleWarning")),
        error = function(e) e)
      if (inherits(est, "error")) {
        row$note <- paste("modes not estimated:", conditionMessage(est))
      } else {
        row$modes <- length(est$probs)
        row$min_prob <- min(est$probs)
        row$bound <- if (waves$bound == "exact" && !is.na(est$chains_exact))
          est$chains_exact else est$chains
      }
    }
    log[[w]] <- row
    if (plan$render || isTRUE(plan$lines))
      message(sprintf("wave %d: %d chains run%s", w, n,
                      if (is.na(row$bound)) (if (nzchar(row$note)) paste0("; ", row$note) else "") else
                        sprintf("; %d mode(s), smallest probability %.3f; bound for p = %s: %d chains",
                                row$modes, row$min_prob, format(waves$p), row$bound)))
    if (!is.na(row$bound) && n >= row$bound) break
    if (n >= waves$max_chains) {
      warn_cond(sprintf(paste0("max_chains = %d chains were run before the chain-count bound ",
                               "was met (last bound: %s chains for p = %s)."),
                        waves$max_chains, if (is.na(row$bound)) "not estimated" else row$bound,
                        format(waves$p)), "bnnmc_waves_incomplete")
      break
    }
  }
  list(res = res, elapsed = proc.time()[[3]] - t0, simd = simd,
       wave_log = do.call(rbind, log))
}

# The finished fit of a started plan from its run (run_plans()'s or
# run_plan_waves()'s element): the fit object, the reports of failed
# chains, frozen chains, collapsed sd and short runs, and the verdict
# (R/diag-convergence.R).  Returns list(fit, loglik): the verdict's
# pointwise log-likelihood and its training points when the plan keeps
# them (keep_loglik), for the default's PSIS-LOO choice.
complete_plan <- function(plan, run) {
  n <- length(run$res)
  fit <- plan_fit_object(plan, run$res, run$elapsed,
                         waves = if (!is.null(run$wave_log))
                           list(log = run$wave_log, settings = plan$waves),
                         inits = plan$inits[seq_len(n)], cost_estimate = plan$cost$total,
                         precision = plan$precision, ensemble = plan$ens, simd = run$simd)
  report_failures(fit)
  check_frozen_chains(fit)
  check_sd_collapse(fit)
  check_short_run(fit)
  if (!plan$verdict) return(list(fit = fit, loglik = NULL))
  cv <- check_convergence(fit, plan$keep_loglik)
  ll <- if (!is.null(attr(cv, "pointwise_loglik")))
    list(pointwise = attr(cv, "pointwise_loglik"), points = attr(cv, "loglik_points"))
  attr(cv, "pointwise_loglik") <- NULL
  attr(cv, "loglik_points") <- NULL
  list(fit = bnnfit_with(fit, convergence = cv), loglik = ll)
}

# The plans `plans` (a named list) fitted together: each started, all their
# chains run in one dispatch (a plan with waves on its own), each completed.
# Returns, per plan, list(fit, loglik, warnings) with the warnings of its
# start and completion held back (the caller signals those of the fits it
# returns); the run's own warnings, if any, go with the last plan.  A plan
# marked `optional` (the default's heteroscedastic network) that fails to
# start or complete is NULL instead of an error.  An interrupt keeps the
# chains that had finished, when the plans are one whole fit
# (interrupt_keep(), R/run-interrupt.R), and goes on.
fit_plans <- function(plans) {
  watch <- new_interrupt_watch(plans)
  withCallingHandlers(fit_plans_watched(plans, watch),
                      interrupt = function(cnd) interrupt_keep(watch))
}

fit_plans_watched <- function(plans, watch) {
  optional <- vapply(plans, function(p) isTRUE(p$optional), NA)
  held <- function(f, opt) {
    if (!opt) return(catch_warnings(f))
    tryCatch(catch_warnings(f), error = function(e) NULL)
  }
  out <- vector("list", length(plans))
  names(out) <- names(plans)
  started <- lapply(seq_along(plans), function(i) held(function() plan_start(plans[[i]]),
                                                       optional[i]))
  ok <- which(!vapply(started, is.null, NA))
  if (!length(ok)) return(out)
  go <- lapply(started[ok], `[[`, "fit")
  waves <- vapply(go, function(p) !is.null(p$waves), NA)
  if (any(waves) && length(go) > 1L)
    stop("a fit in waves cannot share its run with another fit.", call. = FALSE)
  # the chains of optional plans alone may fail without an error
  run <- held(function() if (any(waves)) list(run_plan_waves(go[[1L]])) else
    run_plans(go, watch = watch),
              all(optional[ok]))
  if (is.null(run)) return(out)
  last <- max(ok)
  for (k in seq_along(ok)) {
    i <- ok[k]
    done <- held(function() complete_plan(go[[k]], run$fit[[k]]), optional[i])
    if (is.null(done)) next
    # the run's own warnings (if any) go with the last plan
    out[[i]] <- list(fit = done$fit$fit, loglik = done$fit$loglik,
                     warnings = c(started[[i]]$warnings, if (i == last) run$warnings,
                                  done$warnings))
  }
  out
}

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

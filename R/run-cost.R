# What a fit will cost, said before it runs: a few gradients are timed, and
# the chosen sampler's gradient count turns that into a wall time.  Long
# fits are announced with the estimate; a fit that would take more than
# about 10 minutes on large data also gets the exact call of a minibatch
# sampler; chains that would run one after another on a machine with idle
# cores get the time under a parallel plan; a long double-precision fit
# gets its time in single precision.  Nothing is switched silently.

# Seconds per full-data gradient of the log posterior at theta (median of a
# few timed batches, at least ~20 ms of work in all).
# gcFirst = FALSE: system.time() runs a full gc() first by default, 0.1 s
# with the usual packages loaded, i.e. half a second per fit here
time_gradient <- function(spec, theta) {
  reps <- 2L
  repeat {
    t <- system.time(.Call(C_model_grad_loop, spec, theta, reps), gcFirst = FALSE)[["elapsed"]]
    if (t >= 0.01 || reps >= 4096L) break
    reps <- reps * 4L
  }
  times <- vapply(1:3, function(i)
    system.time(.Call(C_model_grad_loop, spec, theta, reps), gcFirst = FALSE)[["elapsed"]], 0)
  max(stats::median(times) / reps, 1e-7)
}

# Gradients (in units of one full-data gradient) per chain for a sampler,
# with `warmup` and `iter` sampling transitions as bnn_fit() runs them.
# `exact` says whether the count is known before running (MCLMC) or a
# typical value (NUTS: its trees adapt to the posterior).
chain_gradients <- function(sampler, warmup, iter, n_obs) UseMethod("chain_gradients")

# RWM, pCN: one density per step; samplers whose count differs have their
# method in their own file (R/sampler-<kind>.R).
chain_gradients.default <- function(sampler, warmup, iter, n_obs) {
  list(n = (warmup + iter), exact = TRUE)
}

# Workers the chains would run on, and the cores this machine has.
chain_workers <- function(chains) {
  workers <- 1L
  if (requireNamespace("future", quietly = TRUE) && !inherits(future::plan(), "sequential"))
    workers <- tryCatch(as.integer(future::nbrOfWorkers()), error = function(e) 1L)
  cores <- if (requireNamespace("parallelly", quietly = TRUE))
    parallelly::availableCores() else parallel::detectCores()
  list(workers = max(1L, min(workers, chains)), cores = as.integer(cores %||% 1L))
}

# The estimate: seconds for the ensemble (if one is trained here), per
# chain and for the whole fit.
fit_cost <- function(spec, sampler, chains, warmup, iter, init, ensemble_opt = NULL,
                     n_members = chains) {
  n_obs <- nrow(spec$X)
  theta <- 0.1 * sin(seq_len(spec_dim(spec)))   # no draw from R's RNG
  t_g <- time_gradient(spec, theta)
  g <- chain_gradients(sampler, warmup, iter, n_obs)
  ens <- 0
  if (!is.null(ensemble_opt)) ens <- n_members * (ensemble_opt$epochs %||% 1000) * t_g
  w <- chain_workers(chains)
  per_chain <- g$n * t_g
  total <- ens / w$workers + ceiling(chains / w$workers) * per_chain
  # a long fit in double precision: the same fit in single precision (its
  # own gradient timed; the ensemble's share scales with it), offered in
  # the announcement, never switched to
  single_total <- NULL
  if (total >= single_offer_seconds && identical(spec_precision(spec), "double")) {
    t_s <- time_gradient(spec_set_precision(spec, "single"), theta)
    if (t_s < 0.8 * t_g) single_total <- total * t_s / t_g
  }
  list(t_gradient = t_g, gradients = g$n, exact = g$exact, ensemble = ens,
       per_chain = per_chain, workers = w$workers, cores = w$cores,
       total = total,
       parallel_total = ens / min(w$cores, chains) +
         ceiling(chains / min(w$cores, chains)) * per_chain,
       n_obs = n_obs, single_total = single_total)
}

# Estimated seconds from which a double-precision fit's announcement also
# gives its time in single precision.
single_offer_seconds <- 120

# A minibatch call for a fit of `n` rows: SGLD with a step size of 0.02 / n
# (the posterior scale of a standardised network's weights shrinks as
# 1 / sqrt(n); at 0.05 / n one chain of four diverged on 100,000 rows),
# batches of 64 rows, 10,000 burn-in and 20,000 sampling steps per chain,
# and the homoscedastic Gaussian likelihood (SGLD on the heteroscedastic
# head diverges within a few dozen steps: its gradient grows as the
# predicted sd shrinks).  Measured in inst/benchmarks/decisions/large_data.R.
suggest_minibatch <- function(call, cost, chains = 4L) {
  n <- cost$n_obs
  eps <- signif(0.02 / n, 1)
  cl <- call
  cl$sampler <- str2lang(sprintf("bnn_sgld(stepsize = %s, batch_size = 64)", format(eps)))
  lik <- cl$likelihood
  swapped <- identical(lik, "hetero_gaussian")
  if (swapped) cl$likelihood <- "gaussian"
  cl$warmup <- 10000
  cl$iter <- 1000
  cl$thin <- 20
  steps <- 10000 + 1000 * 20
  per_step <- cost$t_gradient * 64 / n + 3e-5
  est <- ceiling(chains / cost$workers) * steps * per_step
  list(call = paste(deparse(cl, width.cutoff = 500L), collapse = " "), seconds = est,
       likelihood_changed = swapped)
}

# Say what the fit will cost, when that is worth saying.
announce_cost <- function(cost, call, chains, full_batch, quiet_below = 30) {
  if (is.null(cost) || cost$total < quiet_below) return(invisible(NULL))
  how <- if (cost$workers > 1) sprintf("on %d workers", cost$workers) else "one after another"
  msg <- sprintf(paste0("bnn_fit(): estimated time %s%s: %d chain(s) x %s gradients at %s each, %s",
                        "%s."),
                 if (cost$exact) "" else "about ", format_duration(cost$total), chains,
                 format(round(cost$gradients), big.mark = ","),
                 format_gradient_time(cost$t_gradient), how,
                 if (cost$ensemble > 0) sprintf(", plus the deep ensemble (at most %s)",
                                                format_duration(cost$ensemble / cost$workers)) else "")
  if (!cost$exact) msg <- paste0(msg, " (NUTS: assumes 63 gradients per iteration, tree depth 6;",
                                 " the progress bar's estimate follows the real pace)")
  if (cost$workers == 1L && chains > 1L && cost$cores > 1L)
    msg <- paste0(msg, sprintf(paste0(" The chains run one after another; with ",
                                      "future::plan(future::multisession) they would use %d cores: ",
                                      "about %s."), min(cost$cores, chains),
                               format_duration(cost$parallel_total)))
  if (!is.null(cost$single_total))
    msg <- paste0(msg, sprintf(paste0(" In single precision (precision = \"single\": float network ",
                                      "arithmetic, about 1e-7 relative error in the log density; ",
                                      "see ?bnn_fit) about %s."),
                               format_duration(cost$single_total)))
  if (full_batch && cost$total > 600 && cost$n_obs >= 5000) {
    s <- suggest_minibatch(call, cost, chains)
    msg <- paste0(msg, sprintf(paste0(" For %s rows a minibatch sampler (each step on 64 rows; ",
                                      "no Metropolis correction; see ?bnn_sgld) takes about %s",
                                      "%s:\n  %s"),
                               format(cost$n_obs, big.mark = ","), format_duration(s$seconds),
                               if (s$likelihood_changed)
                                 paste0(", with the homoscedastic Gaussian likelihood (SGLD ",
                                        "diverges on the heteroscedastic head)") else "",
                               s$call))
  }
  message(msg)
  invisible(msg)
}

format_gradient_time <- function(t) {
  if (t < 1e-3) sprintf("%.0f us", t * 1e6) else if (t < 1) sprintf("%.1f ms", t * 1e3) else
    sprintf("%.2f s", t)
}

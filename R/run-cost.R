# What a fit will cost, said before it runs: a few gradients are timed, and
# the chosen sampler's gradient count turns that into a wall time.  Long
# fits are announced with the estimate; a fit that would take more than
# about 10 minutes on large data also gets the exact call of a minibatch
# sampler; chains that would run one after another on a machine with idle
# cores get the time under a parallel plan; a long double-precision fit
# gets its time in single precision.  Nothing is switched silently.

# Seconds per full-data gradient of the log posterior at theta, as the fit
# will see them: the CPU time of a gradient (this process's user + system
# time, median of three timed batches of about 20 ms of CPU each: R reads
# CPU time to the millisecond) divided by the share of a core this process
# can expect (CPU over elapsed time summed over the three batches, or the
# cores over the 1-minute load average where that is lower: a few tens of
# milliseconds of elapsed time overrate the share on a loaded machine).
# CPU time does not count the time other processes take from this one, so
# it is stable on a busy machine (eight repeats by elapsed time over 10 ms
# gave single/double ratios from 0.29 to 29, see
# inst/benchmarks/speed/cost_estimate.R).  The value carries attributes
# "cpu" (CPU seconds per gradient) and "share".
# A target under .cost_precise_target is timed by elapsed time
# (time_per_rep(wall = TRUE)), which already counts the load: its share is 1.
time_gradient <- function(spec, theta, target = .cost_precise_target) {
  wall <- target < .cost_precise_target
  t <- time_per_rep(function(reps) .Call(C_model_grad_loop, spec, theta, reps), target, wall)
  share <- if (wall) 1 else min(1, max(min(t[["share"]], load_share()), 0.02))
  structure(t[["cpu"]] / share, cpu = t[["cpu"]], share = share)
}

# time_gradient() of spec, timed once per `gradient_times` (an environment
# that one bnn_fit() call shares among its plans, or NULL: timed each
# time): the models of a default call that differ only in their prior (the
# wider prior's second fit) have the same network on the same rows, and so
# the same cost per gradient.
timed_gradient <- function(spec, theta, gradient_times = NULL, target = .cost_precise_target) {
  if (is.null(gradient_times)) return(time_gradient(spec, theta, target))
  key <- paste(c(spec$type, spec$sizes, spec$act, spec$lik, nrow(spec$X), ncol(spec$X),
                 spec_precision(spec), target), collapse = " ")
  hit <- gradient_times[[key]]
  if (is.null(hit)) {
    hit <- time_gradient(spec, theta, target)
    assign(key, hit, envir = gradient_times)
  }
  hit
}

# Seconds per epoch of the deep ensemble's optimizer `opt` on spec, on the
# share of a core time_gradient() found (t_g's attribute "share"): a few
# epochs of member 1 timed by CPU time (no validation data, so no early
# stop).  An epoch of minibatches costs more than the full-data gradient
# its batches add up to: each step also updates every parameter (Adam)
# and gathers its batch, about 4 microseconds per step for a 5-16-16-1
# network, which made the MILE preset's ensemble (batches of 32) two to
# seven times the estimate from gradients alone
# (inst/benchmarks/speed/ensemble_cost.csv).
time_epoch <- function(spec, opt, t_g, target = .cost_precise_target) {
  o <- unclass(opt)
  o$patience <- NULL
  t <- time_per_rep(function(reps) {
    o$epochs <- reps
    do.call(.bnn_optimize, c(list(spec = spec, valid = NULL, seed = 1L, member = 1L), o))
  }, target, wall = target < .cost_precise_target)
  t[["cpu"]] / attr(t_g, "share")
}

# The share of a core this process gets over `seconds` of elapsed time
# running f(reps) (a batch of `reps` gradients of `cpu` CPU seconds each):
# CPU over elapsed time summed over the batches.  Over a second the
# scheduler's favour to a process that has just woken up has faded, and
# the share is what the process really gets, other processes' priorities
# (nice) included, which the load average does not see: on 2 cores at a
# 1-minute load of 3.9, most of it nice'd jobs, a long fit got about 0.9
# of a core where cores over load gave 0.51, and the estimate of 100,000
# rows was 1.86 times the true time
# (inst/benchmarks/speed/cost_estimate_large.csv).
measured_share <- function(f, cpu, seconds = 1) {
  reps <- as.integer(max(1, min(2^20, ceiling(0.1 / max(cpu, 1e-9)))))
  used <- 0
  wall <- 0
  while (wall < seconds) {
    t <- system.time(f(reps), gcFirst = FALSE)
    used <- used + t[["user.self"]] + t[["sys.self"]]
    wall <- wall + t[["elapsed"]]
  }
  min(1, max(used / max(wall, 1e-9), 0.02))
}

# Estimated seconds from which the core share is measured over a second
# (measured_share()) instead of taken from the gradients' short timing and
# the load average: a second more is nothing against such a fit.
.cost_share_long_above <- 60

# The share of a core a new busy process gets: cores over the 1-minute
# load average (at most 1; 1 where /proc/loadavg is not available).
load_share <- function() {
  l1 <- tryCatch(as.numeric(strsplit(readLines("/proc/loadavg", warn = FALSE), " ")[[1L]][1L]),
                 error = function(e) NA_real_, warning = function(w) NA_real_)
  if (!length(l1) || !is.finite(l1) || l1 <= 0) return(1)
  cores <- tryCatch(parallel::detectCores(), error = function(e) NA_integer_)
  if (!is.finite(cores) || cores < 1) return(1)
  min(1, cores / l1)
}

# (chain_gradients() and chain_sampler_seconds(), the sampler's part of the
# estimate, are generics of the sampler classes: R/sampler-class.R.)

# Workers the chains would run on, and the cores this machine has.
chain_workers <- function(chains) {
  workers <- 1L
  if (requireNamespace("future", quietly = TRUE) && !inherits(future::plan(), "sequential"))
    workers <- tryCatch(as.integer(future::nbrOfWorkers()), error = function(e) 1L)
  else if (mc_cores_plan(chains)) workers <- mc_cores()
  cores <- if (requireNamespace("parallelly", quietly = TRUE))
    parallelly::availableCores() else parallel::detectCores()
  list(workers = max(1L, min(workers, chains)), cores = as.integer(cores %||% 1L))
}

# The estimate: seconds for the ensemble (if one is trained here), per
# chain and for the whole fit.  With quick = TRUE (a fit's plans) the
# gradient and the ensemble's epoch are first timed in batches of about
# 4 ms of elapsed time (time_per_rep(wall = TRUE): on a busy machine this
# overrates the cost, never underrates it); a fit that this puts under
# .cost_quick_enough seconds keeps that estimate, since nothing is
# announced for it and no progress is reported in lines, and only a longer
# one is timed again by CPU time in batches of 20 ms.  The precise timings
# took about 0.2 s of a 2-s default fit on 93 rows (MASS::mcycle), a tenth
# of it.  `rough` in the result says which it is.
fit_cost <- function(spec, sampler, chains, warmup, iter, init, ensemble_opt = NULL,
                     n_members = chains, gradient_times = NULL, quick = FALSE) {
  if (quick) {
    est <- fit_cost_at(spec, sampler, chains, warmup, iter, init, ensemble_opt, n_members,
                       gradient_times, .cost_quick_target)
    if (est$total < .cost_quick_enough) return(est)
  }
  fit_cost_at(spec, sampler, chains, warmup, iter, init, ensemble_opt, n_members,
              gradient_times, .cost_precise_target)
}

# CPU seconds per timed batch of the quick estimate, and the estimated
# seconds under which a fit keeps it (a third of the minute from which
# progress is reported in lines, .progress_lines_min_seconds).
.cost_quick_target <- 0.004
.cost_quick_enough <- 20

# CPU seconds per timed batch of the precise estimate: R reads CPU time to
# the millisecond, and the kernel's count can move in steps of several.
.cost_precise_target <- 0.02

# fit_cost() with the gradient and the epoch timed in batches of `target`
# CPU seconds.
fit_cost_at <- function(spec, sampler, chains, warmup, iter, init, ensemble_opt, n_members,
                        gradient_times, target) {
  n_obs <- nrow(spec$X)
  theta <- 0.1 * sin(seq_len(spec_dim(spec)))   # no draw from R's RNG
  t_g <- timed_gradient(spec, theta, gradient_times, target)
  g <- chain_gradients(sampler, warmup, iter, n_obs)
  w <- chain_workers(chains)
  # CPU seconds: the ensemble's, the sampler's own work per chain, and the
  # work after the chains: the verdict's predictions and PSIS-LOO at up
  # to 500 training points (bnn_convergence()) and the assembly of the
  # fit, about 0.3 s plus 1 ms per point (measured with one to four
  # chains of 1,000 draws: inst/benchmarks/speed/cost_estimate.R)
  ens_cpu <- if (is.null(ensemble_opt)) 0 else
    n_members * (ensemble_opt$epochs %||% 1000) * time_epoch(spec, ensemble_opt, t_g, target) *
      attr(t_g, "share") *
      # trained on the subsample the chains tune on (R/run-warm-subsample.R)
      min(1, (sampler$warm_rows %||% n_obs) / n_obs)
  own_cpu <- chain_sampler_seconds(sampler, warmup, iter, length(theta))
  post_cpu <- 0.3 + 1e-3 * min(n_obs, 500)
  # ... in wall time on the share of a core the gradients got
  wall <- function(share) {
    per_chain <- (g$n * attr(t_g, "cpu") + own_cpu) / share
    list(ens = ens_cpu / share, per_chain = per_chain, post = post_cpu / share,
         total = (ens_cpu / w$workers + post_cpu) / share +
           ceiling(chains / w$workers) * per_chain)
  }
  est <- wall(attr(t_g, "share"))
  if (est$total > .cost_share_long_above) {
    # a long fit: the share measured over a second (measured_share())
    share <- measured_share(function(reps) .Call(C_model_grad_loop, spec, theta, reps),
                            attr(t_g, "cpu"))
    t_g <- structure(attr(t_g, "cpu") / share, cpu = attr(t_g, "cpu"), share = share)
    est <- wall(share)
  }
  ens <- est$ens
  per_chain <- est$per_chain
  post <- est$post
  total <- est$total
  # a long fit in double precision: the same fit in single precision (its
  # own gradient timed; the ensemble's share scales with it), offered in
  # the announcement, never switched to
  single_total <- NULL
  # (the ratio of CPU times: both free of the machine's load)
  if (total >= single_offer_seconds && identical(spec_precision(spec), "double")) {
    t_s <- time_gradient(spec_set_precision(spec, "single"), theta)
    ratio <- attr(t_s, "cpu") / attr(t_g, "cpu")
    if (ratio < 0.8) single_total <- total * ratio
  }
  list(t_gradient = as.double(t_g), t_gradient_cpu = attr(t_g, "cpu"),
       cpu_share = attr(t_g, "share"), gradients = g$n, exact = g$exact, ensemble = ens,
       per_chain = per_chain, workers = w$workers, cores = w$cores,
       total = total,
       parallel_total = ens / min(w$cores, chains) +
         ceiling(chains / min(w$cores, chains)) * per_chain + post, post = post,
       n_obs = n_obs, single_total = single_total, rough = target < .cost_precise_target)
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
  list(call = deparse_call_short(cl), seconds = est, likelihood_changed = swapped)
}

# A call as one line for a message, its arguments abbreviated: what the user
# typed (names, short expressions, short values) is shown as it is; a value
# that do.call() put into the call (a data frame, a function, a long vector)
# is shown by what it is, e.g. <data frame: 6000 x 10>, never deparsed whole.
deparse_call_short <- function(call, max_chars = 60L) {
  if (!is.call(call)) return(deparse_arg_short(call, max_chars))
  args <- as.list(call)[-1L]
  fun <- call[[1L]]
  fun <- if (is.symbol(fun)) as.character(fun) else deparse_arg_short(fun, max_chars)
  nm <- names(args) %||% rep("", length(args))
  parts <- vapply(seq_along(args), function(i) {
    v <- deparse_arg_short(args[[i]], max_chars)
    if (nzchar(nm[i])) paste(nm[i], "=", v) else v
  }, "")
  sprintf("%s(%s)", fun, paste(parts, collapse = ", "))
}

deparse_arg_short <- function(x, max_chars = 60L) {
  if (is.symbol(x)) return(deparse(x, backtick = TRUE))
  if (is.data.frame(x)) return(sprintf("<data frame: %d x %d>", nrow(x), ncol(x)))
  if (is.function(x)) return("<function>")
  if (is.environment(x)) return("<environment>")
  # what the user typed (a formula, an expression) is shown in full unless
  # it is very long; values only when short
  typed <- is.language(x) || inherits(x, "formula")
  if (typed || (is.atomic(x) && length(x) <= 10L) || is.null(x)) {
    s <- paste(deparse(x, width.cutoff = 500L, nlines = 5L), collapse = " ")
    if (nchar(s) <= (if (typed) 10L * max_chars else max_chars)) return(s)
    if (typed) return(paste0(substr(s, 1L, 10L * max_chars - 3L), "..."))
  }
  if (is.matrix(x)) return(sprintf("<%s matrix: %d x %d>", typeof(x), nrow(x), ncol(x)))
  if (is.atomic(x)) return(sprintf("<%s vector of length %d>", typeof(x), length(x)))
  sprintf("<%s>", class(x)[1L])
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
                                      "options(mc.cores = %d) they would use %d cores: ",
                                      "about %s."), min(cost$cores, chains), min(cost$cores, chains),
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

# The coverage study (Staber and Da Veiga): every method fitted to many
# training sets, its jobs saved and resumed, and the study assembled.  The
# metrics are R/eval-coverage-metrics.R, summaries and plots
# R/eval-coverage-methods.R.

# A stable integer from a method label (so a method's seed does not depend
# on its position in the list of methods).
label_code <- function(label) {
  u <- utf8ToInt(label)
  sum(u * seq_along(u)) %% 100003L
}

# One training set of the study.
study_train_set <- function(ctx, j) {
  if (!is.null(ctx$task)) return(task_train_set(ctx$task, ctx$seed, j))
  d <- ctx$data
  idx <- with_seed(derive_seed(ctx$seed, j, 1L), sample.int(nrow(d), nrow(d), replace = TRUE))
  d[idx, , drop = FALSE]
}

job_file <- function(dir, j, label) file.path(dir, sprintf("job_set%04d_%s.rds", j, label))

# Fit method k to training set j, predict on the test set and record the
# indicators.  Uses R's RNG only inside with_seed(), so the result is the
# same wherever and in whatever order the job runs.
run_coverage_job <- function(j, k, ctx) {
  meth <- ctx$methods[[k]]
  seed <- derive_seed(ctx$seed, j, 1000L + label_code(meth$label))
  warns <- character(0)
  t0 <- proc.time()[[3]]
  res <- tryCatch(withCallingHandlers({
    data <- study_train_set(ctx, j)
    obj <- meth$fit(ctx$formula, data, ctx$model, seed, meth$settings)
    pp <- method_predictive(obj, ctx$test)
    b <- predictive_bounds(pp$mu, pp$sd, ctx$levels, ctx$interval, derive_seed(seed, 7L))
    inside <- b$lower <= ctx$y_test & ctx$y_test <= b$upper       # points x levels
    mean_pred <- colMeans(pp$mu)
    keep <- NULL
    if (ctx$keep_draws > 0L) {
      S <- nrow(pp$mu)
      keep <- pp$mu[unique(round(seq(1, S, length.out = min(S, ctx$keep_draws)))), , drop = FALSE]
    }
    cost <- method_cost(obj)
    rh <- method_rhat(obj, ctx$test)
    list(status = "ok", message = NA_character_, inside = t(inside), mean = mean_pred,
         width = colMeans(b$upper - b$lower), q2 = .bnn_q2(ctx$y_test, mean_pred),
         draws = keep, n_grad = cost$n_grad, accept = cost$accept, stepsize = cost$stepsize,
         n_draws = nrow(pp$mu), rhat_max = rh[1], rhat_median = rh[2])
  }, warning = function(w) {
    warns <<- c(warns, conditionMessage(w))
    invokeRestart("muffleWarning")
  }), error = function(e) list(status = "failed", message = conditionMessage(e)))
  res$seconds <- proc.time()[[3]] - t0
  res$set <- j
  res$method <- meth$label
  res$warnings <- unique(warns)
  if (!is.null(ctx$dir)) saveRDS(res, job_file(ctx$dir, j, meth$label))
  res
}

# What must match for saved jobs to be reused.
study_config <- function(ctx) {
  list(task = if (!is.null(ctx$task)) unclass(ctx$task)[setdiff(names(ctx$task), "f")],
       data = ctx$data, test = ctx$test, formula = deparse1(ctx$formula),
       model = ctx$model, levels = ctx$levels, interval = ctx$interval, seed = ctx$seed,
       keep_draws = ctx$keep_draws,
       methods = method_configs(ctx$methods))
}

# The methods of a study keyed by label (name and settings), so that a
# saved study can be extended by new methods while a label keeps its
# settings.  Accepts the unnamed list of earlier versions.
method_configs <- function(methods) {
  m <- lapply(methods, function(m) list(name = m$name, label = m$label,
                                        settings = complete_settings(m$settings)))
  stats::setNames(m, vapply(m, function(x) x$label, ""))
}

# Optimiser settings saved by an earlier version of the package lack the
# fields added since; they are read with those fields' defaults (the
# values that reproduce the earlier behaviour), so that the saved study
# compares equal to the same study made now.
complete_settings <- function(x) {
  if (inherits(x, "bnn_optimizer")) {
    d <- bnn_optimizer(optimizer = x$optimizer)
    miss <- setdiff(names(d), names(x))
    if (length(miss)) x[miss] <- d[miss]
    return(x[c(names(d), setdiff(names(x), names(d)))])
  }
  if (is.list(x) && !is.object(x)) x[] <- lapply(x, complete_settings)
  x
}

# Merge the saved configuration `old` with the new one: everything but the
# methods must be equal; a label present in both must have the same name
# and settings.  Returns the union, or stops naming what differs.
merge_study_config <- function(old, cfg, dir) {
  om <- method_configs(old$methods)
  same <- isTRUE(all.equal(old[setdiff(names(old), "methods")],
                           cfg[setdiff(names(cfg), "methods")]))
  if (!same)
    stop(sprintf("'dir' (%s) holds a study of another task, data, model, levels or seed; use another directory.",
                 dir), call. = FALSE)
  for (lab in intersect(names(om), names(cfg$methods)))
    if (!isTRUE(all.equal(om[[lab]], cfg$methods[[lab]])))
      stop(sprintf("'dir' (%s) holds method '%s' with other settings; give it another label or use another directory.",
                   dir, lab), call. = FALSE)
  cfg$methods <- c(om, cfg$methods[setdiff(names(cfg$methods), names(om))])
  cfg
}

fmt_eta <- function(s) {
  if (!is.finite(s)) return("?")
  if (s < 90) return(sprintf("%.0f s", s))
  if (s < 5400) return(sprintf("%.1f min", s / 60))
  sprintf("%.1f h", s / 3600)
}

#' Coverage of prediction intervals over many training sets
#'
#' Staber and Da Veiga's protocol: fit each method to each of `n_sets`
#' training sets (drawn from a task's generator, or bootstrap resamples of
#' a data set), predict on one shared test set, and record the indicator
#' array I\[j, i\] = 1 when test response i lies in fit j's prediction
#' interval, at every level.  From it come the PICP of each training set,
#' the CCP of each test point, the MCP and the mean absolute error of CCP to
#' the level ([bnn_coverage_metrics()]), and MCP against the level; see
#' [summary.bnn_coverage_study()] and [plot.bnn_coverage_study()].  The
#' PICP on one test set, what a single split reports, varies much from one
#' training set to the next: the MCP and the CCP are what tell whether a
#' method's intervals have their nominal coverage.
#'
#' **Intervals** (`interval`): `"quantile"` (default) takes the exact
#' equal-tailed quantiles of the predictive distribution of f(x; w) +
#' sigma xi, the mixture over posterior draws of N(mu_s, sd_s^2), computed
#' in C ([bnn_mixture_quantile()]); `"sampled"` takes the empirical
#' quantiles of one noisy draw per posterior draw, as the authors' code (it
#' adds Monte Carlo noise); `"gaussian"` is mean +- z sqrt(variance of the
#' means + mean noise variance), as the authors' Laplace intervals.
#'
#' **Reproducibility.**  The (set, method) jobs run as futures under the
#' user's [future::plan()] when \pkg{future} is installed: each worker
#' takes the next job (in the order set by set, method by method) as soon
#' as it is free, so one long job (an HMC reference) does not hold the
#' other workers.  Training set j is drawn from a seed derived from `seed` and
#' j; each job's fit gets a seed derived from `seed`, j and the method's
#' label; nothing depends on R's RNG state or on where and in which order a
#' job runs, so the results are the same under any plan.
#'
#' **Resuming.**  With `dir`, every finished job is saved there as one file
#' (`job_set<j>_<label>.rds`), with the study's settings (`study.rds`).  A
#' study re-run with the same `dir` and settings skips the saved jobs; a
#' larger `n_sets` adds sets; methods with new labels are added to the
#' saved study; a saved label with other settings, or another task, data,
#' model, levels or seed, is an error.
#'
#' @param task A [bnn_paper_task()] or its name (`"AF1"`, ...), or a data frame to
#'   resample (bootstrap study; give `formula` and `test`).
#' @param methods Method names or [bnn_method()] objects (see
#'   [bnn_methods()]); their labels must be distinct.
#' @param n_sets Number of training sets (at least 2).
#' @param levels Nominal levels 1 - alpha of the intervals, in (0, 1); by
#'   default the 19 levels 0.05, 0.10, ..., 0.95.
#' @param target The level of the summaries (MCP, MAE of CCP); added to
#'   `levels` if missing.
#' @param interval `"quantile"`, `"sampled"` or `"gaussian"`.
#' @param test Test data frame: for a task, its test set by default; for a
#'   data frame `task`, required (held-out data).
#' @param formula Model formula of a bootstrap study (a task's is `y ~ x`).
#' @param model Network arguments of [bnn_fit()]: a list with any of
#'   `hidden`, `activation`, `likelihood`, `prior`, `standardize`.  For a
#'   task they default to its surrogate; for a data frame to `hidden =
#'   c(16, 16)`, `activation = "relu"` and [bnn_fit()]'s defaults.
#' @param seed A whole number: the study's seed.
#' @param dir Optional directory to save finished jobs in and resume from.
#' @param keep_draws Keep this many draws of the mean function at the test
#'   inputs per job (for function-space MMD); `reference` sets it to 100
#'   if 0.
#' @param reference Optional label of a method (e.g. `"hmc"`) to which the
#'   function-space MMD^2 ([bnn_mmd()]) of every other method is computed
#'   per training set.
#' @param progress Report progress and an estimate of the remaining time
#'   through \pkg{progressr}.
#' @return An object of class `bnn_coverage_study` with the indicator
#'   array `inside[set, method, level, point]` (`NA` for failed jobs), the
#'   mean predictions `mean[set, method, point]`, `q2[set, method]`,
#'   interval widths `width[set, method, level]`, `mmd_ref[set, method]`
#'   (with `reference`), a data frame `jobs` (status, message, warnings,
#'   seconds, gradient evaluations, acceptance rate and step size of each
#'   job, and for fits with several chains the largest and median
#'   function-space R-hat over the test inputs, [bnn_function_rhat()]), the
#'   test set, the levels and the settings.
#' @references Staber, B. and Da Veiga, S. (2022). Benchmarking Bayesian
#'   neural networks and evaluation metrics for regression tasks.
#'   arXiv:2206.06779.
#' @seealso [bnn_paper_task()], [bnn_method()], [bnn_coverage_metrics()]
#' @export
#' @examples
#' \donttest{
#' task <- bnn_paper_task("AF1")
#' task$hidden <- 8          # a small network, for the example's speed
#' st <- bnn_coverage_study(task, list(
#'   bnn_method("ensemble", members = 5, optimizer = bnn_optimizer(epochs = 300)),
#'   bnn_method("nuts", chains = 1, warmup = 100, iter = 100)),
#'   n_sets = 3, seed = 1, progress = FALSE)
#' summary(st)
#' plot(st)
#' }
bnn_coverage_study <- function(task, methods, n_sets = 50, levels = seq(0.05, 0.95, by = 0.05),
                               target = 0.95, interval = c("quantile", "sampled", "gaussian"),
                               test = NULL, formula = NULL, model = NULL, seed = 1,
                               dir = NULL, keep_draws = 0, reference = NULL,
                               progress = interactive()) {
  n_sets <- check_count(n_sets, "n_sets", 2L)
  levels <- .bnn_check_levels(levels)
  target <- check_prob(target, "target")
  levels <- sort(unique(c(levels, target)))
  if (missing(interval)) interval <- "quantile"
  interval <- match_choice(interval, c("quantile", "sampled", "gaussian"), "interval")
  seed <- check_count(seed, "seed", 0L)
  keep_draws <- check_count(keep_draws, "keep_draws", 0L)
  if (missing(methods) || !length(methods))
    stop("'methods' must name at least one method, e.g. c(\"nuts\", \"ensemble\").",
         call. = FALSE)
  if (is.character(methods)) methods <- as.list(methods)
  if (inherits(methods, "bnn_method")) methods <- list(methods)
  methods <- lapply(methods, as_method)
  labels <- vapply(methods, function(m) m$label, character(1))
  if (anyDuplicated(labels))
    stop("The methods' labels must be distinct; give bnn_method(..., label = ).", call. = FALSE)
  if (!is.null(reference)) {
    if (!is.character(reference) || length(reference) != 1L || !reference %in% labels)
      stop("'reference' must be the label of one of the methods.", call. = FALSE)
    if (keep_draws == 0L) keep_draws <- 100L
  }

  ctx <- list(methods = methods, levels = levels, target = target, interval = interval, seed = seed,
              keep_draws = keep_draws, task = NULL, data = NULL)
  if (is.data.frame(task)) {
    if (is.null(formula) || !inherits(formula, "formula"))
      stop("A bootstrap study on a data frame needs 'formula'.", call. = FALSE)
    if (is.null(test) || !is.data.frame(test))
      stop("A bootstrap study on a data frame needs held-out 'test' data (a data frame).",
           call. = FALSE)
    ctx$data <- task
    ctx$formula <- formula
    mdl <- list(hidden = c(16L, 16L), activation = "relu")
  } else {
    task <- as_task(task)
    ctx$task <- task
    ctx$formula <- task$formula
    if (is.null(test)) test <- task_test_set(task, seed)
    mdl <- task[c("hidden", "activation", "likelihood", "prior", "standardize")]
  }
  if (!is.null(model)) {
    if (!is.list(model) || is.null(names(model)) ||
        length(setdiff(names(model), c("hidden", "activation", "likelihood", "prior", "standardize"))))
      stop("'model' must be a list with any of hidden, activation, likelihood, prior, standardize.",
           call. = FALSE)
    mdl[names(model)] <- model
  }
  ctx$model <- mdl
  if (!is.data.frame(test)) stop("'test' must be a data frame.", call. = FALSE)
  ctx$test <- test
  yname <- all.vars(ctx$formula)[1]
  if (is.null(test[[yname]]) || !is.numeric(test[[yname]]))
    stop(sprintf("'test' must have the numeric response '%s'.", yname), call. = FALSE)
  ctx$y_test <- as.double(test[[yname]])

  # saved jobs
  done <- list()
  if (!is.null(dir)) {
    if (!is.character(dir) || length(dir) != 1L) stop("'dir' must be a directory path.", call. = FALSE)
    dir.create(dir, showWarnings = FALSE, recursive = TRUE)
    cfg_file <- file.path(dir, "study.rds")
    cfg <- study_config(ctx)
    if (file.exists(cfg_file)) {
      old <- readRDS(cfg_file)
      merged <- merge_study_config(old, cfg, dir)
      if (length(merged$methods) > length(old$methods)) saveRDS(merged, cfg_file)
    } else saveRDS(cfg, cfg_file)
    ctx$dir <- dir
  }
  jobs <- expand.grid(set = seq_len(n_sets), method = seq_along(methods))
  todo <- rep(TRUE, nrow(jobs))
  if (!is.null(ctx$dir)) {
    for (r in seq_len(nrow(jobs))) {
      f <- job_file(ctx$dir, jobs$set[r], labels[jobs$method[r]])
      if (file.exists(f)) {
        done[[r]] <- readRDS(f)
        todo[r] <- FALSE
      }
    }
  }
  length(done) <- nrow(jobs)

  # set by set (all methods of set 1 first), so an interrupted study has
  # complete sets
  idx <- which(todo)
  idx <- idx[order(jobs$set[idx], jobs$method[idx])]
  use_future <- requireNamespace("future", quietly = TRUE)
  wave <- if (use_future) max(1L, as.integer(future::nbrOfWorkers())) else 1L
  run_all <- function() {
    p <- if (isTRUE(progress) && requireNamespace("progressr", quietly = TRUE))
      progressr::progressor(steps = max(1L, length(idx))) else NULL
    t0 <- proc.time()[[3]]
    n_done <- 0L
    finished <- function(r, value) {
      done[[r]] <<- value
      n_done <<- n_done + 1L
      if (!is.null(p)) {
        el <- proc.time()[[3]] - t0
        p(message = sprintf("%d/%d jobs (set %d, %s), ETA %s", n_done, length(idx),
                            jobs$set[r], labels[jobs$method[r]],
                            fmt_eta(el / n_done * (length(idx) - n_done))))
      }
    }
    if (!use_future || wave < 2L) {
      for (r in idx) finished(r, run_coverage_job(jobs$set[r], jobs$method[r], ctx))
      return(invisible())
    }
    # Load-balanced: each worker takes the next job as soon as it is free
    # (a job's result depends only on its set and method, not on when or
    # where it runs).  At most `wave` futures are pending at a time.
    pending <- list()
    keys <- integer(0)
    nxt <- 1L
    while (nxt <= length(idx) || length(pending)) {
      while (length(pending) < wave && nxt <= length(idx)) {
        r <- idx[nxt]
        nxt <- nxt + 1L
        pending[[length(pending) + 1L]] <- future::future(
          quote(FUN(set, method, ctx)), substitute = FALSE, seed = FALSE, packages = "bnnmc",
          globals = list(FUN = run_coverage_job, set = jobs$set[r], method = jobs$method[r],
                         ctx = ctx), label = sprintf("bnnmc-job-%d", r))
        keys <- c(keys, r)
      }
      ready <- which(vapply(pending, future::resolved, logical(1)))
      if (!length(ready)) {
        Sys.sleep(0.05)
        next
      }
      for (i in ready) finished(keys[i], future::value(pending[[i]]))
      pending <- pending[-ready]
      keys <- keys[-ready]
    }
  }
  if (length(idx)) {
    if (isTRUE(progress) && requireNamespace("progressr", quietly = TRUE) &&
        !isTRUE(progressr::handlers(global = NA)))
      progressr::with_progress(run_all(), enable = TRUE)
    else run_all()
  }
  assemble_study(done, jobs, ctx, n_sets, labels, reference)
}

assemble_study <- function(done, jobs, ctx, n_sets, labels, reference) {
  M <- length(labels)
  L <- length(ctx$levels)
  N <- length(ctx$y_test)
  dn <- list(set = NULL, method = labels)
  inside <- array(NA, c(n_sets, M, L, N),
                  dimnames = list(set = NULL, method = labels, level = format(ctx$levels), point = NULL))
  mean <- array(NA_real_, c(n_sets, M, N), dimnames = list(set = NULL, method = labels, point = NULL))
  width <- array(NA_real_, c(n_sets, M, L), dimnames = list(set = NULL, method = labels,
                                                             level = format(ctx$levels)))
  q2 <- matrix(NA_real_, n_sets, M, dimnames = dn)
  draws <- if (ctx$keep_draws > 0L) vector("list", n_sets * M) else NULL
  tab <- data.frame(set = jobs$set, method = labels[jobs$method], status = NA_character_,
                    message = NA_character_, warnings = NA_character_, seconds = NA_real_,
                    n_grad = NA_real_, accept = NA_real_, stepsize = NA_real_,
                    n_draws = NA_real_, rhat_max = NA_real_, rhat_median = NA_real_,
                    stringsAsFactors = FALSE)
  for (r in seq_len(nrow(jobs))) {
    d <- done[[r]]
    j <- jobs$set[r]
    k <- jobs$method[r]
    tab$status[r] <- d$status
    tab$message[r] <- d$message %||% NA_character_
    tab$warnings[r] <- if (length(d$warnings)) paste(d$warnings, collapse = " | ") else NA_character_
    tab$seconds[r] <- d$seconds
    if (d$status != "ok") next
    tab[r, c("n_grad", "accept", "stepsize", "n_draws", "rhat_max", "rhat_median")] <-
      c(d$n_grad, d$accept, d$stepsize, d$n_draws, d$rhat_max %||% NA, d$rhat_median %||% NA)
    inside[j, k, , ] <- d$inside
    mean[j, k, ] <- d$mean
    width[j, k, ] <- d$width
    q2[j, k] <- d$q2
    if (!is.null(draws)) draws[[r]] <- d$draws
  }
  mmd_ref <- NULL
  if (!is.null(reference)) {
    kr <- match(reference, labels)
    mmd_ref <- matrix(NA_real_, n_sets, M, dimnames = dn)
    for (r in seq_len(nrow(jobs))) {
      j <- jobs$set[r]
      rr <- which(jobs$set == j & jobs$method == kr)
      if (is.null(draws[[r]]) || is.null(draws[[rr]])) next
      mmd_ref[j, jobs$method[r]] <- if (r == rr) 0 else bnn_mmd(draws[[r]], draws[[rr]])
    }
  }
  failed <- tab$status != "ok"
  if (any(failed))
    warn_cond(sprintf("%d of %d jobs failed (see $jobs): %s", sum(failed), nrow(tab),
                      paste(unique(sprintf("%s: %s", tab$method[failed], tab$message[failed])),
                            collapse = "; ")), "bnnmc_job_failure")
  structure(list(inside = inside, mean = mean, width = width, q2 = q2, mmd_ref = mmd_ref,
                 draws = if (!is.null(draws)) array(draws, c(n_sets, M), dn),
                 jobs = tab, levels = ctx$levels, target = ctx$target,
                 test = ctx$test, y_test = ctx$y_test, formula = ctx$formula, model = ctx$model,
                 task = ctx$task, interval = ctx$interval, seed = ctx$seed, methods = labels,
                 reference = reference, n_sets = n_sets),
            class = "bnn_coverage_study")
}

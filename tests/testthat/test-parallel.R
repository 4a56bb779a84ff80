# Chains give the same draws whatever the future plan, and progress is
# reported through progressr from sequential and parallel workers alike.

par_fit <- function(..., sampler = "nuts") {
  bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2, warmup = 60, iter = 30,
          seed = 21, ..., sampler = sampler, likelihood = "hetero_gaussian")
}

# Fit, collecting warnings (future's RNG-misuse warnings must not occur).
fit_collect <- function(...) {
  warns <- list()
  fit <- withCallingHandlers(par_fit(...), warning = function(w) {
    warns[[length(warns) + 1L]] <<- w
    invokeRestart("muffleWarning")
  })
  list(fit = fit, warnings = warns)
}

no_rng_warnings <- function(warns) {
  bad <- vapply(warns, function(w) inherits(w, "RngFutureCondition") ||
                  grepl("random numbers", conditionMessage(w)), logical(1))
  expect_false(any(bad))
}

# Where bnnmc is loaded from (symbolic links resolved: R CMD check puts
# links to the installed packages in a library of its own).
worker_bnnmc <- function() normalizePath(find.package("bnnmc"))

# Under the plan set now: the workers load this bnnmc, run in other
# processes, and a fit gives the draws of `ref` (fit_collect()'s) without
# warnings about R's random numbers.
expect_plan_draws <- function(ref) {
  expect_identical(future::value(future::future(worker_bnnmc())), worker_bnnmc())
  run <- fit_collect(progress = FALSE)
  no_rng_warnings(run$warnings)
  expect_identical(run$fit$draws, ref$fit$draws)
  expect_identical(run$fit$sampler_stats, ref$fit$sampler_stats)
  expect_identical(run$fit$stepsize, ref$fit$stepsize)
  pids <- unlist(future.apply::future_lapply(1:2, function(i) Sys.getpid()))
  expect_false(Sys.getpid() %in% pids)
}

# A progressr handler that records every update it receives.
recording_handler <- function(env) {
  env$updates <- list()
  progressr::make_progression_handler("bnnmc_test", enable = TRUE, reporter = list(
    update = function(config, state, progression, ...) {
      env$updates[[length(env$updates) + 1L]] <-
        list(step = state$step, max = config$max_steps, message = state$message)
    }))
}

# a fit with progress = TRUE, and the steps and messages the handler recorded
fit_recording_progress <- function(rec) {
  fit <- suppressWarnings(par_fit(progress = TRUE))
  list(fit = fit,
       steps = vapply(rec$updates, `[[`, numeric(1), "step"),
       msgs = vapply(rec$updates, function(u) paste(u$message, collapse = ""), ""))
}

test_that("each chain run on its own in this session gives the fit's draws", {
  ref <- suppressWarnings(par_fit(progress = FALSE))
  # the non-future path of dispatch_chains() is lapply(): run the chains directly
  spec <- bnnmc:::make_spec(ref$spec$sizes, "tanh", ref$likelihood, ref$prior,
                            X = ref$X, y = ref$y_model)
  for (cid in 1:2) {
    r <- bnnmc:::run_chain(spec, ref$inits[[cid]], ref$seed, cid, ref$sampler, 60L, 30L, 1L)
    expect_identical(r$draws, unname(ref$draws[, cid, ]))
  }
})

test_that("draws are identical under sequential, multisession and cluster plans", {
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  skip_if_not_installed("parallelly")
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  seq_run <- fit_collect(progress = FALSE)
  no_rng_warnings(seq_run$warnings)

  # two local background sessions; multisession passes .libPaths() to them
  future::plan(future::multisession, workers = 2)
  expect_plan_draws(seq_run)

  # a PSOCK cluster on localhost, given this session's library paths
  cl <- parallelly::makeClusterPSOCK(2L, rscript_libs = .libPaths(), verbose = FALSE)
  on.exit(parallel::stopCluster(cl), add = TRUE, after = FALSE)
  future::plan(future::cluster, workers = cl)
  expect_plan_draws(seq_run)
  future::plan(future::sequential)
})

test_that("chains run in batches give the same draws for any batch size", {
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  expect_identical(lengths(bnnmc:::chain_batches(1:10, 1)), c(3L, 3L, 3L, 1L))
  expect_identical(lengths(bnnmc:::chain_batches(1:4, 2)), rep(1L, 4))
  expect_identical(lengths(bnnmc:::chain_batches(1:1274, 2)), c(rep(160L, 7), 154L))
  fit7 <- function() suppressWarnings(
    bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 7, warmup = 20, iter = 2,
            seed = 8, progress = FALSE, sampler = "nuts", likelihood = "hetero_gaussian"))
  ref <- fit7()
  for (b in c(1L, 3L, 7L)) {
    op <- options(bnnmc.chains_per_future = b)
    expect_identical(fit7()$draws, ref$draws)
    options(op)
  }
  future::plan(future::multisession, workers = 2)
  op <- options(bnnmc.chains_per_future = 2L)
  on.exit(options(op), add = TRUE)
  expect_identical(fit7()$draws, ref$draws)
  options(bnnmc.chains_per_future = 0)
  expect_error(fit7(), "bnnmc.chains_per_future")
})

test_that("bnn_fit() with a seed leaves the caller's R RNG stream alone under future", {
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  set.seed(5)
  untouched <- stats::runif(1)
  set.seed(5)
  suppressWarnings(par_fit(progress = FALSE))
  expect_identical(stats::runif(1), untouched)
})

test_that("progress goes through progressr per chain and phase", {
  skip_if_not_installed("progressr")
  skip_if_not_installed("future")
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  rec <- new.env()
  oopt <- options(progressr.handlers = list(recording_handler(rec)))
  on.exit(options(oopt), add = TRUE)
  run <- fit_recording_progress(rec)
  a <- run$fit; steps <- run$steps; msgs <- run$msgs
  expect_identical(rec$updates[[1]]$max, 2L * 90L)
  expect_identical(max(steps), 180)
  expect_true(all(diff(steps) > 0))
  # one bar for the whole fit; messages count chains and fit within 80 columns
  expect_match(msgs[1], "^0/2 chains done; chain 1 warm-up; (estimating time left|about .* left)$")
  expect_identical(msgs[length(msgs)], "2/2 chains done; chain 2 finished; done")
  expect_true(all(nchar(msgs) < 80))
  # progress = FALSE signals nothing
  rec$updates <- list()
  n_cond <- 0L
  b <- withCallingHandlers(suppressWarnings(par_fit(progress = FALSE)),
                           progression = function(p) n_cond <<- n_cond + 1L)
  expect_identical(n_cond, 0L)
  expect_length(rec$updates, 0L)
  expect_identical(a$draws, b$draws)
  expect_null(bnnmc:::make_progress(FALSE, 2L, 90L))
})

test_that("progress from multisession workers reaches the calling session", {
  skip_if_not_installed("progressr")
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  old <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(old), add = TRUE)
  rec <- new.env()
  oopt <- options(progressr.handlers = list(recording_handler(rec)))
  on.exit(options(oopt), add = TRUE)
  run <- fit_recording_progress(rec)
  a <- run$fit; steps <- run$steps; msgs <- run$msgs
  expect_identical(max(steps), 180)
  expect_true(all(grepl("^~?[0-9]+/2 chains done; chain [12] ", msgs)))
  future::plan(future::sequential)
  expect_identical(a$draws, suppressWarnings(par_fit(progress = FALSE))$draws)
})

test_that("make_progress() names its phases from the caller's warmup", {
  skip_if_not_installed("progressr")
  caller <- function() {
    warmup <- 10L
    bnnmc:::make_progress(TRUE, 1L, 30L)
  }
  cb <- caller()
  expect_type(cb, "closure")
  st <- bnnmc:::.progress_env$pending
  expect_identical(st$steps, 30L)
  got <- list()
  st$p <- function(message, amount) got[[length(got) + 1L]] <<- list(message, amount)
  cb(1L, 10L, 30L)
  cb(1L, 30L, 30L)
  expect_identical(got[[1]], list("0/1 chains done; chain 1 warm-up; estimating time left", 10))
  expect_identical(got[[2]], list("1/1 chains done; chain 1 finished; done", 20))
  expect_error(bnnmc:::make_progress(TRUE, 1L, 30L, phases = c(a = 10)), "'phases'")
  bnnmc:::make_progress(FALSE, 1L, 30L)
  expect_null(bnnmc:::.progress_env$pending)
})

test_that("options(mc.cores) runs the chains on that many workers, with the same draws", {
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  a <- suppressWarnings(par_fit(progress = FALSE))
  # the plan the chains are sent under, recorded as they are sent
  seen <- new.env()
  op <- options(mc.cores = 2)
  on.exit(options(op), add = TRUE)
  expect_identical(bnnmc:::chain_workers(2L)$workers, 2L)
  trace(bnnmc:::future_batches, tracer = bquote(assign("plan", class(future::plan()), envir = .(seen))),
        print = FALSE)
  on.exit(untrace(bnnmc:::future_batches), add = TRUE)
  b <- suppressWarnings(par_fit(progress = FALSE))
  expect_identical(a$draws, b$draws)
  # the plan was a parallel one inside the call, and the user's (sequential) after it
  expect_false("sequential" %in% seen$plan)
  expect_true(inherits(future::plan(), "sequential"))
  # a plan the user set is used as it is
  future::plan(future::sequential)
  options(mc.cores = 1)
  expect_identical(bnnmc:::chain_workers(2L)$workers, 1L)
})

# A chain whose worker process ends itself when it runs chain 2, as the
# system's out-of-memory killer or a user's kill would (made here, not at
# the top level, so that it goes to the workers with its environment).
kill_chain_2 <- local(function(i) {
  if (i == 2L) tools::pskill(Sys.getpid(), tools::SIGKILL)
  Sys.sleep(0.2)
  i
})
# The error that names chain 2 (and maybe the chain that shared its worker).
dead_chain_2 <- paste0("^Chains? ([0-9]+, )*2(, [0-9]+)* ended without a result: ",
                       "the worker process running (it|them) stopped")

test_that("a chain whose worker is killed gives an error naming the chain, under mc.cores and a plan", {
  skip_on_cran()
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  chain <- kill_chain_2
  op <- options(mc.cores = 2)
  on.exit(options(op), add = TRUE)
  expect_error(suppressWarnings(bnnmc:::dispatch_chains(1:3, chain)),
               "^Chain 2 ended without a result: the worker process running it stopped")
  # the user's (sequential) plan is set again
  expect_true(inherits(future::plan(), "sequential"))
  options(op)
  future::plan(future::multisession, workers = 2)
  expect_error(suppressWarnings(bnnmc:::dispatch_chains(1:3, chain)), dead_chain_2)
  # the next fit: future starts the worker again (or names the chains it
  # cannot send); its notes on the dead worker's future are not passed on
  # as warnings beside the error
  warns <- character(0)
  withCallingHandlers(
    expect_error(bnnmc:::dispatch_chains(1:3, chain), "^Chains? [0-9, ]+ (ended|could not)"),
    warning = function(w) {
      warns <<- c(warns, conditionMessage(w))
      invokeRestart("muffleWarning")
    })
  expect_false(any(grepl("FUTURE INTERRUPTED", warns)))
  future::plan(future::sequential)
})

test_that("a chain whose worker is killed gives an error naming the chain, on a PSOCK cluster", {
  skip_on_cran()
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  skip_if_not_installed("parallelly")
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  cl <- parallelly::makeClusterPSOCK(2L, rscript_libs = .libPaths(), verbose = FALSE)
  on.exit(try(parallel::stopCluster(cl), silent = TRUE), add = TRUE, after = FALSE)
  future::plan(future::cluster, workers = cl)
  expect_error(suppressWarnings(bnnmc:::dispatch_chains(1:3, kill_chain_2)), dead_chain_2)
  # the next fit on the same cluster, one of whose nodes is dead: its
  # chains are named too, whether future starts the node again or not
  expect_error(suppressWarnings(bnnmc:::dispatch_chains(1:3, kill_chain_2)),
               "^Chains? [0-9, ]+ (ended without a result|could not be sent to a worker)")
  future::plan(future::sequential)
})

test_that("future.mirai: the same draws, and a killed worker's chain named", {
  skip_on_cran()
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  skip_if_not_installed("future.mirai")
  skip_if_not_installed("mirai")
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  seq_run <- fit_collect(progress = FALSE)
  future::plan(future.mirai::mirai_multisession, workers = 2)
  on.exit(future::plan(future::sequential), add = TRUE, after = FALSE)
  expect_plan_draws(seq_run)
  expect_error(suppressWarnings(bnnmc:::dispatch_chains(1:3, kill_chain_2)), dead_chain_2)
  # with every daemon dead, mirai connects none and future.mirai would wait
  # for one forever: the fit says so at once
  for (k in 1:5) {
    n <- mirai::status()$connections
    if (n == 0L) break
    tools::pskill(future::value(future::future(Sys.getpid())), tools::SIGKILL)
    for (i in 1:100) if (mirai::status()$connections == n) Sys.sleep(0.1)
  }
  expect_identical(mirai::status()$connections, 0L)
  expect_error(bnnmc:::dispatch_chains(1:3, kill_chain_2),
               "The future plan has no worker to run the chains on")
  # setting the plan again starts fresh daemons
  future::plan(future::sequential)
  future::plan(future.mirai::mirai_multisession, workers = 2)
  expect_identical(unlist(bnnmc:::dispatch_chains(1:3, function(i) i * 2L)), c(2L, 4L, 6L))
})

test_that("a malformed options(mc.cores) is an error that names it", {
  op <- options(mc.cores = 0)
  on.exit(options(op))
  expect_error(bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 2, warmup = 20, iter = 20,
                       sampler = "nuts", progress = FALSE),
               "options\\(mc.cores\\) must be a whole number of cores of at least 1, not 0")
})

test_that("large data go to each worker once, not once per chain, with the same draws", {
  skip_on_cran()
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  # small payloads: about 4 futures per worker, every chain its own here
  expect_identical(lengths(bnnmc:::chain_batches(1:4, 2, bytes = 1e3)), rep(1L, 4))
  # a payload above 1 MB: one future per worker, the chains split evenly
  expect_identical(lengths(bnnmc:::chain_batches(1:4, 2, bytes = 2e6)), c(2L, 2L))
  expect_identical(lengths(bnnmc:::chain_batches(1:5, 2, bytes = 2e6)), c(3L, 2L))
  op <- options(bnnmc.chains_per_future = 1L)
  expect_identical(lengths(bnnmc:::chain_batches(1:4, 2, bytes = 2e6)), rep(1L, 4))
  options(op)
  # forked workers share this session's memory: nothing is sent, and the
  # chains keep one future each
  if (future::supportsMulticore()) {
    old <- future::plan(future::multicore, workers = 2)
    big <- stats::runif(1e6)
    expect_identical(bnnmc:::shipped_bytes(function() big), 0)
    future::plan(future::sequential)
    expect_gt(bnnmc:::shipped_bytes(function() big), 8e6)
    future::plan(old)
  }

  set.seed(3)
  n <- 20000L
  X <- matrix(stats::rnorm(n * 10), n, 10)
  d <- data.frame(X, y = X[, 1] - X[, 2] + stats::rnorm(n))
  fit4 <- function() suppressWarnings(
    bnn_fit(y ~ ., data = d, hidden = 2, chains = 4, warmup = 6, iter = 4, seed = 4,
            sampler = bnn_nuts(max_treedepth = 3), init = "random", progress = FALSE))
  old <- future::plan(future::sequential)
  on.exit(future::plan(old), add = TRUE)
  ref <- fit4()
  # what every future carries (the globals future_batches() gives it), per dispatch
  sent <- new.env()
  sent$bytes <- list()
  trace(bnnmc:::future_batches, print = FALSE, tracer = bquote({
    b1 <- vapply(batches, function(b)
      as.numeric(length(serialize(list(fun = fun, b = b, kern = kern), NULL))), 0)
    assign("bytes", c(get("bytes", envir = .(sent)), list(b1)), envir = .(sent))
  }))
  on.exit(untrace(bnnmc:::future_batches), add = TRUE)
  future::plan(future::multisession, workers = 2)
  par <- fit4()
  expect_identical(par$draws, ref$draws)
  expect_identical(par$sampler_stats, ref$sampler_stats)
  # the data the chains need (the design matrix and the response)
  data_bytes <- length(serialize(list(ref$X, ref$y_model), NULL))
  expect_gt(data_bytes, 1.6e6)
  expect_length(sent$bytes, 1L)
  # two futures, one per worker, each with the data once and little else
  # (not the model frame, the data frame or the fit's plans)
  expect_length(sent$bytes[[1]], 2L)
  expect_true(all(sent$bytes[[1]] < 1.2 * data_bytes))
  expect_lt(sum(sent$bytes[[1]]), 2.4 * data_bytes)
  # a deep ensemble's members go the same way, with the data once each
  sent$bytes <- list()
  ens <- suppressWarnings(bnn_fit_ensemble(y ~ ., data = d, members = 2, hidden = 2, seed = 1,
                                           optimizer = bnn_optimizer(epochs = 2)))
  expect_length(sent$bytes, 1L)
  expect_length(sent$bytes[[1]], 2L)
  expect_true(all(sent$bytes[[1]] < 1.2 * data_bytes))
})

test_that("the chains' function goes to the workers without its caller's frame", {
  skip_on_cran()
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  old <- future::plan(future::multisession, workers = 2)
  on.exit(future::plan(old), add = TRUE)
  sent <- new.env()
  trace(bnnmc:::future_batches, print = FALSE, tracer = bquote(
    assign("bytes", as.numeric(length(serialize(fun, NULL))), envir = .(sent))))
  on.exit(untrace(bnnmc:::future_batches), add = TRUE)
  # arguments given as expressions of a caller whose frame holds 8 MB
  caller <- function() {
    big <- stats::runif(1e6)
    w <- 20L
    s <- 3L
    bnn_sample_gaussian(c(0, 0), diag(2), chains = 2, warmup = w, iter = 20, seed = s,
                        init = list(c(0, 0), c(1, 1)))
  }
  out <- caller()
  expect_identical(dim(out$draws), c(20L, 2L, 2L))
  expect_lt(sent$bytes, 1e5)
  # the stages of CES (its calibration and its emulator's chains) likewise
  stage <- function() {
    big <- stats::runif(1e6)
    sp <- list(type = "gaussian", mean = c(0, 0), prec = as.double(diag(2)))
    bnnmc:::run_stage(sp, bnnmc:::as_sampler(bnn_nuts()), 2L, 20L, 20L, 1L,
                      list(c(0, 0), c(1, 1)), 3L, FALSE)
  }
  sent$bytes <- NULL
  expect_length(stage()$res, 2L)
  expect_lt(sent$bytes, 1e5)
})

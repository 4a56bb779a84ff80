# An interrupted fit keeps the chains that had finished (bnn_interrupted()),
# and the interrupt still ends the call.

# Runs `fit_call` (a function of no arguments calling bnn_fit()) in a fresh
# R process, interrupts it (SIGINT) once `after` chains have finished
# (counted by a trace on run_chain(), which the chains call in this process
# when they run one after another) or after `after_s` seconds, then calls
# bnn_interrupted() there.  Returns what the child saw: whether the call
# ended by the interrupt, its messages, and the kept fit's chains, draws,
# warnings and printed lines.
interrupt_child <- function(fit_call, after = 1L, after_s = NULL) {
  flag <- tempfile("bnnmc-chain-done")
  on.exit(unlink(paste0(flag, "-", 1:8)), add = TRUE)
  p <- callr::r_bg(function(fit_call, flag) {
    suppressPackageStartupMessages(library(bnnmc))
    n_done <- 0L
    trace("run_chain", where = asNamespace("bnnmc"), print = FALSE,
          exit = bquote({
            n <- length(list.files(dirname(.(flag)), pattern = paste0("^", basename(.(flag)))))
            file.create(paste0(.(flag), "-", n + 1L))
          }))
    msgs <- character(0)
    keep_msg <- function(m) {
      msgs <<- c(msgs, conditionMessage(m))
      invokeRestart("muffleMessage")
    }
    r <- withCallingHandlers(
      tryCatch(suppressWarnings(fit_call()), interrupt = function(e) "interrupted"),
      message = keep_msg)
    untrace("run_chain", where = asNamespace("bnnmc"))
    warns <- character(0)
    kept_msgs <- character(0)
    fit <- withCallingHandlers(bnn_interrupted(),
      warning = function(w) {
        warns <<- c(warns, paste(class(w)[1L], conditionMessage(w)))
        invokeRestart("muffleWarning")
      },
      message = function(m) {
        kept_msgs <<- c(kept_msgs, conditionMessage(m))
        invokeRestart("muffleMessage")
      })
    list(r = if (inherits(r, "bnnfit")) "finished" else r, msgs = msgs, fit = fit,
         warns = warns, kept_msgs = kept_msgs,
         printed = if (!is.null(fit)) utils::capture.output(print(fit)))
  }, args = list(fit_call = fit_call, flag = flag), libpath = .libPaths(),
  stdout = NULL, stderr = NULL)
  on.exit(p$kill(), add = TRUE)
  t0 <- Sys.time()
  if (is.null(after_s)) {
    while (!file.exists(paste0(flag, "-", after)) && p$is_alive() &&
           difftime(Sys.time(), t0, units = "secs") < 120) Sys.sleep(0.02)
    Sys.sleep(0.2)   # the chain's result is recorded after run_chain() returns
  } else {
    Sys.sleep(after_s)
  }
  p$interrupt()
  p$wait(120000)
  p$get_result()
}

# The data of the NUTS fits below, and such a fit with `chains` chains of
# `warmup` + 300 transitions (on options(mc.cores = mc_cores) if given), as
# a function for interrupt_child() (its data in its environment).
keep_data <- function() {
  set.seed(1)
  d <- data.frame(x = rnorm(150), x2 = rnorm(150))
  d$y <- sin(d$x) + rnorm(150, sd = 0.3)
  d
}

nuts_call <- function(chains, warmup, mc_cores = NULL) {
  f <- function() {
    if (!is.null(mc_cores)) options(mc.cores = mc_cores)
    bnn_fit(y ~ ., data = d, hidden = c(8, 8), chains = chains, sampler = "nuts",
            warmup = warmup, iter = 300, seed = 11, progress = FALSE)
  }
  environment(f) <- list2env(list(d = keep_data(), chains = chains, warmup = warmup,
                                  mc_cores = mc_cores), parent = globalenv())
  f
}

test_that("a fit interrupted after a chain finished keeps it for bnn_interrupted()", {
  skip_on_cran()
  skip_on_os("windows")
  skip_if_not_installed("callr")
  # three chains of about 1.5-3 s each, one after another; the interrupt
  # comes in the second
  res <- interrupt_child(nuts_call(3, 400), after = 1L)
  # the interrupt still ended the call ...
  expect_identical(res$r, "interrupted")
  # ... after one message that says what was kept
  said <- paste0("bnn_fit() interrupted: 1 of 3 chains had finished; bnn_interrupted() ",
                 "returns a fit of that chain.")
  expect_true(any(grepl(said, res$msgs, fixed = TRUE)), label = paste(res$msgs, collapse = " | "))
  fit <- res$fit
  expect_s3_class(fit, "bnnfit")
  expect_identical(fit$chains, 1L)
  expect_identical(fit$partial, list(chains = 1L, asked = 3L))
  expect_true(any(grepl("^bnnmc_partial_fit This fit is partial: 1 of the 3 chains", res$warns)))
  expect_true(any(grepl("partial: +1 of the 3 chains asked for", res$printed)))
  # assembled as a finished fit is: its verdict, and chain 1's draws are
  # those of the same fit run with one chain
  expect_false(is.null(fit$convergence))
  ref <- suppressWarnings(nuts_call(1, 400)())
  expect_identical(unname(fit$draws), unname(ref$draws))
  expect_identical(fit$chain_status, ref$chain_status)
  expect_identical(fit$simd, ref$simd)
})

test_that("an interrupt before any chain finished says nothing can be returned", {
  skip_on_cran()
  skip_on_os("windows")
  skip_if_not_installed("callr")
  res <- interrupt_child(nuts_call(2, 50000), after_s = 4)
  expect_identical(res$r, "interrupted")
  said <- "interrupted before any of its 2 chains had finished: nothing can be returned"
  expect_true(any(grepl(said, res$msgs, fixed = TRUE)), label = paste(res$msgs, collapse = " | "))
  expect_null(res$fit)
  expect_true(any(grepl("no interrupted fit is kept", res$kept_msgs)))
})

test_that("the default model's two-model check keeps nothing and says so", {
  skip_on_cran()
  skip_on_os("windows")
  skip_if_not_installed("callr")
  set.seed(2)
  d <- data.frame(x = rnorm(60))
  d$y <- d$x + rnorm(60, sd = 0.5)
  # 60 rows: the default checks the network against a linear model; the
  # interrupt comes after the network's first chain
  call <- function() bnn_fit(y ~ x, data = d, seed = 3)
  environment(call) <- list2env(list(d = d), parent = globalenv())
  res <- interrupt_child(call, after = 1L)
  expect_identical(res$r, "interrupted")
  expect_true(any(grepl("check fits more than one model", res$msgs, fixed = TRUE)),
              label = paste(res$msgs, collapse = " | "))
  expect_null(res$fit)
})

test_that("under options(mc.cores = 2) the chains whose futures had returned are kept", {
  skip_on_cran()
  skip_on_os("windows")
  skip_if_not_installed("callr")
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  # four chains on two forked workers (one future each); the trace counts
  # the chains finished in the workers (forks carry it)
  res <- interrupt_child(nuts_call(4, 400, mc_cores = 2L), after = 1L)
  expect_identical(res$r, "interrupted")
  k <- res$fit$chains
  expect_true(is.numeric(k) && k >= 1L && k < 4L, label = paste(res$msgs, collapse = " | "))
  expect_true(any(grepl(sprintf("bnn_fit() interrupted: %d of 4 chains had finished", k),
                        res$msgs, fixed = TRUE)), label = paste(res$msgs, collapse = " | "))
  # the kept chains are those of the whole fit with their ids
  ref <- suppressWarnings(nuts_call(4, 400)())
  ids <- if (is.null(res$fit$chain_id)) seq_len(k) else res$fit$chain_id
  expect_identical(unname(res$fit$draws), unname(ref$draws[, ids, , drop = FALSE]))
})

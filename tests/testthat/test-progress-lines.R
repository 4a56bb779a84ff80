# In a session that is not interactive (Rscript, batch jobs) a long fit
# reports its progress as one line every bnnmc.progress_interval seconds.

test_that("progress lines are chosen for long fits outside interactive sessions only", {
  long <- list(total = 61)
  short <- list(total = 59)
  lines <- bnnmc:::progress_lines
  expect_true(lines(NULL, long, session_interactive = FALSE))
  expect_false(lines(NULL, short, session_interactive = FALSE))
  expect_false(lines(NULL, NULL, session_interactive = FALSE))
  # progress = TRUE: lines whatever the cost; FALSE: never
  expect_true(lines(TRUE, short, session_interactive = FALSE))
  expect_true(lines(TRUE, NULL, session_interactive = FALSE))
  expect_false(lines(FALSE, long, session_interactive = FALSE))
  # interactive sessions keep the bar
  expect_false(lines(NULL, long, session_interactive = TRUE))
  expect_false(lines(TRUE, long, session_interactive = TRUE))
  old <- options(bnnmc.progress_interval = -1)
  on.exit(options(old))
  expect_error(bnnmc:::progress_interval(), "bnnmc.progress_interval")
  options(bnnmc.progress_interval = NULL)
  expect_identical(bnnmc:::progress_interval(), 30)
})

test_that("a progress line gives the chains done, the chain running and the times", {
  line <- bnnmc:::progress_line
  # 4 chains of 100 steps, 250 done in 125 s: 2 done, 150 steps left at 2 per s
  expect_identical(line(250, 400, 4, "~2/4 chains done; chain 3 sampling; about 1m00s left", 125),
                   "bnn_fit: 2/4 chains done; chain 3 sampling; about 1m15s left (elapsed 2m05s)")
  expect_identical(line(0, 400, 4, character(0), 3),
                   "bnn_fit: 0/4 chains done; estimating time left (elapsed 3s)")
  expect_identical(line(200, 400, 4, "2/4 chains done; chain 2 finished; about 9s left", 10),
                   "bnn_fit: 2/4 chains done; about 10s left (elapsed 10s)")
})

# The messages of a fit run by `fit_call` in a fresh R process (callr: not
# interactive, as Rscript), with `opts` set there first.
child_messages <- function(fit_call, opts = list()) {
  callr::r(function(fit_call, opts) {
    suppressPackageStartupMessages(library(bnnmc))
    options(opts)
    msgs <- character(0)
    withCallingHandlers(suppressWarnings(fit_call()), message = function(m) {
      msgs <<- c(msgs, conditionMessage(m))
      invokeRestart("muffleMessage")
    })
    msgs
  }, args = list(fit_call = fit_call, opts = opts), libpath = .libPaths())
}

progress_fit_call <- function(progress, chains = 3) {
  set.seed(1)
  d <- data.frame(x = rnorm(150), x2 = rnorm(150))
  d$y <- sin(d$x) + rnorm(150, sd = 0.3)
  f <- function() bnn_fit(y ~ ., data = d, hidden = c(8, 8), chains = chains, sampler = "nuts",
                          warmup = 300, iter = 300, seed = 11, progress = progress)
  environment(f) <- list2env(list(d = d, progress = progress, chains = chains),
                             parent = globalenv())
  f
}

line_re <- paste0("^bnn_fit: [0-9]/3 chains done; .*(about [0-9hms]+ left|estimating time left) ",
                  "\\(elapsed [0-9hms]+\\)\n?$")

test_that("Rscript with progress = TRUE writes progress lines, one per interval", {
  skip_on_cran()
  skip_if_not_installed("callr")
  skip_if_not_installed("progressr")
  msgs <- child_messages(progress_fit_call(TRUE), list(bnnmc.progress_interval = 0))
  lines <- grep("^bnn_fit: ", msgs, value = TRUE)
  expect_gt(length(lines), 3)
  expect_true(all(grepl(line_re, lines)), label = paste(lines, collapse = " | "))
  # they follow the chains one after another
  done <- as.integer(sub("^bnn_fit: ([0-9])/.*", "\\1", lines))
  expect_false(is.unsorted(done))
  expect_true(any(done >= 1L))
  # at most one line per interval
  few <- child_messages(progress_fit_call(TRUE), list(bnnmc.progress_interval = 3600))
  expect_length(grep("^bnn_fit: ", few), 0L)
  # handlers the user chose are used instead
  mine <- child_messages(progress_fit_call(TRUE),
                         list(bnnmc.progress_interval = 0,
                              progressr.handlers = list(progressr::handler_void())))
  expect_length(grep("^bnn_fit: ", mine), 0L)
  # progress = FALSE and a short fit with progress = NULL: no lines
  for (pr in list(FALSE, NULL)) {
    m <- child_messages(progress_fit_call(pr), list(bnnmc.progress_interval = 0))
    expect_length(grep("^bnn_fit: ", m), 0L)
  }
})

test_that("progress = NULL gives lines when the estimate is above the threshold", {
  skip_on_cran()
  skip_if_not_installed("callr")
  skip_if_not_installed("progressr")
  # the threshold lowered to a millisecond: this fit counts as long
  f <- progress_fit_call(NULL)
  g <- function() {
    utils::assignInNamespace(".progress_lines_min_seconds", 1e-3, "bnnmc")
    f()
  }
  environment(g) <- list2env(list(f = f), parent = globalenv())
  msgs <- child_messages(g, list(bnnmc.progress_interval = 0))
  lines <- grep("^bnn_fit: ", msgs, value = TRUE)
  expect_gt(length(lines), 3)
  expect_true(all(grepl(line_re, lines)), label = paste(lines, collapse = " | "))
})

test_that("progress lines follow chains run on two cores (options(mc.cores))", {
  skip_on_cran()
  skip_on_os("windows")
  skip_if_not_installed("callr")
  skip_if_not_installed("progressr")
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  msgs <- child_messages(progress_fit_call(TRUE),
                         list(bnnmc.progress_interval = 0, mc.cores = 2L))
  lines <- grep("^bnn_fit: ", msgs, value = TRUE)
  expect_gt(length(lines), 2)
  expect_true(all(grepl(line_re, lines)), label = paste(lines, collapse = " | "))
  done <- as.integer(sub("^bnn_fit: ([0-9])/.*", "\\1", lines))
  expect_false(is.unsorted(done))
  expect_true(any(done >= 1L))
})

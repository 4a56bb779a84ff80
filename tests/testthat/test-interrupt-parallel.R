# An interrupted fit under a parallel plan stops the chains it started in the
# workers, and the plan still runs the next fit.

test_that("Ctrl-C on a fit under plan(multisession) stops its chains in the workers", {
  skip_on_cran()
  skip_on_os("windows")
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  skip_if_not(file.exists("/proc/self/stat"))
  # CPU seconds of a process, NA when it has ended (or is a zombie)
  cpu <- function(pid) {
    f <- sprintf("/proc/%d/stat", pid)
    s <- tryCatch(readLines(f, warn = FALSE), error = function(e) NULL, warning = function(w) NULL)
    if (!length(s)) return(NA_real_)
    s <- strsplit(sub(".*\\) ", "", s[1L]), " ")[[1L]]
    if (s[1L] %in% c("Z", "X")) return(NA_real_)
    sum(as.numeric(s[12:13])) / 100
  }
  pid_file <- tempfile()
  job <- parallel::mcparallel({
    future::plan(future::multisession, workers = 2)
    pids <- unique(unlist(future::value(lapply(1:2, function(i)
      future::future({ Sys.sleep(1); Sys.getpid() }, seed = FALSE)))))
    writeLines(as.character(pids), pid_file)
    set.seed(1)
    d <- data.frame(x = rnorm(200), x2 = rnorm(200))
    d$y <- sin(d$x) + rnorm(200, sd = 0.3)
    r <- tryCatch(suppressMessages(
      bnn_fit(y ~ ., data = d, hidden = c(16, 16), chains = 2, warmup = 50000, iter = 50000,
              sampler = "nuts", seed = 1, progress = FALSE, likelihood = "gaussian")),
      interrupt = function(e) "interrupted")
    c0 <- vapply(pids, cpu, 0)
    Sys.sleep(3)
    c1 <- vapply(pids, cpu, 0)
    # the plan runs the next fit
    f2 <- suppressWarnings(bnn_fit(y ~ x, data = d[1:40, ], hidden = 2, chains = 2, warmup = 50,
                                   iter = 20, sampler = "nuts", seed = 1, progress = FALSE))
    future::plan(future::sequential)
    list(r = r, busy = c1 - c0, next_ok = all(f2$chain_status == "ok"))
  })
  # interrupt once the chains run in the workers (they have used CPU time)
  t0 <- Sys.time()
  while (!file.exists(pid_file) && difftime(Sys.time(), t0, units = "secs") < 60) Sys.sleep(0.2)
  pids <- as.integer(readLines(pid_file))
  c_start <- vapply(pids, cpu, 0)
  # more CPU than loading the package takes in a worker: the chains run
  while (!any(vapply(pids, cpu, 0) - c_start > 2, na.rm = TRUE) &&
         difftime(Sys.time(), t0, units = "secs") < 90) Sys.sleep(0.2)
  # measured here, before the interrupt: the interrupt may end the workers,
  # after which their CPU time cannot be read
  ran <- vapply(pids, cpu, 0) - c_start
  tools::pskill(job$pid, tools::SIGINT)
  # workers left running their chains would hold up the next fit: after 90 s
  # the child and its workers are ended and the test fails
  res <- parallel::mccollect(job, wait = FALSE, timeout = 90)
  if (is.null(res)) {
    tools::pskill(c(job$pid, pids), tools::SIGKILL)
    parallel::mccollect(job, wait = FALSE)
    fail("the interrupted fit's chains kept the workers busy (no result after 90 s)")
    return(invisible())
  }
  res <- res[[1L]]
  expect_identical(res$r, "interrupted")
  # the chains were running in both workers when the fit was interrupted ...
  expect_true(any(ran > 2, na.rm = TRUE))
  # ... and after it no worker spends CPU on them (ended, or idle)
  expect_true(all(is.na(res$busy) | res$busy < 0.3))
  expect_true(res$next_ok)
})

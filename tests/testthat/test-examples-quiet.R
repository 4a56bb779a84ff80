# The examples of every exported topic run without a warning of bnnmc's
# own: a reader running example() (and R CMD check's example output, and
# the site's reference pages) sees no "keeps 50 draws" or "not converged"
# caused by examples too short to be honest.  Warnings raised by other
# packages (loo, bayesplot, ...) are not bnnmc's and are let through.
#
# Runs every example of the installed package's help (as example() does:
# \donttest parts commented out, \dontrun not run), one topic at a time:
# about 20 s of CPU, so on CRAN too.

# Was a warning signalled by bnnmc's code?  The function that raised it is
# the innermost frame that is not base R's condition machinery (warning(),
# .signalSimpleWarning(), withCallingHandlers(), ...): for warning() called
# in bnnmc, a warning from bnnmc's C code (Rf_warning under .Call) or a
# classed bnnmc condition, that frame belongs to bnnmc's namespace.
bnnmc_signalled <- function(w, calls, funs) {
  if (any(startsWith(class(w), "bnnmc"))) return(TRUE)
  ns <- asNamespace("bnnmc")
  base_ns <- baseenv()
  for (i in rev(seq_along(funs))) {
    fn <- funs[[i]]
    env <- if (is.function(fn)) environment(fn) else NULL
    if (is.null(env)) next                      # primitives
    top <- topenv(env)
    if (identical(top, base_ns) || identical(top, .BaseNamespaceEnv)) next
    if (identical(top, environment(bnnmc_signalled)) || identical(top, globalenv())) next
    return(identical(top, ns))
  }
  FALSE
}

# Examples that show a warning on purpose, with a sentence saying why: the
# topic and the class of the warning it shows.
shown_on_purpose <- list(
  bnn_kl_convergence = "bnnmc_short_run",   # one draw per chain, the paper's protocol
  bnn_waves = "bnnmc_short_run")

run_example_quietly <- function(rd, topic) {
  file <- tempfile(fileext = ".R")
  on.exit(unlink(file), add = TRUE)
  tools::Rd2ex(rd, file, commentDonttest = TRUE, commentDontrun = TRUE)
  if (!file.exists(file)) return(character())
  own <- character()
  env <- new.env(parent = globalenv())
  handler <- function(w) {
    n <- sys.nframe()
    funs <- lapply(seq_len(n - 1L), sys.function)
    if (bnnmc_signalled(w, NULL, funs) && !inherits(w, shown_on_purpose[[topic]] %||% "-"))
      own <<- c(own, sprintf("%s: %s", topic, conditionMessage(w)))
    invokeRestart("muffleWarning")
  }
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  withCallingHandlers(
    utils::capture.output(source(file, local = env, echo = FALSE)),
    warning = handler,
    message = function(m) invokeRestart("muffleMessage"))
  own
}

`%||%` <- function(a, b) if (is.null(a)) b else a

test_that("a warning raised by bnnmc code is told from another package's", {
  own <- function() warning("from bnnmc's namespace")
  environment(own) <- asNamespace("bnnmc")
  other <- function() warning("from elsewhere")
  environment(other) <- asNamespace("stats")
  caught <- function(f) {
    res <- NA
    withCallingHandlers(f(), warning = function(w) {
      res <<- bnnmc_signalled(w, NULL, lapply(seq_len(sys.nframe() - 1L), sys.function))
      invokeRestart("muffleWarning")
    })
    res
  }
  expect_true(caught(own))
  expect_false(caught(other))
})

test_that("the examples of every exported topic give no warning of bnnmc's own", {
  db <- tools::Rd_db("bnnmc")
  rd_tags <- function(rd) vapply(rd, function(x) attr(x, "Rd_tag"), "")
  topics <- names(db)[vapply(db, function(rd) "\\examples" %in% rd_tags(rd), logical(1))]
  expect_gt(length(topics), 50L)
  own <- character()
  for (nm in topics) {
    res <- tryCatch(run_example_quietly(db[[nm]], sub("\\.Rd$", "", nm)),
                    error = function(e) sprintf("%s: error: %s", nm, conditionMessage(e)))
    own <- c(own, res)
  }
  expect_identical(own, character())
})

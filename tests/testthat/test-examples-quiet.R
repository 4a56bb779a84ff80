# The examples of every help topic run without a warning: a reader running
# example() (and R CMD check --as-cran's example output, and the site's
# reference pages) sees no "keeps 50 draws", "not converged" or another
# package's "p_waic estimates greater than 0.4" caused by an example that
# shows a setting which does not work.
#
# Runs every example of the installed package's help as R CMD check
# --as-cran does (\donttest parts run, \dontrun not), one topic at a time:
# about 25 s.  A warning fails the test whoever raised it -- bnnmc or a
# package its example calls -- with one exception: deprecation notices of
# other packages (lifecycle's class), which their own code triggers and
# their maintainers fix (see setup-upstream-warnings.R).

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

# Warnings an example may pass on: another package's deprecation notice.
upstream_notice <- function(w, own) !own && inherits(w, "lifecycle_warning_deprecated")

run_example_quietly <- function(rd, topic) {
  file <- tempfile(fileext = ".R")
  on.exit(unlink(file), add = TRUE)
  tools::Rd2ex(rd, file, commentDonttest = FALSE, commentDontrun = TRUE)
  if (!file.exists(file)) return(character())
  found <- character()
  env <- new.env(parent = globalenv())
  handler <- function(w) {
    n <- sys.nframe()
    funs <- lapply(seq_len(n - 1L), sys.function)
    own <- bnnmc_signalled(w, NULL, funs)
    if (!upstream_notice(w, own))
      found <<- c(found, sprintf("%s: %s (%s)", topic, conditionMessage(w),
                                 if (own) "bnnmc" else "another package"))
    invokeRestart("muffleWarning")
  }
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  withCallingHandlers(
    utils::capture.output(source(file, local = env, echo = FALSE)),
    warning = handler,
    message = function(m) invokeRestart("muffleMessage"))
  found
}

rd_tags <- function(rd) vapply(rd, function(x) attr(x, "Rd_tag"), "")

# The aliases of every help topic of the installed package.
rd_aliases <- function(db) {
  lapply(db, function(rd) {
    a <- rd[rd_tags(rd) == "\\alias"]
    vapply(a, function(x) paste(unlist(x), collapse = ""), "")
  })
}

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

test_that("every exported function of bnnmc's own has a help topic with examples", {
  db <- tools::Rd_db("bnnmc")
  has_ex <- vapply(db, function(rd) "\\examples" %in% rd_tags(rd), logical(1))
  aliases <- rd_aliases(db)
  # the generics bnnmc re-exports (loo, rstantools, posterior) have their
  # examples in their own packages; bnnmc's methods for them are below
  ns <- asNamespace("bnnmc")
  own <- Filter(function(f) identical(environment(get(f, envir = ns)), ns) ||
                  !is.function(get(f, envir = ns)), getNamespaceExports("bnnmc"))
  topic_has_ex <- vapply(own, function(f)
    any(has_ex[vapply(aliases, function(a) f %in% a, logical(1))]), logical(1))
  expect_identical(own[!topic_has_ex], character(0))
  expect_gt(length(own), 80L)
  # every topic has examples but the package's overview and the re-exports
  expect_setequal(names(db)[!has_ex], c("bnnmc-package.Rd", "reexports.Rd"))
})

test_that("the examples of every help topic run without a warning", {
  db <- tools::Rd_db("bnnmc")
  topics <- names(db)[vapply(db, function(rd) "\\examples" %in% rd_tags(rd), logical(1))]
  expect_gt(length(topics), 100L)
  found <- character()
  for (nm in topics) {
    res <- tryCatch(run_example_quietly(db[[nm]], sub("\\.Rd$", "", nm)),
                    error = function(e) sprintf("%s: error: %s", nm, conditionMessage(e)))
    found <- c(found, res)
  }
  expect_identical(found, character())
})

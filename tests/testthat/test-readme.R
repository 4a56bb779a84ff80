# The README's R code runs as pasted: every ```r block of README.md, in
# order, in one environment (as in one fresh session after the install
# step), printing what the console would print.
#
# README.md is not installed with the package, but R CMD build puts it in
# the tarball and R CMD check unpacks the tarball into
# <pkg>.Rcheck/00_pkg_src/<pkg>/, beside the <pkg>.Rcheck/tests/ the tests
# run in; from the source tree the tests run in tests/testthat/.  Both are
# looked up; finding neither is a failure, not a skip, so that the check
# cannot pass without running the README.

readme_file <- function() {
  candidates <- c(test_path("..", "..", "README.md"),
                  test_path("..", "..", "00_pkg_src", "bnnmc", "README.md"))
  found <- candidates[file.exists(candidates)]
  if (length(found)) normalizePath(found[[1]]) else NA_character_
}

# The ```r blocks of a markdown file, each as one string.
readme_r_blocks <- function(path) {
  lines <- readLines(path, warn = FALSE, encoding = "UTF-8")
  fence <- grepl("^```", lines)
  blocks <- list()
  open <- NA_integer_
  for (i in which(fence)) {
    if (is.na(open)) {
      open <- i
    } else {
      if (grepl("^```\\s*\\{?[rR]\\b", lines[[open]]) && i > open + 1L)
        blocks[[length(blocks) + 1L]] <- paste(lines[(open + 1L):(i - 1L)], collapse = "\n")
      open <- NA_integer_
    }
  }
  blocks
}

# Packages a block calls with pkg::fun (the optional integrations).
block_packages <- function(code) {
  m <- regmatches(code, gregexpr("\\b([A-Za-z][A-Za-z0-9.]*)::", code))[[1]]
  setdiff(unique(sub("::$", "", m)), c("bnnmc", "base", "stats", "utils"))
}

test_that("README.md has R blocks, found from the source tree and from R CMD check", {
  path <- readme_file()
  expect_false(is.na(path), label = "README.md found beside the tests")
  blocks <- readme_r_blocks(path)
  expect_gte(length(blocks), 4L)
  expect_match(blocks[[1]], "library(bnnmc)", fixed = TRUE)
})

# One environment for all blocks, as one R session; one test per block, in
# the README's order.  A block calling an optional package (pkg::fun) that
# is not installed is skipped, as the README says it needs that package.
readme_env <- new.env(parent = globalenv())
readme_blocks <- if (is.na(readme_file())) list() else readme_r_blocks(readme_file())

# The phrases a block's comments quote ("..."): a warning the block gives
# must be one its comments announce by quoting it, so that a newcomer who
# pastes the block is told why it warns.
announced_phrases <- function(code) {
  com <- sub("^[^#]*#", "", grep("#", strsplit(code, "\n")[[1]], value = TRUE))
  m <- regmatches(com, gregexpr('"[^"]+"', com))
  gsub('"', "", unlist(m))
}

# Runs one block: each top-level call as typed at the console (visible
# values printed, into the void); the first error fails the test, naming
# the call, and so does a warning the block's comments do not announce
# (other packages' deprecation notices aside, which are theirs to fix).
run_readme_block <- function(code, k) {
  grDevices::pdf(NULL)
  on.exit(grDevices::dev.off(), add = TRUE)
  phrases <- announced_phrases(code)
  unexplained <- character()
  for (e in parse(text = code, keep.source = FALSE)) {
    res <- tryCatch(
      withCallingHandlers({
        utils::capture.output({
          v <- withVisible(eval(e, readme_env))
          if (v$visible) print(v$value)
        })
        NULL
      },
      warning = function(w) {
        msg <- conditionMessage(w)
        if (!inherits(w, "lifecycle_warning_deprecated") &&
            !any(vapply(phrases, grepl, logical(1), x = msg, fixed = TRUE)))
          unexplained <<- c(unexplained, sprintf("`%s`: %s", deparse(e, width.cutoff = 60L)[[1L]],
                                                 msg))
        invokeRestart("muffleWarning")
      },
      message = function(m) invokeRestart("muffleMessage")),
      error = function(err) err)
    if (inherits(res, "error")) {
      fail(sprintf("README block %d failed at `%s`: %s", k,
                   deparse(e, width.cutoff = 60L)[[1L]], conditionMessage(res)))
      return(invisible(FALSE))
    }
  }
  expect_identical(unexplained, character(0),
                   label = sprintf("README block %d's warnings its comments do not announce", k))
  invisible(TRUE)
}

test_that("a README warning counts as announced only when a comment of its block quotes it", {
  code <- paste("# warns, as it should, that it is \"not reliable yet\"",
                "x <- 1  # and \"a second\" phrase", sep = "\n")
  expect_identical(announced_phrases(code), c("not reliable yet", "a second"))
  expect_identical(announced_phrases("f(x = \"not a comment\")"), character(0))
})

for (k in seq_along(readme_blocks)) {
  code <- readme_blocks[[k]]
  first <- sub("^\\s*#?\\s*", "", strsplit(code, "\n")[[1]][[1]])
  test_that(sprintf("README block %d runs as pasted (%s)", k, substr(first, 1, 40)), {
    # marginaleffects needs collapse for Bayesian models (see DESCRIPTION)
    needs <- block_packages(code)
    if ("marginaleffects" %in% needs) needs <- c(needs, "collapse")
    # (loading shinystan loads rstan, whose themes trip a ggplot2
    # deprecation notice: not the README's doing)
    for (p in needs)
      if (!suppressWarnings(requireNamespace(p, quietly = TRUE)))
        skip(paste(p, "is not installed"))
    if (grepl("launch_shinystan", code, fixed = TRUE)) {
      # ShinyStan's app is not launched: shinystan calls shiny::runApp(),
      # replaced for this block by a stub that records the call
      ns <- asNamespace("shiny")
      real_run_app <- get("runApp", envir = ns)
      launched <- FALSE
      unlockBinding("runApp", ns)
      assign("runApp", function(appDir = NULL, ...) {
        launched <<- TRUE
        invisible(NULL)
      }, envir = ns)
      on.exit({
        assign("runApp", real_run_app, envir = ns)
        lockBinding("runApp", ns)
      }, add = TRUE)
      if (run_readme_block(code, k))
        expect_true(launched, label = "launch_shinystan() reached shiny::runApp()")
    } else {
      run_readme_block(code, k)
    }
  })
}

# Runs `code` in a fresh R process with this session's library paths and
# returns its exit status and output: a crash (free() of R memory at the
# next gc) would otherwise kill the test run itself.
run_in_child <- function(code) {
  f <- tempfile(fileext = ".R")
  on.exit(unlink(f))
  writeLines(c("suppressMessages(library(bnnmc))", code), f)
  libs <- paste(.libPaths(), collapse = .Platform$path.sep)
  out <- suppressWarnings(system2(file.path(R.home("bin"), "Rscript"), c("--vanilla", f),
                                  stdout = TRUE, stderr = TRUE,
                                  env = c(paste0("R_LIBS=", libs), "R_LIBS_USER=")))
  status <- attr(out, "status")
  list(status = if (is.null(status)) 0L else status, output = out)
}

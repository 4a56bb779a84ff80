# Locates the directory of the UCI benchmark files (not shipped with the
# package).  Tried in order:
#   1. the environment variable BNNMC_DATA_DIR and the option bnnmc.data_dir;
#   2. <d>/shared/data/uci and <d>/data/uci for every ancestor d of the test
#      directory and of the working directory (the repository is checked out
#      as /work/<name>/ with /work/shared beside it; under R CMD check the
#      tests run in <pkg>.Rcheck/tests/testthat, usually below the same root);
#   3. the same below the roots named by BNNMC_SHARED_DIR (the folder holding
#      data/uci) and by common CI variables: GITHUB_WORKSPACE, CI_PROJECT_DIR,
#      WORKSPACE, R_CHECK_SOURCE_DIR.
# Returns NULL if none holds airfoil.data.
bnn_test_uci_dir <- function() {
  ok <- function(d) length(d) == 1L && !is.na(d) && nzchar(d) &&
    file.exists(file.path(d, "airfoil.data"))
  direct <- c(Sys.getenv("BNNMC_DATA_DIR"), getOption("bnnmc.data_dir", ""))
  for (d in direct) if (ok(d)) return(normalizePath(d))
  ancestors <- function(p) {
    p <- normalizePath(p, mustWork = FALSE)
    out <- character()
    repeat {
      out <- c(out, p)
      up <- dirname(p)
      if (identical(up, p)) break
      p <- up
    }
    out
  }
  shared <- Sys.getenv("BNNMC_SHARED_DIR")
  ci <- Sys.getenv(c("GITHUB_WORKSPACE", "CI_PROJECT_DIR", "WORKSPACE",
                     "R_CHECK_SOURCE_DIR"))
  tp <- tryCatch(testthat::test_path(), error = function(e) getwd())
  starts <- c(tp, getwd(), ci[nzchar(ci)])
  roots <- unique(unlist(lapply(starts, ancestors)))
  cand <- c(if (nzchar(shared)) file.path(shared, c("data/uci", "uci", ".")),
            file.path(roots, "shared", "data", "uci"),
            file.path(roots, "data", "uci"))
  for (d in cand) if (ok(d)) return(normalizePath(d))
  NULL
}

skip_if_no_uci <- function() {
  d <- bnn_test_uci_dir()
  if (is.null(d))
    testthat::skip(paste("UCI data directory not found: set BNNMC_DATA_DIR to the",
                         "folder with airfoil.data etc. (shared/data/uci)"))
  d
}

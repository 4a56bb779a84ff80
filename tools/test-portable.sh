#!/usr/bin/env bash
# Second, quicker CI pass: the test suite alone (no build, examples or
# vignettes) on the portable C routines, BNNMC_SIMD=portable (the
# default of options(bnnmc.simd), read when bnnmc is loaded; see
# ?bnnmc-package).
# Tests that compare draws across sessions, workers or plans must hold on
# the portable routines too: future workers get the option with their chains.
# Uses the package R CMD check installed (tools/check.sh) when there is one,
# else installs into a temporary library.
set -euo pipefail
cd "$(dirname "$0")/.."
export NOT_CRAN="${NOT_CRAN:-true}"
export BNNMC_SIMD=portable
# the goldens of the portable routines and, where the CPU has them, of the
# AVX2 ones (the check's run compares the SIMD level the CPU selects itself)
export BNNMC_GOLDEN_KINDS="${BNNMC_GOLDEN_KINDS-generic,avx2+fma}"
if [ -z "${BNNMC_DATA_DIR:-}" ] && [ -d ../shared/data/uci ]; then
  export BNNMC_DATA_DIR="$(cd ../shared/data/uci && pwd)"
fi
lib="${BNNMC_CHECK_DIR:-check}/bnnmc.Rcheck"
if [ ! -f "$lib/bnnmc/DESCRIPTION" ]; then
  lib="$(mktemp -d)"
  R CMD INSTALL --preclean --library="$lib" . >"$lib/install.log" 2>&1 ||
    { cat "$lib/install.log"; exit 1; }
fi
R_LIBS="$lib${R_LIBS:+:$R_LIBS}" Rscript -e '
  library(bnnmc)
  k <- bnnmc:::bnn_simd_in_use()
  cat("SIMD level in use:", k, "\n")
  if (k != "generic") stop("BNNMC_SIMD=portable did not select the portable routines")
  # BNNMC_TEST_FILTER: a regular expression of test files (all when unset)
  filt <- Sys.getenv("BNNMC_TEST_FILTER")
  res <- as.data.frame(testthat::test_dir("tests/testthat", package = "bnnmc",
                                          filter = if (nzchar(filt)) filt else NULL,
                                          load_package = "installed",
                                          reporter = "summary", stop_on_failure = FALSE))
  n_fail <- sum(res$failed) + sum(res$error)
  cat(sprintf("portable: %d passed, %d failed, %d skipped\n",
              sum(res$passed), n_fail, sum(res$skipped)))
  if (n_fail > 0) quit(status = 1)'

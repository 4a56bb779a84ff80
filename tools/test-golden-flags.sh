#!/usr/bin/env bash
# The golden draws (tests/testthat/test-golden.R) under other compiler flags
# than R's default: installs the package into a temporary library with
# CFLAGS given as the first argument (through a private Makevars,
# R_MAKEVARS_USER) and compares the goldens of the portable, AVX2 and
# AVX-512 SIMD levels (those this CPU runs).  The goldens pin the SIMD
# routines' arithmetic to the last bit, so it must not depend on the optimisation
# level nor on instrumentation, e.g.
#   tools/test-golden-flags.sh "-O1 -g"
#   tools/test-golden-flags.sh "-O1 -g -fsanitize=undefined -fno-omit-frame-pointer"
# (-fsanitize=undefined adds LDFLAGS=-fsanitize=undefined; AddressSanitizer
# needs its runtime preloaded into R and is left to the caller.)
set -euo pipefail
cd "$(dirname "$0")/.."
flags="${1:?give the CFLAGS, e.g. \"-O1 -g\"}"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
mk="$tmp/Makevars"
echo "CFLAGS=$flags" >"$mk"
case "$flags" in *-fsanitize=*)
  echo "LDFLAGS=$(echo "$flags" | grep -o -- '-fsanitize=[^ ]*' | tr '\n' ' ')" >>"$mk" ;;
esac
mkdir "$tmp/lib" "$tmp/src"
# a copy of the sources, so that no object file of another build is reused
git archive HEAD | tar -x -C "$tmp/src"
R_MAKEVARS_USER="$mk" R CMD INSTALL --no-test-load --library="$tmp/lib" "$tmp/src" \
  >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; exit 1; }
export NOT_CRAN=true
export BNNMC_GOLDEN_KINDS="${BNNMC_GOLDEN_KINDS:-generic,avx2+fma,avx512}"
GOLDEN_FLAGS="$flags" R_LIBS="$tmp/lib${R_LIBS:+:$R_LIBS}" Rscript -e '
  res <- as.data.frame(testthat::test_file("tests/testthat/test-golden.R", package = "bnnmc",
                                           load_package = "installed", reporter = "summary"))
  n_fail <- sum(res$failed) + sum(res$error)
  cat(sprintf("goldens with CFLAGS=%s: %d failed\n", Sys.getenv("GOLDEN_FLAGS"), n_fail))
  if (n_fail > 0) quit(status = 1)'

#!/usr/bin/env bash
# The full check: R CMD build, then R CMD check --as-cran on the tarball
# (runs the tests, the examples and builds the vignettes).  Fails on any
# ERROR or WARNING, and on any NOTE other than the new-submission one.
# Progress goes to the terminal as it happens: a timestamped line per stage,
# and R CMD build's and R CMD check's own lines (building the vignettes
# takes minutes; nothing is hidden).
set -euo pipefail
t_start=$(date +%s)
stage() { echo "[$(date -u +%H:%M:%S) +$(( $(date +%s) - t_start ))s] $*"; }
cd "$(dirname "$0")/.."
# no network here: skip the remote CRAN-incoming look-ups and the clock check
export _R_CHECK_CRAN_INCOMING_REMOTE_=false
export _R_CHECK_SYSTEM_CLOCK_=0
export _R_CHECK_FUTURE_FILE_TIMESTAMPS_=false
# install the shared library without its debugging information (R CMD
# INSTALL --strip, with strip --strip-debug: the symbol table stays, which
# R CMD check reads to see that the routines are registered), as binary
# packages are shipped: the installed-size NOTE is about what users install,
# and R's default -g build makes the library four times larger
export _R_SHLIB_STRIP_=true
export R_STRIP_SHARED_LIB="strip --strip-debug"
# Rd2pdf: inconsolata is not in Debian's base TeX packages
export R_RD4PDF="${R_RD4PDF:-times,hyper}"
# the full test suite, including the few tests CRAN's machines would skip
# (a timing test of Ctrl-C inside a long trajectory)
export NOT_CRAN="${NOT_CRAN:-true}"
# the benchmark data beside the repository, if present (tests skip without)
if [ -z "${BNNMC_DATA_DIR:-}" ] && [ -d ../shared/data/uci ]; then
  export BNNMC_DATA_DIR="$(cd ../shared/data/uci && pwd)"
fi
out="${BNNMC_CHECK_DIR:-check}"
rm -rf "$out"; mkdir -p "$out"
stage "R CMD build (builds the vignettes)"
R CMD build --no-manual .
tarball=$(ls -t bnnmc_*.tar.gz | head -n 1)
mv "$tarball" "$out/"
stage "R CMD check --as-cran $tarball (the tests and examples are its longest steps)"
status=0
(cd "$out" && R CMD check --as-cran "$tarball") || status=$?
stage "R CMD check finished (status $status); reading its logs"
log="$out/bnnmc.Rcheck/00check.log"
rout="$out/bnnmc.Rcheck/tests/testthat.Rout"
[ -f "$rout" ] || rout="$out/bnnmc.Rcheck/tests/testthat.Rout.fail"
if [ -f "$rout" ]; then
  res=$(grep -E "\[ FAIL [0-9]+ \| WARN [0-9]+ \| SKIP [0-9]+ \| PASS [0-9]+ \]" "$rout" | tail -n 1 || true)
  if [ -n "$res" ]; then
    fail=$(echo "$res" | sed -E 's/.*FAIL ([0-9]+).*/\1/')
    pass=$(echo "$res" | sed -E 's/.*PASS ([0-9]+).*/\1/')
    skip=$(echo "$res" | sed -E 's/.*SKIP ([0-9]+).*/\1/')
    warn=$(echo "$res" | sed -E 's/.*WARN ([0-9]+).*/\1/')
    echo "testthat: $pass passed, $fail failed, $skip skipped, $warn warnings"
    if [ "$warn" != "0" ]; then
      echo "the tests' warnings (each should be expected in its test, or avoided):"
      awk '/══ Warnings/ {on = 1} /══ (Failed|Skipped|DONE)/ && on && !/Warnings/ {on = 0} on' "$rout" | head -n 80 || true
    fi
  fi
fi
if [ "$status" != "0" ]; then
  echo "R CMD check failed"; [ -f "$rout" ] && tail -n 40 "$rout"; exit 1
fi
bad=$(grep -E "\.\.\. (\[[^]]*\] )?(ERROR|WARNING|NOTE)" "$log" | grep -v "CRAN incoming feasibility" || true)
if [ -n "$bad" ]; then
  echo "R CMD check reported problems:"; echo "$bad"; exit 1
fi
# the incoming-feasibility NOTE may only say who maintains a new submission
extra=$(awk '/checking CRAN incoming feasibility/ {on = 1; next}
             on && /^\* checking/ {on = 0}
             on && NF && !/^Maintainer:/ && !/^New submission/ {print}' "$log")
if [ -n "$extra" ]; then
  echo "R CMD check: the CRAN incoming feasibility NOTE says more than 'new submission':"
  echo "$extra"; exit 1
fi
echo "R CMD check --as-cran: OK (no ERROR, WARNING or NOTE beyond the new submission)"

#!/usr/bin/env bash
# Installs what building, checking and using bnnmc needs on a fresh Debian
# machine, from Debian's prebuilt r-cran-* packages (no compiler toolchain
# for R packages beyond R's own is needed).  Set BNNMC_WITH_STAN=1 to also
# install rstan for the benchmarks in inst/benchmarks/.
set -euo pipefail
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
pkgs="r-base-dev r-cran-testthat r-cran-posterior r-cran-knitr r-cran-rmarkdown
  r-cran-markdown r-cran-jsonlite r-cran-mass r-cran-future r-cran-future.apply
  r-cran-progressr r-cran-bayesplot r-cran-loo r-cran-coda r-cran-rstantools
  pandoc tidy qpdf texlive-latex-base texlive-latex-recommended
  texlive-fonts-recommended"
if [ "${BNNMC_WITH_STAN:-0}" = "1" ]; then
  pkgs="$pkgs r-cran-rstan r-cran-bh r-cran-rcppeigen r-cran-stanheaders"
fi
missing=""
for p in $pkgs; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
echo "dependencies installed"

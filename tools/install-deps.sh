#!/usr/bin/env bash
# Installs what building, checking and using bnnmc needs on a fresh Debian
# machine.  Debian's prebuilt r-cran-* packages first (no compiler work);
# then, from CRAN through R's configured repository, only the suggested
# packages Debian does not have or has too old (parsnip, workflows, tune,
# yardstick, tidybayes, marginaleffects, collapse, mirai, future.mirai and
# the newer versions of their dependencies) - those are source builds, a
# quarter of an hour on two cores.  Plus Chromium for the site check and MathJax (libjs-mathjax),
# which tools/build-site.sh copies into the site so that it works offline.
# Set BNNMC_WITH_STAN=1 to also install rstan for the benchmarks in inst/benchmarks/; set
# BNNMC_NO_ECOSYSTEM=1 to skip the optional integrations (parsnip & co.,
# pkgdown, Chromium).  `bash tools/install-deps.sh debian` runs only the
# first (Debian) step, `... cran` only the second, so that CI can test on
# the portable routines while the CRAN packages compile.
set -euo pipefail
stage="${1:-all}"
case "$stage" in all|debian|cran) ;; *) echo "usage: install-deps.sh [all|debian|cran]" >&2; exit 2;; esac
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
pkgs="r-base-dev r-cran-testthat r-cran-posterior r-cran-knitr r-cran-rmarkdown
  r-cran-markdown r-cran-jsonlite r-cran-mass r-cran-future r-cran-future.apply
  r-cran-progressr r-cran-bayesplot r-cran-loo r-cran-coda r-cran-rstantools
  pandoc tidy qpdf texlive-latex-base texlive-latex-recommended
  texlive-fonts-recommended"
if [ "${BNNMC_NO_ECOSYSTEM:-0}" != "1" ]; then
  # the integrations (Suggests) and the site; Debian binaries of the heavy
  # dependencies so that the CRAN step below compiles as little as possible
  pkgs="$pkgs r-cran-shinystan r-cran-pkgdown r-cran-roxygen2 r-cran-recipes
  r-cran-rsample r-cran-hardhat r-cran-dplyr r-cran-tidyr r-cran-ggplot2
  r-cran-rlang r-cran-vctrs r-cran-data.table r-cran-tibble r-cran-purrr
  r-cran-insight r-cran-checkmate r-cran-generics r-cran-furrr r-cran-globals
  r-cran-lhs r-cran-distributional r-cran-ipred r-cran-gower r-cran-foreach
  r-cran-warp r-cran-slider r-cran-clock r-cran-modeldata r-cran-svunit
  r-cran-rcpparmadillo r-cran-formula r-cran-quadprog r-cran-xml2
  chromium libjs-mathjax"
fi
if [ "${BNNMC_WITH_STAN:-0}" = "1" ]; then
  pkgs="$pkgs r-cran-rstan r-cran-bh r-cran-rcppeigen r-cran-stanheaders"
fi
missing=""
[ "$stage" = "cran" ] && pkgs=""
for p in $pkgs; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends $missing >/dev/null
fi
if [ "${BNNMC_NO_ECOSYSTEM:-0}" != "1" ] && [ "$stage" != "debian" ]; then
  # CRAN (the repository R is configured with): what is missing or older
  # than needed.  marginaleffects needs backports >= 1.5.0 on R < 4.4 (it
  # takes `%||%` from there) and collapse >= 2.0.18 for Bayesian models.
  # future.mirai (the test of chains on mirai workers) needs future >= 1.49,
  # which needs parallelly >= 1.44 and globals >= 0.18: newer than Debian's.
  # BNNMC_CRAN_STAGING=DIR: build them into DIR first and move them into
  # the site library only when all are built, so that R sessions running
  # meanwhile (CI's portable pass) never see a half-replaced package.
  staging="${BNNMC_CRAN_STAGING:-}"
  [ -n "$staging" ] && $SUDO mkdir -p "$staging"
  $SUDO env BNNMC_CRAN_STAGING="$staging" Rscript -e '
    need <- c(parsnip = "1.0.0", workflows = "0", tune = "0", yardstick = "0",
              tidybayes = "3.0.0", marginaleffects = "0.20.0", collapse = "2.0.18",
              backports = "1.5.0", mirai = "0", future.mirai = "0",
              future = "1.49.0", parallelly = "1.44.0", globals = "0.18.0")
    old <- vapply(names(need), function(p) {
      v <- tryCatch(packageVersion(p), error = function(e) NULL)
      is.null(v) || v < need[[p]]
    }, logical(1))
    todo <- names(need)[old]
    site <- .libPaths()[1]
    staging <- Sys.getenv("BNNMC_CRAN_STAGING")
    lib <- if (nzchar(staging)) staging else site
    if (length(todo)) {
      .libPaths(unique(c(lib, .libPaths())))
      message("installing from CRAN into ", lib, ": ", paste(todo, collapse = ", "))
      install.packages(todo, lib = lib, Ncpus = max(1L, parallel::detectCores()))
      bad <- todo[!vapply(todo, requireNamespace, logical(1), quietly = TRUE)]
      if (length(bad)) stop("could not install: ", paste(bad, collapse = ", "))
    }
    if (nzchar(staging)) {
      built <- list.files(staging)
      built <- built[file.exists(file.path(staging, built, "DESCRIPTION"))]
      for (p in built) {
        unlink(file.path(site, p), recursive = TRUE)
        if (!file.rename(file.path(staging, p), file.path(site, p)) &&
            !file.copy(file.path(staging, p), site, recursive = TRUE))
          stop("could not move ", p, " into ", site)
      }
      message("moved into ", site, ": ", paste(built, collapse = ", "))
    }'
fi
echo "dependencies installed ($stage)"

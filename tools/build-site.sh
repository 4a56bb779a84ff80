#!/usr/bin/env bash
# Builds the pkgdown site into docs/ without network access: pkgdown is
# told there is no internet (no CRAN/badge look-ups), and the site serves
# every asset itself, nothing from a CDN: the Bootstrap 5 template ships
# its own assets, pkgdown/templates/head.html replaces the CDN scripts by
# pkgdown/assets/offline/ (table of contents, copy buttons, search), and
# MathJax is copied from Debian's libjs-mathjax into docs/mathjax/.  The
# package is installed into a temporary library from this checkout.
# Examples and vignettes (articles) are run.
# Usage: bash tools/build-site.sh   (then bash tools/check-site.sh);
# BNNMC_SITE_LAZY=1 bash tools/build-site.sh rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! Rscript -e 'quit(status = !requireNamespace("pkgdown", quietly = TRUE))'; then
  echo "build-site: pkgdown is not installed (bash tools/install-deps.sh installs it)" >&2
  exit 1
fi
mathjax="${BNNMC_MATHJAX_DIR:-/usr/share/javascript/mathjax}"
if [ ! -f "$mathjax/MathJax.js" ]; then
  echo "build-site: MathJax not found in $mathjax (Debian: apt-get install libjs-mathjax)" >&2
  exit 1
fi
# tune asks for the time zone when loaded; give it one where timedatectl is absent
export TZ="${TZ:-UTC}"
# BNNMC_SITE_LAZY=1: rebuild only the pages whose sources changed.
export BNNMC_SITE_LAZY="${BNNMC_SITE_LAZY:-0}"
Rscript -e '
  options(pkgdown.internet = FALSE)
  # downlit links a package named in code to its web page: from the
  # installed package DESCRIPTION, else from the CRAN package list, which
  # it downloads even offline and then fails; offline, a package that is
  # not installed simply gets no link (no apostrophes in this R code: it
  # is one single-quoted shell word)
  ns <- asNamespace("downlit")
  if (exists("CRAN_urls", envir = ns, inherits = FALSE)) {
    unlockBinding("CRAN_urls", ns)
    assign("CRAN_urls", function() data.frame(Package = character(), URL = character()),
           envir = ns)
    lockBinding("CRAN_urls", ns)
  }
  pkgdown::build_site(".", new_process = FALSE, install = TRUE, preview = FALSE,
                      lazy = Sys.getenv("BNNMC_SITE_LAZY") == "1")
'
# the offline stand-ins for pkgdown's CDN scripts (pkgdown copies
# pkgdown/assets/ too; copied again so that the site never lacks them)
mkdir -p docs/offline
cp pkgdown/assets/offline/* docs/offline/
# MathJax 2 with the configuration pkgdown asks for (TeX and MathML input,
# HTML-CSS or MathML output) and the TeX web fonts; not its unpacked
# sources, tests, other fonts or other configurations (about 7 of 54 MB).
# cp -L: Debian's files may be symlinks into other packages.
rm -rf docs/mathjax
mkdir -p docs/mathjax/config docs/mathjax/fonts/HTML-CSS/TeX docs/mathjax/jax/output \
  docs/mathjax/localization
cp -L "$mathjax/MathJax.js" docs/mathjax/
cp -L "$mathjax/config/TeX-AMS-MML_HTMLorMML.js" docs/mathjax/config/
cp -rL "$mathjax/extensions" docs/mathjax/
cp -rL "$mathjax/jax/input" "$mathjax/jax/element" docs/mathjax/jax/
for o in HTML-CSS CommonHTML PreviewHTML NativeMML; do
  cp -rL "$mathjax/jax/output/$o" docs/mathjax/jax/output/
done
cp -rL "$mathjax/fonts/HTML-CSS/TeX/woff" docs/mathjax/fonts/HTML-CSS/TeX/
[ -d "$mathjax/localization/en" ] && cp -rL "$mathjax/localization/en" docs/mathjax/localization/
# the search index as a script, for pages opened from disk (file://), where
# browsers refuse fetch() of search.json (see pkgdown/assets/offline/offline.js)
if [ -f docs/search.json ]; then
  { printf 'window.bnnmcSearchIndex = '; cat docs/search.json; printf ';\n'; } > docs/search-index.js
fi
echo "build-site: docs/index.html written"

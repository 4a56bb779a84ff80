#!/usr/bin/env bash
# Builds the pkgdown site into docs/ without network access: pkgdown is
# told there is no internet (no CRAN/badge look-ups), the Bootstrap 5
# template ships its assets, and the package is installed into a temporary
# library from this checkout.  Examples and vignettes (articles) are run.
# Usage: bash tools/build-site.sh   (then bash tools/check-site.sh)
set -euo pipefail
cd "$(dirname "$0")/.."
if ! Rscript -e 'quit(status = !requireNamespace("pkgdown", quietly = TRUE))'; then
  echo "build-site: pkgdown is not installed (bash tools/install-deps.sh installs it)" >&2
  exit 1
fi
# tune asks for the time zone when loaded; give it one where timedatectl is absent
export TZ="${TZ:-UTC}"
Rscript -e '
  options(pkgdown.internet = FALSE)
  pkgdown::build_site(".", new_process = FALSE, install = TRUE, preview = FALSE)
'
echo "build-site: docs/index.html written"

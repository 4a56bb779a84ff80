#!/usr/bin/env bash
# Checks the site built by tools/build-site.sh: pages present, internal
# links and images resolve, nothing is loaded from outside the site (pages
# load in headless Chromium with their network requests logged; any
# request to another host fails), maths typeset (no raw \( in the text),
# the page contents and the search box work, screenshot of the home page
# in docs/home.png.  See tools/check-site.R.
set -euo pipefail
cd "$(dirname "$0")/.."
chrome=""
for c in chromium chromium-browser google-chrome; do
  if command -v "$c" >/dev/null 2>&1; then chrome="$c"; break; fi
done
if [ -z "$chrome" ]; then
  echo "check-site: no Chromium found (bash tools/install-deps.sh installs it)" >&2
  exit 1
fi
Rscript tools/check-site.R "${1:-docs}" "$chrome"

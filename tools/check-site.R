# Checks the built pkgdown site (see tools/check-site.sh):
#  1. the home page, the reference index and the ecosystem article exist;
#  2. every relative href/src in every html file of the site points to a
#     file that exists (external links are not followed: no network);
#  3. those three pages load in headless Chromium with every <img> loaded
#     (an inline probe records document.images' state after the load
#     event, read back with --dump-dom);
#  4. a screenshot of the home page is written to <site>/home.png.
# Usage: Rscript tools/check-site.R <site dir> <chromium binary>
args <- commandArgs(trailingOnly = TRUE)
site <- normalizePath(if (length(args) >= 1) args[[1]] else "docs", mustWork = TRUE)
chrome <- if (length(args) >= 2) args[[2]] else "chromium"
for (p in c("xml2", "jsonlite"))
  if (!requireNamespace(p, quietly = TRUE)) stop("check-site needs the R package ", p)
problems <- character()
fail <- function(...) problems <<- c(problems, sprintf(...))

pages <- c(home = "index.html", reference = "reference/index.html",
           article = "articles/ecosystem.html")
for (p in pages) if (!file.exists(file.path(site, p))) fail("missing page: %s", p)

# 2. internal links
html <- list.files(site, "\\.html$", recursive = TRUE, full.names = TRUE)
n_links <- 0L
for (f in html) {
  doc <- xml2::read_html(f)
  nodes <- xml2::xml_find_all(doc, "//*[@href] | //*[@src]")
  refs <- c(xml2::xml_attr(nodes, "href"), xml2::xml_attr(nodes, "src"))
  refs <- unique(refs[!is.na(refs)])
  for (r in refs) {
    if (grepl("^[A-Za-z][A-Za-z0-9+.-]*:", r) || startsWith(r, "//") || startsWith(r, "#"))
      next                                        # external, data:, mailto:, anchors
    path <- utils::URLdecode(sub("[?#].*$", "", r))
    if (!nzchar(path)) next
    target <- file.path(dirname(f), path)
    if (endsWith(path, "/") || dir.exists(target)) target <- file.path(target, "index.html")
    n_links <- n_links + 1L
    if (!file.exists(target))
      fail("broken link in %s: %s", substring(f, nchar(site) + 2L), r)
  }
}
cat(sprintf("check-site: %d html files, %d internal links checked\n", length(html), n_links))

# 3. pages in headless Chromium
chrome_flags <- function() {
  c("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", paste0("--user-data-dir=", tempfile("chrome-profile-")))
}
probe <- paste0(
  "<script>window.addEventListener('load', function () {",
  " var bad = [];",
  " for (var i = 0; i < document.images.length; i++) {",
  "   var im = document.images[i];",
  "   if (!(im.complete && im.naturalWidth > 0)) bad.push(im.getAttribute('src'));",
  " }",
  " document.body.setAttribute('data-site-check', JSON.stringify({images: document.images.length,",
  "   broken: bad, title: document.title, text: document.body.innerText.length}));",
  "});</script>")
for (nm in names(pages)) {
  f <- file.path(site, pages[[nm]])
  if (!file.exists(f)) next
  src <- readLines(f, warn = FALSE, encoding = "UTF-8")
  tmp <- file.path(dirname(f), paste0(".site-check-", basename(f)))
  writeLines(sub("</body>", paste0(probe, "</body>"), src, fixed = TRUE), tmp, useBytes = TRUE)
  out <- suppressWarnings(system2(chrome, c(chrome_flags(), "--virtual-time-budget=20000",
                                            "--dump-dom", paste0("file://", tmp)),
                                  stdout = TRUE, stderr = FALSE, timeout = 120))
  unlink(tmp)
  dom <- tryCatch(xml2::read_html(paste(out, collapse = "\n")), error = function(e) NULL)
  res <- if (is.null(dom)) NA else
    xml2::xml_attr(xml2::xml_find_first(dom, "//body"), "data-site-check")
  if (is.na(res)) {
    fail("%s (%s) did not load in Chromium", nm, pages[[nm]])
    next
  }
  r <- jsonlite::fromJSON(res)
  cat(sprintf("check-site: %s loads in Chromium: title \"%s\", %d characters of text, %d images, %d broken\n",
              pages[[nm]], r$title, r$text, r$images, length(r$broken)))
  if (r$text < 200) fail("%s shows almost no text (%d characters)", pages[[nm]], r$text)
  for (b in r$broken) fail("image does not load on %s: %s", pages[[nm]], b)
}

# 4. screenshot of the home page
shot <- file.path(site, "home.png")
unlink(shot)
suppressWarnings(system2(chrome, c(chrome_flags(), paste0("--screenshot=", shot),
                                   "--window-size=1280,900", "--virtual-time-budget=20000",
                                   paste0("file://", file.path(site, "index.html"))),
                         stdout = FALSE, stderr = FALSE, timeout = 120))
if (!file.exists(shot) || file.size(shot) < 10000) {
  fail("no screenshot of the home page was written")
} else cat(sprintf("check-site: screenshot %s (%d bytes)\n", shot, file.size(shot)))

if (length(problems)) {
  cat("check-site: FAILED\n", paste0("  ", problems, "\n"), sep = "")
  quit(status = 1)
}
cat("check-site: OK\n")

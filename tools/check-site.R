# Checks the built pkgdown site (see tools/check-site.sh):
#  1. the home page, the reference index and the ecosystem article exist;
#  2. every relative href/src in every html file of the site points to a
#     file that exists (external links are not followed: no network), and
#     no page loads a script, style sheet, image or frame from elsewhere
#     (an absolute http(s):, // or file: address in src, or in the href of
#     a <link>);
#  3. the home page, the reference index, every article and every
#     reference page with maths load in headless Chromium, which logs its
#     network requests (--log-net-log): any request to a host other than
#     the site itself (any http(s)/ws address, or a file outside the site)
#     fails the check.  An inline probe, run once the page has loaded and
#     MathJax has typeset it, records every <img>'s state, whether the
#     rendered text still shows raw TeX delimiters \( or \[, how many
#     entries the page's table of contents ("On this page") has, and, on
#     the home page, how many results the search box gives for "bnn_fit";
#     read back with --dump-dom;
#  4. a screenshot of the home page is written to <site>/home.png.
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
  # resources a page loads (not links a reader may follow)
  res_nodes <- xml2::xml_find_all(doc, paste(
    "//script[@src] | //img[@src] | //iframe[@src] | //source[@src] | //audio[@src]",
    "| //video[@src] | //embed[@src] | //link[@href] | //object[@data]", sep = " "))
  res <- c(xml2::xml_attr(res_nodes, "src"), xml2::xml_attr(res_nodes, "href"),
           xml2::xml_attr(res_nodes, "data"))
  res <- unique(res[!is.na(res)])
  for (r in res[grepl("^(https?:|//|file:|wss?:|ftp:)", res, ignore.case = TRUE)])
    fail("%s loads %s from outside the site", substring(f, nchar(site) + 2L), r)
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

# 3. pages in headless Chromium, with their network requests logged
chrome_flags <- function() {
  c("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-default-apps", "--disable-extensions", "--no-default-browser-check",
    "--disable-dev-shm-usage", paste0("--user-data-dir=", tempfile("chrome-profile-")))
}
# every article, and every reference page whose html has TeX delimiters
has_math <- function(f) any(grepl("\\(", readLines(f, warn = FALSE), fixed = TRUE))
articles <- list.files(file.path(site, "articles"), "\\.html$")
articles <- file.path("articles", setdiff(articles, "index.html"))
refs_math <- list.files(file.path(site, "reference"), "\\.html$")
refs_math <- file.path("reference", refs_math[vapply(file.path(site, "reference", refs_math),
                                                     has_math, logical(1))])
load_pages <- unique(c(pages, articles, refs_math))
load_pages <- load_pages[file.exists(file.path(site, load_pages))]
probe <- paste0(
  "<script>window.addEventListener('load', function () {",
  " function report(extra) {",
  "   var bad = [];",
  "   for (var i = 0; i < document.images.length; i++) {",
  "     var im = document.images[i];",
  "     if (!(im.complete && im.naturalWidth > 0)) bad.push(im.getAttribute('src'));",
  "   }",
  "   var main = document.querySelector('main') || document.body;",
  "   var txt = main.innerText;",
  "   var r = {images: document.images.length, broken: bad, title: document.title,",
  "     text: document.body.innerText.length,",
  "     raw_tex: (txt.match(/\\\\[\\(\\[]/g) || []).length,",
  "     mathjax: typeof window.MathJax !== 'undefined',",
  "     math: document.querySelectorAll('span.math, div.math').length,",
  "     typeset: document.querySelectorAll('.MathJax, .MathJax_Display, .MathJax_CHTML, .MathJax_SVG').length,",
  "     toc_box: document.querySelectorAll('#toc').length,",
  "     toc: document.querySelectorAll('#toc a').length, search: -1};",
  "   for (var k in extra) r[k] = extra[k];",
  "   document.body.setAttribute('data-site-check', JSON.stringify(r));",
  " }",
  " function search() {",
  "   var box = window.jQuery && window.jQuery('#search-input');",
  "   if (!box || !box.length) { report({search: -2}); return; }",
  "   box[0].focus(); box[0].dispatchEvent(new FocusEvent('focus'));",
  "   setTimeout(function () {",
  "     box.val('bnn_fit'); box[0].dispatchEvent(new Event('input', {bubbles: true}));",
  "     setTimeout(function () {",
  "       var hits = Array.prototype.filter.call(document.querySelectorAll('.aa-suggestion'),",
  "         function (el) { return el.textContent.indexOf('No results found') < 0; });",
  "       report({search: hits.length});",
  "     }, 2000);",
  "   }, 2000);",
  " }",
  " var home = document.body.getAttribute('data-site-check-home') === '1';",
  " var done = function () { if (home) search(); else report({}); };",
  " if (window.MathJax && MathJax.Hub && MathJax.Hub.Queue) MathJax.Hub.Queue(done);",
  " else done();",
  "});</script>")
# URLs of the network requests a page made, from Chromium's --log-net-log
# file (NULL if unreadable): the URL_REQUEST_START_JOB events whose
# initiator is the page (a file:// page's requests have the initiator
# "null" and the isolation key "file://"), not Chromium itself ("not an
# origin": update checks, time and account look-ups).
page_requests <- function(netlog) {
  d <- tryCatch(jsonlite::fromJSON(netlog, simplifyVector = FALSE), error = function(e) NULL)
  if (is.null(d) || is.null(d$constants$logEventTypes$URL_REQUEST_START_JOB)) return(NULL)
  start <- d$constants$logEventTypes$URL_REQUEST_START_JOB
  urls <- character()
  for (e in d$events) {
    if (!identical(as.integer(e$type), as.integer(start)) || is.null(e$params$url)) next
    browser_own <- identical(e$params$initiator, "not an origin") &&
      !startsWith(as.character(e$params$network_isolation_key %||% ""), "file:")
    if (!browser_own) urls <- c(urls, e$params$url)
  }
  unique(urls)
}
`%||%` <- function(a, b) if (is.null(a)) b else a
offsite <- function(url) {
  if (grepl("^(data|blob|about|chrome|chrome-extension|devtools):", url)) return(FALSE)
  if (grepl("^file:", url)) {
    path <- utils::URLdecode(sub("^file://", "", sub("[?#].*$", "", url)))
    return(!startsWith(normalizePath(path, mustWork = FALSE), site))
  }
  TRUE
}
for (pg in load_pages) {
  f <- file.path(site, pg)
  src <- readLines(f, warn = FALSE, encoding = "UTF-8")
  tmp <- file.path(dirname(f), paste0(".site-check-", basename(f)))
  body_tag <- if (pg == pages[["home"]]) "<body data-site-check-home=\"1\"" else "<body"
  src <- sub("<body", body_tag, src, fixed = TRUE)
  writeLines(sub("</body>", paste0(probe, "</body>"), src, fixed = TRUE), tmp, useBytes = TRUE)
  netlog <- tempfile("netlog-", fileext = ".json")
  out <- suppressWarnings(system2(chrome, c(chrome_flags(), "--virtual-time-budget=20000",
                                            paste0("--log-net-log=", netlog),
                                            "--dump-dom", paste0("file://", tmp)),
                                  stdout = TRUE, stderr = FALSE, timeout = 120))
  unlink(tmp)
  # the addresses the page requested over the network (Chromium logs
  # network requests, not file:// reads; its own background requests, such
  # as update checks, have no page as initiator and are not the site's)
  urls <- page_requests(netlog)
  unlink(netlog)
  if (is.null(urls)) {
    fail("%s: Chromium's network log could not be read", pg)
    urls <- character()
  }
  for (u in urls[vapply(urls, offsite, logical(1))])
    fail("%s makes a request outside the site: %s", pg, u)
  dom <- tryCatch(xml2::read_html(paste(out, collapse = "\n")), error = function(e) NULL)
  res <- if (is.null(dom)) NA else
    xml2::xml_attr(xml2::xml_find_first(dom, "//body"), "data-site-check")
  if (is.na(res)) {
    fail("%s did not load in Chromium", pg)
    next
  }
  r <- jsonlite::fromJSON(res)
  cat(sprintf(paste0("check-site: %s: \"%s\", %d characters, %d images (%d broken), ",
                     "%d network requests, maths %d/%d typeset, TOC %d%s\n"),
              pg, r$title, r$text, r$images, length(r$broken), length(urls),
              r$typeset, r$math, r$toc,
              if (r$search >= 0) sprintf(", search \"bnn_fit\": %d results", r$search) else ""))
  if (r$text < 200) fail("%s shows almost no text (%d characters)", pg, r$text)
  for (b in r$broken) fail("image does not load on %s: %s", pg, b)
  if (r$raw_tex > 0) fail("%s shows raw TeX (%d \\( or \\[ in its text)", pg, r$raw_tex)
  if (r$math > 0 && !isTRUE(r$mathjax)) fail("%s has maths but MathJax did not load", pg)
  if (r$math > 0 && r$typeset == 0) fail("%s has maths that MathJax did not typeset", pg)
  if (r$toc_box > 0 && pg %in% articles && r$toc == 0)
    fail("%s: the table of contents (\"On this page\") is empty", pg)
  if (pg == pages[["home"]] && r$search <= 0)
    fail("the search box on the home page found nothing for \"bnn_fit\" (%d)", r$search)
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

# Stale file references: every `R/<file>.R` and `src/<folder>/<file>.c` /
# `.h` named in a comment of R/, src/, tests/ or inst/benchmarks/ (and in
# the text of inst/benchmarks/'s READMEs) must exist.  Files move and merge; a comment
# that sends a reader to a file that is gone costs them a search.
# Usage: Rscript tools/check-file-refs.R [repository root]  (exits 1 and
# lists file:line: reference for every reference to a missing file)
args <- commandArgs(TRUE)
root <- if (length(args)) args[1] else "."
dirs <- file.path(root, c("R", "src", "tests", "inst/benchmarks"))
files <- unlist(lapply(dirs[dir.exists(dirs)], list.files, recursive = TRUE,
                       full.names = TRUE, pattern = "\\.(R|Rmd|c|h|md|sh|stan)$"))
ref_re <- "(^|[^A-Za-z0-9_./-])((R/[A-Za-z0-9_.-]+\\.R)|(src/([A-Za-z0-9_.-]+/)*[A-Za-z0-9_.-]+\\.[ch]))\\b"

# The comment text of each line (non-comment text blanked): after `#` for R
# code (a `#` inside a string is taken as a comment start too, which can
# only add references to check), inside /* */ or after // for C, and the
# whole line for Markdown.
comment_text <- function(lines, file) {
  if (grepl("\\.md$", file)) return(lines)
  if (grepl("\\.[ch]$", file)) {
    out <- character(length(lines))
    open <- FALSE
    for (i in seq_along(lines)) {
      l <- lines[i]
      keep <- ""
      repeat {
        if (open) {
          e <- regexpr("*/", l, fixed = TRUE)
          if (e < 0) { keep <- paste(keep, l); break }
          keep <- paste(keep, substr(l, 1, e - 1))
          l <- substr(l, e + 2, nchar(l))
          open <- FALSE
        } else {
          s <- regexpr("/*", l, fixed = TRUE)
          d <- regexpr("//", l, fixed = TRUE)
          if (d > 0 && (s < 0 || d < s)) { keep <- paste(keep, substr(l, d + 2, nchar(l))); break }
          if (s < 0) break
          l <- substr(l, s + 2, nchar(l))
          open <- TRUE
        }
      }
      out[i] <- keep
    }
    return(out)
  }
  h <- regexpr("#", lines, fixed = TRUE)
  ifelse(h > 0, substr(lines, h + 1, nchar(lines)), "")
}

bad <- character()
for (f in files) {
  lines <- readLines(f, warn = FALSE)
  txt <- comment_text(lines, f)
  for (i in grep(ref_re, txt)) {
    refs <- regmatches(txt[i], gregexpr(ref_re, txt[i]))[[1]]
    refs <- sub("^[^Rs]*", "", sub(ref_re, "\\2", refs))
    for (r in unique(refs)) if (!file.exists(file.path(root, r)))
      bad <- c(bad, sprintf("%s:%d: %s", sub(paste0("^", root, "/"), "", f), i, r))
  }
}
if (length(bad)) {
  cat("Comments name files that do not exist:\n", paste0("  ", bad, "\n"), sep = "")
  quit(status = 1L)
}
cat("Every R/*.R and src/*/*.[ch] named in a comment exists (", length(files), " files read)\n",
    sep = "")

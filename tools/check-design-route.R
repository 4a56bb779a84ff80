# DESIGN.md's "The route of a fit in R" is true of the code: every R file it
# names exists in R/, every function it names is defined in R/, and its
# numbered steps visit at most 16 files.  Usage: Rscript tools/check-design-route.R
# (from the repository's top folder; exits 1 on a false claim).
lines <- readLines("DESIGN.md", warn = FALSE)
start <- grep("^## The route of a fit in R", lines)
end <- start + grep("^## ", lines[-(1:start)])[1L] - 1L
sec <- paste(lines[start:end], collapse = "\n")
files <- unique(regmatches(sec, gregexpr("`[A-Za-z0-9_.*-]+\\.R`", sec))[[1]])
files <- gsub("`", "", files)
files <- files[!grepl("*", files, fixed = TRUE)]
fns <- unique(regmatches(sec, gregexpr("`[A-Za-z_.][A-Za-z0-9_.]*\\(\\)`", sec))[[1]])
fns <- sub("\\(\\)`$", "", sub("^`", "", fns))
src <- unlist(lapply(list.files("R", "\\.R$", full.names = TRUE), readLines, warn = FALSE))
defined <- sub("^([A-Za-z_.][A-Za-z0-9_.]*) <- function.*$", "\\1",
               grep("^[A-Za-z_.][A-Za-z0-9_.]* <- function", src, value = TRUE))
bad_files <- files[!file.exists(file.path("R", files))]
bad_fns <- setdiff(fns[!vapply(fns, exists, NA, envir = baseenv())], defined)
sec_lines <- lines[start:end]
first <- grep("^[0-9]+\\. ", sec_lines)
last <- max(first) + grep("^$", sec_lines[-(1:max(first))])[1L] - 1L
steps_txt <- paste(sec_lines[min(first):last], collapse = "\n")
route_files <- unique(gsub("`", "", regmatches(steps_txt, gregexpr("`[A-Za-z0-9_.-]+\\.R`",
                                                                   steps_txt))[[1]]))
steps <- length(first)
cat(sprintf("DESIGN.md route: %d steps visiting %d files (%s); %d files and %d functions named\n",
            steps, length(route_files), paste(route_files, collapse = ", "), length(files),
            length(fns)))
ok <- TRUE
if (length(bad_files)) { cat("files that do not exist:", bad_files, "\n"); ok <- FALSE }
if (length(bad_fns)) { cat("functions not defined in R/:", bad_fns, "\n"); ok <- FALSE }
if (length(route_files) > 16L) { cat("the route visits more than 16 files\n"); ok <- FALSE }
if (!ok) quit(status = 1L)

# Readers for the UCI benchmark files used by the source papers (their fixed
# train/test index files: bnn_paper_uci_splits(), R/paper-uci-splits.R).

# Data sets whose last column is a class label (MILE's classification files).
.bnn_uci_classification_names <- c("ionosphere", "australian_proc", "glass_proc",
                                   "heart_proc", "sonar_proc", "wine_red_proc",
                                   "wine_white_proc", "covertype_proc")

.bnn_uci_source_note <- paste0(
  "The benchmark files come from the UCI Machine Learning Repository ",
  "(Dua & Graff 2017, https://archive.ics.uci.edu) as whitespace-separated ",
  "'<name>.data' files without header, target in the last column."
)

.bnn_uci_dir_hint <- paste0(
  "Set the directory with options(bnnmc.data_dir = \"/path/to/uci\"), the ",
  "environment variable BNNMC_DATA_DIR, or the 'dir' argument."
)

# Resolve 'name' to an existing file path; errors say what was expected.
.bnn_uci_path <- function(name, dir) {
  if (!is.character(name) || length(name) != 1L || is.na(name) || !nzchar(name))
    stop("'name' must be a single non-empty string (a data set name such as ",
         "\"airfoil\" or a path to a .data file)", call. = FALSE)
  if (grepl("[/\\\\]", name)) {            # a path, relative or absolute
    if (!file.exists(name) || dir.exists(name))
      stop("file '", name, "' does not exist. ", .bnn_uci_source_note, call. = FALSE)
    return(name)
  }
  base <- sub("\\.data$", "", name)
  if (!is.character(dir) || length(dir) != 1L || is.na(dir))
    stop("'dir' must be a single string (a directory path)", call. = FALSE)
  if (!nzchar(dir)) {
    if (file.exists(name) && !dir.exists(name)) return(name)  # file in the working directory
    stop("no data directory given for data set '", base, "'. ",
         .bnn_uci_dir_hint, " ", .bnn_uci_source_note, call. = FALSE)
  }
  if (!dir.exists(dir))
    stop("data directory '", dir, "' does not exist. ", .bnn_uci_dir_hint,
         call. = FALSE)
  path <- file.path(dir, paste0(base, ".data"))
  if (!file.exists(path)) {
    avail <- sub("\\.data$", "", list.files(dir, pattern = "\\.data$"))
    stop("data file '", base, ".data' not found in '", dir, "'. ",
         .bnn_uci_source_note, " ",
         if (length(avail)) paste0("Available in that directory: ",
                                   paste(avail, collapse = ", "), ".")
         else "That directory has no .data files.", call. = FALSE)
  }
  path
}

# Parse whitespace-separated numeric text; errors name file, line and column.
.bnn_read_numeric_table <- function(path) {
  lines <- readLines(path, warn = FALSE)
  lines <- trimws(lines)
  keep <- which(nzchar(lines))
  if (!length(keep))
    stop("file '", path, "' is empty (no data rows)", call. = FALSE)
  fields <- strsplit(lines[keep], "[[:space:]]+", perl = TRUE)
  nf <- lengths(fields)
  tab <- table(nf)
  p1 <- as.integer(names(tab)[which.max(tab)])   # the most common field count
  bad <- which(nf != p1)
  if (length(bad)) {
    show <- utils::head(bad, 5L)
    stop("file '", path, "' has rows with a wrong number of columns: expected ",
         p1, " (as on most rows), but ",
         paste0("line ", keep[show], " has ", nf[show], collapse = ", "),
         if (length(bad) > 5L) paste0(" (and ", length(bad) - 5L, " more lines)"),
         call. = FALSE)
  }
  vals <- unlist(fields, use.names = FALSE)
  num <- suppressWarnings(as.numeric(vals))
  missing_tok <- vals %in% c("NA", "NaN", "nan", "na", "?")
  text <- which(is.na(num) & !missing_tok)
  if (length(text)) {
    k <- text[1L] - 1L
    stop("file '", path, "' has non-numeric text '", vals[text[1L]],
         "' on line ", keep[k %/% p1 + 1L], ", column ", k %% p1 + 1L,
         if (length(text) > 1L) paste0(" (", length(text), " non-numeric fields in all)"),
         call. = FALSE)
  }
  num[missing_tok] <- NA_real_
  if (any(missing_tok))
    warning("file '", path, "' has ", sum(missing_tok),
            " missing values (NA, NaN or ?); they are kept as NA", call. = FALSE)
  matrix(num, nrow = length(keep), ncol = p1, byrow = TRUE)
}

#' Read a UCI benchmark data set
#'
#' Reads one of the benchmark files used by the source papers (Sommer et al.
#' 2024, 2025; Wiese et al. 2023): whitespace-separated numbers, no header,
#' one row per observation, target in the last column.  The files are not
#' part of the package; they come from the UCI Machine Learning Repository
#' (Dua and Graff 2017).  Blank lines and leading or trailing blanks are
#' ignored; gzip-compressed files are read transparently.
#'
#' For the hourly bike-sharing data (`name = "bikesharing"`) the first
#' column is the row index `instant` (1, ..., 17379).  The reference code of
#' Sommer et al. (2024, 2025) keeps it as a feature (12 inputs; the reported
#' network sizes, e.g. d = 5,426 for three hidden layers of 48 in MILE's
#' Fig. 3, require 12 inputs), so it is kept by default; `drop_instant = TRUE`
#' removes it (as in the later SMILE data file, 11 features).
#'
#' @param name Data set name without extension (e.g. `"airfoil"`), a file
#'   name such as `"airfoil.data"`, or a path to a file.
#' @param dir Directory holding the `.data` files.  Defaults to the option
#'   `bnnmc.data_dir`, else the environment variable `BNNMC_DATA_DIR`.
#' @param classification Logical: should the last column be returned as a
#'   factor of class labels?  `NULL` (default) detects it from the name:
#'   `ionosphere` and the `*_proc` files of the MILE reference code are
#'   classification data.  The labels must then be integers.
#' @param drop_instant Logical; for `bikesharing`, drop the first column
#'   (the row index `instant`).  Ignored for other data sets.
#' @return A data frame with numeric columns `x1`, ..., `xp` and the target
#'   `y` (numeric, or a factor with levels the sorted label values for
#'   classification).  Attribute `"source"` holds the file path.
#' @references Dua, D. and Graff, C. (2017). UCI Machine Learning Repository.
#'   University of California, Irvine. <https://archive.ics.uci.edu>
#' @seealso [bnn_paper_uci_splits()], [bnn_split()], [bnn_standardize()]
#' @examples
#' # A small file in the same format as the UCI files:
#' dir <- tempfile("uci")
#' dir.create(dir)
#' writeLines(c("0.1 2 3.5", "0.4 1 2.9", "0.3 5 4.1"),
#'            file.path(dir, "toy.data"))
#' bnn_read_uci("toy", dir = dir)
#' # With options(bnnmc.data_dir = "/path/to/uci") set, bnn_read_uci("airfoil")
#' # reads /path/to/uci/airfoil.data.
#' d <- Sys.getenv("BNNMC_DATA_DIR")
#' if (nzchar(d) && file.exists(file.path(d, "yacht.data")))
#'   str(bnn_read_uci("yacht", dir = d))
#' @export
bnn_read_uci <- function(name, dir = getOption("bnnmc.data_dir", Sys.getenv("BNNMC_DATA_DIR", "")),
                         classification = NULL, drop_instant = FALSE) {
  path <- .bnn_uci_path(name, dir)
  base <- sub("\\.data(\\.gz)?$", "", basename(path))
  if (is.null(classification))
    classification <- base %in% .bnn_uci_classification_names
  if (!is.logical(classification) || length(classification) != 1L || is.na(classification))
    stop("'classification' must be TRUE, FALSE or NULL", call. = FALSE)
  if (!is.logical(drop_instant) || length(drop_instant) != 1L || is.na(drop_instant))
    stop("'drop_instant' must be TRUE or FALSE", call. = FALSE)
  m <- .bnn_read_numeric_table(path)
  if (drop_instant && base == "bikesharing") {
    if (ncol(m) < 3L)
      stop("file '", path, "' has too few columns to drop 'instant'", call. = FALSE)
    m <- m[, -1L, drop = FALSE]
  }
  if (ncol(m) < 2L)
    stop("file '", path, "' has one column; at least one feature and the ",
         "target (last column) are needed", call. = FALSE)
  p <- ncol(m) - 1L
  out <- as.data.frame(m[, seq_len(p), drop = FALSE])
  names(out) <- paste0("x", seq_len(p))
  y <- m[, p + 1L]
  if (classification) {
    if (anyNA(y) || any(y != round(y)))
      stop("file '", path, "': the label column (last column) must hold ",
           "integer class labels for classification = TRUE", call. = FALSE)
    lev <- sort(unique(y))
    y <- factor(y, levels = lev, labels = format(lev, scientific = FALSE, trim = TRUE))
  }
  out$y <- y
  attr(out, "source") <- path
  out
}

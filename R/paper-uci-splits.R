# The fixed train/test indices of the papers' UCI benchmarks (Wiese et al.
# 2023), read from their JSON files.

#' Fixed train/test indices of the UCI benchmarks
#'
#' Reads the fixed 80/20 splits of Wiese et al. (2023) from a JSON file such
#' as `split_indices_0.2.json`: one entry per data set with 0-based index
#' lists `train` and `validate`; `validate` is the test set.  Uses
#' \pkg{jsonlite} when installed and a small built-in parser otherwise.
#'
#' @param name Data set name, e.g. `"airfoil"` (a key of the JSON file).
#' @param file Path to the JSON file.  `NULL` (default) looks for
#'   `split_indices_0.2.json` and then `toy_split_indices_0.2.json` in `dir`
#'   and uses the first that has `name`.
#' @param dir Directory searched when `file` is `NULL`; the same default as
#'   in [bnn_read_uci()].
#' @return A list with 1-based integer vectors `train` and `test` (in file
#'   order), usable as `bnn_split(data, "fixed", indices = ...)`.
#' @seealso [bnn_split()]
#' @examples
#' f <- tempfile(fileext = ".json")
#' writeLines('{"toy": {"train": [0, 2, 3], "validate": [1, 4]}}', f)
#' bnn_paper_uci_splits("toy", file = f)
#' @family paper reproduction
#' @export
bnn_paper_uci_splits <- function(name, file = NULL,
                                 dir = getOption("bnnmc.data_dir",
                                                 Sys.getenv("BNNMC_DATA_DIR", ""))) {
  if (!is.character(name) || length(name) != 1L || is.na(name) || !nzchar(name))
    stop("'name' must be a single non-empty string", call. = FALSE)
  if (is.null(file)) {
    if (!is.character(dir) || length(dir) != 1L || is.na(dir) || !nzchar(dir))
      stop("no 'file' and no data directory given. ", .bnn_uci_dir_hint, call. = FALSE)
    if (!dir.exists(dir))
      stop("data directory '", dir, "' does not exist. ", .bnn_uci_dir_hint, call. = FALSE)
    cand <- file.path(dir, c("split_indices_0.2.json", "toy_split_indices_0.2.json"))
    cand <- cand[file.exists(cand)]
    if (!length(cand))
      stop("no split file (split_indices_0.2.json or toy_split_indices_0.2.json) in '",
           dir, "'", call. = FALSE)
    known <- character()
    for (f in cand) {
      js <- .bnn_read_json(f)
      if (name %in% names(js)) return(.bnn_uci_split_entry(js[[name]], name, f))
      known <- c(known, names(js))
    }
    stop("no split for '", name, "' in ", paste0("'", basename(cand), "'", collapse = " or "),
         "; available: ", paste(known, collapse = ", "), call. = FALSE)
  }
  if (!is.character(file) || length(file) != 1L || !file.exists(file))
    stop("split file '", file, "' does not exist", call. = FALSE)
  js <- .bnn_read_json(file)
  if (!name %in% names(js))
    stop("no split for '", name, "' in '", file, "'; available: ",
         paste(names(js), collapse = ", "), call. = FALSE)
  .bnn_uci_split_entry(js[[name]], name, file)
}

.bnn_uci_split_entry <- function(e, name, file) {
  if (!is.list(e) || !all(c("train", "validate") %in% names(e)))
    stop("entry '", name, "' of '", file, "' must have 'train' and 'validate' ",
         "index lists", call. = FALSE)
  conv <- function(v, what) {
    v <- unlist(v, use.names = FALSE)
    if (!is.numeric(v) || anyNA(v) || any(v < 0) || any(v != round(v)))
      stop("'", what, "' indices of '", name, "' in '", file, "' must be ",
           "non-negative integers (0-based)", call. = FALSE)
    as.integer(v) + 1L
  }
  tr <- conv(e$train, "train")
  te <- conv(e$validate, "validate")
  if (anyDuplicated(c(tr, te)))
    stop("train and validate indices of '", name, "' in '", file, "' overlap",
         call. = FALSE)
  list(train = tr, test = te)
}

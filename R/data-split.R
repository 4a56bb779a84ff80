# Train/validation/test splits and standardisation as in the source papers.

#' Split data into training, validation and test sets
#'
#' Random splits as in the source papers, or fixed index splits.
#' \describe{
#'   \item{`"dei"`}{80/20 training/test, no validation set (Sommer et
#'     al. 2024, Sec. 4: the test set is 20 percent of the data; 3 random
#'     splits).
#'     The test set has `floor(0.2 n)` rows and training the rest, as in the
#'     reference code.}
#'   \item{`"mile"`}{70/10/20 training/validation/test (Sommer et
#'     al. 2025, App. A: 3 splits; the validation set is only used for early
#'     stopping of the deep ensemble).  Training has `floor(0.7 n)` rows,
#'     validation `floor(0.1 n)` and test the rest, as in the reference code.}
#'   \item{`"fixed"`}{the 1-based row indices in `indices`, e.g. from
#'     [bnn_paper_uci_splits()] (the fixed 80/20 splits of Wiese et al. 2023).}
#' }
#' Random splits permute the rows with R's Mersenne-Twister generator seeded
#' with `seed + rep - 1` (so `rep = 1, 2, 3` with the default `seed = NULL`
#' uses seeds 1, 2, 3 like the reference code's replications; the row sets
#' themselves differ from the Python code's).  The same arguments always give
#' the same rows, and the caller's random number stream is left untouched.
#' Rows keep their original row names.
#'
#' @param data A data frame (or matrix), one row per observation.
#' @param protocol `"dei"`, `"mile"` or `"fixed"` (see Details).
#' @param rep Repetition number (a positive integer); ignored for `"fixed"`.
#' @param seed Base seed (integer) or `NULL`, which means 1.
#' @param indices For `protocol = "fixed"`: a list with 1-based row indices
#'   `train`, `test` and optionally `valid`.  They must not overlap; rows in
#'   none of them are left out with a warning.
#' @param prop Optional proportions `c(train, valid, test)` (non-negative,
#'   summing to 1) replacing the protocol's default, e.g. `c(0.4, 0.1, 0.5)`
#'   for the PGPS comparison of Sommer et al. (2025).
#' @return A list with data frames `train`, `valid` (`NULL` without a
#'   validation set) and `test`, the row indices `index` (a list with
#'   `train`, `valid`, `test`), and `protocol`, `rep` and `seed` (the seed
#'   actually used, `NA` for fixed splits).
#' @seealso [bnn_standardize()], [bnn_read_uci()], [bnn_paper_uci_splits()]
#' @examples
#' d <- data.frame(x1 = rnorm(50), y = rnorm(50))
#' s <- bnn_split(d, "dei", rep = 2)
#' sapply(s$index, length)
#' s3 <- bnn_split(d, "mile")
#' sapply(s3$index, length)
#' f <- bnn_split(d, "fixed", indices = list(train = 1:40, test = 41:50))
#' nrow(f$test)
#' @export
bnn_split <- function(data, protocol = c("dei", "mile", "fixed"), rep = 1,
                      seed = NULL, indices = NULL, prop = NULL) {
  protocol <- match.arg(protocol)
  if (!is.data.frame(data) && !is.matrix(data))
    stop("'data' must be a data frame or a matrix", call. = FALSE)
  n <- nrow(data)
  if (n < 2L) stop("'data' must have at least 2 rows", call. = FALSE)
  if (protocol == "fixed") {
    idx <- .bnn_check_indices(indices, n)
    used_seed <- NA_integer_
    rep <- NA_integer_
  } else {
    if (!is.numeric(rep) || length(rep) != 1L || is.na(rep) || rep < 1 || rep != round(rep))
      stop("'rep' must be a positive whole number", call. = FALSE)
    if (is.null(seed)) seed <- 1L
    if (!is.numeric(seed) || length(seed) != 1L || is.na(seed) || seed != round(seed))
      stop("'seed' must be NULL or a whole number", call. = FALSE)
    used_seed <- as.integer(seed + rep - 1)
    if (is.null(prop))
      prop <- if (protocol == "dei") c(0.8, 0, 0.2) else c(0.7, 0.1, 0.2)
    if (!is.numeric(prop) || length(prop) != 3L || anyNA(prop) || any(prop < 0) ||
        abs(sum(prop) - 1) > 1e-8)
      stop("'prop' must be three non-negative proportions (train, valid, test) ",
           "summing to 1", call. = FALSE)
    eps <- 1e-9  # so that e.g. 0.7 * 1030 is 721, not 720.999...
    if (protocol == "dei") {         # test and validation rounded down, rest to train
      n_test <- floor(prop[3] * n + eps)
      n_valid <- floor(prop[2] * n + eps)
      n_train <- n - n_test - n_valid
    } else {                         # train and validation rounded down, rest to test
      n_train <- floor(prop[1] * n + eps)
      n_valid <- floor(prop[2] * n + eps)
      n_test <- n - n_train - n_valid
    }
    if (n_train < 1 || n_test < 1)
      stop("the split leaves no training or no test rows (n = ", n, ")", call. = FALSE)
    perm <- with_seed(used_seed, sample.int(n))
    idx <- list(train = perm[seq_len(n_train)],
                valid = if (n_valid > 0) perm[n_train + seq_len(n_valid)],
                test = perm[n_train + n_valid + seq_len(n_test)])
  }
  sub <- function(i) if (!is.null(i)) data[i, , drop = FALSE]
  list(train = sub(idx$train), valid = sub(idx$valid), test = sub(idx$test),
       index = idx, protocol = protocol, rep = as.integer(rep), seed = used_seed)
}

.bnn_check_indices <- function(indices, n) {
  if (!is.list(indices) || !all(c("train", "test") %in% names(indices)))
    stop("'indices' must be a list with 1-based row indices 'train' and 'test' ",
         "(and optionally 'valid'), e.g. from bnn_paper_uci_splits()", call. = FALSE)
  out <- list(train = NULL, valid = NULL, test = NULL)
  for (k in c("train", "valid", "test")) {
    v <- indices[[k]]
    if (is.null(v)) next
    if (!is.numeric(v) || anyNA(v) || any(v != round(v)) || any(v < 1) || any(v > n))
      stop("'indices$", k, "' must be whole numbers between 1 and nrow(data) = ", n,
           call. = FALSE)
    if (!length(v) && k != "valid")
      stop("'indices$", k, "' must not be empty", call. = FALSE)
    if (length(v)) out[[k]] <- as.integer(v)
  }
  all_i <- unlist(out, use.names = FALSE)
  if (anyDuplicated(all_i))
    stop("'indices' overlap or repeat rows (e.g. row ", all_i[anyDuplicated(all_i)],
         "); train, valid and test must be disjoint", call. = FALSE)
  if (length(all_i) < n)
    warning(n - length(all_i), " of the ", n, " rows are in no set of 'indices' ",
            "and are left out", call. = FALSE)
  out
}

#' Standardize data with training or full-data statistics
#'
#' Centres and scales the numeric columns (features and, by default, the
#' numeric target) of several data frames with one set of statistics.
#' Factor, character and logical columns (e.g. class labels) are left alone.
#' \describe{
#'   \item{`stats = "train"` (default)}{statistics of `train` only, so the
#'     test data are not used for preprocessing.}
#'   \item{`stats = "full"`}{statistics of all data frames given together
#'     (for a split: train, validation and test, i.e. the full data).  This
#'     is what the papers' reference code does (every column z-scored with
#'     the full-data mean and SD before splitting; Sommer et al. 2024, 2025;
#'     Wiese et al. 2023), a mild train-test leak; use it to reproduce their
#'     numbers.}
#' }
#' The scale is the population standard deviation (divisor n, as numpy and
#' scikit-learn in the reference code); constant columns get scale 1.
#' Metrics of standardised predictions are on the standardised scale; pass
#' `scale[["y"]]` as `y_scale` to [bnn_metrics_gaussian()] for the original
#' scale.
#'
#' @param train A data frame of training data, or a split from
#'   [bnn_split()], whose `train`, `valid` and `test` are then used.
#' @param ... Further data frames (e.g. `test = `) to standardise with the
#'   same statistics; unnamed ones are named `data2`, `data3`, ...
#' @param stats `"train"` or `"full"` (see Details).
#' @param exclude Names of numeric columns to leave unchanged, e.g. `"y"` to
#'   keep the target on its original scale.
#' @return The input with standardised data frames (a split keeps its other
#'   elements), plus `center` and `scale` (named numeric vectors over the
#'   standardised columns) and `stats`.
#' @seealso [bnn_split()]
#' @examples
#' d <- data.frame(x1 = rnorm(40, 5, 2), x2 = runif(40), y = rnorm(40, 10))
#' s <- bnn_split(d, "dei")
#' st <- bnn_standardize(s)                  # training statistics
#' round(colMeans(st$train), 10)
#' st_full <- bnn_standardize(s, stats = "full")
#' st_full$scale
#' # two data frames directly:
#' str(bnn_standardize(s$train, test = s$test, exclude = "y"))
#' @export
bnn_standardize <- function(train, ..., stats = c("train", "full"), exclude = NULL) {
  stats <- match.arg(stats)
  is_split <- is.list(train) && !is.data.frame(train) &&
    all(c("train", "test") %in% names(train))
  if (is_split) {
    if (...length()) stop("give either a split from bnn_split() or data frames, not both",
                          call. = FALSE)
    frames <- train[intersect(c("train", "valid", "test"), names(train))]
    frames <- frames[!vapply(frames, is.null, NA)]
  } else {
    others <- list(...)
    if (length(others)) {
      nm <- names(others)
      if (is.null(nm)) nm <- rep("", length(others))
      nm[!nzchar(nm)] <- paste0("data", which(!nzchar(nm)) + 1L)
      names(others) <- nm
      if ("train" %in% nm) stop("'...' must not contain an element named 'train'",
                                call. = FALSE)
    }
    frames <- c(list(train = train), others)
  }
  for (k in names(frames))
    if (!is.data.frame(frames[[k]]))
      stop("'", k, "' must be a data frame", call. = FALSE)
  cols <- names(frames$train)[vapply(frames$train, is.numeric, NA)]
  for (k in names(frames))
    if (!all(cols %in% names(frames[[k]])))
      stop("'", k, "' lacks numeric columns of 'train': ",
           paste(setdiff(cols, names(frames[[k]])), collapse = ", "), call. = FALSE)
  if (!is.null(exclude) && !is.character(exclude))
    stop("'exclude' must be a character vector of column names", call. = FALSE)
  cols <- setdiff(cols, exclude)
  ref <- if (stats == "train") frames["train"] else frames
  center <- scale <- stats::setNames(numeric(length(cols)), cols)
  for (j in cols) {
    v <- unlist(lapply(ref, function(f) f[[j]]), use.names = FALSE)
    if (anyNA(v)) stop("column '", j, "' has missing values", call. = FALSE)
    m <- mean(v)
    s <- sqrt(mean((v - m)^2))
    center[j] <- m
    scale[j] <- if (s > 0) s else 1
  }
  for (k in names(frames)) {
    f <- frames[[k]]
    for (j in cols) f[[j]] <- (f[[j]] - center[[j]]) / scale[[j]]
    frames[[k]] <- f
  }
  out <- if (is_split) train else list()
  out[names(frames)] <- frames
  out$center <- center
  out$scale <- scale
  out$stats <- stats
  out
}

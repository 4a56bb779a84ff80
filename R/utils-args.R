# Checks of the arguments of the package's methods: misspelt or unknown names
# in '...' are errors or warnings that name the argument meant.

# The arguments of a user-facing method, checked where R would guess: a name
# that is only a prefix of an argument (`prob` for `probs`) is an error that
# names the candidates, rather than R's silent partial match; tidymodels'
# `new_data` is taken as `newdata`; arguments that no method uses (typos
# such as `draws =`) get a warning (other packages pass extra arguments to
# these generics).  Called first thing in a method as
#   newdata <- check_dots(list(...), "predict", newdata)
# and returns newdata (NULL for methods without one).
check_dots <- function(dots, fun, newdata = NULL) {
  f <- sys.function(-1L)
  call <- sys.call(-1L)
  check_exact_names(call, names(formals(f)), fun)
  if ("new_data" %in% names(dots) && "newdata" %in% names(formals(f))) {
    if (!is.null(newdata))
      stop(sprintf("%s(): give 'newdata' or 'new_data', not both.", fun), call. = FALSE)
    newdata <- dots$new_data
    if (is.null(newdata))
      stop(sprintf("%s(): 'new_data' is NULL; give a data frame (or leave it out for the training data).",
                   fun), call. = FALSE)
    dots$new_data <- NULL
  }
  warn_unused_dots(dots, fun)
  newdata
}

# Names in `call` that R would match partially to one of `formals`: an error
# naming the argument(s) meant.
check_exact_names <- function(call, formals, fun) {
  nm <- names(as.list(call))[-1L]
  nm <- nm[!is.na(nm) & nzchar(nm)]
  for (a in setdiff(nm, formals)) {
    cand <- formals[startsWith(formals, a) & formals != "..."]
    if (!length(cand)) next
    hint <- if (a == "prob" && "level" %in% formals)
      " ('probs' for predictive quantiles, 'level' for the probability mass of an interval)" else ""
    stop(sprintf("%s(): '%s' is not an argument; did you mean %s?%s Argument names must be given in full.",
                 fun, a, paste0("'", cand, "'", collapse = " or "), hint), call. = FALSE)
  }
  invisible(NULL)
}

# Warn about arguments that no method uses (typos such as `draws =`).
warn_unused_dots <- function(dots, fun) {
  if (length(dots))
    warning(sprintf("%s(): unused argument(s): %s.", fun,
                    paste(names(dots) %||% rep("<unnamed>", length(dots)), collapse = ", ")),
            call. = FALSE)
  invisible(NULL)
}

# Arguments that a function does not have (they arrived in its `...`): an
# error naming each, with the closest argument names, as a user who typed
# `chain = 2` or `iters = 500` needs (R's own partial matching would give
# "argument matches multiple formal arguments" or take a wrong one).
stop_unknown_args <- function(dots, formals, fun) {
  if (!length(dots)) return(invisible(NULL))
  nm <- names(dots) %||% rep("", length(dots))
  formals <- setdiff(formals, "...")
  if (any(!nzchar(nm)))
    stop(sprintf("%s(): %d unnamed argument(s) after 'data'; name them (e.g. hidden = c(16, 16)).",
                 fun, sum(!nzchar(nm))), call. = FALSE)
  msgs <- vapply(nm, function(a) {
    d <- utils::adist(a, formals, ignore.case = TRUE)[1, ]
    pre <- formals[startsWith(formals, a) | startsWith(a, formals)]
    close <- unique(c(pre, formals[d <= max(1, floor(nchar(a) / 3)) & d == min(d)]))
    if (length(close))
      sprintf("'%s' (did you mean %s?)", a, paste0("'", close, "'", collapse = " or "))
    else sprintf("'%s'", a)
  }, "")
  stop(sprintf("%s(): unknown argument(s): %s. See ?%s for its arguments.", fun,
               paste(msgs, collapse = ", "), fun), call. = FALSE)
}

# The .omc_check_* helpers validate scalar arguments of the optimiser and
# MCLMC wrappers, with errors naming the argument.
.omc_check_count <- function(x, name, min = 0, null_ok = FALSE) {
  if (is.null(x) && null_ok) return(NULL)
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || x < min ||
      x != round(x) || x > .Machine$integer.max)
    stop(sprintf("'%s' must be a whole number >= %s%s", name, min,
                 if (null_ok) " or NULL" else ""), call. = FALSE)
  as.integer(x)
}

.omc_check_number <- function(x, name, lower = -Inf, upper = Inf,
                          lower_open = FALSE, upper_open = FALSE) {
  ok <- is.numeric(x) && length(x) == 1L && !is.na(x) &&
    (if (lower_open) x > lower else x >= lower) &&
    (if (upper_open) x < upper else x <= upper)
  if (!ok)
    stop(sprintf("'%s' must be a single number in %s%s, %s%s", name,
                 if (lower_open) "(" else "[", format(lower), format(upper),
                 if (upper_open) ")" else "]"), call. = FALSE)
  as.double(x)
}

.omc_check_seed <- function(seed, name = "seed") {
  if (!is.numeric(seed) || length(seed) != 1L || is.na(seed) || seed < 0 ||
      seed != round(seed) || seed >= 2^53)
    stop(sprintf("'%s' must be a whole number in [0, 2^53)", name), call. = FALSE)
  as.double(seed)
}

.omc_check_flag <- function(x, name) {
  if (!is.logical(x) || length(x) != 1L || is.na(x))
    stop(sprintf("'%s' must be TRUE or FALSE", name), call. = FALSE)
  x
}

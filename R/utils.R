# Small internal helpers.

`%||%` <- function(a, b) if (is.null(a)) b else a

# Evaluate expr with R's RNG seeded (default generator kinds, so the result
# does not depend on the caller's RNGkind()), restoring the caller's RNG
# state and kinds afterwards.
with_seed <- function(seed, expr) {
  genv <- globalenv()
  had <- exists(".Random.seed", envir = genv, inherits = FALSE)
  old <- if (had) get(".Random.seed", envir = genv, inherits = FALSE)
  old_kind <- RNGkind()
  on.exit({
    do.call(RNGkind, as.list(old_kind))
    if (had) assign(".Random.seed", old, envir = genv)
    else if (exists(".Random.seed", envir = genv, inherits = FALSE))
      rm(".Random.seed", envir = genv)
  }, add = TRUE)
  set.seed(seed, kind = "Mersenne-Twister", normal.kind = "Inversion",
           sample.kind = "Rejection")
  expr
}

check_count <- function(x, name, min = 0L) {
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || x != round(x) || x < min)
    stop(sprintf("'%s' must be a single whole number >= %d, not %s.", name, min,
                 deparse1(x)), call. = FALSE)
  # R's integers stop at .Machine$integer.max; larger counts (and Inf) would
  # become NA with an unrelated message further on
  if (x > .Machine$integer.max)
    stop(sprintf("'%s' must be a whole number between %d and %d (.Machine$integer.max), not %s.",
                 name, min, .Machine$integer.max, deparse1(x)), call. = FALSE)
  as.integer(x)
}

# chain ids of bnn_fit(chain_id = ): distinct whole numbers >= 1
check_chain_id <- function(x) {
  ok <- is.numeric(x) && length(x) >= 1L && !anyNA(x) && all(x == round(x)) &&
    all(x >= 1) && all(x <= .Machine$integer.max)
  if (!ok)
    stop(sprintf("'chain_id' must be a vector of whole numbers >= 1 (one per chain), not %s.",
                 deparse1(x, nlines = 1L)), call. = FALSE)
  if (anyDuplicated(x))
    stop(sprintf("'chain_id' must not repeat an id (%s is given twice).",
                 format(x[anyDuplicated(x)])), call. = FALSE)
  as.integer(x)
}

check_prob <- function(x, name, open = TRUE) {
  ok <- is.numeric(x) && length(x) == 1L && !is.na(x) && x > 0 && x < 1
  if (!ok) stop(sprintf("'%s' must be a single number in (0, 1), not %s.", name,
                        deparse1(x)), call. = FALSE)
  x
}

check_positive <- function(x, name) {
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || !(x > 0) || !is.finite(x))
    stop(sprintf("'%s' must be a single positive number, not %s.", name,
                 deparse1(x)), call. = FALSE)
  x
}

match_choice <- function(x, choices, name) {
  if (!is.character(x) || length(x) != 1L || !(x %in% choices))
    stop(sprintf("'%s' must be one of %s, not %s.", name,
                 paste0('"', choices, '"', collapse = ", "), deparse1(x)),
         call. = FALSE)
  x
}

new_seed <- function() sample.int(.Machine$integer.max, 1L)

# Median of a numeric vector ignoring NA, NA if empty.
fmt_num <- function(x, digits = 3) formatC(x, digits = digits, format = "g")

# A warning with a class, so callers can handle kinds of warnings apart.
warn_cond <- function(msg, class) {
  warning(structure(class = c(class, "bnnmc_warning", "warning", "condition"),
                    list(message = msg, call = NULL)))
}

# A duration in seconds as people say it: "45 s", "12 min", "3.2 h".
format_duration <- function(sec) {
  if (!is.finite(sec)) return("unknown")
  if (sec < 90) return(sprintf("%.0f s", sec))
  if (sec < 5400) return(sprintf("%.0f min", sec / 60))
  sprintf("%.1f h", sec / 3600)
}

# Exponent e such that x * 2^-e has its largest magnitude in [0.5, 1), when
# the largest magnitude of the numeric vectors in ... is beyond 2^(+-400):
# there squares of differences (and their sums) overflow or underflow, and
# distance kernels would return NaN or ties.  0 otherwise, so that
# ordinary draws are computed exactly as before.  Scaling by a power of 2
# is exact in binary floating point (barring underflow of values far below
# the largest), so distance-based results scale back exactly.
pow2_exponent <- function(...) {
  m <- max(0, vapply(list(...), function(v) if (length(v)) max(abs(v)) else 0, 0))
  if (!is.finite(m) || m == 0 || (m <= 2^400 && m >= 2^-400)) return(0)
  floor(log2(m)) + 1
}

# x * 2^e without overflowing the power itself (2^1024 is Inf)
scale_pow2 <- function(x, e) {
  if (e == 0) return(x)
  h <- trunc(e / 2)
  x * 2^h * 2^(e - h)
}

# Threads for the C diagnostics and the forward pass of predictions: option
# bnnmc.threads (default 2, the most CRAN allows during checks); the OpenMP
# runtime also honours OMP_THREAD_LIMIT.  Results do not depend on the
# number of threads.
.bnn_threads <- function() {
  n <- getOption("bnnmc.threads", 2L)
  if (!is.numeric(n) || length(n) != 1L || is.na(n) || n < 1 || n != round(n) ||
      n > .Machine$integer.max)
    stop("option 'bnnmc.threads' must be a whole number between 1 and ",
         .Machine$integer.max, ", not ", deparse1(n), call. = FALSE)
  as.integer(n)
}

need_pkg <- function(pkg, what) {
  if (!requireNamespace(pkg, quietly = TRUE))
    stop(sprintf("%s needs the '%s' package; install it with install.packages(\"%s\").",
                 what, pkg, pkg), call. = FALSE)
  invisible(TRUE)
}

# log(sum(exp(a))) and log(mean(exp(a))) without overflow (the maximum
# taken out first).
log_sum_exp <- function(a) {
  m <- max(a)
  if (!is.finite(m)) return(m)
  m + log(sum(exp(a - m)))
}
log_mean_exp <- function(a) log_sum_exp(a) - log(length(a))

# CPU seconds per call of f(reps) ("cpu", the median of three timed batches
# of about `target` CPU seconds each: R reads CPU time to the millisecond)
# and the share of a core the process got meanwhile ("share": CPU over
# elapsed time summed over the batches).  gcFirst = FALSE: system.time()
# runs a full gc() first by default, about 0.1 s with the usual packages.
#
# With wall = TRUE the batches are timed by the elapsed time to the
# microsecond (Sys.time()) instead, and "cpu" is elapsed seconds per call
# with "share" 1: short batches can be timed so (the CPU time the kernel
# reports can move in steps of several milliseconds), at the price of
# counting the time other processes take from this one.
time_per_rep <- function(f, target = 0.01, wall = FALSE) {
  clock <- if (wall) function(reps) {
    t0 <- Sys.time()
    f(reps)
    e <- as.double(Sys.time()) - as.double(t0)
    c(cpu = e, wall = e)
  } else function(reps) {
    t <- system.time(f(reps), gcFirst = FALSE)
    c(cpu = t[["user.self"]] + t[["sys.self"]], wall = t[["elapsed"]])
  }
  reps <- 2L
  repeat {
    t <- clock(reps)
    if (t[["cpu"]] >= target / 4 || reps >= 2^20) break
    reps <- reps * 4L
  }
  reps <- as.integer(min(2^22, max(reps, ceiling(reps * target / max(t[["cpu"]],
                                                                   if (wall) 1e-6 else 1e-3)))))
  times <- vapply(1:3, function(i) clock(reps), c(cpu = 0, wall = 0))
  c(cpu = max(stats::median(times["cpu", ]) / reps, 1e-9),
    share = sum(times["cpu", ]) / max(sum(times["wall", ]), 1e-9))
}

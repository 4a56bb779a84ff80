# Which SIMD level of the network's routines runs (src/simd/simd.c): the
# option bnnmc.simd, read in the calling session and applied there and,
# passed explicitly with every batch of chains, in future workers.

# option value -> the level asked of C_simd (its names)
.simd_levels <- c(auto = "avx512", portable = "generic", avx2 = "avx2+fma",
                  avx512 = "avx512")

# The checked value of options(bnnmc.simd = ) ("auto" when unset).
simd_option <- function() {
  k <- getOption("bnnmc.simd")
  if (is.null(k)) k <- "auto"
  if (!is.character(k) || length(k) != 1L || is.na(k) || !k %in% names(.simd_levels))
    stop(sprintf(paste0("options(bnnmc.simd = ) must be one of \"auto\", \"portable\", ",
                        "\"avx2\" or \"avx512\", not %s."), deparse1(k)), call. = FALSE)
  k
}

# Switch the SIMD level of this process (NULL: only report); returns the
# name of the level in use ("generic", "avx2+fma" or "avx512").
simd_select <- function(level) .Call(C_simd, level)

# Apply a bnnmc.simd value in this process and return the SIMD level in
# use.  "auto" takes the best the CPU supports (as at load time); "avx2" and
# "avx512" are errors when the CPU (or the build) does not have them.
apply_simd <- function(choice = simd_option()) {
  want <- .simd_levels[[choice]]
  prev <- simd_select(NULL)
  got <- simd_select(want)
  if (choice %in% c("avx2", "avx512") && !identical(got, want)) {
    simd_select(prev)
    stop(sprintf(paste0("options(bnnmc.simd = \"%s\"): this CPU (or this build of bnnmc) ",
                        "has no %s routines (the best level available is \"%s\"); use \"auto\" ",
                        "or \"portable\"."), choice, toupper(sub("\\+fma", "", want)),
                 got), call. = FALSE)
  }
  got
}

# The name of the SIMD level in use in this process.
bnn_simd_in_use <- function() simd_select(NULL)

# At load: the environment variable BNNMC_SIMD is the default of the
# option (so that a whole session, e.g. the test suite, runs on a chosen
# SIMD level), and is applied at once.
simd_on_load <- function() {
  env <- Sys.getenv("BNNMC_SIMD", "")
  if (nzchar(env) && is.null(getOption("bnnmc.simd")))
    options(bnnmc.simd = env)
  if (!is.null(getOption("bnnmc.simd")))
    tryCatch(apply_simd(), error = function(e)
      warning(conditionMessage(e), " The default SIMD level is used.", call. = FALSE))
  invisible()
}

# (called from .onLoad(), R/zzz.R)

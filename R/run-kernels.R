# Which of the network's C kernels run (src/simd/kernels.c): the option
# bnnmc.kernels, read in the calling session and applied there and, passed
# explicitly with every batch of chains, in future workers.

# option value -> the level asked of C_simd (its names)
.kernel_levels <- c(auto = "avx512", portable = "generic", avx2 = "avx2+fma",
                    avx512 = "avx512")

# The checked value of options(bnnmc.kernels = ) ("auto" when unset).
kernels_option <- function() {
  k <- getOption("bnnmc.kernels", "auto")
  if (!is.character(k) || length(k) != 1L || is.na(k) || !k %in% names(.kernel_levels))
    stop(sprintf(paste0("options(bnnmc.kernels = ) must be one of \"auto\", \"portable\", ",
                        "\"avx2\" or \"avx512\", not %s."), deparse1(k)), call. = FALSE)
  k
}

# Switch the kernels of this process (NULL: only report); returns the name
# of the kernels in use ("generic", "avx2+fma" or "avx512").
simd_select <- function(level) .Call(C_simd, level)

# Apply a bnnmc.kernels value in this process and return the kernels in
# use.  "auto" takes the best the CPU supports (as at load time); "avx2" and
# "avx512" are errors when the CPU (or the build) does not have them.
apply_kernels <- function(choice = kernels_option()) {
  want <- .kernel_levels[[choice]]
  prev <- simd_select(NULL)
  got <- simd_select(want)
  if (choice %in% c("avx2", "avx512") && !identical(got, want)) {
    simd_select(prev)
    stop(sprintf(paste0("options(bnnmc.kernels = \"%s\"): this CPU (or this build of bnnmc) ",
                        "has no %s kernels (the best available are \"%s\"); use \"auto\" ",
                        "or \"portable\"."), choice, toupper(sub("\\+fma", "", want)),
                 got), call. = FALSE)
  }
  got
}

# The name of the kernels in use in this process.
bnn_kernels_in_use <- function() simd_select(NULL)

# At load: the environment variable BNNMC_KERNELS is the default of the
# option (so that a whole session, e.g. the test suite, runs on chosen
# kernels), and is applied at once.
kernels_on_load <- function() {
  env <- Sys.getenv("BNNMC_KERNELS", "")
  if (nzchar(env) && is.null(getOption("bnnmc.kernels"))) options(bnnmc.kernels = env)
  if (!is.null(getOption("bnnmc.kernels")))
    tryCatch(apply_kernels(), error = function(e)
      warning(conditionMessage(e), " The default kernels are used.", call. = FALSE))
  invisible()
}

# (called from .onLoad(), R/zzz.R)

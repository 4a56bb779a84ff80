# Which of the network's SIMD compute kernels run (src/simd/simd.c): the
# option bnnmc.simd, read in the calling session and applied there and,
# passed explicitly with every batch of chains, in future workers.
# (options(bnnmc.kernels) and BNNMC_KERNELS are the deprecated names of
# the option and of its environment variable.)

# option value -> the level asked of C_simd (its names)
.simd_levels <- c(auto = "avx512", portable = "generic", avx2 = "avx2+fma",
                  avx512 = "avx512")

# deprecation warnings given in this session (once each)
.simd_warned <- new.env(parent = emptyenv())

simd_deprecated <- function(old, new) {
  if (isTRUE(.simd_warned[[old]])) return(invisible())
  assign(old, TRUE, envir = .simd_warned)
  warning(sprintf("%s is deprecated (the compute kernels are now called SIMD): use %s.",
                  old, new), call. = FALSE)
}

# The checked value of options(bnnmc.simd = ) ("auto" when unset); the
# deprecated options(bnnmc.kernels = ) is used, with a warning, when
# bnnmc.simd is unset.
simd_option <- function() {
  k <- getOption("bnnmc.simd")
  name <- "bnnmc.simd"
  if (is.null(k) && !is.null(getOption("bnnmc.kernels"))) {
    simd_deprecated("options(bnnmc.kernels)", "options(bnnmc.simd)")
    k <- getOption("bnnmc.kernels")
    name <- "bnnmc.kernels"
  }
  if (is.null(k)) k <- "auto"
  if (!is.character(k) || length(k) != 1L || is.na(k) || !k %in% names(.simd_levels))
    stop(sprintf(paste0("options(%s = ) must be one of \"auto\", \"portable\", ",
                        "\"avx2\" or \"avx512\", not %s."), name, deparse1(k)), call. = FALSE)
  k
}

# Switch the compute kernels of this process (NULL: only report); returns
# the name of the kernels in use ("generic", "avx2+fma" or "avx512").
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
                        "has no %s kernels (the best available are \"%s\"); use \"auto\" ",
                        "or \"portable\"."), choice, toupper(sub("\\+fma", "", want)),
                 got), call. = FALSE)
  }
  got
}

# The name of the SIMD level in use in this process.
bnn_simd_in_use <- function() simd_select(NULL)

# At load: the environment variable BNNMC_SIMD (or the deprecated
# BNNMC_KERNELS) is the default of the option (so that a whole session,
# e.g. the test suite, runs on chosen kernels), and is applied at once.
simd_on_load <- function() {
  env <- Sys.getenv("BNNMC_SIMD", "")
  if (!nzchar(env) && nzchar(Sys.getenv("BNNMC_KERNELS", ""))) {
    simd_deprecated("The environment variable BNNMC_KERNELS", "BNNMC_SIMD")
    env <- Sys.getenv("BNNMC_KERNELS")
  }
  if (nzchar(env) && is.null(getOption("bnnmc.simd")) && is.null(getOption("bnnmc.kernels")))
    options(bnnmc.simd = env)
  if (!is.null(getOption("bnnmc.simd")) || !is.null(getOption("bnnmc.kernels")))
    tryCatch(apply_simd(), error = function(e)
      warning(conditionMessage(e), " The default kernels are used.", call. = FALSE))
  invisible()
}

# (called from .onLoad(), R/zzz.R)

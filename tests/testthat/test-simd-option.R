# options(bnnmc.simd) chooses the SIMD level of the network's C routines,
# in the session and in future workers (the value travels with the chains);
# BNNMC_SIMD is its default at load.

kfit <- function(seed = 4) {
  bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 8, chains = 2, sampler = "nuts",
          warmup = 150, iter = 100, seed = seed, progress = FALSE)
}

test_that("a portable fit gives the same draws sequentially and on 2 multisession workers", {
  skip_on_cran()
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  old_k <- bnnmc:::bnn_simd_in_use()
  old <- options(bnnmc.simd = "portable")
  oplan <- future::plan(future::sequential)
  on.exit({
    future::plan(oplan)
    options(old)
    .Call(bnnmc:::C_simd, old_k)
  })
  seq_fit <- suppressWarnings(kfit())
  expect_identical(seq_fit$simd, "generic")
  expect_identical(bnnmc:::bnn_simd_in_use(), "generic")
  future::plan(future::multisession, workers = 2)
  par_fit <- suppressWarnings(kfit())
  # before: workers ran the default SIMD level whatever the session chose
  expect_identical(par_fit$simd, "generic")
  expect_identical(par_fit$draws, seq_fit$draws)
  expect_identical(par_fit$sampler_stats, seq_fit$sampler_stats)
  # the option matters: on a CPU with SIMD routines the default level
  # give other bits (chains are chaotic), so the identity above is a test
  future::plan(future::sequential)
  options(bnnmc.simd = "auto")
  auto_fit <- suppressWarnings(kfit())
  expect_identical(auto_fit$simd, .Call(bnnmc:::C_simd, "avx512"))
  if (auto_fit$simd != "generic")
    expect_false(identical(auto_fit$draws, seq_fit$draws))
})

test_that("bnnmc.simd is validated and an unavailable SIMD level is an error", {
  old_k <- bnnmc:::bnn_simd_in_use()
  on.exit(.Call(bnnmc:::C_simd, old_k), add = TRUE)
  withr_opt <- function(v, code) {
    old <- options(bnnmc.simd = v)
    on.exit(options(old))
    code
  }
  expect_error(withr_opt("sse2", suppressWarnings(kfit())),
               "options\\(bnnmc.simd = \\) must be one of \"auto\", \"portable\", \"avx2\" or \"avx512\", not \"sse2\"")
  # a CPU without AVX-512: asking for it is an error and the SIMD level in
  # use stays as it was
  ns <- asNamespace("bnnmc")
  real <- get("simd_select", ns)
  unlockBinding("simd_select", ns)
  assign("simd_select", function(level) {
    if (is.null(level)) return(real(NULL))
    real(if (identical(level, "avx512")) "avx2+fma" else level)
  }, envir = ns)
  on.exit({
    assign("simd_select", real, envir = ns)
    lockBinding("simd_select", ns)
  }, add = TRUE)
  .Call(bnnmc:::C_simd, "generic")
  expect_error(withr_opt("avx512", suppressWarnings(kfit())),
               "bnnmc.simd = \"avx512\"\\): this CPU \\(or this build of bnnmc\\) has no AVX512 routines")
  expect_identical(bnnmc:::bnn_simd_in_use(), "generic")
})

test_that("BNNMC_SIMD sets the option's default when bnnmc is loaded", {
  skip_on_cran()
  libs <- paste(.libPaths(), collapse = .Platform$path.sep)
  out <- system2(file.path(R.home("bin"), "Rscript"),
                 c("--vanilla", "-e", shQuote(paste0(
                   "suppressMessages(library(bnnmc)); cat(getOption('bnnmc.simd'), ",
                   "bnnmc:::bnn_simd_in_use())"))),
                 stdout = TRUE, stderr = TRUE,
                 env = c(paste0("R_LIBS=", libs), "BNNMC_SIMD=portable"))
  expect_identical(tail(out, 1), "portable generic")
})

# The option's and the variable's former names, deprecated aliases until
# this version, are no longer read (built from parts: the sources name
# them nowhere else).
old_option <- paste0("bnnmc.", "kern", "els")
old_envvar <- paste0("BNNMC_", "KERN", "ELS")

test_that("only options(bnnmc.simd) chooses the SIMD level: the former name has no effect", {
  old_k <- bnnmc:::bnn_simd_in_use()
  old <- options(bnnmc.simd = NULL)
  on.exit({
    options(old)
    .Call(bnnmc:::C_simd, old_k)
  })
  options(stats::setNames(list("portable"), old_option))
  on.exit(options(stats::setNames(list(NULL), old_option)), add = TRUE)
  # neither read nor warned about, even with a value that is no level
  expect_no_warning(k <- bnnmc:::simd_option())
  expect_identical(k, "auto")
  options(stats::setNames(list("sse2"), old_option))
  expect_identical(bnnmc:::simd_option(), "auto")
  options(stats::setNames(list("portable"), old_option))
  fit <- suppressWarnings(kfit())
  expect_identical(fit$simd, .Call(bnnmc:::C_simd, "avx512"))
})

test_that("only BNNMC_SIMD sets the option's default at load: the former variable has no effect", {
  skip_on_cran()
  libs <- paste(.libPaths(), collapse = .Platform$path.sep)
  out <- system2(file.path(R.home("bin"), "Rscript"),
                 c("--vanilla", "-e", shQuote(paste0(
                   "w <- NULL; withCallingHandlers(suppressMessages(library(bnnmc)), ",
                   "warning = function(e) { w <<- conditionMessage(e); ",
                   "invokeRestart('muffleWarning') }); cat(length(w), '\\n'); ",
                   "cat(is.null(getOption('bnnmc.simd')), bnnmc:::bnn_simd_in_use())"))),
                 stdout = TRUE, stderr = TRUE,
                 env = c(paste0("R_LIBS=", libs), "BNNMC_SIMD=",
                         paste0(old_envvar, "=portable")))
  expect_identical(trimws(out[1]), "0")
  # the level is the one a session without either variable selects
  best <- system2(file.path(R.home("bin"), "Rscript"),
                  c("--vanilla", "-e", shQuote(paste0(
                    "suppressMessages(library(bnnmc)); cat(bnnmc:::bnn_simd_in_use())"))),
                  stdout = TRUE, stderr = TRUE,
                  env = c(paste0("R_LIBS=", libs), "BNNMC_SIMD="))
  expect_identical(tail(out, 1), paste("TRUE", tail(best, 1)))
})

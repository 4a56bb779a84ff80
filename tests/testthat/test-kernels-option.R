# options(bnnmc.kernels) chooses the C kernels, in the
# session and in future workers (the value travels with the chains).

kfit <- function(seed = 4) {
  bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 8, chains = 2, sampler = "nuts",
          warmup = 150, iter = 100, seed = seed, progress = FALSE)
}

test_that("a portable fit gives the same draws sequentially and on 2 multisession workers", {
  skip_on_cran()
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  old_k <- bnnmc:::bnn_kernels_in_use()
  old <- options(bnnmc.kernels = "portable")
  oplan <- future::plan(future::sequential)
  on.exit({
    future::plan(oplan)
    options(old)
    .Call(bnnmc:::C_simd, old_k)
  })
  seq_fit <- suppressWarnings(kfit())
  expect_identical(seq_fit$kernels, "generic")
  expect_identical(bnnmc:::bnn_kernels_in_use(), "generic")
  future::plan(future::multisession, workers = 2)
  par_fit <- suppressWarnings(kfit())
  # before: workers ran the default (SIMD) kernels whatever the session chose
  expect_identical(par_fit$kernels, "generic")
  expect_identical(par_fit$draws, seq_fit$draws)
  expect_identical(par_fit$sampler_stats, seq_fit$sampler_stats)
  # the option matters: on a CPU with SIMD kernels the default kernels
  # give other bits (chains are chaotic), so the identity above is a test
  future::plan(future::sequential)
  options(bnnmc.kernels = "auto")
  auto_fit <- suppressWarnings(kfit())
  expect_identical(auto_fit$kernels, .Call(bnnmc:::C_simd, "avx512"))
  if (auto_fit$kernels != "generic")
    expect_false(identical(auto_fit$draws, seq_fit$draws))
})

test_that("bnnmc.kernels is validated and an unavailable SIMD level is an error", {
  old_k <- bnnmc:::bnn_kernels_in_use()
  on.exit(.Call(bnnmc:::C_simd, old_k), add = TRUE)
  withr_opt <- function(v, code) {
    old <- options(bnnmc.kernels = v)
    on.exit(options(old))
    code
  }
  expect_error(withr_opt("sse2", suppressWarnings(kfit())),
               "options\\(bnnmc.kernels = \\) must be one of \"auto\", \"portable\", \"avx2\" or \"avx512\", not \"sse2\"")
  # a CPU without AVX-512: asking for it is an error and the kernels in use
  # stay as they were
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
               "bnnmc.kernels = \"avx512\"\\): this CPU \\(or this build of bnnmc\\) has no AVX512 kernels")
  expect_identical(bnnmc:::bnn_kernels_in_use(), "generic")
})

test_that("BNNMC_KERNELS sets the option's default when bnnmc is loaded", {
  skip_on_cran()
  libs <- paste(.libPaths(), collapse = .Platform$path.sep)
  out <- system2(file.path(R.home("bin"), "Rscript"),
                 c("--vanilla", "-e", shQuote(paste0(
                   "suppressMessages(library(bnnmc)); cat(getOption('bnnmc.kernels'), ",
                   "bnnmc:::bnn_kernels_in_use())"))),
                 stdout = TRUE, stderr = TRUE,
                 env = c(paste0("R_LIBS=", libs), "BNNMC_KERNELS=portable"))
  expect_identical(tail(out, 1), "portable generic")
})

#' @section Reproducibility (SIMD level):
#' A seed gives the same draws, bit for bit, under every \pkg{future} plan
#' and chain order, as long as the chains run on the same SIMD level of the
#' network's C routines.  `options(bnnmc.simd = )` chooses it: `"auto"` (the
#' default: the best the CPU supports), `"portable"` (plain C, the same bits
#' on every CPU), `"avx2"` or `"avx512"` (an error if the CPU or the build
#' lacks them).  [bnn_fit()] (and every function that runs chains or
#' ensemble members) applies it when it starts, in the calling session and
#' in each \pkg{future} worker (the value is sent with the chains); a fit's
#' `$simd` records the level its chains ran on (`"generic"`, `"avx2+fma"`
#' or `"avx512"`).  The environment variable `BNNMC_SIMD` (same values),
#' read when the package is loaded, is the option's default, e.g.
#' `BNNMC_SIMD=portable Rscript -e 'testthat::test_local()'`.

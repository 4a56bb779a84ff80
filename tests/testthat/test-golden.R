# Golden draws (helper-golden.R): every sampler's and approximation's numbers
# must stay `identical()` to those recorded in tests/testthat/golden/, for
# the portable kernels and for each SIMD kernel this CPU runs.  The recorded
# values depend on the CPU's floating point and the compiler, so these
# comparisons run in the project's CI and on developers' machines, not on
# CRAN's or a user's (skip_on_cran).

test_that("every sampler's draws are identical to the recorded golden draws", {
  skip_on_cran()
  dir <- test_path("golden")
  configs <- golden_configs()
  kinds <- golden_simd_kinds()
  compared <- 0L
  for (kind in kinds) {
    file <- golden_file(kind, dir)
    if (!file.exists(file)) next
    want <- utils::read.csv(file, stringsAsFactors = FALSE, colClasses = "character")
    expect_setequal(unique(want$config), names(configs))
    got <- golden_compute(kind, configs)
    for (cfg in names(configs)) {
      w <- want[want$config == cfg, c("component", "fingerprint")]
      g <- got[got$config == cfg, c("component", "fingerprint")]
      w <- w[order(w$component), ]; g <- g[order(g$component), ]
      rownames(w) <- rownames(g) <- NULL
      expect_identical(g, w, label = paste0(cfg, " (", kind, " kernels)"))
    }
    compared <- compared + 1L
  }
  # the portable kernels' goldens are always there to compare
  expect_true(compared >= 1L)
  expect_true(file.exists(golden_file("generic", dir)))
})

test_that("the fingerprint sees a change in the last bit of one draw", {
  x <- list(draws = array(c(1, 2, 3, 4), c(2, 2)), timing = 1)
  y <- x
  y$draws[2, 2] <- 4 * (1 + .Machine$double.eps)
  fx <- golden_fingerprint(x); fy <- golden_fingerprint(y)
  expect_named(fx, "draws")   # timing is not a number of the fit
  expect_false(identical(fx, fy))
  expect_identical(fx, golden_fingerprint(x))
})

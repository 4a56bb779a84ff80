# Records the golden draws of tests/testthat/test-golden.R for the portable
# routines and every SIMD level this CPU runs.  Run from the repository's
# top folder with the package installed from the same tree:
#   R CMD INSTALL . && Rscript tools/record-golden.R
# Only after a deliberate numerical change: say in the commit which
# samplers' draws changed and which benchmark rows predate it.
library(bnnmc)
env <- new.env(parent = asNamespace("bnnmc"))
sys.source("tests/testthat/helper-golden.R", envir = env)
dir <- "tests/testthat/golden"
dir.create(dir, showWarnings = FALSE)
for (kind in env$golden_simd_kinds("all")) {
  t0 <- proc.time()[["elapsed"]]
  res <- env$golden_compute(kind)
  utils::write.csv(res, env$golden_file(kind, dir), row.names = FALSE)
  cat(sprintf("%-9s %d configs, %d components, %.1f s\n", kind, length(unique(res$config)),
              nrow(res), proc.time()[["elapsed"]] - t0))
}

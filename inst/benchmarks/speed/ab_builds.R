# Shared by the benchmarks that time two builds of bnnmc in the same run
# (driver.R, nuts_overhead.R): the script's own options, and its reps run
# as workers, each in a fresh Rscript with R_LIBS set to a build's library.
# Sourced by those scripts, from their own folder:
#   source(file.path(dirname(bench_script()), "ab_builds.R"))

args <- commandArgs(TRUE)

# the value after --name, or `default`
opt <- function(name, default = NULL) {
  i <- match(paste0("--", name), args)
  if (is.na(i)) default else args[i + 1L]
}

# base and new, their order alternating rep by rep
ab_order <- function(r) if (r %% 2L) c("base", "new") else c("new", "base")

# Run this script's worker once per job of each rep: `jobs(r)` gives a list
# of list(lib = <R library>, args = <worker arguments>); the workers print
# CSV rows, which are echoed and returned.
ab_run <- function(reps, jobs) {
  this <- bench_script()
  rscript <- file.path(R.home("bin"), "Rscript")
  rows <- character(0)
  for (r in seq_len(reps)) for (job in jobs(r)) {
    res <- system2(rscript, c(this, "--worker", "--rep", r, job$args),
                   env = paste0("R_LIBS=", job$lib), stdout = TRUE)
    rows <- c(rows, res)
    cat(res, sep = "\n")
  }
  rows
}

# The call graph of R/ by file prefix (fit-, sampler-, run-, ...): which
# prefixes' functions call which, and the cycles among prefixes.
# S3 methods do not count as calls of their generic's file (dispatch is
# how a concept plugs in, e.g. fit_engine.bnn_ces in fit-ces.R), nor do
# calls of a generic from the file that defines one of its methods.
# Usage: Rscript tools/check-r-calls.R [R-dir]  (exits 1 if a cycle of any
# length exists among the prefixes given in BNNMC_CHECK_PREFIXES,
# comma-separated; default all of them: approx,data,...,utils)
args <- commandArgs(TRUE)
dir <- if (length(args)) args[1] else "R"
files <- list.files(dir, "\\.R$", full.names = TRUE)
prefix <- function(f) sub("-.*$", "", sub("\\.R$", "", basename(f)))
defs <- list()
for (f in files) for (e in parse(f, keep.source = FALSE))
  if (is.call(e) && (identical(e[[1]], as.name("<-")) || identical(e[[1]], as.name("="))) &&
      is.name(e[[2]])) defs[[as.character(e[[2]])]] <- list(file = f, expr = e[[3]])
owner <- vapply(defs, function(d) d$file, "")
edges <- list()
for (nm in names(defs)) {
  d <- defs[[nm]]
  called <- intersect(all.names(d$expr), names(defs))
  called <- setdiff(called, nm)
  for (g in called) {
    # a method calling its own generic, or a generic reaching its methods,
    # is dispatch, not a dependency
    if (startsWith(nm, paste0(g, "."))) next
    a <- prefix(d$file); b <- prefix(owner[[g]])
    if (a != b) edges[[paste(a, b)]] <- c(edges[[paste(a, b)]], paste0(nm, " -> ", g))
  }
}
pairs <- do.call(rbind, strsplit(names(edges), " "))
cat("Calls between prefixes (caller -> callee: count):\n")
for (k in seq_along(edges)) cat(sprintf("  %-10s -> %-10s %3d\n", pairs[k, 1], pairs[k, 2], length(edges[[k]])))
check <- strsplit(Sys.getenv("BNNMC_CHECK_PREFIXES", paste0(
  "approx,data,diag,eco,effects,eval,fit,loo,methods,metrics,model,paper,predict,",
  "run,sampler,symmetry,utils")), ",")[[1]]
# cycles of any length: the strongly connected components of the prefix
# graph restricted to the checked prefixes (a prefix reaches another and is
# reached back), each with the calls that make it
nodes <- sort(unique(check))
reach <- matrix(FALSE, length(nodes), length(nodes), dimnames = list(nodes, nodes))
for (k in seq_along(edges)) if (all(pairs[k, ] %in% nodes)) reach[pairs[k, 1], pairs[k, 2]] <- TRUE
for (m in nodes) reach <- reach | outer(reach[, m], reach[m, ], "&")
mutual <- reach & t(reach)
done <- character()
cycles <- 0L
for (a in nodes) if (!(a %in% done) && any(mutual[a, ])) {
  comp <- nodes[mutual[a, ] | nodes == a]
  done <- c(done, comp)
  cycles <- cycles + 1L
  cat(sprintf("\nCycle among %s:\n", paste(comp, collapse = ", ")))
  for (x in comp) for (y in comp) if (length(edges[[paste(x, y)]]))
    cat(sprintf("  %s -> %s: %s\n", x, y, paste(edges[[paste(x, y)]], collapse = ", ")))
}
if (cycles) quit(status = 1L)
cat("\nNo cycle among", paste(check, collapse = ", "), "\n")

# Per-chain overhead of bnn_fit() with many tiny chains (mtcars, 1-2-1 network):
# 1000 chains x (10 + 1) and x (0 + 1) iterations, progress off and on (void
# progressr handler), medians of 3 runs.  Rscript inst/benchmarks/speed/chain_overhead.R <label>
suppressMessages(library(bnnmc))
args <- commandArgs(TRUE)
n <- 1000
f <- function(progress, ch = n, w = 10)
  system.time(suppressWarnings(bnn_fit(mpg ~ wt, mtcars, hidden = 2, sampler = "nuts", chains = ch, warmup = w,
                             likelihood = "hetero_gaussian",
                             iter = 1, seed = 1, progress = progress)))[["elapsed"]]
progressr::handlers("void")
t0 <- replicate(3, f(FALSE))
t1 <- replicate(3, f(TRUE))
z0 <- replicate(3, f(FALSE, w = 0))
z1 <- replicate(3, f(TRUE, w = 0))
cat(sprintf("%s: 1000 chains x (10+1) iter: median %.2fs (progress=FALSE), %.2fs (progress=TRUE, void handler); 1000 chains x (0+1) iter: %.2fs / %.2fs, i.e. %.2f / %.2f ms per chain\n",
    args[1], median(t0), median(t1), median(z0), median(z1), median(z0), median(z1)))

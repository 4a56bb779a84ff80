# NUTS cost per leapfrog step against the gradient alone, on the symmetry
# paper's f1 (1-3-1 tanh, Gaussian likelihood with a half-normal sigma
# prior) on D_S (sinusoidal, its 120 training rows); the target is
# NUTS <= 1.2 x the gradient.  Per build, in a fresh R process each rep
# (builds alternate): 16 chains x (1024 + 1) NUTS iterations run
# sequentially, the time inside the chains (fit$timing) divided by the
# gradients (fit$n_grad); and the gradient alone, C_model_grad_loop at the
# last draw of each chain (20,000 times each).  The new build also runs in
# single precision.  Both are CPU-bound single-thread loops, timed in
# elapsed seconds (medians over reps; ratios from the same process).
#   BNNMC_DATA_DIR=/work/shared/data/uci Rscript inst/benchmarks/speed/nuts_overhead.R \
#     --base /work/lib-main --new /work/lib-nuts [--reps 5] [--out ...csv]
#
# Internals (bnnmc:::fit_spec(), C_model_grad_loop): NUTS's cost per step
# is divided by the gradient's alone, timed in a C loop.

# the script's path, for ab_builds.R and its workers
bench_script <- function() normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(dirname(bench_script()), "ab_builds.R"))
if (!is.na(match("--worker", args))) {
  suppressMessages(library(bnnmc))
  dir <- Sys.getenv("BNNMC_DATA_DIR", file.path("..", "shared", "data", "uci"))
  dd <- bnn_read_uci("sinusoidal", dir = dir)
  sp <- bnn_paper_uci_splits("sinusoidal", dir = dir)
  train <- bnn_standardize(dd[sp$train, ], test = dd[sp$test, ], stats = "full")$train
  lik <- bnn_likelihood("gaussian", sigma_prior = "half_normal", sigma_prior_scale = 1)
  future::plan(future::sequential)
  fit <- suppressWarnings(bnn_fit(y ~ ., train, hidden = 3, activation = "tanh", likelihood = lik,
                                  prior = bnn_prior(), sampler = bnn_nuts(max_treedepth = 10),
                                  chains = 16, warmup = 1024, iter = 1, seed = 0,
                                  standardize = FALSE, progress = FALSE,
                                  precision = opt("precision", "double")))
  in_chain <- sum(fit$timing$warmup + fit$timing$sampling)
  ng <- sum(fit$n_grad)
  spec <- bnnmc:::fit_spec(fit)
  th <- fit$draws[1, , , drop = TRUE]
  if (is.null(dim(th))) th <- matrix(th, nrow = 1)
  reps <- 20000L
  tg <- vapply(seq_len(nrow(th)), function(i)
    system.time(.Call(bnnmc:::C_model_grad_loop, spec, as.double(th[i, ]), reps))[["elapsed"]], 0)
  g_us <- sum(tg) / (reps * nrow(th)) * 1e6
  n_us <- in_chain / ng * 1e6
  cat(sprintf("%s,%s,%s,%.0f,%.4f,%.4f,%.4f\n", opt("build"), opt("precision", "double"), opt("rep"),
              ng, n_us, g_us, n_us / g_us))
  quit(save = "no")
}
base <- opt("base"); new <- opt("new")
reps <- as.integer(opt("reps", "5"))
out <- opt("out", file.path("inst", "benchmarks", "speed", "nuts_overhead.csv"))
# per rep: base and new in double (alternating order), then new in single
# precision (float32 network kernels; the draws differ, so the gradient
# counts do too)
rows <- ab_run(reps, function(r) lapply(c(ab_order(r), "new-single"), function(b)
  list(lib = if (b == "base") base else new,
       args = c("--build", sub("-single", "", b),
                "--precision", if (grepl("single", b)) "single" else "double"))))
d <- utils::read.csv(text = paste(rows, collapse = "\n"), header = FALSE,
                     col.names = c("build", "precision", "rep", "n_grad", "nuts_us_per_grad", "grad_us", "ratio"))
d$date <- format(Sys.Date())
med <- aggregate(cbind(nuts_us_per_grad, grad_us, ratio) ~ build + precision, d, stats::median)
print(med, row.names = FALSE)
nb <- med[med$build == "new" & med$precision == "double", ]; bb <- med[med$build == "base", ]
cat(sprintf("new/base: NUTS per gradient %.3f, gradient %.3f\n",
            nb$nuts_us_per_grad / bb$nuts_us_per_grad, nb$grad_us / bb$grad_us))
utils::write.csv(d, out, row.names = FALSE)

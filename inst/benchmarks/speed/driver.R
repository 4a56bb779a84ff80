# Speed of the one chain driver against a previous build, in the same run:
# gradients per second inside NUTS (airfoil-like: 1,052 rows x 5 inputs,
# 16-16 tanh network, heteroscedastic Gaussian) and the time of one MILE
# (MCLMC, MILE tuning) chain on the same data and network.  Builds alternate
# rep by rep, each rep in a fresh R process (Rscript with R_LIBS set to the
# build's library); medians over the reps and the ratios new / base are
# printed and written, with every rep, to the CSV.  Times are CPU seconds
# of the R process (user + system) for the whole bnn_fit() call (elapsed
# seconds in their own column): on a machine shared with other work the
# wall clock mostly measures the others.
#
#   Rscript inst/benchmarks/speed/driver.R --base /path/lib-base --new /path/lib-new \
#     [--reps 7] [--out inst/benchmarks/speed/driver.csv]
#
# Both builds run the same draws (the goldens pin them), so their gradient
# counts are equal and the timings compare the same work.  Data: airfoil
# from BNNMC_DATA_DIR (bnn_read_uci("airfoil"), 1,052 rows drawn with seed 1) if
# it is there, else simulated data of that shape.
# the script's path, for ab_builds.R and its workers
bench_script <- function() normalizePath(sub("^--file=", "", grep("^--file=", commandArgs(FALSE), value = TRUE)))
source(file.path(dirname(bench_script()), "ab_builds.R"))

if (!is.na(match("--worker", args))) {
  # one rep of both benchmarks in this process; prints CSV rows
  suppressMessages(library(bnnmc))
  build <- opt("build")
  rep <- as.integer(opt("rep"))
  dir <- Sys.getenv("BNNMC_DATA_DIR", "")
  set.seed(1)
  if (nzchar(dir) && file.exists(file.path(dir, "airfoil.data"))) {
    d <- bnn_read_uci("airfoil", dir = dir)
    d <- d[sample(nrow(d), 1052L), ]
    data_name <- "airfoil"
  } else {
    X <- matrix(rnorm(1052 * 5), 1052, 5)
    d <- data.frame(X, y = sin(X[, 1]) + 0.5 * X[, 2] * X[, 3] + rnorm(1052, sd = 0.3))
    data_name <- "simulated"
  }
  # warmup and iter NULL: MCLMC's own (n_tune, n_samples)
  fit <- function(sampler, init, ...)
    suppressWarnings(bnn_fit(y ~ ., data = d, hidden = c(16, 16), activation = "tanh",
                             likelihood = "hetero_gaussian",   # the papers' model
                             sampler = sampler, chains = 1, seed = 3, init = init,
                             progress = FALSE, ...))
  dim <- (5 * 16 + 16) + (16 * 16 + 16) + (16 * 2 + 2)
  set.seed(2)
  init <- list(rnorm(dim, sd = 0.1))
  # CPU seconds of this process (user + system) for the whole fit: on a
  # shared machine the wall-clock time mostly measures the other users
  row <- function(bench, sampler, ...) {
    t0 <- proc.time()
    f <- fit(sampler, init, ...)
    t <- proc.time() - t0
    s <- t[["user.self"]] + t[["sys.self"]]
    cat(sprintf("%s,%s,%s,%d,%.4f,%.4f,%.0f,%.1f\n", bench, data_name, build, rep, s,
                t[["elapsed"]], sum(f$n_grad), sum(f$n_grad) / s))
  }
  row("nuts_grad_per_s", bnn_nuts(max_treedepth = 6), warmup = 100, iter = 100)
  row("mile_chain_s", bnn_mclmc(n_tune = c(2000, 250, 250), n_samples = 1000))
  quit(save = "no")
}

base <- opt("base")
new <- opt("new")
if (is.null(base) || is.null(new)) stop("give --base LIB and --new LIB")
reps <- as.integer(opt("reps", "7"))
out <- opt("out", file.path("inst", "benchmarks", "speed", "driver.csv"))
rows <- ab_run(reps, function(r) lapply(ab_order(r), function(b)
  list(lib = if (b == "base") base else new, args = c("--build", b))))
tab <- utils::read.csv(text = rows, header = FALSE,
                       col.names = c("benchmark", "data", "build", "rep", "seconds",
                                     "elapsed", "n_grad", "grad_per_s"))
med <- aggregate(cbind(seconds, elapsed, n_grad, grad_per_s) ~ benchmark + data + build, tab,
                 median)
med$rep <- "median"
tab <- rbind(tab, med[, names(tab)])
ratio <- function(bench, col) {
  m <- med[med$benchmark == bench, ]
  m[[col]][m$build == "new"] / m[[col]][m$build == "base"]
}
r_nuts <- ratio("nuts_grad_per_s", "grad_per_s")
r_mile <- ratio("mile_chain_s", "seconds")
cat(sprintf("NUTS gradients per second, new / base: %.3f (medians %.0f / %.0f, %d reps)\n",
            r_nuts, med$grad_per_s[med$benchmark == "nuts_grad_per_s" & med$build == "new"],
            med$grad_per_s[med$benchmark == "nuts_grad_per_s" & med$build == "base"], reps))
cat(sprintf("MILE CPU seconds per chain, new / base: %.3f (medians %.3f / %.3f s)\n", r_mile,
            med$seconds[med$benchmark == "mile_chain_s" & med$build == "new"],
            med$seconds[med$benchmark == "mile_chain_s" & med$build == "base"]))
tab <- rbind(tab, data.frame(benchmark = c("nuts_grad_per_s", "mile_chain_s"),
                             data = tab$data[1], build = "new/base", rep = "ratio",
                             seconds = c(NA, r_mile), elapsed = NA, n_grad = NA,
                             grad_per_s = c(r_nuts, NA)))
utils::write.csv(tab, out, row.names = FALSE)
cat("written:", out, "\n")

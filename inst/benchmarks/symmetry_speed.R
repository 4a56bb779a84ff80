# Speed of the symmetry tools (vignette("symmetry")); medians of `reps` runs
# of the elapsed time and of the CPU time (user + system) of this process,
# which on a shared machine is the better measure.
#   Rscript inst/benchmarks/symmetry_speed.R [reps]
# Writes inst/benchmarks/results/symmetry_speed.csv.
library(bnnmc)
a <- commandArgs(trailingOnly = TRUE)
reps <- if (length(a)) as.integer(a[1]) else 3L
out <- file.path("inst", "benchmarks", "results", "symmetry_speed.csv")
med <- function(f, r = reps) {
  t <- replicate(r, {
    st <- system.time(f())
    c(st[["elapsed"]], st[["user.self"]] + st[["sys.self"]])
  })
  c(elapsed = stats::median(t[1, ]), cpu = stats::median(t[2, ]))
}
rows <- list()
# 1. canonicalising draws of a 3 x 16 tanh network (1 input, 1 output): a
#    [draws per chain, 1274 chains, 594] array
sizes <- c(1L, 16L, 16L, 16L, 1L)
d <- bnn_n_parameters(sizes) + 1L
for (n_it in c(10L, 20L)) {
  set.seed(1)
  arr <- array(rnorm(n_it * 1274 * d), c(n_it, 1274, d))
  s <- med(function() bnn_remove_symmetries(arr, sizes = sizes, activation = "tanh"))
  rows[[length(rows) + 1L]] <- data.frame(
    task = "canonical, 3x16 tanh", draws = n_it * 1274, seconds = s[["elapsed"]],
    cpu_seconds = s[["cpu"]], cpu_per_million_draws = s[["cpu"]] / (n_it * 1274) * 1e6)
}
# 2. bnn_modes() on 1274 one-draw chains of f1 (1 x 3 tanh): 1274 x 10
#    de-symmetrised vectors (3822 neuron vectors)
fit <- suppressWarnings(bnn_fit(y ~ x, bnn_symmetry_data("sinusoidal", seed = 1), hidden = 3,
                                chains = 1274, warmup = 5, iter = 1, seed = 1,
                                likelihood = bnn_likelihood("gaussian"), progress = FALSE))
s <- med(function() bnn_modes(fit))
rows[[length(rows) + 1L]] <- data.frame(task = "bnn_modes, f1, 1274 chains x 1 draw",
                                        draws = 1274, seconds = s[["elapsed"]],
                                        cpu_seconds = s[["cpu"]], cpu_per_million_draws = NA)
# 3. the paper's removal with k = 64 (k = 1024, the paper's, is much slower
#    in this R implementation)
s <- med(function() bnn_remove_symmetries(fit, method = "paper", k = 64), r = 1L)
rows[[length(rows) + 1L]] <- data.frame(task = "paper removal (k = 64), f1, 1274 draws (1 run)",
                                        draws = 1274, seconds = s[["elapsed"]],
                                        cpu_seconds = s[["cpu"]], cpu_per_million_draws = NA)
res <- do.call(rbind, rows)
res$reps <- reps
res$date <- format(Sys.Date())
print(res, row.names = FALSE)
utils::write.csv(res, out, row.names = FALSE)

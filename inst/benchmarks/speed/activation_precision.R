# One log-posterior gradient of the 16-16 network with the heteroscedastic
# head on airfoil's shape (1,052 rows x 5, drawn with seed 1), by
# activation (tanh: the papers' and the default's; ReLU: MILE's and
# DEI-MCMC's) and precision, in a C loop (C_model_grad_loop), 7 reps with
# the four variants in turn; CPU microseconds per gradient, medians and the
# double / single ratio per activation.
#   BNNMC_DATA_DIR=/path/uci Rscript inst/benchmarks/speed/activation_precision.R
# Writes inst/benchmarks/speed/activation_precision.csv.
# The float ReLU forward pass once branched on the sign of each
# pre-activation: ReLU was 72.8 us single against 73.2 us double.
#
# Internals (bnnmc:::make_spec(), spec_dim(), spec_set_precision(),
# C_model_grad_loop, C_simd): it measures the gradient kernels in a C loop,
# without R in between.
suppressPackageStartupMessages(library(bnnmc))
dir <- Sys.getenv("BNNMC_DATA_DIR", file.path("..", "shared", "data", "uci"))
hetero <- list(family = "hetero_gaussian", sigma = NULL, sigma_prior = "half_normal",
               sigma_prior_scale = 1)
d <- bnn_read_uci("airfoil", dir = dir)
set.seed(1)
d <- d[sample(nrow(d), 1052L), ]
X <- scale(as.matrix(d[, setdiff(names(d), "y")]))
y <- as.double(scale(d$y))
n_loop <- 5000L
specs <- list()
for (act in c("tanh", "relu")) {
  sp <- bnnmc:::make_spec(c(ncol(X), 16, 16, 2), act, hetero, bnn_prior(), X = X, y = y)
  specs[[paste(act, "double")]] <- sp
  specs[[paste(act, "single")]] <- bnnmc:::spec_set_precision(sp, "single")
}
theta <- rnorm(bnnmc:::spec_dim(specs[[1]]), sd = 0.3)
for (s in specs) invisible(.Call(bnnmc:::C_model_grad_loop, s, theta, 200L))   # warm up
rows <- list()
for (r in 1:7) for (nm in names(specs)) {
  t <- system.time(.Call(bnnmc:::C_model_grad_loop, specs[[nm]], theta, n_loop), gcFirst = FALSE)
  p <- strsplit(nm, " ")[[1]]
  rows[[length(rows) + 1L]] <- data.frame(date = format(Sys.Date()), activation = p[1], precision = p[2],
                                          rep = r, us_per_grad = 1e6 * (t[[1]] + t[[2]]) / n_loop,
                                          kernels = .Call(bnnmc:::C_simd, NULL))
}
res <- do.call(rbind, rows)
utils::write.csv(res, file.path("inst", "benchmarks", "speed", "activation_precision.csv"), row.names = FALSE)
med <- tapply(res$us_per_grad, list(res$activation, res$precision), stats::median)
print(round(med, 1))
cat(sprintf("double / single: tanh %.2fx, relu %.2fx\n", med["tanh", "double"] / med["tanh", "single"],
            med["relu", "double"] / med["relu", "single"]))

# Cost of one log-posterior gradient with the Poisson, negative binomial,
# Student-t and binomial likelihoods against the Gaussian (sigma sampled),
# on the same network and data shape: 1,000 synthetic rows x 5 predictors,
# the default 16-16 tanh network and the linear model (no hidden layer,
# where the likelihood is most of the work), double and single precision.
# The gradients are evaluated in a C loop (C_model_grad_loop, no R in
# between) at one random point; the likelihoods are taken in a rotating
# order rep by rep (the machine is shared), and the CSV has the CPU time of
# each measurement; the summary gives medians and ratios to the Gaussian.
#
#   Rscript inst/benchmarks/speed/likelihood_cost.R [--reps 5] \
#     [--out inst/benchmarks/speed/likelihood_cost.csv]
#
# About 40 s of CPU with the defaults.
#
# Results (likelihood_cost.csv: a 2-core AMD EPYC machine, AVX2 kernels,
# run alone, load average about 1; 5 reps, medians of us per gradient,
# ratio to the Gaussian), after the register-blocked single-precision
# dense and weight-gradient kernels (the network's share of a gradient
# halved in single precision, so the likelihood's share grew):
#   16-16, single: Poisson 1.09, negative binomial 1.18, Student-t 1.09,
#     binomial 1.18 (Gaussian 90 us).  These likelihoods compute their rows
#     from the float outputs and write float deltas, as the Gaussian does,
#     with a vectorised log1p and the negative binomial's small-count
#     lgamma and digamma differences from tables built once per gradient.
#     Before the blocked kernels (Gaussian 184 us) the same code gave 1.03,
#     1.11, 1.08 and 1.07; before this float path 1.07, 1.32, 1.05, 1.21;
#   16-16, double: Poisson 1.04, negative binomial 1.19, Student-t 1.16,
#     binomial 1.15 (Gaussian 211 us); ratios of this size move by about
#     0.1 with the machine's load;
#   linear (no hidden layer), double: Poisson 2.0, Student-t 4.2, binomial
#     4.5, negative binomial 10.7 (Gaussian 3.5 us, 3.5 ns per row): the
#     network costs almost nothing, so the likelihood's exp/log1p per row
#     (and the negative binomial's lgamma-type terms) are the whole gradient;
#   linear, single: Poisson 2.6, Student-t 4.0, binomial 4.8, negative
#     binomial 7.2 (Gaussian 2.65 us).
library(bnnmc)
args <- commandArgs(TRUE)
opt <- function(name, default) {
  i <- match(paste0("--", name), args)
  if (is.na(i)) default else args[[i + 1L]]
}
reps <- as.integer(opt("reps", 5L))
out <- opt("out", "inst/benchmarks/speed/likelihood_cost.csv")
cpu <- function(t) t[["user.self"]] + t[["sys.self"]]

n <- 1000L
p <- 5L
set.seed(1)
X <- matrix(rnorm(n * p), n, p)
eta <- 1 + 0.5 * X[, 1] - 0.3 * X[, 2]
liks <- c("gaussian", "poisson", "negbinomial", "student", "binomial")
make <- function(lik_name, hidden) {
  lik <- bnn_likelihood(lik_name)
  y <- switch(lik_name,
    gaussian = , student = eta + rt(n, 4),
    poisson = rpois(n, exp(eta)),
    negbinomial = rnbinom(n, size = 3, mu = exp(eta)),
    binomial = { s <- rbinom(n, 10, plogis(eta)); cbind(s, 10 - s) })
  ym <- if (lik_name %in% c("gaussian", "student")) y else
    bnnmc:::encode_count_response(y, lik, NULL)$y
  sizes <- bnnmc:::layer_sizes(p, hidden, lik)
  spec <- bnnmc:::make_spec(sizes, "tanh", lik, bnn_prior(fan_in = TRUE), X = X,
                            y = as.double(ym))
  theta <- 0.3 * sin(seq_len(bnnmc:::spec_dim(spec)))
  list(spec = spec, theta = theta)
}
kernels <- .Call(bnnmc:::C_simd, NULL)
rows <- list()
for (hidden in list(c(16L, 16L), integer(0))) {
  net <- if (length(hidden)) "16-16" else "linear"
  for (prec in c("double", "single")) {
    m <- lapply(stats::setNames(liks, liks), function(l) {
      s <- make(l, hidden)
      s$spec <- bnnmc:::spec_set_precision(s$spec, prec)
      s
    })
    n_loop <- if (length(hidden)) 2000L else 20000L
    for (l in liks) .Call(bnnmc:::C_model_grad_loop, m[[l]]$spec, m[[l]]$theta, 50L)
    for (r in seq_len(reps)) {
      ord <- liks[(seq_along(liks) + r - 2L) %% length(liks) + 1L]   # rotate
      for (l in ord) {
        t <- system.time(.Call(bnnmc:::C_model_grad_loop, m[[l]]$spec, m[[l]]$theta, n_loop))
        rows[[length(rows) + 1L]] <- data.frame(
          network = net, precision = prec, likelihood = l, rep = r, n = n, p = p,
          n_grad = n_loop, cpu_s = cpu(t), us_per_grad = 1e6 * cpu(t) / n_loop,
          kernels = kernels)
      }
    }
  }
}
res <- do.call(rbind, rows)
utils::write.csv(res, out, row.names = FALSE)
med <- stats::aggregate(us_per_grad ~ network + precision + likelihood, res, stats::median)
g <- med[med$likelihood == "gaussian", c("network", "precision", "us_per_grad")]
names(g)[3] <- "gaussian_us"
med <- merge(med, g)
med$ratio_to_gaussian <- round(med$us_per_grad / med$gaussian_us, 3)
print(med[order(med$network, med$precision, med$likelihood), ], row.names = FALSE)

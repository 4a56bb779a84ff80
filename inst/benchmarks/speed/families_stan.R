# The count, robust and binomial likelihoods against Stan: the log
# posterior density and its gradient of a small network (2 inputs, 3 tanh
# units) under each likelihood, from bnnmc (bnn_log_posterior()) and from
# the same model written in Stan (bnn_families.stan, every constant kept),
# at five draws of a short fit each.  Writes families_stan.csv: the largest
# relative difference of the log density and of the gradient per
# likelihood.  Needs rstan (Debian's r-cran-rstan).
#   Rscript inst/benchmarks/speed/families_stan.R
suppressPackageStartupMessages(library(bnnmc))
if (!requireNamespace("rstan", quietly = TRUE)) stop("rstan is needed for this comparison.")
here <- file.path("inst", "benchmarks", "speed")
if (!nzchar(rstan::rstan_options("boost_lib")) && dir.exists("/usr/include/boost"))
  rstan::rstan_options(boost_lib = "/usr/include")
sm <- rstan::stan_model(file.path(here, "bnn_families.stan"))
set.seed(1)
n <- 40
d <- data.frame(x1 = rnorm(n), x2 = rnorm(n))
eta <- 0.5 + 0.6 * sin(d$x1) - 0.4 * d$x2
d$count <- rnbinom(n, size = 3, mu = exp(eta))
d$t <- 2 + sin(2 * d$x1) + 0.5 * rt(n, df = 3)
d$trials <- sample(5:15, n, replace = TRUE)
d$succ <- rbinom(n, d$trials, plogis(eta - 0.5))
d$fail <- d$trials - d$succ
cases <- list(
  poisson = list(f = count ~ x1 + x2, family = poisson(), lik = 1L),
  negbinomial = list(f = count ~ x1 + x2, family = "negbinomial", lik = 2L),
  student = list(f = t ~ x1 + x2, family = student(), lik = 3L),
  binomial = list(f = cbind(succ, fail) ~ x1 + x2, family = binomial(), lik = 4L))
rows <- list()
for (nm in names(cases)) {
  cs <- cases[[nm]]
  fit <- suppressWarnings(bnn_fit(cs$f, data = d, family = cs$family, hidden = 3,
                                  prior = bnn_prior(), sampler = "nuts", chains = 1,
                                  warmup = 200, iter = 100, seed = 1, progress = FALSE))
  lk <- fit$likelihood
  ym <- fit$y_model
  sdata <- list(N = n, P = 2L, H = 3L, lik = cs$lik, X = unname(as.matrix(fit$X)),
                y_real = if (nm == "student") as.numeric(ym) else rep(0, n),
                y_int = if (nm %in% c("poisson", "negbinomial")) as.integer(d$count) else
                  if (nm == "binomial") as.integer(d$succ) else rep(0L, n),
                trials = if (nm == "binomial") as.integer(d$trials) else rep(0L, n),
                eta_center = if (is.null(lk$eta_center)) 0 else lk$eta_center,
                sigma_scale = lk$sigma_prior_scale,
                aux_shape = if (is.null(fit$spec$aux_prior_shape)) 1 else fit$spec$aux_prior_shape,
                aux_rate = if (is.null(fit$spec$aux_prior_rate)) 1 else fit$spec$aux_prior_rate)
  sf <- rstan::sampling(sm, data = sdata, chains = 0)
  draws <- fit$draws[seq(10, 100, length.out = 5), 1, ]
  rel_lp <- rel_g <- numeric(nrow(draws))
  for (i in seq_len(nrow(draws))) {
    th <- bnn_unconstrain(fit, draws[i, ])
    ours <- bnn_log_posterior(fit, th)
    # bnnmc's layout (W1 column-major [input, unit], b1, W2, b2, log-scale
    # parameters) is Stan's unconstrained vector for these declarations
    lp_stan <- rstan::log_prob(sf, th, adjust_transform = FALSE, gradient = TRUE)
    g_stan <- attr(lp_stan, "gradient")
    rel_lp[i] <- abs(as.numeric(lp_stan) - ours$lp) / abs(ours$lp)
    rel_g[i] <- max(abs(g_stan - ours$grad)) / max(abs(ours$grad))
  }
  rows[[nm]] <- data.frame(likelihood = nm, n = n, draws = nrow(draws),
                           max_rel_diff_logpost = max(rel_lp), max_rel_diff_grad = max(rel_g))
  print(rows[[nm]])
}
res <- do.call(rbind, rows)
utils::write.csv(res, file.path(here, "families_stan.csv"), row.names = FALSE)
stopifnot(all(res$max_rel_diff_logpost < 1e-8), all(res$max_rel_diff_grad < 1e-8))
cat("bnnmc and Stan agree to 1e-8 on every likelihood\n")

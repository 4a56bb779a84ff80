# The minibatch call bnn_fit() suggests for the 100,000 rows of
# large_data.R, run as printed with three seeds: a default call's
# suggestion keeps the default model (homoscedastic Gaussian, fan-in
# prior); it once added likelihood = "gaussian", which
# also switched the prior to Normal(0, 1) (large_data.csv's
# "suggested SGLD (100k)" row).  Same data as large_data.R.
#   Rscript inst/benchmarks/decisions/large_data_suggested.R
# Writes inst/benchmarks/decisions/large_data_suggested.csv (metrics on the
# response scale, wall seconds with the sequential plan).
#
# Internals (bnnmc:::prepare_model(), fit_cost(), announce_cost(),
# suggest_minibatch()): it runs the call that bnn_fit()'s advice suggests.
suppressPackageStartupMessages(library(bnnmc))
set.seed(2)
n <- 102000
big <- data.frame(x1 = runif(n, -2, 2), x2 = runif(n, -2, 2), x3 = rnorm(n), x4 = rnorm(n), x5 = rnorm(n))
big$y <- sin(2 * big$x1) + 0.5 * big$x2^2 + 0.3 * big$x3 * big$x4 + rnorm(n, sd = 0.3)
test <- big[1:2000, ]; train <- big[-(1:2000), ]
cl <- quote(bnn_fit(y ~ ., data = train))
mf <- match.call(bnn_fit, cl)
model <- bnnmc:::prepare_model(mf[c(1L, match(c("formula", "data"), names(mf)))],
                               environment(), y ~ ., train, c(16, 16), "tanh", NULL, bnn_prior(fan_in = TRUE), TRUE)
cost <- bnnmc:::fit_cost(model$spec, bnn_mclmc(), 4L, 50000L, 10000L, "ensemble", bnn_optimizer_preset("mile"), 4L)
msg <- bnnmc:::announce_cost(cost, cl, 4L, full_batch = TRUE)
sugg <- bnnmc:::suggest_minibatch(cl, cost, 4L)
cat(sugg$call, "\n")
rows <- list()
for (s in 1:3) {
  t0 <- proc.time()[["elapsed"]]
  sg <- suppressWarnings(eval(str2lang(sub("\\)$", sprintf(", seed = %d)", s), sugg$call))))
  el <- proc.time()[["elapsed"]] - t0
  m <- bnn_metrics(sg, test)
  rows[[s]] <- data.frame(date = format(Sys.Date()), call = sugg$call, seed = s, seconds = el,
                          failed_chains = sum(sg$chain_status != "ok"), rmse = m$rmse,
                          lppd = m$lppd, coverage_90 = m$coverage_90)
  cat(sprintf("seed %d: %.1f s, prior %s, failed chains %d, rmse %.3f lppd %.3f cov90 %.3f\n", s, el,
      format(sg$prior$fan_in), sum(sg$chain_status != "ok"), m$rmse, m$lppd, m$coverage_90))
}
utils::write.csv(do.call(rbind, rows), file.path("inst", "benchmarks", "decisions",
                                                  "large_data_suggested.csv"), row.names = FALSE)

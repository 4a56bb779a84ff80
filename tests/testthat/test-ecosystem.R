# Conversions, rstantools generics, loo, bayesplot extractors and the stats
# methods of bnnfit.

expect_same_draws <- function(a, fit) {
  # a: an array [iteration, chain, variable] with the fit's variables + lp__
  vars <- c(fit$parameters, "lp__")
  expect_identical(dimnames(a)[[3]], vars)
  expect_identical(unname(a[, , fit$parameters, drop = FALSE]), unname(fit$draws))
  expect_identical(unname(a[, , "lp__"]), unname(fit$sampler_stats[, , "lp__"]))
}

test_that("base conversions keep values, names and chain/iteration order", {
  fit <- eco_fits("reg")
  n_it <- dim(fit$draws)[1]
  a <- as.array(fit)
  expect_same_draws(a, fit)
  m <- as.matrix(fit)
  expect_identical(dim(m), c(n_it * 3L, length(fit$parameters) + 1L))
  expect_identical(colnames(m), c(fit$parameters, "lp__"))
  # row (chain - 1) * n_it + iteration
  expect_identical(m[2 * n_it + 5, "W1[2,3]"], fit$draws[5, 3, "W1[2,3]"])
  expect_identical(unname(m[, fit$parameters]),
                   unname(t(bnnmc:::draws_matrix(fit))))
  df <- as.data.frame(fit)
  expect_identical(names(df), c(fit$parameters, "lp__", ".chain", ".iteration", ".draw"))
  expect_identical(df$.chain, rep(1:3, each = n_it))
  expect_identical(df$.iteration, rep(seq_len(n_it), 3))
  expect_identical(df$.draw, seq_len(3 * n_it))
  expect_identical(df[["b2[1]"]], as.vector(fit$draws[, , "b2[1]"]))
  # selection of variables, by name and by regular expression
  expect_identical(dimnames(as.array(fit, variable = c("lp__", "b1[2]")))[[3]],
                   c("lp__", "b1[2]"))
  expect_identical(colnames(as.matrix(fit, variable = "^b2", regex = TRUE)),
                   c("b2[1]", "b2[2]"))
  # sigma is on the response's scale (the stored draws: standardised)
  g <- eco_fits("gauss")
  expect_equal(as.matrix(g)[, "sigma"], as.vector(g$draws[, , "sigma"]) * g$y_scale,
               tolerance = 1e-14)
  expect_true(all(as.matrix(g)[, "sigma"] > 0))
})

test_that("conversions name their bad arguments and drop failed chains", {
  fit <- eco_fits("reg")
  expect_error(as.array(fit, variable = "W9[1,1]"), "'variable' names unknown")
  expect_error(as.matrix(fit, variable = "^zz", regex = TRUE), "'variable'")
  expect_error(as.array(fit, inc_warmup = TRUE), "'inc_warmup = TRUE'")
  expect_error(as.data.frame(fit, inc_warmup = NA), "'inc_warmup'")
  bad <- fit
  bad$chain_status[2] <- levels(bad$chain_status)[4]
  bad$draws[, 2, ] <- NA
  expect_warning(a <- as.array(bad), "Chain\\(s\\) 2 failed", class = "bnnmc_chain_failure")
  expect_identical(dimnames(a)[[2]], c("1", "3"))
  expect_identical(unname(a[, 2, fit$parameters]), unname(fit$draws[, 3, ]))
  skip_if_not_installed("posterior")
  expect_identical(posterior::nchains(bad), 2L)
  expect_identical(suppressWarnings(posterior::ndraws(posterior::as_draws_df(bad))),
                   posterior::ndraws(bad))
})

test_that("posterior conversions round-trip the draws exactly", {
  skip_if_not_installed("posterior")
  fit <- eco_fits("reg")
  n_it <- dim(fit$draws)[1]
  for (conv in list(posterior::as_draws, posterior::as_draws_array, posterior::as_draws_df,
                    posterior::as_draws_matrix, posterior::as_draws_list,
                    posterior::as_draws_rvars)) {
    d <- conv(fit)
    expect_true(posterior::is_draws(d))
    back <- unclass(posterior::as_draws_array(d))
    expect_same_draws(back, fit)
    expect_identical(posterior::nchains(d), 3L)
    expect_equal(posterior::niterations(d), n_it)
  }
  expect_s3_class(posterior::as_draws(fit), "draws_array")
  rv <- posterior::as_draws_rvars(fit)
  expect_identical(dim(rv$W1), c(2L, 3L))          # inputs x units
  expect_identical(unname(posterior::draws_of(rv$W1)[, 2, 3]),
                   as.vector(fit$draws[, , "W1[2,3]"]))
  dfd <- posterior::as_draws_df(fit)
  expect_identical(dfd$.chain, rep(1:3, each = n_it))
  expect_identical(dfd$.iteration, rep(seq_len(n_it), 3))
  expect_identical(posterior::nchains(fit), 3L)
  expect_identical(posterior::niterations(fit), n_it)
  expect_identical(posterior::ndraws(fit), 3L * n_it)
  expect_identical(posterior::variables(fit), c(fit$parameters, "lp__"))
  expect_identical(posterior::nvariables(fit), length(fit$parameters) + 1L)
  expect_identical(posterior::variables(posterior::as_draws_df(fit, variable = "^W2",
                                                               regex = TRUE)),
                   grep("^W2", fit$parameters, value = TRUE))
})

test_that("coda mcmc.list has one mcmc per chain with post-warm-up iteration numbers", {
  skip_if_not_installed("coda")
  g <- eco_fits("gauss")   # thin = 2
  ml <- coda::as.mcmc.list(g)
  expect_s3_class(ml, "mcmc.list")
  expect_length(ml, 2L)
  expect_identical(coda::varnames(ml), c(g$parameters, "lp__"))
  raw <- g$draws[, 2, ]
  raw[, "sigma"] <- raw[, "sigma"] * g$y_scale   # sigma on the response's scale
  expect_equal(unname(as.matrix(ml[[2]])[, g$parameters]), unname(raw), tolerance = 1e-14)
  expect_identical(stats::start(ml), g$warmup + 1)
  expect_identical(coda::thin(ml), 2)
  expect_identical(coda::niter(ml), dim(g$draws)[1])
})

test_that("rstantools generics have the promised shapes and agree with predict()", {
  fit <- eco_fits("reg")
  S <- ndraws_fit(fit)
  N <- nobs(fit)
  yrep <- posterior_predict(fit, seed = 3)
  expect_identical(dim(yrep), c(S, N))
  expect_identical(colnames(yrep), rownames(mtcars))
  expect_identical(yrep, posterior_predict(fit, seed = 3))
  expect_identical(unname(yrep), unname(predict(fit, type = "draws", seed = 3)))
  expect_false(identical(yrep, posterior_predict(fit, seed = 4)))
  expect_identical(dim(posterior_predict(fit, newdata = mtcars[1:4, ], ndraws = 10, seed = 1)),
                   c(10L, 4L))
  ep <- posterior_epred(fit)
  expect_identical(dim(ep), c(S, N))
  expect_equal(colMeans(ep), predict(fit))   # both named by row
  expect_identical(unname(ep), unname(predict(fit, type = "mean_draws")))
  expect_identical(posterior_linpred(fit), ep)
  expect_identical(posterior_linpred(fit, transform = TRUE), ep)
  # noise is included: predictive draws spread more than the mean function
  expect_gt(mean(apply(yrep, 2, stats::sd)), mean(apply(ep, 2, stats::sd)))

  pint <- predictive_interval(fit, prob = 0.8)
  expect_identical(dim(pint), c(N, 2L))
  expect_identical(colnames(pint), c("10%", "90%"))
  iv <- predict(fit, type = "interval", level = 0.8)
  expect_identical(unname(pint[, 1]), iv$lower)
  expect_identical(unname(pint[, 2]), iv$upper)
  expect_identical(colnames(predictive_interval(fit)), c("5%", "95%"))

  post <- posterior_interval(fit)
  expect_identical(dim(post), c(length(fit$parameters), 2L))
  expect_identical(rownames(post), fit$parameters)
  expect_identical(colnames(post), c("5%", "95%"))
  expect_equal(post["b2[1]", ], stats::quantile(fit$draws[, , "b2[1]"], c(0.05, 0.95)),
               ignore_attr = TRUE)
  sel <- posterior_interval(fit, prob = 0.5, pars = "W2[1,1]", regex_pars = "^b2")
  expect_identical(rownames(sel), c("W2[1,1]", "b2[1]", "b2[2]"))
  expect_identical(colnames(sel), c("25%", "75%"))

  pe <- predictive_error(fit, newdata = mtcars[1:5, ], seed = 9)
  expect_identical(pe, matrix(mtcars$mpg[1:5], S, 5, byrow = TRUE) -
                     posterior_predict(fit, newdata = mtcars[1:5, ], seed = 9))
})

test_that("log_lik is the pointwise log-likelihood on the original scale", {
  for (what in c("reg", "gauss", "bern", "cat")) {
    fit <- eco_fits(what)
    ll <- log_lik(fit)
    expect_identical(dim(ll), c(ndraws_fit(fit), nobs(fit)))
    # rows add up to the model's log-likelihood (standardised scale, C code)
    # minus the Jacobian of the response's standardisation
    # the stored draws (sigma on the model's standardised scale)
    theta <- bnn_unconstrain(fit, t(matrix(fit$draws, ncol = dim(fit$draws)[3])))
    loglik_c <- bnn_log_posterior(fit, theta)$loglik
    jac <- if (bnnmc:::is_classification(fit)) 0 else nobs(fit) * log(fit$y_scale)
    expect_equal(rowSums(ll), loglik_c - jac, tolerance = 1e-10)
  }
  # regression: the normal density of the predictive parameters
  fit <- eco_fits("reg")
  pp <- bnnmc:::predictive_params(fit, mtcars[3:6, ])
  expect_equal(log_lik(fit, newdata = mtcars[3:6, ]),
               stats::dnorm(matrix(mtcars$mpg[3:6], nrow(pp$mu), 4, byrow = TRUE),
                            pp$mu, pp$sd, log = TRUE), ignore_attr = TRUE)
  # classification: the log-probability of the observed class
  cf <- eco_fits("cat")
  d <- iris[c(1, 60, 110), ]
  p <- posterior_epred(cf, newdata = d)
  k <- as.integer(d$Species)
  expect_equal(log_lik(cf, newdata = d),
               log(cbind(p[, 1, k[1]], p[, 2, k[2]], p[, 3, k[3]])), ignore_attr = TRUE)
  expect_error(log_lik(fit, newdata = mtcars[1:3, c("wt", "hp")]),
               "'newdata' must contain the response 'mpg'")
  expect_error(log_lik(cf, newdata = transform(d, Species = c("setosa", "x", "virginica"))),
               "'newdata' has response values that are not levels")
})

test_that("classification generics: probabilities, logits and drawn classes", {
  b <- eco_fits("bern")
  S <- ndraws_fit(b)
  ep <- posterior_epred(b)
  expect_identical(dim(ep), c(S, nobs(b)))
  expect_equal(unname(colMeans(ep)), unname(predict(b, type = "prob")[, "TRUE"]))
  lp <- posterior_linpred(b)
  expect_equal(stats::plogis(lp), ep)
  expect_equal(posterior_linpred(b, transform = TRUE), ep)
  yrep <- posterior_predict(b, seed = 2)
  expect_identical(dim(yrep), c(S, nobs(b)))
  expect_true(all(yrep %in% 0:1))
  expect_equal(mean(yrep), mean(ep), tolerance = 0.05)
  expect_identical(predictive_error(b, seed = 2),
                   matrix(as.numeric(mtcars$am), S, nobs(b), byrow = TRUE) - yrep,
                   ignore_attr = TRUE)
  expect_identical(colnames(predictive_interval(b, prob = 0.5, seed = 1)), c("25%", "75%"))

  cf <- eco_fits("cat")
  ep <- posterior_epred(cf)
  expect_identical(dim(ep), c(ndraws_fit(cf), nobs(cf), 3L))
  expect_identical(dimnames(ep)[[3]], levels(iris$Species))
  expect_equal(apply(ep, c(2, 3), mean), predict(cf, type = "prob"), ignore_attr = TRUE)
  eta <- posterior_linpred(cf)
  expect_identical(dim(eta), dim(ep))
  expect_equal(exp(eta) / as.vector(apply(exp(eta), c(1, 2), sum)), ep)
  yrep <- posterior_predict(cf, seed = 5)
  expect_true(all(yrep %in% 1:3))
  expect_error(predictive_error(cf), "categorical")
})

test_that("rstantools methods name bad arguments", {
  fit <- eco_fits("reg")
  expect_error(predictive_interval(fit, prob = 1.5), "'prob'")
  expect_error(posterior_interval(fit, pars = "nope"), "'pars' names unknown")
  expect_error(posterior_interval(fit, regex_pars = "^zz"), "'regex_pars'")
  expect_error(posterior_linpred(fit, transform = NA), "'transform'")
  expect_error(posterior_predict(fit, ndraws = 0), "'ndraws'")
  expect_warning(posterior_epred(fit, draws = 10), "unused argument\\(s\\): draws")
})

test_that("loo() and waic() agree with loo's functions on log_lik", {
  skip_if_not_installed("loo")
  fit <- eco_fits("reg")
  ll <- log_lik(fit)
  chain_id <- rep(1:3, each = dim(fit$draws)[1])
  r_eff <- loo::relative_eff(exp(ll), chain_id = chain_id)
  lo <- suppressWarnings(loo::loo(fit, moment_match = FALSE))   # plain PSIS-LOO
  expect_s3_class(lo, "psis_loo")
  ref <- suppressWarnings(loo::loo(ll, r_eff = r_eff))
  expect_equal(lo$estimates, ref$estimates)
  expect_equal(lo$diagnostics$pareto_k, ref$diagnostics$pareto_k)
  # direct computation from the PSIS weights
  ps <- suppressWarnings(loo::psis(-ll, r_eff = r_eff))
  w <- stats::weights(ps, log = FALSE, normalize = TRUE)
  elpd_i <- log(colSums(w * exp(ll)))
  expect_equal(lo$estimates["elpd_loo", "Estimate"], sum(elpd_i))
  expect_equal(lo$pointwise[, "elpd_loo"], elpd_i, ignore_attr = TRUE)
  wa <- suppressWarnings(loo::waic(fit))
  expect_equal(wa$estimates, suppressWarnings(loo::waic(ll))$estimates)
  cf <- eco_fits("cat")
  expect_s3_class(suppressWarnings(loo::loo(cf)), "psis_loo")
})

test_that("bayesplot extractors return bayesplot's formats", {
  skip_if_not_installed("bayesplot")
  skip_if_not_installed("posterior")
  fit <- eco_fits("reg")
  n_it <- dim(fit$draws)[1]
  np <- bayesplot::nuts_params(fit)
  expect_identical(names(np), c("Chain", "Iteration", "Parameter", "Value"))
  expect_identical(levels(np$Parameter), c("accept_stat__", "stepsize__", "treedepth__",
                                           "n_leapfrog__", "divergent__", "energy__"))
  expect_identical(nrow(np), 6L * 3L * n_it)
  sel <- np$Parameter == "energy__" & np$Chain == 2L & np$Iteration == 7L
  expect_identical(np$Value[sel], unname(fit$sampler_stats[7, 2, "energy__"]))
  npw <- bayesplot::nuts_params(fit, pars = "divergent__", inc_warmup = TRUE)
  expect_identical(nrow(npw), 3L * (fit$warmup + n_it))
  expect_identical(npw$Value[npw$Chain == 1L][seq_len(fit$warmup)],
                   unname(fit$warmup_stats[, 1, "divergent__"]))
  lp <- bayesplot::log_posterior(fit)
  expect_identical(names(lp), c("Chain", "Iteration", "Value"))
  expect_identical(lp$Value, as.vector(fit$sampler_stats[, , "lp__"]))
  expect_s3_class(bayesplot::mcmc_nuts_energy(np), "ggplot")

  rh <- bayesplot::rhat(fit)
  expect_identical(names(rh), c(fit$parameters, "lp__"))
  expect_identical(rh[["b2[1]"]], posterior::rhat(fit$draws[, , "b2[1]"]))
  nr <- bayesplot::neff_ratio(fit, pars = c("lp__", "W1[1,1]"))
  expect_identical(names(nr), c("lp__", "W1[1,1]"))
  expect_equal(nr[["lp__"]], posterior::ess_bulk(fit$sampler_stats[, , "lp__"]) / (3 * n_it))
  expect_s3_class(bayesplot::mcmc_rhat(rh), "ggplot")
  tab <- bnnmc:::.fit_rhat_ess(fit)
  expect_identical(names(tab), c("variable", "rhat", "ess_bulk", "ess_tail"))
  expect_type(tab$rhat, "double")

  g <- bayesplot::pp_check(fit, seed = 1)
  expect_s3_class(g, "ggplot")
  expect_s3_class(bayesplot::pp_check(fit, type = "stat", stat = "sd", seed = 1), "ggplot")
  expect_s3_class(bayesplot::pp_check(eco_fits("bern"), type = "bars", seed = 1), "ggplot")
  expect_error(bayesplot::pp_check(fit, type = "nonsense"), "'type'")
})

test_that("update() refits from the stored call, where the data live", {
  fit <- eco_fits("gauss")
  expect_identical(short_run(update(fit))$draws, fit$draws)   # same seed reused
  cl <- update(fit, . ~ . + qsec, chains = 1, evaluate = FALSE)
  expect_identical(deparse1(cl$formula), "mpg ~ wt + factor(am) + qsec")
  expect_identical(cl$chains, 1)
  f2 <- suppressWarnings(update(fit, . ~ . + qsec, hidden = 2, chains = 1, warmup = 30,
                                iter = 10))
  expect_identical(dim(f2$draws), c(10L, 1L, 12L))   # iter = 10 draws kept (thin 2)
  expect_identical(f2$call$hidden, 2)
  # a fit made inside a function, with local data, updated from outside
  make <- function() {
    local_cars <- mtcars[1:20, ]
    suppressWarnings(bnn_fit(mpg ~ wt, data = local_cars, hidden = 2, chains = 1,
                             warmup = 30, iter = 10, seed = 1, progress = FALSE, sampler = "nuts",
                             likelihood = "hetero_gaussian"))
  }
  inner <- make()
  expect_false(exists("local_cars"))
  up <- suppressWarnings(update(inner, iter = 12))
  expect_identical(dim(up$draws)[1], 12L)
  expect_identical(nobs(up), 20L)
  # new arguments are evaluated in the caller's frame
  n_iter <- 7
  expect_identical(dim(suppressWarnings(update(inner, iter = n_iter))$draws)[1], 7L)
  expect_error(update(inner, . ~ ., 5), "must be named")
})

test_that("logLik() stops and points to log_lik(), loo() (as rstanarm)", {
  fit <- eco_fits("reg")
  expect_error(logLik(fit), "not defined for a bnnfit.*log_lik\\(fit\\)")
  expect_error(AIC(fit), "not defined for a bnnfit")
  expect_identical(model.frame(fit), fit$model_frame)
  expect_identical(names(model.frame(eco_fits("gauss"))), c("mpg", "wt", "factor(am)"))
})

test_that("rstantools generics work after library(bnnmc) alone", {
  expect_identical(posterior_predict, rstantools::posterior_predict)
  expect_true(all(c("posterior_predict", "posterior_epred", "posterior_linpred",
                    "predictive_interval", "posterior_interval", "log_lik",
                    "predictive_error") %in% getNamespaceExports("bnnmc")))
  # in a fresh session that attaches bnnmc only
  code <- paste(
    "library(bnnmc)",
    "fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 1, warmup = 20,",
    "  iter = 10, seed = 1, progress = FALSE, sampler = \"nuts\")",
    "cat(dim(posterior_predict(fit, seed = 1)), 'rstantools' %in% search(), sep = ',')",
    sep = "\n")
  rscript <- file.path(R.home("bin"), "Rscript")
  out <- suppressWarnings(system2(rscript, c("--vanilla", "-e", shQuote(code)), stdout = TRUE,
                                  stderr = FALSE,
                                  env = paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep))))
  expect_identical(utils::tail(out, 1), "10,32,FALSE")
})

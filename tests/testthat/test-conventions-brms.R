# The habits of brms, rstanarm and lm users work on a bnnfit as typed.

test_that("the generics users call on a fit are exported by bnnmc itself", {
  ex <- getNamespaceExports("bnnmc")
  for (f in c("loo", "waic", "kfold", "loo_compare", "loo_moment_match", "pp_check",
              "launch_shinystan", "posterior_predict", "posterior_epred", "log_lik",
              "posterior_interval", "predictive_interval", "bayes_R2", "loo_R2",
              "prior_summary"))
    expect_true(f %in% ex, info = f)
  # the loo ones are loo's own functions, so loo's methods and bnnmc's serve both
  expect_identical(bnnmc::loo, loo::loo)
  expect_identical(bnnmc::loo_compare, loo::loo_compare)
  fit <- eco_fits("gauss")
  # called as after library(bnnmc) alone: through bnnmc's exports
  w <- suppressWarnings(bnnmc::waic(fit))   # loo's p_waic advice on a small fit
  expect_s3_class(w, "waic")
  lo <- suppressWarnings(suppressMessages(bnnmc::loo(fit, moment_match = FALSE)))
  expect_s3_class(lo, "psis_loo")
  expect_s3_class(bnnmc::loo_compare(lo, lo), "compare.loo")
  skip_if_not_installed("bayesplot")
  expect_s3_class(bnnmc::pp_check(fit, ndraws = 5, seed = 1), "ggplot")
  # other objects go on to bayesplot's generic
  expect_error(bnnmc::pp_check(structure(list(), class = "not_a_fit")), "yrep|fun|missing")
})

test_that("as_draws_df() and posterior's draws generics work after library(bnnmc) alone", {
  gens <- c("as_draws", "as_draws_array", "as_draws_df", "as_draws_matrix", "as_draws_list",
            "as_draws_rvars", "ndraws", "nchains", "niterations", "nvariables", "variables")
  # re-exported as brms does: posterior's own functions, so no masking
  for (g in gens) {
    expect_true(g %in% getNamespaceExports("bnnmc"), info = g)
    expect_identical(getExportedValue("bnnmc", g), getExportedValue("posterior", g), info = g)
  }
  # a fresh session that attaches bnnmc and nothing else
  res <- run_in_child(c(
    "fit <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 2, warmup = 50,",
    "               iter = 100, seed = 1, progress = FALSE, sampler = 'nuts')",
    "d <- as_draws_df(fit)",
    "cat('search:', any(grepl('posterior', search())), '\\n')",
    "cat('rows:', nrow(d), ndraws(fit), nchains(fit), niterations(fit), '\\n')",
    "cat('vars:', identical(variables(fit), variables(as_draws_array(fit))), '\\n')"))
  expect_identical(res$status, 0L)
  expect_true(any(res$output == "search: FALSE "))
  expect_true(any(res$output == "rows: 200 200 2 100 "))
  expect_true(any(res$output == "vars: TRUE "))
})

test_that("predict() and fitted() of a binary fit give P(y = 1), as glm and brms", {
  fit <- eco_fits("bern")
  nd <- mtcars[1:4, ]
  p1 <- colMeans(posterior_epred(fit, newdata = transform(nd, am = am == 1)))
  pr <- predict(fit, transform(nd, am = am == 1))
  # one probability per row, named by the rows, of the second level (TRUE)
  expect_true(is.numeric(pr) && is.null(dim(pr)))
  expect_identical(names(pr), rownames(nd))
  expect_equal(pr, p1)
  expect_identical(fitted(fit), predict(fit))
  expect_identical(length(fitted(fit)), nrow(mtcars))
  # both classes' probabilities on request: type = "prob"
  pb <- predict(fit, transform(nd, am = am == 1), type = "prob")
  expect_identical(dim(pb), c(4L, 2L))
  expect_identical(colnames(pb), c("FALSE", "TRUE"))
  expect_equal(pb[, "TRUE"], pr)
  expect_equal(unname(rowSums(pb)), rep(1, 4))
  expect_identical(fitted(fit, type = "prob"), predict(fit, type = "prob"))
  expect_identical(dim(fitted(fit, summary = FALSE)), c(ndraws_fit(fit), nrow(mtcars)))
  expect_error(fitted(fit, type = "prob", summary = FALSE), "posterior_epred")
  expect_error(fitted(eco_fits("gauss"), type = "prob"), "classification")
  # glm's predict(type = "response") is the same kind of number
  g <- glm(am ~ wt + hp, family = binomial, data = mtcars)
  expect_identical(class(predict(g, nd, type = "response")), class(pr))
  # a categorical fit keeps its matrix of class probabilities
  cf <- eco_fits("cat")
  expect_identical(dim(predict(cf)), c(nobs(cf), 3L))
  expect_identical(predict(cf), fitted(cf))
})

test_that("launch_shinystan() is bnnmc's generic and names shinystan when it is missing", {
  expect_true(is.function(bnnmc::launch_shinystan))
  # other objects go on to shinystan's generic (no method there for this one)
  skip_if_not_installed("shinystan")
  expect_error(bnnmc::launch_shinystan(structure(list(), class = "no_method_for_this")),
               "not compatible with 'launch_shinystan'")
  # the bnnfit method checks for shinystan before anything else
  body_txt <- paste(deparse(body(bnnmc:::launch_shinystan.bnnfit)), collapse = " ")
  expect_match(body_txt, "eco_need(\"shinystan\"", fixed = TRUE)
  expect_error(bnnmc:::eco_need("surely.not.a.package", "launch_shinystan()"),
               "install.packages\\(\"surely.not.a.package\"\\)")
})

test_that("formula() expands '.' as lm's does and update(fit, . ~ . - x) works", {
  d <- mtcars[c("mpg", "wt", "hp")]
  fit <- suppressWarnings(bnn_fit(mpg ~ ., data = d, hidden = 2, chains = 1, warmup = 30,
                                  iter = 10, seed = 1, progress = FALSE, sampler = "nuts"))
  expect_equal(formula(fit), formula(lm(mpg ~ ., data = d)), ignore_attr = TRUE)
  expect_identical(environment(formula(fit)), environment(fit$formula))
  fit2 <- suppressWarnings(update(fit, . ~ . - hp))
  expect_identical(colnames(fit2$X), "wt")
  expect_equal(formula(fit2), mpg ~ wt, ignore_attr = TRUE)
  # brms's newdata = is the new training data
  fit3 <- suppressWarnings(update(fit, newdata = d[1:20, ]))
  expect_identical(nobs(fit3), 20L)
  expect_error(update(fit, newdata = d, data = d), "'data' or 'newdata'")
})

test_that("fitted() gives draws with summary = FALSE and keeps names like residuals()", {
  fit <- eco_fits("gauss")
  f <- fitted(fit)
  expect_identical(names(f), rownames(mtcars))
  expect_identical(names(f), names(residuals(fit)))
  fd <- expect_silent(fitted(fit, summary = FALSE))
  expect_identical(dim(fd), c(ndraws_fit(fit), nrow(mtcars)))
  expect_equal(colMeans(fd), f)
  expect_identical(fd, posterior_epred(fit))
  expect_error(fitted(fit, summary = NA), "'summary' must be TRUE or FALSE")
})

test_that("predict() keeps the row names of the data, also for one row", {
  fit <- eco_fits("gauss")
  nd <- mtcars[c(5, 9), ]
  expect_identical(names(predict(fit, nd)), rownames(nd))
  expect_identical(names(predict(fit)), rownames(mtcars))
  iv <- predict(fit, mtcars[5, ], type = "interval")
  expect_identical(rownames(iv), rownames(mtcars)[5])
  expect_identical(rownames(predict(fit, nd, probs = c(0.1, 0.9))), rownames(nd))
  expect_identical(colnames(predict(fit, nd, type = "draws", seed = 1)), rownames(nd))
  expect_identical(rownames(predictive_interval(fit, newdata = mtcars[5, ])),
                   rownames(mtcars)[5])
})

test_that("residuals() of a binary fit are y - E[y], as brms's", {
  fit <- eco_fits("bern")
  r <- residuals(fit)
  y <- as.numeric(mtcars$am == 1)
  expect_equal(unname(r), unname(y - colMeans(posterior_epred(fit))))
  expect_identical(names(r), rownames(mtcars))
  p <- colMeans(posterior_epred(fit))
  expect_equal(unname(residuals(fit, type = "pearson")), unname((y - p) / sqrt(p * (1 - p))))
  expect_error(residuals(eco_fits("cat")), "categorical")
})

test_that("tidybayes' re_formula = NA is accepted, other values name the argument", {
  fit <- eco_fits("gauss")
  expect_silent(bnnmc:::check_tidy_args(NA))
  expect_silent(bnnmc:::check_tidy_args(NULL))
  expect_error(bnnmc:::check_tidy_args(~ (1 | g)), "'re_formula' must be NULL or NA")
  skip_if_not_installed("tidybayes")
  skip_if_not_installed("dplyr")
  nd <- mtcars[1:2, c("wt", "am")]
  a <- tidybayes::add_epred_draws(nd, fit, re_formula = NA)
  b <- tidybayes::add_epred_draws(nd, fit)
  expect_identical(a$.epred, b$.epred)
  expect_error(tidybayes::add_epred_draws(nd, fit, re_formula = ~ (1 | cyl)), "re_formula")
})

test_that("bayes_R2(summary = TRUE) and loo_R2(summary = TRUE) summarise as brms", {
  fit <- eco_fits("gauss")
  r2 <- bayes_R2(fit)
  s <- bayes_R2(fit, summary = TRUE)
  expect_identical(dimnames(s), list("R2", c("Estimate", "Est.Error", "Q2.5", "Q97.5")))
  expect_equal(s[1, "Estimate"], mean(r2))
  expect_equal(s[1, "Q97.5"], unname(quantile(r2, 0.975)))
  expect_equal(bayes_R2(fit, summary = TRUE, robust = TRUE)[1, "Estimate"], median(r2))
  expect_identical(colnames(loo_R2(fit, n_boot = 50, summary = TRUE, probs = 0.5)),
                   c("Estimate", "Est.Error", "Q50"))
  expect_error(bayes_R2(fit, summary = "yes"), "'summary'")
})

test_that("summary(fit, probs = ) and print(fit, digits = ) are honoured", {
  fit <- eco_fits("gauss")
  # (posterior warns that the ESS of this short fit is capped)
  s <- suppressWarnings(summary(fit, probs = c(0.1, 0.9)))
  expect_true(all(c("q10", "q90") %in% names(s$parameters)))
  out <- paste(capture.output(print(s)), collapse = "\n")
  expect_match(out, "q10")
  expect_match(out, "q90")
  expect_match(out, "sigma")
  expect_no_match(paste(capture.output(print(suppressWarnings(summary(fit)))), collapse = "\n"),
                  "q10")
  expect_error(suppressWarnings(summary(fit, probs = 2)), "'probs'")
  p2 <- capture.output(print(fit, digits = 2))
  p7 <- capture.output(print(fit, digits = 7))
  st <- function(p) p[grepl("step sizes", p)]
  expect_false(identical(st(p2), st(p7)))
  expect_lt(nchar(st(p2)), nchar(st(p7)))
})

test_that("pp_check() takes a variable name for x and shows bars for a binary outcome", {
  skip_if_not_installed("bayesplot")
  fit <- eco_fits("gauss")
  p <- pp_check(fit, type = "intervals", x = "wt", ndraws = 10, seed = 1)
  expect_s3_class(p, "ggplot")
  expect_equal(p$data$x, mtcars$wt)
  expect_error(pp_check(fit, type = "intervals", x = "nope", seed = 1),
               "'x' = \"nope\" is not a variable")
  pb <- pp_check(eco_fits("bern"), ndraws = 10, seed = 1)
  expect_s3_class(pb, "ggplot")
  ref <- bayesplot::ppc_bars(as.numeric(mtcars$am == 1),
                             unname(posterior_predict(eco_fits("bern"), ndraws = 10, seed = 1)))
  expect_identical(class(pb$layers[[1]]$geom), class(ref$layers[[1]]$geom))
  expect_equal(pb$data, ref$data)
})

test_that("loo() gives one warning of its own, none of loo's, and none once k are good", {
  # an outlying response makes its Pareto k high
  d <- mtcars
  d$mpg[1] <- 120
  fit <- suppressWarnings(bnn_fit(mpg ~ wt + hp, data = d, hidden = 2, chains = 2,
                                  warmup = 60, iter = 40, seed = 3, progress = FALSE,
                                  sampler = "nuts", likelihood = "gaussian"))
  warns <- list()
  lo <- withCallingHandlers(suppressMessages(loo(fit, moment_match = FALSE)),
                            warning = function(w) {
                              warns[[length(warns) + 1L]] <<- w
                              invokeRestart("muffleWarning")
                            })
  thr <- if (is.null(lo$diagnostics$k_threshold)) 0.7 else lo$diagnostics$k_threshold
  k_high <- sum(lo$diagnostics$pareto_k > thr)
  expect_gt(k_high, 0)
  expect_length(warns, 1L)
  expect_s3_class(warns[[1]], "bnnmc_loo_pareto_k")
  # with moment matching: only the package's warning, and only if k stay high
  warns <- list()
  lo_mm <- withCallingHandlers(suppressMessages(loo(fit)), warning = function(w) {
    warns[[length(warns) + 1L]] <<- w
    invokeRestart("muffleWarning")
  })
  still <- sum(lo_mm$diagnostics$pareto_k > thr)
  expect_length(warns, as.integer(still > 0))
  for (w in warns) expect_s3_class(w, "bnnmc_loo_pareto_k")
})

test_that("missing predictors give NA predictions under na.action, as predict.lm", {
  fit <- eco_fits("gauss")
  nd <- mtcars[1:4, ]
  nd$wt[2] <- NA
  full <- predict(fit, mtcars[1:4, ])
  p <- predict(fit, nd)
  expect_identical(names(p), rownames(nd))
  expect_true(is.na(p[2]))
  expect_identical(p[-2], full[-2])
  expect_identical(predict(fit, nd, na.action = na.exclude), p)
  expect_identical(predict(fit, nd, na.action = na.omit), full[-2])
  expect_error(predict(fit, nd, na.action = na.fail), "missing values")
  iv <- predict(fit, nd, type = "interval")
  expect_true(all(is.na(iv[2, ])))
  expect_false(anyNA(iv[-2, ]))
  dr <- predict(fit, nd, type = "draws", seed = 1)
  expect_true(all(is.na(dr[, 2])))
  expect_identical(dr[, -2], predict(fit, mtcars[1:4, ], type = "draws", seed = 1)[, -2])
  expect_true(is.na(fitted(fit, newdata = nd)[2]))
  pb <- predict(eco_fits("bern"), transform(nd, am = am == 1))
  expect_true(is.na(pb[[2]]) && !anyNA(pb[-2]))
  pb <- predict(eco_fits("bern"), transform(nd, am = am == 1), type = "prob")
  expect_true(all(is.na(pb[2, ])))
  expect_error(predict(fit, nd, na.action = "na.nothing"), "'na.action'")
})

test_that("weights with missing values are an error that names 'weights'", {
  expect_error(bnn_fit(mpg ~ wt, data = mtcars, weights = rep(NA_real_, 32), hidden = 2,
                       chains = 1, warmup = 10, iter = 10, seed = 1, progress = FALSE,
                       sampler = "nuts"), "'weights' has missing values")
  w <- rep(1, 32)
  w[3] <- NA
  expect_error(bnn_fit(mpg ~ wt, data = mtcars, weights = w, hidden = 2, chains = 1,
                       warmup = 10, iter = 10, seed = 1, progress = FALSE, sampler = "nuts"),
               "'weights' has missing values \\(NA\\) for 1 of 32")
})

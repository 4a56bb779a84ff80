# The "bnnmc" engine of parsnip::mlp() (R/eco-parsnip.R).

test_that("parsnip's mlp() fits and predicts every type with the bnnmc engine", {
  skip_if_not_installed("parsnip")
  spec <- parsnip::mlp(hidden_units = 3, activation = "tanh") |>
    parsnip::set_engine("bnnmc", sampler = "nuts", chains = 2, warmup = 80, iter = 30,
                        seed = 5) |>
    parsnip::set_mode("regression")
  mf <- suppressWarnings(parsnip::fit(spec, mpg ~ wt + hp, data = mtcars))
  fit <- mf$fit
  expect_s3_class(fit, "bnnfit")
  expect_identical(fit$hidden, 3L)
  expect_identical(fit$activation, "tanh")
  # the same fit as bnn_fit() with the same settings
  ref <- suppressWarnings(bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, sampler = "nuts",
                                  chains = 2, warmup = 80, iter = 30, seed = 5,
                                  progress = FALSE))
  expect_identical(fit$draws, ref$draws)
  nd <- mtcars[1:4, ]
  num <- predict(mf, nd)
  expect_named(num, ".pred")
  expect_equal(num$.pred, unname(predict(fit, nd)))
  ep <- posterior_epred(fit, newdata = nd)
  ci <- predict(mf, nd, type = "conf_int", level = 0.8, std_error = TRUE)
  expect_named(ci, c(".pred_lower", ".pred_upper", ".std_error"))
  expect_equal(ci$.pred_lower, unname(apply(ep, 2, quantile, 0.1)))
  expect_equal(ci$.pred_upper, unname(apply(ep, 2, quantile, 0.9)))
  expect_equal(ci$.std_error, unname(apply(ep, 2, sd)))
  pi <- predict(mf, nd, type = "pred_int", level = 0.8)
  ref_pi <- predict(fit, nd, type = "interval", level = 0.8)
  expect_equal(pi$.pred_lower, ref_pi$lower)
  expect_equal(pi$.pred_upper, ref_pi$upper)
  expect_true(all(pi$.pred_lower < ci$.pred_lower & pi$.pred_upper > ci$.pred_upper))
  raw <- predict(mf, nd, type = "raw")
  expect_identical(raw, ep)
  expect_identical(dim(predict(mf, nd, type = "raw", opts = list(ndraws = 7))), c(7L, 4L))
})

test_that("classification: class, prob and conf_int per class", {
  skip_if_not_installed("parsnip")
  spec <- parsnip::mlp(hidden_units = 3) |>
    parsnip::set_engine("bnnmc", sampler = "nuts", chains = 2, warmup = 80, iter = 30,
                        seed = 6) |>
    parsnip::set_mode("classification")
  d <- iris[c(1:12, 51:62, 101:112), c("Species", "Sepal.Length", "Petal.Length")]
  mf <- suppressWarnings(parsnip::fit(spec, Species ~ ., data = d))
  nd <- d[c(1, 13, 25), ]
  cl <- predict(mf, nd, type = "class")
  expect_identical(levels(cl$.pred_class), levels(iris$Species))
  pr <- predict(mf, nd, type = "prob")
  expect_named(pr, paste0(".pred_", levels(iris$Species)))
  expect_equal(unname(as.matrix(pr)), unname(predict(mf$fit, nd, type = "prob")))
  expect_equal(rowSums(pr), rep(1, 3))
  ci <- predict(mf, nd, type = "conf_int", level = 0.9)
  ep <- posterior_epred(mf$fit, newdata = nd)
  expect_equal(ci$.pred_lower_virginica, unname(apply(ep[, , 3], 2, quantile, 0.05)))
  expect_equal(ci$.pred_upper_setosa, unname(apply(ep[, , 1], 2, quantile, 0.95)))
  expect_error(predict(mf, nd, type = "pred_int"))
})

test_that("binary classification: conf_int of both classes", {
  skip_if_not_installed("parsnip")
  d <- transform(mtcars, am = factor(am, labels = c("auto", "manual")))
  mf <- suppressWarnings(parsnip::fit(
    parsnip::mlp(hidden_units = 2) |>
      parsnip::set_engine("bnnmc", sampler = "nuts", chains = 1, warmup = 60, iter = 20,
                          seed = 7) |>
      parsnip::set_mode("classification"), am ~ wt + hp, data = d))
  ci <- predict(mf, d[1:3, ], type = "conf_int", level = 0.9)
  ep <- posterior_epred(mf$fit, newdata = d[1:3, ])
  expect_named(ci, c(".pred_lower_auto", ".pred_upper_auto", ".pred_lower_manual",
                     ".pred_upper_manual"))
  expect_equal(ci$.pred_lower_manual, unname(apply(ep, 2, quantile, 0.05)))
  expect_equal(ci$.pred_upper_auto, unname(apply(1 - ep, 2, quantile, 0.95)))
})

test_that("parsnip arguments without meaning for MCMC are errors, epochs only with an ensemble", {
  skip_if_not_installed("parsnip")
  f <- function(spec, eng = list()) {
    spec <- do.call(parsnip::set_engine, c(list(spec, "bnnmc"), eng))
    parsnip::fit(parsnip::set_mode(spec, "regression"), mpg ~ wt, data = mtcars)
  }
  expect_error(f(parsnip::mlp(penalty = 0.1)), "penalty.*prior")
  expect_error(f(parsnip::mlp(dropout = 0.1)), "dropout")
  expect_error(f(parsnip::mlp(learn_rate = 0.1)), "learn_rate")
  expect_error(f(parsnip::mlp(epochs = 10), list(sampler = "nuts")), "MCMC has no epochs")
  expect_error(f(parsnip::mlp(activation = "softmax")), "not available in bnnmc")
  # epochs: the starting deep ensemble's
  mf <- suppressWarnings(f(parsnip::mlp(hidden_units = 2, epochs = 15, activation = "linear"),
                           list(chains = 2, iter = 10, seed = 1)))
  expect_identical(mf$fit$ensemble$optimizer$epochs, 15L)
  expect_identical(mf$fit$activation, "identity")
  # the sampler object says whether an ensemble is trained, and with which
  # preset: a protocol given as an object as by its name
  dei <- suppressWarnings(f(parsnip::mlp(hidden_units = 2, epochs = 12),
                            list(sampler = bnn_dei(), chains = 1, iter = 10, seed = 1)))
  expect_identical(dei$fit$ensemble$optimizer,
                   bnn_optimizer_preset("dei", epochs = 12))
  expect_error(f(parsnip::mlp(epochs = 10), list(sampler = bnn_mclmc())), "MCMC has no epochs")
  expect_error(f(parsnip::mlp(epochs = 10), list(sampler = "mile", init = "random")),
               "trains none \\(MCLMC.*init \"random\"\\)")
})

test_that("the engine works in a workflow with a recipe and fit_resamples()", {
  # loading tune asks Sys.timezone(), which warns where TZ is unset and
  # timedatectl cannot run (containers): not this package's business
  suppressWarnings(requireNamespace("tune", quietly = TRUE))
  skip_if_not_installed("parsnip")
  skip_if_not_installed("workflows")
  skip_if_not_installed("recipes")
  skip_if_not_installed("rsample")
  skip_if_not_installed("tune")
  skip_if_not_installed("yardstick")
  rec <- recipes::recipe(mpg ~ wt + hp + cyl, data = mtcars) |>
    recipes::step_normalize(recipes::all_numeric_predictors())
  spec <- parsnip::mlp(hidden_units = 2) |>
    parsnip::set_engine("bnnmc", sampler = "nuts", chains = 1, warmup = 50, iter = 20) |>
    parsnip::set_mode("regression")
  wf <- workflows::add_model(workflows::add_recipe(workflows::workflow(), rec), spec)
  set.seed(1)
  folds <- rsample::vfold_cv(mtcars, v = 3)
  res <- suppressWarnings(tune::fit_resamples(wf, folds,
                                              metrics = yardstick::metric_set(yardstick::rmse)))
  m <- tune::collect_metrics(res)
  expect_identical(m$.metric, "rmse")
  expect_identical(m$n, 3L)
  expect_true(is.finite(m$mean) && m$mean > 0)
})

test_that("the engine is registered whichever package is loaded first", {
  skip_if_not_installed("parsnip")
  loadNamespace("parsnip")
  eng <- parsnip::show_engines("mlp")
  expect_true(all(c("regression", "classification") %in% eng$mode[eng$engine == "bnnmc"]))
  # registering again changes nothing (a second load of bnnmc)
  expect_false(bnnmc:::register_parsnip_engine())
})

test_that("parsnip loaded before bnnmc gets the engine too (registered in .onLoad)", {
  skip_if_not_installed("parsnip")
  skip_on_cran()
  code <- paste("loadNamespace('parsnip'); loadNamespace('bnnmc');",
                "e <- parsnip::show_engines('mlp'); cat(sum(e$engine == 'bnnmc'))")
  out <- suppressWarnings(system2(file.path(R.home("bin"), "Rscript"), c("-e", shQuote(code)),
                                  stdout = TRUE, stderr = FALSE,
                                  env = paste0("R_LIBS=", paste(.libPaths(), collapse = .Platform$path.sep))))
  expect_identical(tail(out, 1), "2")
})

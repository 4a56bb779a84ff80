# For a two-level factor response the default's check fits the linear
# counterpart, logistic regression, and compares it with the network as the
# Gaussian check does (R/fit-choice.R).

test_that("the check applies to a two-level factor response", {
  m <- function(fam, n = 50) list(likelihood = list(family = fam), weights = NULL,
                                  X = matrix(0, n, 2))
  none <- c(hidden = FALSE, sampler = FALSE)
  expect_true(bnnmc:::linear_check_applies(none, m("bernoulli")))
  expect_true(bnnmc:::linear_check_applies(none, m("gaussian")))
  expect_false(bnnmc:::linear_check_applies(none, m("categorical")))
  expect_false(bnnmc:::linear_check_applies(c(hidden = TRUE), m("bernoulli")))
  expect_false(bnnmc:::linear_check_applies(none, m("bernoulli", n = 501)))
})

test_that("on Pima.tr the default returns logistic regression, as good as glm's on Pima.te", {
  skip_on_cran()
  tr <- MASS::Pima.tr
  te <- MASS::Pima.te
  expect_message(
    fit <- suppressWarnings(bnn_fit(type ~ ., data = tr, chains = 2, seed = 1,
                                    progress = FALSE)),
    "a Bayesian linear model \\(logistic regression\\) predicts these data better")
  mc <- fit$model_choice
  expect_identical(mc$model, c("network", "linear"))
  expect_identical(mc$chosen, c(FALSE, TRUE))
  expect_gt(mc$elpd_loo[2], mc$elpd_loo[1])
  expect_identical(fit$spec$sizes, c(7L, 1L))
  expect_identical(fit$likelihood$family, "bernoulli")
  # test log density per point: glm(binomial)'s is -0.441; the network's
  # alone was -0.449
  g <- glm(type ~ ., family = binomial, data = tr)
  p <- predict(g, te, type = "response")
  lpd_glm <- mean(log(ifelse(te$type == "Yes", p, 1 - p)))
  met <- bnn_metrics(fit, newdata = te)
  expect_gt(met$lppd, lpd_glm - 0.01)
  expect_gt(met$accuracy, 0.78)
  # and it speaks as logistic regression
  expect_match(capture.output(print(fit))[1], "^Bayesian linear model \\(logistic regression\\)")
  expect_identical(names(coef(fit)), names(coef(g)))
  expect_true(all(abs(coef(fit) - coef(g)) < 0.5 * sqrt(diag(vcov(g)))))
})

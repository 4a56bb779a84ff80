# Load-time registration in suggested packages (R/eco-register.R).

test_that("a missing suggested package is a clear error naming how to install it", {
  expect_error(bnnmc:::eco_need("notapackage.bnnmc", "the foo integration"),
               "Package 'notapackage.bnnmc' is needed for the foo integration; install it with install.packages\\(\"notapackage.bnnmc\"\\)")
})

test_that("registering again neither stacks hooks nor duplicates the marginaleffects class", {
  hooks <- function(pkg) Filter(function(h) isTRUE(attr(h, "bnnmc_hook")),
                                getHook(packageEvent(pkg, "onLoad")))
  bnnmc:::eco_register_all()
  bnnmc:::eco_register_all()
  for (pkg in c("parsnip", "shinystan", "marginaleffects")) expect_length(hooks(pkg), 1L)
  skip_if_not_installed("marginaleffects")
  loadNamespace("marginaleffects")
  expect_identical(sum(getOption("marginaleffects_model_classes") == "bnnfit"), 1L)
})

test_that("a registration that fails warns and does not break the other package", {
  expect_warning(bnnmc:::eco_try_register("somepkg", function() stop("boom")),
                 "could not register its somepkg integration: boom")
})

test_that("registering the shinystan method again is silent", {
  suppressWarnings(suppressPackageStartupMessages(requireNamespace("shinystan", quietly = TRUE)))
  skip_if_not_installed("shinystan")
  expect_silent(bnnmc:::register_shinystan())
  expect_silent(bnnmc:::eco_register_all())
  expect_true(methods::existsMethod(shinystan::as.shinystan, "bnnfit"))
})

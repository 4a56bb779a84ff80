# Samplers as S3 classes (R/sampler-class.R, R/sampler-registry.R): every
# named sampler is an object of class c("bnn_<kind>", ..., "bnn_sampler")
# (a protocol's: c("bnn_<name>", "bnn_protocol", <its sampler's classes>)),
# the run's settings are resolved into a new object, and print() works.

test_that("every sampler name of the registry gives a classed sampler object", {
  reg <- bnnmc:::.sampler_registry
  for (nm in names(reg)) {
    s <- bnnmc:::as_sampler(nm)
    expect_s3_class(s, "bnn_sampler")
    # a protocol of a paper ("mile", "dei") is its sampler with its own class in front
    kind <- paste0("bnn_", s$method %||% "mclmc")
    expect_true(inherits(s, kind), info = nm)
    expect_identical(class(s)[1L], if (inherits(s, "bnn_protocol")) paste0("bnn_", nm) else kind,
                     info = nm)
    expect_identical(class(s)[length(class(s))], "bnn_sampler", info = nm)
    expect_output(print(s), "<bnn_")
    expect_true(nzchar(format(s)))
  }
  expect_s3_class(bnn_sgld(), c("bnn_sgld", "bnn_sgmcmc", "bnn_sampler"), exact = TRUE)
  expect_s3_class(bnn_psgld(), c("bnn_psgld", "bnn_sgmcmc", "bnn_sampler"), exact = TRUE)
  expect_s3_class(bnn_sghmc(), c("bnn_sghmc", "bnn_sgmcmc", "bnn_sampler"), exact = TRUE)
  expect_s3_class(bnn_mclmc(), c("bnn_mclmc", "bnn_sampler"), exact = TRUE)
  expect_s3_class(bnn_nuts(), c("bnn_nuts", "bnn_sampler"), exact = TRUE)
  expect_s3_class(bnn_ces(), c("bnn_ces", "bnn_sampler"), exact = TRUE)
  expect_error(bnnmc:::as_sampler("gibbs"), "'sampler' must be one of")
  expect_error(bnnmc:::as_sampler(""), "'sampler' must be one of")
})

test_that("the protocols' defaults come from their sampler objects", {
  pd <- bnnmc:::sampler_protocol_default
  s <- bnnmc:::as_sampler
  expect_identical(pd(s("dei"), "warmup", 1000L), 100L)
  expect_identical(pd(s("nuts"), "warmup", 1000L), 1000L)
  expect_identical(pd(s("mile"), "init", "random"), "ensemble")
  expect_identical(pd(s("mclmc"), "init", "random"), "random")
  expect_identical(pd(bnn_nuts(), "init", "random"), "random")
  # a protocol is its sampler with the protocol's class in front
  expect_s3_class(s("mile"), c("bnn_mile", "bnn_protocol", "bnn_mclmc", "bnn_sampler"),
                  exact = TRUE)
  expect_s3_class(s("dei"), c("bnn_dei", "bnn_protocol", "bnn_nuts", "bnn_sampler"),
                  exact = TRUE)
  gauss <- bnn_likelihood("gaussian")
  expect_identical(bnnmc:::sampler_ensemble_preset(s("mile"), gauss),
                   bnn_optimizer_preset("mile"))
  expect_identical(bnnmc:::sampler_ensemble_preset(s("mile"), bnn_likelihood("bernoulli")),
                   bnn_optimizer_preset("mile_class"))
  expect_identical(bnnmc:::sampler_ensemble_preset(s("dei"), gauss),
                   bnn_optimizer_preset("dei"))
})

test_that("the protocols' constructors are their names: the same object and the same fit", {
  expect_identical(bnn_mile(), bnnmc:::as_sampler("mile"))
  expect_identical(bnn_dei(), bnnmc:::as_sampler("dei"))
  # the sampler's own settings pass through, the protocol's class stays
  expect_s3_class(bnn_dei(adapt_delta = 0.95), c("bnn_dei", "bnn_protocol", "bnn_nuts",
                                                 "bnn_sampler"), exact = TRUE)
  expect_identical(bnn_dei(adapt_delta = 0.95)$adapt_delta, 0.95)
  expect_identical(bnn_mile(n_samples = 200)$n_samples, bnn_mclmc(n_samples = 200)$n_samples)
  expect_error(bnn_mile(thin = 0), "thin")
  expect_output(print(bnn_mile()), "<bnn_mile> MILE: MCLMC")
  expect_output(print(bnn_dei()), "<bnn_dei> DEI-MCMC: NUTS")
  expect_identical(bnnmc:::sampler_protocol_name(bnn_mile()), "MILE")
  expect_identical(bnnmc:::sampler_protocol_name(bnn_dei()), "DEI-MCMC")
  expect_null(bnnmc:::sampler_protocol_name(bnn_nuts()))
  # the default fit's sampler is MILE's, with the default budget
  expect_s3_class(bnnmc:::default_sampler(), "bnn_mile")
  fm <- mpg ~ wt
  fit_by <- function(sampler, ...) suppressWarnings(
    bnn_fit(fm, data = mtcars, hidden = 2, chains = 2, seed = 4, sampler = sampler,
            ensemble = bnn_optimizer_preset("dei", epochs = 30), progress = FALSE, ...))
  same_fit <- function(a, b) {
    expect_identical(a$draws, b$draws)
    expect_identical(a$sampler_stats, b$sampler_stats)
    expect_identical(a$sampler, b$sampler)
    expect_identical(a$inits, b$inits)
    expect_false("protocol" %in% names(a))
    drop <- c("call", "timing", "elapsed", "cost_estimate", "ensemble", "convergence")
    expect_identical(unclass(a)[setdiff(names(a), drop)], unclass(b)[setdiff(names(b), drop)])
  }
  same_fit(fit_by("dei", iter = 30), fit_by(bnn_dei(), iter = 30))
  mile <- fit_by("mile", warmup = 300, iter = 20)
  same_fit(mile, fit_by(bnn_mile(), warmup = 300, iter = 20))
  # the protocol is the sampler object's class, not a field of the fit
  expect_null(mile$protocol)
  expect_output(print(mile), "started from a deep ensemble \\(MILE\\)")
  user <- fit_by(bnn_mclmc(), warmup = 300, iter = 20, init = "ensemble")
  expect_identical(user$draws, mile$draws)
  expect_output(print(user), "started from a deep ensemble \\(user\\)")
})

test_that("resolving a run returns a new sampler object and leaves the given one", {
  s <- bnn_mclmc(n_tune = c(80, 10, 10), n_samples = 50, thin = 5)
  r <- bnnmc:::sampler_resolve_run(s, 200L, 20L, 2L,
                                   c(warmup = TRUE, iter = TRUE, thin = TRUE))
  expect_identical(r$sampler$n_samples, 40L)
  expect_identical(r$sampler$thin, 2L)
  expect_identical(r$sampler$n_tune, c(160L, 20L, 20L))
  expect_identical(r$warmup, 200L)
  expect_identical(r$n_keep, 20)
  expect_identical(s$n_samples, 50L)    # the user's object is unchanged
  # not given: MCLMC keeps its own settings
  r0 <- bnnmc:::sampler_resolve_run(s, 1000L, 1000L, 5L,
                                    c(warmup = FALSE, iter = FALSE, thin = FALSE))
  expect_identical(r0$warmup, 100L)
  expect_identical(r0$iter, 50L)
  expect_identical(r0$n_keep, 10)
  n <- bnnmc:::sampler_resolve_run(bnn_nuts(), 100L, 30L, 2L,
                                   c(warmup = TRUE, iter = TRUE, thin = TRUE))
  expect_identical(n[c("warmup", "iter", "thin", "n_keep")],
                   list(warmup = 100L, iter = 60L, thin = 2L, n_keep = 30L))
})

test_that("bnn_fit() stores the resolved sampler and leaves the user's object alone", {
  s <- bnn_mclmc(n_tune = c(80, 10, 10), n_samples = 50, thin = 5)
  s0 <- s
  fit <- suppressWarnings(bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, sampler = s,
                                  chains = 1, iter = 20, thin = 2, seed = 1,
                                  progress = FALSE))
  expect_identical(s, s0)
  expect_identical(fit$sampler$n_samples, 40L)
  expect_identical(dim(fit$draws)[1], 20L)
  expect_identical(fit$warmup, 100L)
  expect_output(print(fit), "tuning steps")
})

test_that("sampler objects of older versions get their class", {
  old <- unclass(bnn_nuts())
  class(old) <- "bnn_sampler"
  up <- bnnmc:::as_sampler(old)
  expect_s3_class(up, c("bnn_nuts", "bnn_sampler"), exact = TRUE)
  expect_identical(format(old), format(up))
  oldm <- bnn_mclmc()
  class(oldm) <- "bnn_mclmc"
  expect_s3_class(bnnmc:::as_sampler(oldm), c("bnn_mclmc", "bnn_sampler"), exact = TRUE)
})

test_that("the sampler generics have a method per class where samplers differ", {
  u <- bnnmc:::sampler_units
  expect_identical(u(bnn_mclmc())$warmup, "tuning steps")
  expect_identical(u(bnn_sgld())$warmup, "burn-in iterations")
  expect_identical(u(bnn_ces())$warmup, "iterations of the sampling stage")
  expect_identical(u(bnn_nuts())$warmup, "iterations")
  expect_false(bnnmc:::sampler_allows(bnn_ces(), "waves"))
  expect_true(bnnmc:::sampler_allows(bnn_nuts(), "chain_id"))
  expect_identical(bnnmc:::sampler_kernel(bnn_hmc(), 10L, 10L)$name, "hmc")
  expect_identical(bnnmc:::sampler_kernel(bnn_nuts(), 10L, 10L)$name, "nuts")
  expect_identical(bnnmc:::sampler_kernel(bnn_sgld(), 10L, 10L)$name, "sgld")
  expect_identical(bnnmc:::sampler_kernel(bnn_mclmc(), 10L, 10L, dim = 4L)$name, "mclmc")
  expect_error(bnn_ces(sampler = bnn_nuts()), "generic chain driver")
})

test_that("an unknown sampler name is an error listing the registry's names", {
  for (nm in names(bnnmc:::.sampler_registry))
    expect_error(bnnmc:::as_sampler("gibbs"), paste0("\"", nm, "\""), fixed = TRUE)
})

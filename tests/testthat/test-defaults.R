# The default fit is MILE (measured on the papers' UCI
# sets: vignette("benchmarks"), "Defaults for a first fit"); NUTS and the
# papers' protocols are one argument away.
test_that("the default fit is MILE from a deep ensemble, with the documented network", {
  expect_identical(formals(bnn_fit)$sampler, "mile")
  expect_equal(eval(formals(bnn_fit)$hidden), c(16, 16))
  expect_identical(formals(bnn_fit)$activation, "tanh")
  fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2, seed = 1,
                 progress = FALSE)
  # the protocol is its sampler object's class (no field of the fit)
  expect_s3_class(fit$sampler, c("bnn_mile", "bnn_protocol", "bnn_mclmc", "bnn_sampler"),
                  exact = TRUE)
  expect_false("protocol" %in% names(fit))
  expect_output(print(fit), "started from a deep ensemble \\(MILE\\)")
  # a numeric response: one sampled sigma and fan-in scaled weights
  expect_identical(fit$likelihood$family, "gaussian")
  expect_true(fit$prior$fan_in)
  expect_s3_class(fit$sampler, "bnn_mclmc")
  expect_s3_class(fit$ensemble, "bnn_ensemble")
  expect_identical(dim(fit$draws)[1:2], c(500L, 2L))   # 5,000 steps thinned by 10
  expect_true(all(fit$chain_status == "ok"))
  expect_output(print(fit), "MCLMC")
  # the default budget: 16,000/2,000/2,000 tuning and 5,000 sampling steps,
  # in single precision
  expect_identical(fit$sampler$n_tune, c(16000L, 2000L, 2000L))
  expect_identical(fit$n_grad, rep(50001, 2))
  expect_identical(fit$precision, "single")
  expect_output(print(fit), "MILE tuning 16000/2000/2000, 5000 sampling steps thinned by 10")
  # the default equals MILE with that budget in single precision and the
  # ziggurat's normal deviates, draw for draw
  expect_identical(fit$sampler$normal, "ziggurat")
  expect_output(print(fit), "ziggurat normals")
  mile <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2, seed = 1,
                  sampler = bnnmc:::default_sampler(), precision = "single", progress = FALSE)
  expect_identical(fit$draws, mile$draws)
  # sampler = "mile" with the same budget draws its normals by the polar
  # method, as the paper's protocol: other chains
  polar <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 1, seed = 1,
                   sampler = "mile", warmup = 20000, iter = 500, thin = 10,
                   precision = "single", progress = FALSE)
  expect_identical(polar$sampler$normal, "polar")
  expect_false(identical(fit$draws[, 1, ], polar$draws[, 1, ]))
  # sampler = "mile" is the paper's protocol: its budget, in double precision
  paper <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 1, seed = 1,
                   sampler = "mile", progress = FALSE)
  expect_identical(paper$n_grad, 120001)
  expect_identical(paper$precision, "double")
  # NUTS with Stan's defaults is one argument away
  nuts <- suppressWarnings(bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 1,
                                   sampler = "nuts", warmup = 20, iter = 10, seed = 1,
                                   progress = FALSE))
  expect_s3_class(nuts$sampler, c("bnn_nuts", "bnn_sampler"), exact = TRUE)
  expect_true("treedepth__" %in% dimnames(nuts$sampler_stats)[[3]])
})

# The help's text of bnn_fit(), as a reader sees it.
bnn_fit_help <- function() {
  rd <- tools::Rd_db("bnnmc")[["bnn_fit.Rd"]]
  out <- utils::capture.output(tools::Rd2txt(rd, options = list(underline_titles = FALSE)))
  # one line, without quotes (their kind depends on the locale)
  gsub("['\"`]", "", gsub("\\s+", " ", paste(out, collapse = " ")))
}

test_that("?bnn_fit states the draws, thinning and warm-up a default fit has", {
  # iter and thin not given take the sampler's defaults, as the usage says
  expect_null(formals(bnn_fit)$iter)
  expect_null(formals(bnn_fit)$thin)
  run <- bnnmc:::sampler_resolve_run(bnnmc:::default_sampler(), 20000L, 1000L, 10L,
                                     c(warmup = FALSE, iter = FALSE, thin = FALSE))
  expect_identical(c(run$warmup, run$n_keep, run$thin), c(20000, 500, 10))
  mile <- bnnmc:::sampler_resolve_run(bnnmc:::as_sampler("mile"), 50000L, 1000L, 10L,
                                      c(warmup = FALSE, iter = FALSE, thin = FALSE))
  expect_identical(c(run = mile$n_keep, thin = mile$thin), c(run = 1000, thin = 10))
  txt <- bnn_fit_help()
  # the table's row of the default and of MILE: warm-up, draws, thinning
  expect_match(txt, "not given (the default) as mile 20000 500 10 ", fixed = TRUE)
  expect_match(txt, "mile, mclmc tuning steps, split 80/10/10 over three stages 50000 1000 10 ",
               fixed = TRUE)
  expect_match(txt, "NULL (not given) takes the samplers default: 1000, but 500 for the default sampler",
               fixed = TRUE)
  expect_false(grepl("as mile 20000 5 ", txt, fixed = TRUE))
  # the NUTS row as Stan's: 1000 warm-up iterations, 1000 draws, no thinning
  expect_match(txt, "nuts, hmc iterations, Stans windowed adaptation 1000 1000 1 ", fixed = TRUE)
  nuts <- suppressWarnings(bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 1,
                                   sampler = "nuts", warmup = 20, seed = 1, progress = FALSE))
  expect_identical(dim(nuts$draws)[1], 1000L)
  expect_identical(nuts$thin, 1L)
  # iter given: the number of draws kept, for the default sampler too
  expect_error(bnn_fit(mpg ~ wt, data = mtcars, iter = 0), "'iter'")
})

test_that("family = gaussian() is the default model, with its fan-in prior", {
  args <- list(mpg ~ wt, data = mtcars, hidden = 2, chains = 1, sampler = "nuts",
               warmup = 100, iter = 100, seed = 1, progress = FALSE)
  def <- do.call(bnn_fit, args)
  fam <- do.call(bnn_fit, c(args, family = list(gaussian())))
  fam_name <- do.call(bnn_fit, c(args, family = "gaussian"))
  expect_true(fam$prior$fan_in)
  expect_identical(fam$draws, def$draws)
  expect_identical(fam_name$draws, def$draws)
  expect_identical(prior_summary(fam), prior_summary(def))
  # bnnmc's own likelihood = "gaussian" is the papers' setting: Normal(0, 1)
  lik <- do.call(bnn_fit, c(args, likelihood = "gaussian"))
  expect_false(lik$prior$fan_in)
  expect_false(identical(lik$draws, def$draws))
  # a bnn_likelihood() object given as family is a setting too
  fixed <- do.call(bnn_fit, c(args, family = list(bnn_likelihood("gaussian", sigma = 1))))
  expect_false(fixed$prior$fan_in)
  # a prior given is used as it is
  pr <- suppressWarnings(do.call(bnn_fit, c(args, family = list(gaussian()),
                                             prior = list(bnn_prior(scale = 0.5)))))
  expect_false(pr$prior$fan_in)
  # family = gaussian() keeps the default's check against the linear model
  # on small data (and a 0/1 response stays Gaussian)
  chk <- suppressMessages(suppressWarnings(
    bnn_fit(mpg ~ wt + hp, data = mtcars, family = gaussian(), chains = 2, warmup = 2000,
            iter = 100, seed = 1, progress = FALSE)))
  expect_identical(chk$model_choice$model, c("network", "linear"))
  expect_identical(chk$likelihood$family, "gaussian")
  # ?bnn_fit says so
  txt <- bnn_fit_help()
  expect_match(txt, "family = gaussian() is the default model, as in glm and brms", fixed = TRUE)
  expect_match(txt, "Normal(0, 1) on every weight and bias (the papers) for a likelihood given by name",
               fixed = TRUE)
})

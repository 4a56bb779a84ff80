# The default fit is MILE (measured on the papers' UCI
# sets: vignette("benchmarks"), "Defaults for a first fit"); NUTS and the
# papers' protocols are one argument away.
test_that("the default fit is MILE from a deep ensemble, with the documented network", {
  # sampler = NULL, the default: MILE on the default's budget
  expect_true("sampler" %in% names(formals(bnn_fit)))
  expect_null(formals(bnn_fit)$sampler)
  expect_s3_class(bnnmc:::default_sampler(), "bnn_mile")
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

# The help's text of a topic (bnn_fit(), its defaults' page bnn_default),
# as a reader sees it: its lines, or one line without quotes (their kind
# depends on the locale).
help_lines <- function(topic) {
  rd <- tools::Rd_db("bnnmc")[[paste0(topic, ".Rd")]]
  utils::capture.output(tools::Rd2txt(rd, options = list(underline_titles = FALSE)))
}
bnn_fit_help <- function(topic = "bnn_fit") {
  gsub("['\"`]", "", gsub("\\s+", " ", paste(help_lines(topic), collapse = " ")))
}

test_that("?bnn_fit is short: the defaults and the default model's check are in ?bnn_default", {
  fit_rd <- tools::Rd_db("bnnmc")[["bnn_fit.Rd"]]
  def_rd <- tools::Rd_db("bnnmc")[["bnn_default.Rd"]]
  expect_false(is.null(def_rd))
  sections <- function(rd) {
    s <- rd[vapply(rd, function(x) attr(x, "Rd_tag"), "") == "\\section"]
    vapply(s, function(x) paste(unlist(x[[1]]), collapse = ""), "")
  }
  moved <- c("Iterations, warm-up and thinning", "Defaults", "The default model's check")
  expect_true(all(moved %in% sections(def_rd)))
  expect_false(any(moved %in% sections(fit_rd)))
  # at most 200 lines as a reader sees it (314 with the details in it)
  expect_lte(length(help_lines("bnn_fit")), 200L)
  # and it links to the page where the details went
  links <- unlist(lapply(tools:::.Rd_get_xrefs(fit_rd)[, "Target"], identity))
  expect_true("bnn_default" %in% links)
  # the messages of the default model's checks name the page that has them
  ns <- asNamespace("bnnmc")
  src <- unlist(lapply(c("choose_default_model", "choose_default_likelihood"),
                       function(f) deparse(get(f, envir = ns))))
  expect_false(any(grepl("?bnn_fit, \\\"The default", src, fixed = TRUE)))
  expect_identical(sum(grepl("?bnn_default, \\\"The default model's check\\\"", src,
                             fixed = TRUE)), 4L)
})

test_that("?bnn_default states the draws, thinning and warm-up a default fit has", {
  # iter and thin not given take the sampler's defaults, as the usage says
  expect_null(formals(bnn_fit)$iter)
  expect_null(formals(bnn_fit)$thin)
  run <- bnnmc:::sampler_resolve_run(bnnmc:::default_sampler(), 20000L, 1000L, 10L,
                                     c(warmup = FALSE, iter = FALSE, thin = FALSE))
  expect_identical(c(run$warmup, run$n_keep, run$thin), c(20000, 500, 10))
  mile <- bnnmc:::sampler_resolve_run(bnnmc:::as_sampler("mile"), 50000L, 1000L, 10L,
                                      c(warmup = FALSE, iter = FALSE, thin = FALSE))
  expect_identical(c(run = mile$n_keep, thin = mile$thin), c(run = 1000, thin = 10))
  txt <- bnn_fit_help("bnn_default")
  # the table's row of the default and of MILE: warm-up, draws, thinning
  expect_match(txt, "not given (the default) as mile 20000 500 10 ", fixed = TRUE)
  expect_match(txt, "mile, mclmc tuning steps, split 80/10/10 over three stages 50000 1000 10 ",
               fixed = TRUE)
  expect_match(bnn_fit_help(), "NULL (not given) takes the samplers default: 1000, but 500 for the default sampler",
               fixed = TRUE)
  expect_match(txt, "The default samplers 500 draws are its 5,000 sampling steps, every 10th kept",
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

# On 201 to 2,000 rows of a continuous response the default fits the
# heteroscedastic and the homoscedastic Gaussian network (half the chains
# each) and stacks them, the homoscedastic model keeping at least 10% of
# the weight (R/fit-choice.R, choose_default_likelihood()).

# n rows of a sine with noise whose sd is sd0 for x <= 0 and sd0 + jump
# for x > 0 (set.seed(seed) first)
hetero_sine <- function(n, seed, sd0 = 0.05, jump = 0.4) {
  set.seed(seed)
  d <- data.frame(x = runif(n, -2, 2))
  d$y <- sin(2 * d$x) + rnorm(n, sd = sd0 + jump * (d$x > 0))
  d
}

# a default call (no model given) with a short run, quietly
default_call <- function(d, warmup, seed)
  suppressMessages(suppressWarnings(bnn_fit(y ~ x, data = d, warmup = warmup, iter = 100,
                                            seed = seed, progress = FALSE)))

lik_pair_fits <- function() {
  d <- hetero_sine(80, 5, sd0 = 0.1, jump = 0.3)
  fit <- function(lik) quiet_verdict(bnn_fit(y ~ x, data = d, hidden = 3, likelihood = lik,
                                             sampler = "nuts", chains = 2, warmup = 100,
                                             iter = 100, seed = 2, progress = FALSE))
  list(het = fit("hetero_gaussian"), gau = fit("gaussian"), data = d)
}

# a psis_elpd() whose pointwise elpds favour one model by `by` nats a point
shifted_elpd <- function(favour, by) function(x, loglik = NULL) {
  r <- bnnmc:::fit_psis_elpd(x, loglik)
  het <- identical(x$likelihood$family, "hetero_gaussian")
  if (het != (favour == "het")) r$pointwise <- r$pointwise - by
  r$elpd <- sum(r$pointwise)
  r
}

test_that("the stack keeps the homoscedastic model at 10% or more, and predictions pool both", {
  m <- lik_pair_fits()
  expect_message(
    fit <- chosen_fit(bnnmc:::choose_default_likelihood(
      finished_fit(m$het), finished_fit(m$gau), seconds = c(a = 1.5, b = 2.5, models = 4),
      psis_elpd = shifted_elpd("het", 5))),
    "heteroscedastic and with a homoscedastic Gaussian likelihood \\(2 and 2 chains\\)")
  # the heteroscedastic model would take all the weight: the guard leaves 0.1
  expect_identical(fit$likelihood$family, "hetero_gaussian")
  expect_identical(fit$mixture$kind, "likelihood")
  expect_equal(fit$mixture$weights, c(heteroscedastic = 0.9, homoscedastic = 0.1))
  mc <- fit$model_choice
  expect_identical(attr(mc, "check"), "likelihood")
  expect_identical(mc$model, c("heteroscedastic", "homoscedastic"))
  expect_identical(mc$chosen, c(TRUE, TRUE))
  expect_identical(mc$points, c(80L, 80L))
  expect_named(attr(mc, "timing"), c("total", "heteroscedastic", "homoscedastic", "models",
                                     "check", "together"))
  # 200 draws each: the predictive draws are as many as the fit's own,
  # ndraws(fit) = 200, shared by the weights: 180 and 20
  expect_identical(posterior::ndraws(fit), 200L)
  expect_identical(bnnmc:::pooled_ndraws(fit), 200L)
  expect_identical(bnnmc:::mixture_counts(fit), c(heteroscedastic = 180, homoscedastic = 20))
  nd <- m$data[1:5, ]
  ll <- log_lik(fit, newdata = nd)
  expect_identical(dim(ll), c(200L, 5L))
  expect_equal(ll[1:180, ], log_lik(m$het, newdata = nd, ndraws = 180), ignore_attr = TRUE)
  expect_equal(ll[181:200, ], log_lik(m$gau, newdata = nd, ndraws = 20), ignore_attr = TRUE)
  expect_identical(dim(posterior_predict(fit, newdata = nd, seed = 1)), c(200L, 5L))
  expect_identical(dim(posterior_epred(fit, newdata = nd)), c(200L, 5L))
  # a model with too few draws for its share (a failed chain) caps the pool
  short <- fit
  short$mixture$fit$chain_status <- c("ok", "diverged")
  expect_identical(bnnmc:::pooled_ndraws(short), 200L)   # 100 draws >= 0.1 * 200
  short$mixture$weights <- c(heteroscedastic = 0.4, homoscedastic = 0.6)
  expect_identical(bnnmc:::pooled_ndraws(short), 166L)   # floor(100 / 0.6)
  expect_equal(sum(bnnmc:::mixture_counts(short)), 166)
  # no kept pointwise log-likelihood in either fit
  expect_null(attr(fit$convergence, "pointwise_loglik"))
  expect_null(attr(fit$mixture$fit$convergence, "pointwise_loglik"))
  out <- gsub("\\s+", " ", paste(capture.output(print(fit)), collapse = " "))
  expect_match(out, "with a heteroscedastic and with a homoscedastic Gaussian likelihood,")
  expect_match(out, "stacked with weights 0.90 and 0.10")
  expect_match(out, "in all: heteroscedastic network 1.5 s, homoscedastic network 2.5 s, check")
  expect_error(bnn_stack_chains(fit, newdata = nd),
               "mixes two models \\(the default's check: the heteroscedastic and the homoscedastic")
})

test_that("a heteroscedastic model with almost no weight, or one that fails, leaves the homoscedastic one alone", {
  m <- lik_pair_fits()
  fit <- chosen_fit(bnnmc:::choose_default_likelihood(
    finished_fit(m$het), finished_fit(m$gau), psis_elpd = shifted_elpd("gau", 5)))
  expect_identical(fit$likelihood$family, "gaussian")
  expect_null(fit$mixture)
  expect_identical(fit$model_choice$chosen, c(FALSE, TRUE))
  expect_lt(fit$model_choice$weight[1], 0.05)
  expect_match(gsub("\\s+", " ", paste(capture.output(print(fit)), collapse = " ")),
               "the homoscedastic Gaussian network, by the default's check")
  # the heteroscedastic fit stops: the homoscedastic fit, without a comparison
  fit2 <- chosen_fit(bnnmc:::choose_default_likelihood(NULL, finished_fit(m$gau)))
  expect_identical(fit2$likelihood$family, "gaussian")
  expect_null(fit2$mixture)
  expect_null(fit2$model_choice)
  # the homoscedastic model in the lead: it is the fit, the other its mixture
  fit3 <- suppressMessages(chosen_fit(bnnmc:::choose_default_likelihood(
    finished_fit(m$het), finished_fit(m$gau), psis_elpd = function(x, loglik = NULL) {
      r <- bnnmc:::fit_psis_elpd(x, loglik)
      # equal pointwise elpds: stacking weights 0.5 each (or near)
      r$pointwise <- rep(-1, length(r$pointwise)) + if (x$likelihood$family == "gaussian")
        c(0.3, -0.3) else c(-0.3, 0.3)
      r$elpd <- sum(r$pointwise)
      r
    })))
  w <- fit3$model_choice$weight
  expect_equal(sum(w), 1)
  expect_gte(w[2], 0.1)
  expect_identical(fit3$likelihood$family, if (w[1] >= w[2]) "hetero_gaussian" else "gaussian")
  expect_identical(names(fit3$mixture$weights)[1],
                   if (w[1] >= w[2]) "heteroscedastic" else "homoscedastic")
})

test_that("the check applies to the default model of a continuous response of more than 200 rows", {
  set.seed(1)
  n <- 520
  d <- data.frame(x = rnorm(n))
  d$y <- d$x + rnorm(n)
  frame <- function(data, ...) {
    mf <- quote(stats::model.frame(y ~ x, data = data))
    bnnmc:::prepare_model(mf, environment(), y ~ x, data, c(16, 16), "tanh", NULL, NULL, TRUE,
                          ...)
  }
  none <- c(hidden = FALSE, sampler = FALSE)
  applies <- function(data, given = none, chains = 4L)
    bnnmc:::likelihood_check_applies(given, frame(data), chains)
  expect_true(applies(d))
  expect_true(applies(d[1:201, ]))
  expect_false(applies(d[1:200, ]))                     # the linear check's rows
  big <- data.frame(x = rnorm(2001))
  big$y <- big$x + rnorm(2001)
  expect_true(applies(big[1:2000, ]))
  expect_false(applies(big))                            # beyond the rows measured
  expect_false(applies(d, chains = 1L))
  expect_false(applies(d, given = c(hidden = TRUE, sampler = FALSE)))
  # a response of a few values (a rating) or with a value in 10% of the rows
  expect_false(applies(transform(d, y = round(y))))
  expect_false(applies(transform(d, y = ifelse(seq_len(n) <= 60, 0, y))))
  old <- options(bnnmc.likelihood_check = FALSE)
  on.exit(options(old), add = TRUE)
  expect_false(applies(d))
})

test_that("a default call on 520 rows stacks the two networks, and update() reproduces it", {
  skip_on_cran()
  d <- hetero_sine(520, 2)
  # a call of its own (update() re-evaluates it here)
  fit <- suppressWarnings(bnn_fit(y ~ x, data = d, warmup = 400, iter = 100, seed = 4,
                                  progress = FALSE))
  mc <- fit$model_choice
  expect_identical(attr(mc, "check"), "likelihood")
  expect_equal(sum(mc$weight), 1)
  expect_gte(mc$weight[2], 0.1)
  # the verdicts used 500 evenly spaced training rows
  expect_identical(mc$points, c(500L, 500L))
  expect_identical(fit$chains + if (is.null(fit$mixture)) 2L else fit$mixture$fit$chains, 4L)
  nd <- d[1:4, ]
  p1 <- predict(fit, newdata = nd)
  fit2 <- suppressWarnings(suppressMessages(update(fit)))
  expect_identical(predict(fit2, newdata = nd), p1)
  # hidden given: the network alone, with all the chains
  one <- suppressWarnings(bnn_fit(y ~ x, data = d, hidden = c(16, 16), warmup = 400, iter = 100,
                                  seed = 4, progress = FALSE))
  expect_null(one$model_choice)
  expect_identical(one$chains, 4L)
})

test_that("the default's stack tunes its Student-t model for half the steps, a given warmup both", {
  skip_on_cran()
  d <- hetero_sine(210, 7)
  fit <- NULL
  # the message of the stack says so
  expect_message(fit <- suppressWarnings(bnn_fit(y ~ x, data = d, iter = 50, seed = 3,
                                                 progress = FALSE)),
                 "2 and 2 chains; 20,000 and 10,000 tuning steps")
  expect_identical(fit$mixture$kind, "likelihood")
  fits <- list(fit, fit$mixture$fit)
  het <- fits[[which(vapply(fits, function(f) f$likelihood$family, "") == "hetero_gaussian")]]
  gau <- fits[[which(vapply(fits, function(f) f$likelihood$family, "") == "student")]]
  expect_identical(het$sampler$n_tune, c(16000L, 2000L, 2000L))
  expect_identical(gau$sampler$n_tune, c(8000L, 1000L, 1000L))
  expect_identical(c(het$warmup, gau$warmup), c(20000L, 10000L))
  # the same sampling steps and draws per chain
  expect_identical(het$sampler$n_samples, gau$sampler$n_samples)
  expect_identical(dim(het$draws)[1], dim(gau$draws)[1])
  # a warmup given is the user's, for both models
  fit2 <- default_call(d, 300, 5)
  both <- list(fit2, fit2$mixture$fit)
  both <- both[!vapply(both, is.null, NA)]
  for (f in both) expect_identical(sum(f$sampler$n_tune), 300L)
})

test_that("on 201 to 500 rows a continuous response gets the stack, a discrete one the linear check", {
  skip_on_cran()
  d <- hetero_sine(300, 3)
  fit <- default_call(d, 300, 5)
  expect_identical(attr(fit$model_choice, "check"), "likelihood")
  expect_identical(fit$model_choice$model, c("heteroscedastic", "student"))
  # a response of a few values keeps the check against the linear model
  d$y <- round(d$y)
  lin <- default_call(d, 300, 5)
  expect_null(attr(lin$model_choice, "check"))
  expect_identical(lin$model_choice$model, c("network", "linear"))
})

test_that("a stack's advice and warning are made for the stack, not for its first model alone", {
  m <- lik_pair_fits()
  cv <- m$het$convergence
  cv$predictions$reliable <- FALSE
  cv$predictions$mc_error <- 0.6      # 2 chains x 36: more than 64 chains needed
  cv$predictions$drift <- NA_real_
  cv$predictions$loo_coverage <- NA_real_
  cv$predictions$reasons <- "the chains disagree"
  cv$remedy <- bnnmc:::prediction_remedy(m$het, cv)
  expect_match(cv$remedy, "bnn_stack_chains()", fixed = TRUE)   # the model alone
  het <- bnnmc:::bnnfit_with(m$het, convergence = cv)
  fit_het <- finished_fit(het, warnings = list(bnnmc:::unreliable_condition(cv)))
  w <- NULL
  fit <- withCallingHandlers(
    suppressMessages(chosen_fit(bnnmc:::choose_default_likelihood(
      fit_het, finished_fit(m$gau), psis_elpd = shifted_elpd("het", 5)))),
    warning = function(cnd) { w <<- c(w, conditionMessage(cnd)); invokeRestart("muffleWarning") })
  expect_false(is.null(fit$mixture))
  expect_match(fit$convergence$remedy, "would be needed to average them: report the spread",
               fixed = TRUE)
  expect_length(w, 1L)
  expect_false(grepl("bnn_stack_chains", w, fixed = TRUE))
  expect_match(w, "The predictions are not reliable yet: the chains disagree", fixed = TRUE)
})

test_that("with chains in parallel the two models' chains run together, with the same fits as one after the other", {
  skip_on_cran()
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  d <- hetero_sine(300, 3)
  old <- options(mc.cores = 1L)
  on.exit(options(old), add = TRUE)
  seq_fit <- default_call(d, 300, 6)
  # the sequential plan runs one chain at a time: no joint run
  expect_true(is.finite(attr(seq_fit$model_choice, "timing")[["heteroscedastic"]]))
  options(mc.cores = 2L)
  par_fit <- default_call(d, 300, 6)
  # one run for both models' chains: each model's time is that of its
  # chains, and print() says they ran side by side (not "NA s")
  tm <- attr(par_fit$model_choice, "timing")
  expect_identical(tm[["together"]], 1)
  expect_true(tm[["heteroscedastic"]] > 0 && tm[["student"]] > 0)
  expect_equal(tm[["student"]], sum(par_fit$mixture$fit$timing$warmup,
                                          par_fit$mixture$fit$timing$sampling,
                                          par_fit$timing$warmup, par_fit$timing$sampling) -
                 tm[["heteroscedastic"]])
  expect_true(tm[["models"]] > 0)
  out <- paste(capture.output(print(par_fit)), collapse = " ")
  expect_false(grepl("NA s", out, fixed = TRUE))
  expect_match(gsub("\\s+", " ", out), paste0(
    "heteroscedastic and Student-t network [0-9.]+ s, their chains side by side ",
    "\\([0-9.]+ s and [0-9.]+ s summed over each one's chains\\)"))
  # chains, stack, verdict and model choice as when run one after the other
  expect_identical(par_fit$draws, seq_fit$draws)
  expect_identical(par_fit$mixture$fit$draws, seq_fit$mixture$fit$draws)
  expect_identical(par_fit$mixture$weights, seq_fit$mixture$weights)
  expect_identical(par_fit$convergence$predictions, seq_fit$convergence$predictions)
  expect_identical(par_fit$model_choice$elpd_loo, seq_fit$model_choice$elpd_loo)
  expect_identical(par_fit$chains, seq_fit$chains)
  expect_identical(par_fit$mixture$fit$chains, seq_fit$mixture$fit$chains)
})

test_that("plans fitted together give each the fit it has alone, with its own warnings", {
  skip_on_cran()
  skip_if_not_installed("future")
  skip_if_not_installed("future.apply")
  d <- hetero_sine(60, 7)
  mf <- quote(stats::model.frame(y ~ x, data = d))
  model <- bnnmc:::prepare_model(mf, environment(), y ~ x, d, 3, "tanh", NULL, NULL, TRUE)
  nuts <- bnnmc:::as_sampler("nuts")
  run <- bnnmc:::sampler_resolve_run(nuts, 60L, 20L, 1L,
                                     c(warmup = TRUE, iter = TRUE, thin = TRUE, init = FALSE))
  plan <- function(m, chains, label, init = "random", ...)
    bnnmc:::new_bnn_plan(m, run$sampler, chains, run$warmup, run$iter, run$thin, init, 3L,
                         FALSE, quote(bnn_fit()), label = label, ...)
  # the second plan warns when started: valid_data without an ensemble
  a <- plan(model, 2L, "a")
  b <- plan(bnnmc:::model_variant(model, hidden = 2L), 3L, "b", valid_data = d)
  expect_output(print(a), "<bnn_plan> a: 1-3-1 network, gaussian likelihood")
  old <- options(mc.cores = 2L)
  on.exit(options(old), add = TRUE)
  both <- bnnmc:::fit_plans(list(a = a, b = b))
  options(mc.cores = 1L)
  alone <- list(a = bnnmc:::fit_plans(list(a = a))$a, b = bnnmc:::fit_plans(list(b = b))$b)
  for (nm in c("a", "b")) {
    expect_identical(both[[nm]]$fit$draws, alone[[nm]]$fit$draws)
    expect_identical(both[[nm]]$fit$chains, alone[[nm]]$fit$chains)
  }
  expect_identical(both$a$fit$chains, 2L)
  expect_identical(both$b$fit$chains, 3L)
  cls <- function(w) vapply(w, function(x) class(x)[1L], "")
  expect_false("bnnmc_ignored_argument" %in% cls(both$a$warnings))
  expect_identical(sum(cls(both$b$warnings) == "bnnmc_ignored_argument"), 1L)
  # an optional plan that cannot start leaves the other alone; a required
  # one is an error
  bad <- plan(model, 2L, "bad", init = list(1, 2), optional = TRUE)
  out <- bnnmc:::fit_plans(list(bad = bad, a = a))
  expect_null(out$bad)
  expect_identical(out$a$fit$draws, alone$a$fit$draws)
  bad_required <- plan(model, 2L, "bad", init = list(1, 2))
  expect_error(bnnmc:::fit_plans(list(bad = bad_required, a = a)), "'init' for chain 1")
})

test_that("the spread test of the residuals sees noise that varies, and only that", {
  set.seed(3)
  x <- runif(400, -2, 2)
  flat <- bnnmc:::residual_spread(rnorm(400), list(x = x, `fitted values` = sin(x)))
  expect_false(flat$varies)
  expect_gte(flat$p_min, 0.1)
  expect_identical(flat$tests$term, c("x", "fitted values"))
  steps <- bnnmc:::residual_spread(rnorm(400, sd = 0.5 + (x > 0)), list(x = x))
  expect_true(steps$varies)
  expect_lt(steps$p_min, 1e-6)
})

test_that("where the homoscedastic model's residual spread is flat, the stack is not made", {
  m <- lik_pair_fits()
  cv <- m$gau$convergence
  cv$adequacy$spread <- list(tests = NULL, p_min = 0.4, varies = FALSE)
  gau <- bnnmc:::bnnfit_with(m$gau, convergence = cv)
  expect_message(
    fit <- chosen_fit(bnnmc:::choose_default_likelihood(
      finished_fit(m$het), finished_fit(gau), psis_elpd = shifted_elpd("het", 5))),
    "keep one spread across the inputs and the fitted values \\(smallest Holm-adjusted p 0.4\\)")
  expect_identical(fit$likelihood$family, "gaussian")
  expect_null(fit$mixture)
  mc <- fit$model_choice
  expect_identical(mc$chosen, c(FALSE, TRUE))
  expect_identical(mc$weight, c(0, 1))
  expect_true(attr(mc, "spread_flat"))
  expect_identical(attr(mc, "spread_p"), 0.4)
  expect_match(gsub("\\s+", " ", paste(capture.output(print(fit)), collapse = " ")),
               "the homoscedastic Gaussian network, by the default's check \\(its leave-one-out residuals keep one spread: smallest Holm-adjusted p 0.4")
  # switched off: the PSIS-LOO stack, as before
  old <- options(bnnmc.stack_spread = FALSE)
  on.exit(options(old))
  both <- suppressMessages(chosen_fit(bnnmc:::choose_default_likelihood(
    finished_fit(m$het), finished_fit(gau), psis_elpd = shifted_elpd("het", 5))))
  expect_identical(both$mixture$kind, "likelihood")
  expect_false(attr(both$model_choice, "spread_flat"))
})

test_that("a default call on noise of one spread returns the Student-t network alone", {
  skip_on_cran()
  set.seed(8)
  d <- data.frame(x1 = runif(400), x2 = runif(400))
  d$y <- 2 * d$x1 - d$x2 + rnorm(400, sd = 0.3)
  expect_message(fit <- suppressWarnings(bnn_fit(y ~ ., data = d, warmup = 1000, iter = 100,
                                                 seed = 2, progress = FALSE)),
                 "keep one spread")
  expect_identical(fit$likelihood$family, "student")
  expect_null(fit$mixture)
  expect_false(fit$convergence$adequacy$spread$varies)
  # the noise that varies (the helper's sine) keeps the stack
  st <- suppressWarnings(suppressMessages(
    bnn_fit(y ~ x, data = hetero_sine(400, 2), warmup = 1000, iter = 100, seed = 2,
            progress = FALSE)))
  expect_false(attr(st$model_choice, "spread_flat"))
  expect_lt(attr(st$model_choice, "spread_p"), 0.001)
  expect_identical(st$mixture$kind, "likelihood")
})

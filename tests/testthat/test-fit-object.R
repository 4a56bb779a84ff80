# The fit object: one constructor with a validator and one list of fields.

fit_object_data <- function() {
  set.seed(3)
  d <- data.frame(x = runif(30, -2, 2))
  d$y <- sin(d$x) + rnorm(30, sd = 0.1)
  d
}

test_that("every field of a fit is in the documented list, in its order", {
  fit <- suppressWarnings(bnn_fit(y ~ x, data = fit_object_data(), hidden = 2,
                                  sampler = "nuts", chains = 2, warmup = 30, iter = 20,
                                  seed = 1, progress = FALSE))
  tab <- bnnmc:::.bnnfit_fields
  expect_true(all(names(fit) %in% tab$name))
  expect_identical(names(fit), tab$name[tab$name %in% names(fit)])
  expect_true(all(tab$name[tab$need == "always"] %in% names(fit)))
  expect_true(all(nzchar(tab$meaning)))
  expect_identical(class(fit), "bnnfit")
  # the spec is stored without the training data, which the fit has once
  expect_null(fit$spec$X)
  expect_identical(dim(fit$X), c(30L, 1L))
})

test_that("the validator names a missing, unknown or malformed field", {
  fit <- suppressWarnings(bnn_fit(y ~ x, data = fit_object_data(), hidden = 2,
                                  sampler = "nuts", chains = 2, warmup = 30, iter = 20,
                                  seed = 1, progress = FALSE))
  f <- unclass(fit)
  expect_identical(bnnmc:::validate_bnnfit(f), f)
  expect_error(bnnmc:::validate_bnnfit(f[setdiff(names(f), "draws")]), "'draws' are missing")
  expect_error(bnnmc:::validate_bnnfit(c(f, list(extra = 1))), "'extra' are not fields")
  g <- f
  g$n_grad <- g$n_grad[1]
  expect_error(bnnmc:::validate_bnnfit(g), "'n_grad' must have one value per chain")
  g <- f
  g$chain_status <- as.character(g$chain_status)
  expect_error(bnnmc:::validate_bnnfit(g), "'chain_status' must be of type factor")
  # a fit of an older version (a field since dropped, one not yet added) is
  # copied as it is, not refused
  old <- structure(c(f[setdiff(names(f), "n_reverted")], list(legacy = 1)), class = "bnnfit")
  cp <- bnnmc:::bnnfit_with(old, symmetries = "canonical")
  expect_identical(cp$legacy, 1)
  expect_null(cp$n_reverted)
  expect_identical(cp$symmetries, "canonical")
})

test_that("the constructor leaves out optional fields that are NULL and orders the fields", {
  fit <- suppressWarnings(bnn_fit(y ~ x, data = fit_object_data(), hidden = 2,
                                  sampler = "nuts", chains = 1, warmup = 30, iter = 20,
                                  seed = 1, progress = FALSE))
  g <- bnnmc:::bnnfit_with(fit, convergence = NULL, symmetries = "canonical")
  expect_false("convergence" %in% names(g))
  expect_identical(tail(names(g), 1L), "symmetries")
  # a field every fit has stays, also when NULL is allowed (no metric)
  h <- bnnmc:::bnnfit_with(fit, inv_metric = NULL)
  expect_true("inv_metric" %in% names(h))
  expect_null(h$inv_metric)
})

test_that("a fit saved with the protocol field of earlier versions still works", {
  fits <- lapply(1:2, function(id) suppressWarnings(
    bnn_fit(y ~ x, data = fit_object_data(), hidden = 2, sampler = "nuts", chain_id = id,
            warmup = 30, iter = 20, seed = 1, progress = FALSE)))
  # as an earlier version built it: the sampler's name in `protocol`, after `call`
  old_fit <- function(fit) {
    f <- unclass(fit)
    at <- match("call", names(f))
    structure(c(f[seq_len(at)], list(protocol = "nuts"), f[-seq_len(at)]), class = "bnnfit")
  }
  old <- lapply(fits, old_fit)
  expect_identical(bnnmc:::validate_bnnfit(unclass(old[[1]])), unclass(old[[1]]))
  expect_identical(bnnmc:::validate_bnnfit(unclass(old[[1]]), strict = FALSE),
                   unclass(old[[1]]))
  expect_identical(capture.output(print(old[[1]])), capture.output(print(fits[[1]])))
  nd <- fit_object_data()[1:3, ]
  expect_identical(predict(old[[1]], newdata = nd), predict(fits[[1]], newdata = nd))
  # copies keep it as it is; a combination is built anew, without it
  expect_identical(bnnmc:::bnnfit_with(old[[1]], symmetries = "canonical")$protocol, "nuts")
  comb <- bnn_combine_chains(old)
  expect_false("protocol" %in% names(comb))
  expect_identical(comb$draws, bnn_combine_chains(fits)$draws)
  # a field no version had is still refused by the constructor's validator
  expect_error(bnnmc:::validate_bnnfit(c(unclass(fits[[1]]), list(protokoll = 1))),
               "'protokoll' are not fields")
})

test_that("a subset of the chains keeps every per-chain field in step", {
  fit <- suppressWarnings(bnn_fit(y ~ x, data = fit_object_data(), hidden = 2,
                                  sampler = "nuts", chains = 3, warmup = 30, iter = 20,
                                  seed = 1, progress = FALSE))
  s <- bnnmc:::bnnfit_subset_chains(fit, c(3L, 1L), 5:10)
  expect_identical(s$draws, fit$draws[5:10, c(3, 1), , drop = FALSE])
  expect_identical(s$sampler_stats, fit$sampler_stats[5:10, c(3, 1), , drop = FALSE])
  expect_identical(s$chain_id, fit$chain_id[c(3, 1)])
  expect_identical(s$stepsize, fit$stepsize[c(3, 1)])
  expect_identical(s$timing$chain, fit$timing$chain[c(3, 1)])
  expect_identical(s$inv_metric, fit$inv_metric[c(3, 1), , drop = FALSE])
  expect_identical(s$chains, 2L)
})

test_that("approximations and converted ensembles are built by the same constructor", {
  d <- fit_object_data()
  ens <- suppressWarnings(bnn_fit_ensemble(y ~ x, d, hidden = 2, members = 2, seed = 1,
                                           optimizer = bnn_optimizer(epochs = 20),
                                           progress = FALSE))
  fit <- as_bnnfit(ens)
  expect_identical(class(fit), c("bnn_approx", "bnnfit"))
  expect_true(all(names(fit) %in% bnnmc:::.bnnfit_fields$name))
  expect_identical(format(fit$sampler), "Deep ensemble")
  expect_false("protocol" %in% names(fit))
  # its label answers the sampler generics print() asks (no step sizes)
  expect_identical(bnnmc:::stepsize_note(fit), "")
  expect_identical(bnnmc:::warmup_unit(fit$sampler), "iterations")
  # update() refits by its call: an ensemble again (no fit), with the new call
  up <- suppressWarnings(update(fit, members = 3))
  expect_s3_class(up, "bnn_ensemble")
  expect_identical(up$call$members, 3)
  expect_identical(up$members, 3L)
  expect_true("inv_metric" %in% names(fit))
})

test_that("chain statuses are looked up by name in the one table C owns", {
  tab <- bnnmc:::chain_status_table()
  expect_named(tab, c("code", "name", "label", "reason", "in_fit"))
  expect_false(anyDuplicated(tab$name) > 0L)
  expect_identical(bnnmc:::chain_status_name(bnnmc:::chain_status_code("nonfinite")),
                   "nonfinite")
  expect_identical(bnnmc:::chain_status_label("stuck"),
                   "the chain never moved (every transition rejected)")
  expect_error(bnnmc:::chain_status_code("no_such_status"), "Unknown chain status 'no_such_status'")
  expect_error(bnnmc:::chain_status_name(99L), "Unknown chain status code 99")
  # a fit's factor has the labels of the statuses a fit can hold, "ok" first;
  # an interrupted chain never ends in a fit
  lev <- bnnmc:::chain_status_levels()
  expect_identical(lev[1L], "ok")
  expect_false(bnnmc:::chain_status_label("interrupted") %in% lev)
  expect_true(bnnmc:::chain_status_label("failed") %in% lev)
  fit <- suppressWarnings(bnn_fit(y ~ x, data = fit_object_data(), hidden = 2,
                                  sampler = "nuts", chains = 1, warmup = 30, iter = 20,
                                  seed = 1, progress = FALSE))
  expect_identical(levels(fit$chain_status), lev)
})

test_that("a chain's target is chosen by the spec's type, and an unknown type is refused", {
  spec <- list(type = "gaussian", mean = c(0, 0), prec = as.double(diag(2)))
  out <- bnnmc:::run_chain(spec, c(0.5, 0.5), 1, 1L, bnn_rwm(), 20L, 20L, 1L)
  expect_identical(out$status, "ok")
  expect_identical(dim(out$draws), c(20L, 2L))
  spec$type <- "no_such_target"
  expect_error(bnnmc:::run_chain(spec, c(0.5, 0.5), 1, 1L, bnn_rwm(), 20L, 20L, 1L),
               "unknown target type 'no_such_target'")
})

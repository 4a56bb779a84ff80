# bnn_fit(chain_id = ) and bnn_combine_chains(): chains run in pieces are the
# chains of one call, bit for bit

per_chain <- c("draws", "sampler_stats", "warmup_stats", "n_grad", "stepsize", "L",
               "n_reverted", "inv_metric", "chain_status", "inits")

expect_same_chains <- function(a, b) {
  for (nm in per_chain) expect_identical(a[[nm]], b[[nm]], info = nm)
  expect_identical(a$failed_at, b$failed_at)
  expect_identical(a$timing$chain, b$timing$chain)
  expect_identical(a$chain_id, b$chain_id)
  expect_identical(a$chains, b$chains)
}

fit_pieces <- function(ids_list, ...) {
  lapply(ids_list, function(ids) suppressWarnings(
    bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chain_id = ids, seed = 11,
            progress = FALSE, ..., likelihood = "hetero_gaussian")))
}

test_that("NUTS chains run in pieces combine to the one-call fit", {
  args <- list(sampler = "nuts", warmup = 60, iter = 30)
  whole <- suppressWarnings(do.call(bnn_fit, c(list(mpg ~ wt + hp, data = mtcars, hidden = 3,
                                                    chains = 5, seed = 11, progress = FALSE,
                                                    likelihood = "hetero_gaussian"),
                                               args)))
  expect_identical(whole$chain_id, 1:5)
  pieces <- do.call(fit_pieces, c(list(list(c(4L, 2L), 5L, c(1L, 3L))), args))
  expect_identical(pieces[[1]]$chain_id, c(4L, 2L))
  expect_output(print(pieces[[1]]), "chain ids: +2, 4")
  expect_false(any(grepl("chain ids", capture.output(print(whole)))))
  expect_identical(pieces[[1]]$draws[, 1, ], whole$draws[, 4, ])
  comb <- bnn_combine_chains(pieces)
  expect_same_chains(comb, whole)
  expect_identical(bnn_combine_chains(pieces[[2]], pieces[[3]], pieces[[1]])$draws, whole$draws)
  # downstream methods work on the combined fit as on the whole
  nd <- mtcars[1:4, ]
  expect_identical(predict(comb, newdata = nd), predict(whole, newdata = nd))
  expect_identical(bnn_diagnostics(comb), bnn_diagnostics(whole))
})

test_that("MILE (ensemble starts), SGLD and init functions combine exactly", {
  opt <- bnn_optimizer(epochs = 30)
  whole <- short_run(bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 3, seed = 11,
                             sampler = "mile", warmup = 100, iter = 20, ensemble = opt,
                             progress = FALSE, likelihood = "hetero_gaussian"))
  p <- fit_pieces(list(3L, 1:2), sampler = "mile", warmup = 100, iter = 20, ensemble = opt)
  expect_identical(p[[1]]$ensemble$members, 3L)
  expect_identical(p[[1]]$inits[[1]], whole$inits[[3]])
  expect_same_chains(bnn_combine_chains(p), whole)

  sg <- bnn_sgld(stepsize = 1e-4)
  whole <- suppressWarnings(bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 3,
                                    seed = 11, sampler = sg, warmup = 20, iter = 20,
                                    progress = FALSE, likelihood = "hetero_gaussian"))
  p <- fit_pieces(list(2L, c(1L, 3L)), sampler = sg, warmup = 20, iter = 20)
  expect_same_chains(bnn_combine_chains(p), whole)

  f <- function(k) rep(0.1 * k, 17)
  whole <- suppressWarnings(bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 3,
                                    seed = 11, sampler = "nuts", warmup = 30, iter = 10,
                                    init = f, progress = FALSE, likelihood = "hetero_gaussian"))
  p <- fit_pieces(list(c(1L, 3L), 2L), sampler = "nuts", warmup = 30, iter = 10, init = f)
  expect_identical(p[[1]]$inits[[2]], f(3))
  expect_same_chains(bnn_combine_chains(p), whole)
})

test_that("chain_id and bnn_combine_chains() reject what they cannot use", {
  fit1 <- function(...) suppressWarnings(bnn_fit(mpg ~ wt, data = mtcars, hidden = 2,
                                                 sampler = "nuts", warmup = 20, iter = 10,
                                                 progress = FALSE, ...,
                                                 likelihood = "hetero_gaussian"))
  expect_error(fit1(chain_id = c(1, 1), seed = 1), "'chain_id' must not repeat")
  expect_error(fit1(chain_id = c(0, 1), seed = 1), "'chain_id' must be a vector of whole numbers >= 1")
  expect_error(fit1(chain_id = 1.5, seed = 1), "'chain_id'")
  expect_error(fit1(chain_id = NA, seed = 1), "'chain_id'")
  expect_error(fit1(chains = 3, chain_id = 1:2, seed = 1), "one id per chain \\(3\\), not 2")
  expect_error(fit1(chains = bnn_waves(), chain_id = 1:2, seed = 1), "bnn_waves")
  a <- fit1(chain_id = 1, seed = 1)
  expect_identical(a$chains, 1L)
  b <- fit1(chain_id = 1:2, seed = 1)
  expect_error(bnn_combine_chains(a, b), "Chain 1 is in more than one fit")
  expect_error(bnn_combine_chains(a, fit1(chain_id = 2, seed = 2)), "differ in their seed")
  other <- suppressWarnings(bnn_fit(mpg ~ wt, data = mtcars[-1, ], hidden = 2,
                                    sampler = "nuts", warmup = 20, iter = 10,
                                    chain_id = 2, seed = 1, progress = FALSE,
                                    likelihood = "hetero_gaussian"))
  expect_error(bnn_combine_chains(a, other), "differ in their")
  # the combination is built by the fit's constructor, whose validator is strict
  b2 <- fit1(chain_id = 2, seed = 1)
  ab <- bnn_combine_chains(a, b2)
  expect_identical(bnnmc:::validate_bnnfit(unclass(ab)), unclass(ab))
  expect_identical(ab$chain_id, 1:2)
  # a fit of an earlier version that lacks a field every fit has now
  old <- structure(unclass(b2)[setdiff(names(b2), "n_reverted")], class = "bnnfit")
  expect_error(bnn_combine_chains(a, old),
               "Argument 2 of '...' was made by an earlier version of bnnmc \\(it has no 'n_reverted'\\)")
  expect_error(bnn_combine_chains(a, 3), "Argument 2 of '...' is not a bnnfit")
  expect_error(bnn_combine_chains(), "at least one")
  expect_identical(bnn_combine_chains(a), a)
})

test_that("bnn_combine_chains() refuses to mix symmetry-removed and raw fits", {
  p <- lapply(list(1L, 2L), function(id) suppressWarnings(
    bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 2, chain_id = id, seed = 3,
            sampler = bnn_rwm(), warmup = 20, iter = 10, progress = FALSE)))
  raw <- p[[2]]
  can <- bnn_remove_symmetries(p[[1]])
  expect_identical(can$symmetries, "canonical")
  # before: accepted in both orders, labelled "canonical" in one only
  expect_error(bnn_combine_chains(can, raw),
               "Argument 1 of '...' has draws with the symmetries removed \\(\"canonical\"\\) but argument 2 raw draws")
  expect_error(bnn_combine_chains(raw, can),
               "Argument 1 of '...' has raw draws but argument 2 draws with the symmetries removed")
  # one parametrisation: fine, in either order
  both <- bnn_combine_chains(p[[1]], raw)
  expect_null(both$symmetries)
  expect_identical(bnn_combine_chains(can, bnn_remove_symmetries(raw))$symmetries, "canonical")
})

# The C code never frees memory it does not own: specs without rows, built
# through the internal paths, are copied and garbage collected in a child
# process that must survive.

# a spec with a network but no rows of data
zero_row_spec <- function() {
  list(type = "bnn", sizes = c(1L, 2L, 1L), act = 0L, lik = 0L, sigma_fixed = 0.3,
       sigma_prior = 0L, sigma_prior_scale = 1, prior = 0L, prior_scale = rep(1, 7),
       X = matrix(numeric(0), 0, 1), y = numeric(0))
}

test_that("zero-row specs through the internal paths do not free R's memory", {
  # each call copies the (empty) data and is then garbage collected; before,
  # the model claimed to own R's REAL() pointers and free()d them
  res <- run_in_child(c(
    sprintf("spec <- %s", paste(deparse(body(zero_row_spec)), collapse = "\n")),
    "ini <- rep(0.1, 7); th <- matrix(ini, 7)",
    "try1 <- function(expr) tryCatch({ expr; 'ok' }, error = conditionMessage)",
    "r <- c(",
    "  kchain = try1(.Call(bnnmc:::C_kchain_new, 'rwm', spec, ini, 1, 1L, list(stepsize = 0.1))),",
    "  sgld = try1(.Call(bnnmc:::C_kchain_new, 'sgld', spec, ini, 1, 1L, list(stepsize = 1e-3))),",
    "  minibatch = try1(.Call(bnnmc:::C_minibatch_eval, spec, list(batch_size = 1L), 1, 1L, th, NULL)),",
    "  optimize = try1(bnnmc:::.bnn_optimize(spec)),",
    "  nuts = try1(bnnmc:::run_chain(spec, ini, 1, 1L, bnn_nuts(), 5L, 5L, 1L)),",
    "  mclmc = try1(.Call(bnnmc:::C_mclmc_new, spec, ini, 1, 1L,",
    "    bnnmc:::.mclmc_c_settings(bnn_mclmc(n_tune = c(10, 5, 4), n_samples = 10), dim = 7))))",
    "for (i in 1:3) invisible(gc())",
    "print(r); cat('SURVIVED\\n')"))
  expect_equal(res$status, 0L, info = paste(res$output, collapse = "\n"))
  out <- paste(res$output, collapse = "\n")
  expect_match(out, "SURVIVED")
  # the optimiser refuses the empty spec (after copying it), the chains
  # are built on the prior alone
  expect_match(out, "no training rows")
})

# summary() and print() of a fit: the parameter and layer tables, the
# sampler diagnostics per chain.

test_that("summary() works with a sampled sigma (gaussian likelihood)", {
  g <- eco_fits("gauss")
  s <- suppressWarnings(summary(g))  # few draws: capped ESS
  tab <- s$parameters
  expect_identical(tab$parameter, g$parameters)
  # sigma: a parameter without layer, summarised from its own draws
  i <- match("sigma", tab$parameter)
  expect_true(is.na(tab$layer[i]))
  expect_identical(tab$role[i], "other")
  sig <- as.vector(g$draws[, , "sigma"]) * g$y_scale   # on the response's scale
  expect_equal(tab$mean[i], mean(sig), tolerance = 1e-14)
  expect_equal(tab$sd[i], sd(sig), tolerance = 1e-14)
  # the layer table holds the network parameters only, all of them
  expect_false(anyNA(s$layers$layer))
  expect_identical(sum(s$layers$n), length(g$parameters) - 1L)
  net <- tab[!is.na(tab$layer), ]
  w1 <- net$layer == 1 & net$role == "weight"
  r <- s$layers$layer == 1 & s$layers$role == "weight"
  expect_equal(s$layers$mean_abs[r], mean(abs(net$mean[w1])), tolerance = 1e-14)
  expect_equal(s$layers$sd[r], mean(net$sd[w1]), tolerance = 1e-14)
  expect_output(print(s, weights = TRUE), "Per layer")
})

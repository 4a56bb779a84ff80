# The one-pass C canonicalisation (symmetry.c, api_symmetry.c) against a
# plain R transcription of the map it computes (the in-place algorithm of
# bnnmc 6b2220f): every draw must come out identical, bit for bit, also
# where sort keys tie or a flipping sum is exactly 0.

# the canonical map of one network parameter vector, as documented in
# ?bnn_remove_symmetries; sums run left to right as in C (not sum(), which
# accumulates in long double)
canonical_ref <- function(theta, sizes, act) {
  L <- length(sizes) - 1L
  H <- L - 1L
  w_off <- c(0L, cumsum(sizes[-(L + 1L)] * sizes[-1L] + sizes[-1L]))
  n_net <- w_off[L + 1L]
  if (!all(is.finite(theta[seq_len(n_net)]))) return(theta)
  odd <- act == "tanh"
  homog <- act %in% c("relu", "leaky_relu")
  lex_less <- function(a, b) {             # key a < key b
    for (t in seq_along(a)) {
      if (a[t] < b[t]) return(TRUE)
      if (a[t] > b[t]) return(FALSE)
    }
    FALSE
  }
  layer <- function(theta, h) {
    fin <- sizes[h]
    M <- sizes[h + 1L]
    fout <- sizes[h + 2L]
    iW <- w_off[h] + seq_len(fin * M)
    ib <- w_off[h] + fin * M + seq_len(M)
    iO <- w_off[h + 1L] + seq_len(M * fout)
    Win <- matrix(theta[iW], fin, M)
    b <- theta[ib]
    Wout <- matrix(theta[iO], M, fout)
    for (i in seq_len(M)) {
      if (odd) {
        s <- 0
        for (k in seq_len(fout)) s <- s + Wout[i, k]
        if (s == 0) s <- b[i]
        if (s < 0) {
          Win[, i] <- -Win[, i]
          b[i] <- -b[i]
          Wout[i, ] <- -Wout[i, ]
        }
      } else if (homog) {
        nrm <- b[i] * b[i]
        for (j in seq_len(fin)) nrm <- nrm + Win[j, i] * Win[j, i]
        nrm <- sqrt(nrm)
        if (nrm > 0) {
          Win[, i] <- Win[, i] / nrm
          b[i] <- b[i] / nrm
          Wout[i, ] <- Wout[i, ] * nrm
        }
      }
    }
    key <- if (homog) rbind(b, Win) else rbind(b, t(Wout))
    ord <- seq_len(M)                       # stable insertion sort
    for (i in seq_len(M)[-1L]) {
      x <- ord[i]
      j <- i
      while (j > 1L && lex_less(key[, x], key[, ord[j - 1L]])) {
        ord[j] <- ord[j - 1L]
        j <- j - 1L
      }
      ord[j] <- x
    }
    theta[iW] <- Win[, ord]
    theta[ib] <- b[ord]
    theta[iO] <- Wout[ord, ]
    theta
  }
  hs <- if (homog) seq_len(H) else rev(seq_len(H))
  for (h in hs) theta <- layer(theta, h)
  theta
}

canonical_ref_rows <- function(m, sizes, act) {
  t(apply(m, 1L, canonical_ref, sizes = sizes, act = act))
}

# draws with many exact ties: values in {-1, 0, 1} (and -0), half as such
tie_draws <- function(n, d) {
  m <- matrix(sample(c(-1, 0, 1), n * d, replace = TRUE), n, d)
  m[sample(length(m), length(m) %/% 4)] <- -0
  m
}

test_that("the C canonical map equals the R transcription, ties included", {
  set.seed(31)
  archs <- list(c(1L, 3L, 1L), c(2L, 5L, 4L, 3L), c(1L, 6L, 6L, 6L, 1L), c(3L, 70L, 2L),
                c(1L, 1L, 1L))
  for (sizes in archs) {
    d <- bnn_n_parameters(sizes) + 1L
    for (act in c("tanh", "silu", "relu")) {
      m <- rbind(matrix(rnorm(40 * d), 40, d), tie_draws(40, d))
      got <- bnn_remove_symmetries(m, sizes = sizes, activation = act)
      ref <- canonical_ref_rows(m, sizes, act)
      expect_identical(got, ref, label = sprintf("%s, %s", paste(sizes, collapse = "-"), act))
      # an infinite draw is an error, not a draw left unchanged as a whole
      m[3, 2] <- Inf
      expect_error(bnn_remove_symmetries(m, sizes = sizes, activation = act),
                   "infinite values")
    }
  }
})

test_that("the C canonical map gives the same draws with 1 or 2 threads and any shape", {
  set.seed(32)
  sizes <- c(2L, 8L, 8L, 1L)
  d <- bnn_n_parameters(sizes) + 1L
  a <- array(rnorm(150 * 30 * d), c(150, 30, d),
             dimnames = list(NULL, NULL, c(bnn_parameter_names(sizes), "sigma")))
  a[1:20, 1, ] <- tie_draws(20, d)
  old <- options(bnnmc.threads = 1L)
  on.exit(options(old), add = TRUE)
  one <- bnn_remove_symmetries(a, sizes = sizes, activation = "tanh")
  options(bnnmc.threads = 2L)
  two <- bnn_remove_symmetries(a, sizes = sizes, activation = "tanh")
  expect_identical(one, two)
  expect_identical(dimnames(one), dimnames(a))
  expect_identical(one[, , d], a[, , d])
  # the same map as a matrix of draws, and on one draw
  m <- matrix(a, 150 * 30, d)
  expect_identical(matrix(one, 150 * 30, d),
                   bnn_remove_symmetries(m, sizes = sizes, activation = "tanh"))
  expect_identical(matrix(one, 150 * 30, d)[1:50, ],
                   canonical_ref_rows(m[1:50, ], sizes, "tanh"))
  v <- stats::setNames(a[7, 3, ], dimnames(a)[[3]])
  expect_identical(bnn_remove_symmetries(v, sizes = sizes, activation = "tanh"), one[7, 3, ])
})

test_that("canonicalising a fit maps its draws array in one pass", {
  fit <- suppressWarnings(bnn_fit(y ~ x, bnn_paper_symmetry_data("sinusoidal", n = 40, seed = 1),
                                  hidden = 3, chains = 3, warmup = 20, iter = 5, seed = 2,
                                  sampler = bnn_nuts(), likelihood = bnn_likelihood("gaussian"),
                                  progress = FALSE))
  can <- bnn_remove_symmetries(fit)
  expect_identical(can$symmetries, "canonical")
  expect_identical(dimnames(can$draws), dimnames(fit$draws))
  d <- dim(fit$draws)
  ref <- canonical_ref_rows(matrix(fit$draws, d[1] * d[2], d[3]), fit$spec$sizes, "tanh")
  expect_identical(matrix(can$draws, d[1] * d[2], d[3]), ref)
})

# Chains that report "ok" but never moved: every kept draw of a chain has the
# same value in some coordinate (a sampler stuck where it started, e.g. on a
# response far outside the prior's reach, or a coordinate whose steps are
# lost to rounding).  R-hat is NA for such a chain and the generic
# convergence warning would not say why, so the fit warns naming the chains
# and coordinates.  Short runs (fewer than `min_draws` kept draws) are not
# judged: a few rejected proposals in a row are no evidence.

# Coordinates of each "ok" chain whose kept draws are all equal: a list with
# one element per chain (the frozen parameter names, character(0) if none).
frozen_coordinates <- function(fit, min_draws = 20L) {
  d <- fit$draws
  n <- dim(d)[1L]
  pars <- dimnames(d)[[3L]] %||% as.character(seq_len(dim(d)[3L]))
  lapply(seq_len(dim(d)[2L]), function(c) {
    if (n < min_draws || !identical(as.character(fit$chain_status[c]), "ok"))
      return(character(0))
    # candidates first: a coordinate whose last draw differs from its first
    # moved (the full comparison of every draw only for the rest)
    first <- d[1L, c, ]
    last <- d[n, c, ]
    cand <- which(is.na(first) | is.na(last) | last == first)
    if (!length(cand)) return(character(0))
    m <- matrix(d[, c, cand], nrow = n)
    same <- colSums(m != rep(m[1L, ], each = n), na.rm = TRUE) == 0
    pars[cand[same]]
  })
}

check_frozen_chains <- function(fit, min_draws = 20L) {
  fz <- frozen_coordinates(fit, min_draws)
  hit <- which(lengths(fz) > 0L)
  if (!length(hit)) return(invisible(NULL))
  dim <- dim(fit$draws)[3L]
  ids <- (fit$chain_id %||% seq_along(fit$chain_status))[hit]
  what <- vapply(seq_along(hit), function(i) {
    f <- fz[[hit[i]]]
    sprintf("chain %s in %s", ids[i],
            if (length(f) == dim) sprintf("all %d parameters", dim) else
              sprintf("%d of %d parameters (%s%s)", length(f), dim,
                      paste(utils::head(f, 3L), collapse = ", "),
                      if (length(f) > 3L) ", ..." else ""))
  }, "")
  warn_cond(sprintf(paste0("%d of %d chains never moved: every kept draw has the same value, ",
                           "%s. Their draws are not a sample of the posterior. Check the data's ",
                           "scale (standardize = TRUE, the default, puts it on the prior's), ",
                           "the starting values and the sampler's step size."),
                    length(hit), length(fz), paste(what, collapse = "; ")),
            "bnnmc_frozen_chain")
}

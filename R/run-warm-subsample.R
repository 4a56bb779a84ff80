# The default's warm-up on a subsample of the rows, on large data.
#
# Every MCLMC step costs a gradient over all rows, and 80% of the default's
# steps are tuning.  On more than .warm_subsample_from rows the default
# sampler (MILE on the default's budget, `sampler` not given) therefore
# tunes on a subsample: its deep ensemble is trained on `m` rows
# (warm_subsample_size()) and each chain runs its tuning there but for the
# last .warm_full_stage2 steps of stage 2 (mclmc_warm_split(),
# R/sampler-mclmc.R: stage 1, most of stage 2, and stage 3, which tunes L),
# each row's likelihood weighted by n / m so that the subsample's
# posterior is about as concentrated as the full data's and the step size
# and L tuned on it fit the full posterior.  The chain then goes on from
# where it stands, on all rows: the last steps of stage 2 adapt the step
# size to all rows, and the sampling is on all rows (so the draws are of
# the full posterior; the subsample only decides where the chain starts
# sampling and with which step size and L).  On large data the sampling
# keeps .warm_sampling_steps steps (every 10th kept) instead of 5,000: the
# chains agree closely there (the verdict's Monte Carlo error of the
# predictions stays far below its threshold).  Measured in
# inst/benchmarks/speed/large_default.R and vignette("benchmarks").

# More rows than this: the default tunes on a subsample.
.warm_subsample_from <- 2000L
# Sampling steps of the default on more rows than .warm_subsample_from.
.warm_sampling_steps <- 2000L

# The subsample's size for n rows: an eighth of them, at least 2,000 and
# at most 8,000 (all of them when there are fewer).
warm_subsample_size <- function(n) as.integer(min(n, max(2000, min(ceiling(n / 8), 8000))))

# The default run on n rows of a `family` likelihood: the default sampler
# with its warm-up on a subsample and its shorter sampling (unless `iter`
# or `thin` was given) when n is above .warm_subsample_from and the
# likelihood is the (homoscedastic) Gaussian, where it was measured;
# `run` (sampler_resolve_run()'s list) unchanged otherwise, or with
# options(bnnmc.warm_subsample = FALSE).
default_run_for_rows <- function(run, n, given, family = "gaussian") {
  if (n <= .warm_subsample_from || !identical(family, "gaussian") ||
      !isTRUE(getOption("bnnmc.warm_subsample", TRUE))) return(run)
  s <- run$sampler
  s$warm_rows <- warm_subsample_size(n)
  if (!given[["iter"]] && !given[["thin"]]) s$n_samples <- .warm_sampling_steps
  run$sampler <- s
  run$iter <- s$n_samples
  run$n_keep <- ceiling(s$n_samples / s$thin)
  run
}

# The rows of a plan's subsample: `m` of `n` drawn with the fit's seed
# (R's generator seeded and the caller's state restored, with_seed()), in
# their order; the same rows for the ensemble and every chain.
warm_subsample_rows <- function(n, m, seed) with_seed(seed, sort(sample.int(n, m)))

# The specification on rows `rows` of spec's data, each row's likelihood
# weighted by n / m (times its own weight, if any).
spec_rows <- function(spec, rows) {
  n <- nrow(spec$X)
  out <- spec
  out$X <- spec$X[rows, , drop = FALSE]
  out$y <- if (is.null(dim(spec$y))) spec$y[rows] else spec$y[rows, , drop = FALSE]
  out$weights <- as.double((if (is.null(spec$weights)) rep(1, length(rows)) else
    spec$weights[rows]) * (n / length(rows)))
  out
}

# One chain of the default's MCLMC with its warm-up on the subsample `rows`
# (as run_chain(), whose result it returns): the tuning's first part on the
# subsample, then the rest of the chain on all rows from the position,
# step size and L it reached, with its own random stream (seed + 2^32: no
# seed a user can give).  The result is that of one chain of the plan's
# run: its tuning statistics are both parts', its gradients both parts'
# (those on the subsample count m / n of a full one in $n_grad_full), and
# a chain that fails on the subsample fails as a whole, where it failed.
run_chain_warm_subsample <- function(spec, rows, init, seed, chain_id, sampler,
                                     progress = NULL, fit_shape = FALSE, lr = NULL) {
  n <- nrow(spec$X)
  nt <- as.integer(sampler$n_tune)
  split <- mclmc_warm_split(sampler)
  n2_full <- split[["stage2_full"]]
  n3_sub <- split[["stage3_sub"]]
  total <- sum(nt) + as.integer(sampler$n_samples)
  on_sub <- sampler
  on_sub$warm_rows <- NULL
  on_sub$n_tune <- c(nt[1L], nt[2L] - n2_full, n3_sub)
  on_sub$n_samples <- 0L
  n_sub <- sum(on_sub$n_tune)
  pa <- if (!is.null(progress)) function(chain, done, tot) progress(chain, done, total)
  a <- run_chain(spec_rows(spec, rows), init, seed, chain_id, on_sub, 0L, 0L, 1L,
                 progress = pa, lr = lr)
  if (a$status != "ok") return(warm_subsample_failed(a, sampler, spec, fit_shape))
  full <- sampler
  full$warm_rows <- NULL
  full$n_tune <- c(0L, n2_full, nt[3L] - n3_sub)
  full$stepsize <- a$mclmc$tune$stepsize
  full$L <- a$mclmc$tune$L
  pb <- if (!is.null(progress)) function(chain, done, tot) progress(chain, n_sub + done, total)
  b <- run_chain(spec, as.double(a$mclmc$position), seed + 2^32, chain_id, full, 0L, 0L, 1L,
                 progress = pb, fit_shape = fit_shape, lr = lr)
  b$tuning_stats <- rbind(a$tuning_stats, b$tuning_stats)
  b$time_warmup <- b$time_warmup + a$time_warmup + a$time_sampling
  b$n_grad_full <- b$n_grad + a$n_grad * length(rows) / n
  b$n_grad <- b$n_grad + a$n_grad
  b$mclmc$n_grad <- b$n_grad
  b$mclmc$n_reverted <- a$mclmc$n_reverted + b$mclmc$n_reverted
  b$n_reverted <- b$mclmc$n_reverted
  b$mclmc$done <- a$mclmc$done + b$mclmc$done
  b$mclmc$total <- nt
  b$mclmc$warm_subsample <- list(rows = length(rows), of = n, steps = n_sub)
  b
}

# The result of a chain that failed during its warm-up on the subsample,
# in the shape of the plan's chains: no draws (all NA), where it failed
# (the tuning's stage and step, as in a chain on all rows).
warm_subsample_failed <- function(a, sampler, spec, fit_shape) {
  n_keep <- ceiling(as.integer(sampler$n_samples) / as.integer(sampler$thin))
  dim <- spec_dim(spec)
  a$draws <- if (fit_shape && !is.null(spec$sizes))
    array(NA_real_, c(n_keep, 1L, dim),
          dimnames = list(iteration = NULL, chain = NULL, variable = spec_par_names(spec)))
  else matrix(NA_real_, n_keep, dim)
  a$stats <- matrix(NA_real_, n_keep, ncol(a$stats))
  a$mclmc$total <- as.integer(sampler$n_tune)
  a
}

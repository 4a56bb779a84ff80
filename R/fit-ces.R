# The calibration-emulation-sampling pipeline behind bnn_fit(sampler =
# bnn_ces()) (its fit_engine() method), the checks of its emulator and
# the record print() shows.  The settings are R/sampler-ces.R.
# Run the chains of one sampler on a spec (bnn_fit()'s core loop).
run_stage <- function(spec, sampler, chains, warmup, iter, thin, inits, seed, progress) {
  # the arguments evaluated here: the chains' function goes to the workers
  # with this frame, and a promise would take its caller's along
  force(spec); force(sampler); force(warmup); force(iter); force(thin); force(inits); force(seed)
  prog <- make_progress(isTRUE(progress), chains, warmup + iter,
                        phases = c("warm-up" = warmup, sampling = iter))
  t0 <- proc.time()[[3]]
  res <- dispatch_chains(seq_len(chains), function(cid) {
    run_chain(spec, inits[[cid]], seed, cid, sampler, warmup, iter, thin,
              progress = prog, fit_shape = TRUE)
  })
  list(res = res, elapsed = proc.time()[[3]] - t0)
}

# Indices of J draws spread evenly over n.
even_index <- function(n, J) unique(round(seq(1, n, length.out = J)))

# The CES pipeline behind bnn_fit(sampler = bnn_ces()) (its fit_engine()).
# model: prepare_model()'s list; the rest are bnn_fit()'s checked arguments
# (those in `...`, such as `ensemble`, do not apply to CES).  An interrupt
# keeps nothing of it, and says so (R/run-interrupt.R).
fit_engine.bnn_ces <- function(...) {
  withCallingHandlers(ces_engine(...),
                      interrupt = function(cnd) interrupt_keep_nothing("the CES pipeline"))
}

ces_engine <- function(model, ces, chains, warmup, iter, thin, init, seed, progress,
                               call, given_init = FALSE, precision = "double", ...) {
  spec <- model$spec
  lik <- model$likelihood
  refuse_new_family(model, "sampler = bnn_ces()")
  dim <- spec_dim(spec)
  n_net <- bnn_n_parameters(spec$sizes)
  check_sampler_model(ces$sampler, model$prior)
  check_sampler_model(ces$calibration, model$prior)
  emu <- ces$emulator
  cal <- ces$calibration
  ci <- ces$calibration_iter
  # the calibration run keeps every one of its calibration_iter draws
  cal_run <- sampler_resolve_run(cal, ces$calibration_warmup, ci, 1L,
                                 given = c(warmup = FALSE, iter = TRUE, thin = TRUE))
  cal <- cal_run$sampler
  cw <- cal_run$warmup
  if (ces$J > chains * ci)
    stop(sprintf("J = %d is larger than the calibration run (%d chains x %d iterations = %d draws).",
                 ces$J, chains, ci, chains * ci), call. = FALSE)
  n_hold <- if (is.null(emu)) 0L else check_ces_holdout(emu$holdout, ces$J)
  check_ces_size(ces, spec$sizes, chains, ceiling(iter / thin),
                 n_out = as.double(nrow(spec$X)) * spec$sizes[length(spec$sizes)])
  if (!is.null(emu)) {
    bs <- emu$optimizer$batch_size
    if (!is.null(bs) && bs > ces$J - n_hold)
      stop(sprintf(paste0("J = %d calibration pairs (%d for training after holding out %d) ",
                          "are fewer than the emulator's batch size %d."),
                   ces$J, ces$J - n_hold, n_hold, bs), call. = FALSE)
    if (emu$inflate && !(lik$family == "gaussian" && !is.null(lik$sigma)))
      stop("bnn_emulator(inflate = TRUE) needs bnn_likelihood(\"gaussian\", sigma = <fixed>).",
           call. = FALSE)
  }
  cal_seed <- (seed + 1) %% 2^31

  # 1. calibration on the exact posterior
  inits <- make_inits(init, chains, dim, spec, model$prior, cal_seed)
  prep <- sampler_prepare(cal, spec, inits, cal_seed, cw, ci, given_init)
  cal <- prep$sampler
  inits <- prep$inits
  st <- run_stage(spec, cal, chains, cw, ci, 1L, inits, cal_seed, progress)
  cal_fit <- assemble_fit(st$res, bnn_parameter_names(spec$sizes, has_sigma(spec)), spec,
                          cal, cw, ci, 1L, cal_seed, chains)
  if (any(cal_fit$chain_status != "ok"))
    stop("The calibration run failed (", paste(unique(as.character(
      cal_fit$chain_status[cal_fit$chain_status != "ok"])), collapse = "; "),
      "); the emulator cannot be trained.", call. = FALSE)
  draws_u <- function(c) {
    m <- matrix(cal_fit$draws[, c, ], nrow = ci)
    if (has_sigma(spec)) m[, dim] <- log(m[, dim])
    m
  }
  cal_u <- lapply(seq_len(chains), draws_u)
  sel <- even_index(chains * ci, ces$J) - 1L       # over chains, then iterations
  theta <- do.call(rbind, lapply(sel, function(g) cal_u[[g %/% ci + 1L]][g %% ci + 1L, ]))
  J <- nrow(theta)
  t_fw <- proc.time()[[3]]
  out <- .Call(C_model_forward, spec, t(theta), spec$X, .bnn_threads())       # n x K x J
  outputs <- t(matrix(out, ncol = J))                          # J x (n K)
  t_fw <- proc.time()[[3]] - t_fw
  time_cal <- st$elapsed + t_fw
  n_exact <- sum(cal_fit$n_grad) + J
  init_s <- lapply(seq_len(chains), function(c) cal_u[[c]][ci, ])

  # 2. emulation
  t_em <- proc.time()[[3]]
  emulator <- NULL
  check <- NULL
  model_spec <- fit_spec_model(model)
  if (!is.null(emu)) {
    hold <- if (n_hold > 0L) with_seed(cal_seed, sort(sample.int(J, n_hold))) else integer(0)
    train <- setdiff(seq_len(J), hold)
    emulator <- train_emulator(theta[train, seq_len(n_net), drop = FALSE],
                               outputs[train, , drop = FALSE], emu, seed)
    if (length(hold)) {
      check <- emulator_check(model_spec, emulator, theta[hold, , drop = FALSE],
                              outputs[hold, , drop = FALSE])
      n_exact <- n_exact + length(hold)
      if (is.finite(check$r2) && check$r2 < emu$min_r2)
        warn_cond(sprintf(paste0("The emulator's held-out R^2 is %.3f (below min_r2 = %s; ",
                                 "log-likelihood correlation %.3f on %d held-out calibration ",
                                 "draws): the emulated posterior may be far from the exact one. ",
                                 "More calibration draws, a wider emulator or more epochs may help."),
                          check$r2, emu$min_r2, check$cor, length(hold)), "bnnmc_emulator")
      if (emu$inflate) {
        model_spec$sigma_fixed <- sqrt(model_spec$sigma_fixed^2 + check$mse)
      }
    }
  }
  time_em <- proc.time()[[3]] - t_em

  # 3. sampling on the emulated posterior
  es <- emulated_spec(model_spec, emulator)
  st2 <- run_stage(es, ces$sampler, chains, warmup, iter, thin, init_s, seed, progress)
  pars <- bnn_parameter_names(spec$sizes, sigma = has_sigma(spec))
  chains_part <- assemble_fit(st2$res, pars, spec, ces, warmup, iter, thin, seed, chains)
  elapsed <- time_cal + time_em + st2$elapsed
  times <- c(calibration = time_cal, emulator = time_em, sampling = st2$elapsed, check = 0)
  check_sampled <- NULL
  if (!is.null(emulator)) {
    t_ck <- proc.time()[[3]]
    check_sampled <- sampled_check(chains_part, model_spec, emulator)
    t_ck <- proc.time()[[3]] - t_ck
    times[["check"]] <- t_ck
    elapsed <- elapsed + t_ck
    n_exact <- n_exact + nrow(check_sampled$draws)
    cs <- check_sampled
    if (nrow(cs$draws) && is.finite(cs$bias) &&
        abs(cs$bias) > 2 * max(1, stats::sd(cs$draws$true_loglik)))
      warn_cond(sprintf(paste0("At %d of the sampled draws the emulated log-likelihood differs from ",
                               "the true one by %.1f on average (true log-likelihood mean %.1f, ",
                               "sd %.1f): the sampling stage went where the emulator is wrong; ",
                               "see bnn_ces_check(fit, \"sampled\")."),
                        nrow(cs$draws), cs$bias, mean(cs$draws$true_loglik),
                        stats::sd(cs$draws$true_loglik)), "bnnmc_emulator")
  }
  ces_record <- list(
    times = times, n_exact = n_exact, n_emulated = sum(chains_part$n_grad), J = J,
    calibration = cal_fit[c("draws", "sampler_stats", "n_grad", "stepsize", "chain_status",
                            "timing")],
    calibration_sampler = cal, emulator = emulator, check = check, init = init_s,
    inflated_sigma = if (!is.null(emu) && emu$inflate && !is.null(check))
      model_spec$sigma_fixed else NULL)
  if (!is.null(check_sampled)) ces_record$check_sampled <- check_sampled
  fit <- new_bnnfit(chains_part, model, call = call, inits = init_s,
                    elapsed = elapsed,
                    simd = union(attr(st$res, "simd"), attr(st2$res, "simd")),
                    ces = ces_record, precision = precision)
  report_failures(fit)
  fit
}

# True and emulated log-likelihoods at up to n of the sampled draws (evenly
# over the chains that did not fail): the check the held-out calibration
# draws cannot give, whether the sampling stage stayed where the emulator
# is accurate.
sampled_check <- function(fit, model_spec, emulator, n = 50L) {
  ok <- if (is.null(fit$chain_status)) seq_len(dim(fit$draws)[2]) else
    which(fit$chain_status == "ok")
  n_it <- dim(fit$draws)[1]
  S <- n_it * length(ok)
  if (S == 0L) return(list(draws = data.frame(true_loglik = numeric(0),
                                              emulated_loglik = numeric(0)),
                           bias = NA_real_, cor = NA_real_))
  # draw g of the iterations x chains order, without copying all draws
  g <- unique(round(seq(1, S, length.out = min(n, S)))) - 1
  P <- dim(fit$draws)[3]
  m <- matrix(vapply(g, function(k) fit$draws[k %% n_it + 1, ok[k %/% n_it + 1], ],
                     numeric(P)), ncol = P, byrow = TRUE)
  th <- bnn_unconstrain(fit, t(m))
  tl <- .Call(C_ces_loglik, emulated_spec(model_spec, NULL), th, FALSE)$loglik
  el <- .Call(C_ces_loglik, emulated_spec(model_spec, emulator), th, FALSE)$loglik
  list(draws = data.frame(true_loglik = tl, emulated_loglik = el),
       bias = mean(el - tl),
       cor = if (length(tl) > 2L && stats::sd(tl) > 0 && stats::sd(el) > 0)
         stats::cor(tl, el) else NA_real_,
       theta = t(th))
}

# The model's spec with its (standardised) training data.
fit_spec_model <- function(model) {
  s <- model$spec
  s$X <- model$X
  s$y <- model$y_model
  s
}

# True and emulated log-likelihoods and outputs at held-out calibration draws.
emulator_check <- function(model_spec, emulator, theta, outputs) {
  em_out <- t(.Call(C_ces_emulate, emulated_spec(model_spec, emulator), t(theta)))
  ss_res <- sum((outputs - em_out)^2)
  ss_tot <- sum(sweep(outputs, 2L, colMeans(outputs))^2)
  true_ll <- .Call(C_ces_loglik, emulated_spec(model_spec, NULL), t(theta), FALSE)$loglik
  em_ll <- .Call(C_ces_loglik, emulated_spec(model_spec, emulator), t(theta), FALSE)$loglik
  list(r2 = if (ss_tot > 0) 1 - ss_res / ss_tot else NA_real_,
       mse = mean((outputs - em_out)^2),
       cor = if (length(true_ll) > 2L) stats::cor(true_ll, em_ll) else NA_real_,
       draws = data.frame(true_loglik = true_ll, emulated_loglik = em_ll),
       theta = theta)
}

#' Check the emulator of a calibration-emulation-sampling fit
#'
#' The true and emulated log-likelihoods at the calibration draws held out
#' of the emulator's training, with their correlation and the held-out
#' \eqn{R^2} of the emulated outputs; or at (up to 50 of) the draws of the
#' sampling stage, with their correlation and the mean difference `bias`
#' (emulated minus true).  The paper's Figure 5 compares the two surfaces
#' over the plane of the first two principal components of posterior
#' draws.  Held-out calibration draws lie between training draws of the
#' same trajectory, so they can look excellent while the sampling stage
#' wanders where the emulator is wrong: the check at the sampled draws
#' shows that (and `bnn_fit()` warns when `|bias|` exceeds twice the
#' standard deviation of the true log-likelihood over those draws, or 2).
#'
#' @param object A `bnnfit` from `bnn_fit(sampler = bnn_ces(...))`.
#' @param draws `"calibration"` (held-out calibration draws) or `"sampled"`.
#' @param plot Draw the comparison: emulated against true log-likelihood
#'   (left) and both against the first principal component of the
#'   held-out draws (right).
#' @return Invisibly with `plot = TRUE`, a data frame with one row per
#'   draw (`true_loglik`, `emulated_loglik`, `pc1`, `pc2`) and attributes
#'   `r2` and `cor` (and `bias` for the sampled draws).
#' @export
#' @examples
#' \donttest{
#' set.seed(1)
#' d <- data.frame(x1 = rnorm(60), x2 = rnorm(60))
#' d$y <- d$x1 - 0.5 * d$x2 + rnorm(60, sd = 0.3)
#' ces <- bnn_ces(calibration = bnn_nuts(), calibration_warmup = 100,
#'                calibration_iter = 100, J = 100,
#'                emulator = bnn_emulator(hidden = c(16, 16),
#'                  optimizer = bnn_optimizer("adam", lr = 3e-3, weight_decay = 0,
#'                                            epochs = 300, batch_size = 16)))
#' fit <- bnn_fit(y ~ x1 + x2, data = d, hidden = integer(0),
#'                likelihood = bnn_likelihood("gaussian", sigma = 0.3),
#'                sampler = ces, chains = 1, warmup = 300, iter = 500, seed = 1)
#' bnn_ces_check(fit, plot = TRUE)
#' }
bnn_ces_check <- function(object, draws = c("calibration", "sampled"), plot = FALSE) {
  if (!inherits(object, "bnnfit") || is.null(object$ces))
    stop("'object' must be a bnnfit from bnn_fit(sampler = bnn_ces()).", call. = FALSE)
  draws <- match.arg(draws)
  ch <- if (draws == "calibration") object$ces$check else object$ces$check_sampled
  if (is.null(ch))
    stop("This fit has no emulator check (emulator = \"exact\", or holdout = 0 for ",
         "the calibration draws).", call. = FALSE)
  if (draws == "sampled") ch$r2 <- NA_real_
  th <- ch$theta
  keep <- apply(th, 2L, stats::sd) > 0
  pcs <- if (sum(keep) >= 2L && nrow(th) > 2L)
    stats::prcomp(th[, keep, drop = FALSE])$x[, 1:2, drop = FALSE] else
      matrix(NA_real_, nrow(th), 2L)
  out <- data.frame(ch$draws, pc1 = pcs[, 1], pc2 = pcs[, 2])
  attr(out, "r2") <- ch$r2
  attr(out, "cor") <- ch$cor
  if (draws == "sampled") attr(out, "bias") <- ch$bias
  if (!plot) return(out)
  op <- graphics::par(mfrow = c(1, 2))
  on.exit(graphics::par(op))
  rng <- range(c(out$true_loglik, out$emulated_loglik))
  graphics::plot(out$true_loglik, out$emulated_loglik, xlim = rng, ylim = rng,
                 xlab = "true log-likelihood", ylab = "emulated log-likelihood",
                 main = if (draws == "calibration")
                   sprintf("held-out draws: cor %.3f, R^2 %.3f", ch$cor, ch$r2) else
                   sprintf("sampled draws: cor %.3f, bias %.1f", ch$cor, ch$bias),
                 pch = 19, col = "grey30")
  graphics::abline(0, 1, lty = 2)
  o <- order(out$pc1)
  graphics::plot(out$pc1[o], out$true_loglik[o], type = "b", pch = 19, ylim = rng,
                 xlab = sprintf("PC1 of the %s draws", if (draws == "calibration")
                   "held-out" else "sampled"), ylab = "log-likelihood",
                 main = "true (black) and emulated (red)")
  graphics::lines(out$pc1[o], out$emulated_loglik[o], type = "b", pch = 17, col = "red")
  invisible(out)
}

# Lines of print.bnnfit() for a CES fit.
format_ces_record <- function(x) {
  tm <- x$times
  c(sprintf(" CES stages:   calibration %.1f s, emulator %.1f s, sampling %.1f s%s (J = %d pairs)",
            tm[["calibration"]], tm[["emulator"]], tm[["sampling"]],
            if (isTRUE(tm[["check"]] > 0)) sprintf(", check at sampled draws %.1f s", tm[["check"]])
            else "", x$J),
    sprintf(" evaluations:  %s exact (calibration and checks), %s emulated",
            format(x$n_exact, big.mark = ","), format(x$n_emulated, big.mark = ",")),
    if (!is.null(x$check))
      sprintf(" emulator:     held-out R^2 %.3f, log-likelihood correlation %.3f (%d draws)",
              x$check$r2, x$check$cor, nrow(x$check$draws)),
    if (!is.null(x$check_sampled) && nrow(x$check_sampled$draws))
      sprintf(" at sampled draws: emulated - true log-likelihood %.2f on average (%d draws)",
              x$check_sampled$bias, nrow(x$check_sampled$draws)))
}

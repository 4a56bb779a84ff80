# Why does the default fail its own convergence verdict on yacht, energy,
# concrete and airfoil (default_verdict.csv)?  One fit per call, on split 1
# of default_verdict.R (80/20, with_seed(1, ...)), seed = 1:
#   Rscript default_verdict_diagnosis.R <uci set> "<bnn_mclmc(...) or empty>" "<list(...) of bnn_fit args>" <tag>
# An empty sampler argument is the default call; a bnn_mclmc() object runs
# that MCLMC with MILE's deep-ensemble start (init = "ensemble", the "mile"
# optimiser preset).  Prints one line: the verdict, each chain's chain-wise
# R-hat of the training log-likelihood and the predictions' 90% quantile,
# the tuned step size and L, the integrated autocorrelation time of the
# training log-likelihood in kept draws (initial positive sequence, cut at
# lag where acf < 0.05), the posterior median of sigma (standardised
# scale), test RMSE / LPPD / 90% coverage (response scale) and the time;
# then ranges of the sampler statistics.  Saves the per-draw log-likelihood
# and sigma (and with SAVEDRAWS=1 all draws) as <set>_<tag>.rds in
# BNNMC_DIAG_DIR (default tempdir()).
#
# default_verdict_diagnosis.csv: one fit per row (2 shared cores, under
# nice), copied from the printed lines
# (per-chain values separated by ";"; tag = the last argument, sampler_arg
# and fit_args = the 2nd and 3rd).  Single fits: the seed-to-seed spread was
# not measured.  None of the 16 variants passes the verdict.  What they show:
# * the verdict is computed correctly: on AR(1) series of 1000 draws with
#   known integrated autocorrelation time (IAT) 3 / 19 / 39 / 99, the median
#   chain-wise R-hat is 1.003 / 1.02 / 1.05 / 1.15 (90% quantile 1.01 /
#   1.08 / 1.15 / 1.44), as posterior::rhat() on the 4 sub-chains (1.007 /
#   1.07 / 1.13 / 1.31): passing needs an IAT of the training
#   log-likelihood of about 20 kept draws or less in every chain;
# * the default's IAT is 80-270 draws (800-2,700 MCLMC steps) on energy and
#   40-65 draws on yacht; doubling or quintupling the steps per draw (thin 20,
#   thin 50 with the tuning shortened to 20k steps) leaves it at 30-230 draws:
#   the log-likelihood wanders on every time scale of the run, and sigma with
#   it (energy, per-tenth means of sigma 0.0230-0.0289; |cor(sigma, loglik)|
#   0.81 within chains).  The slowest parameters (ratio of between- to
#   within-sub-chain variance) are the second layer's biases b2, the output
#   bias and weights (b2, b3, W3), not sigma itself;
# * ten times the sampling steps (100,000, thin 100; 82.6 s instead of
#   ~40 s) still fails (1.05-1.49): over those 100k steps two chains'
#   training log-likelihood climbs by 60-70 nats while sigma falls from
#   0.0258 to 0.0233 -- after 150k steps the chains are still relaxing
#   towards a better fit and a smaller noise level, so the remedy the
#   warning prints (twice the draws) does not help on these sets;
# * fixing sigma at its posterior median halves the IAT (24-142) but still
#   fails, and so do the predictions (q90 1.09-1.14): the slow mode is the
#   fit of the weights (RSS), which sigma follows, not sigma's
#   parametrisation (already log sigma with its Jacobian);
# * L (Lfactor 0.1 or 1.2, L 1.2-16), diagonal preconditioning (step size 6x
#   larger) and the biases' prior scale (0.5, 0.25) change the IAT in
#   steps little: mixing is limited by the distance travelled per step;
# * a smaller energy-error target (energy_var end 0.01 or 1e-3; MILE's is
#   0.1 per dimension, energy errors of sd ~6 per step on yacht) makes
#   sigma smaller (yacht 0.0061 -> 0.0038 / 0.0033), the chains drift more
#   (R-hat up to 1.80) and the predictions over-confident (test LPPD 0.19 ->
#   -0.29 / -4.61, 90% coverage 0.79 -> 0.73 / 0.68): MILE's hot, biased
#   dynamics keep the noise level away from the near-interpolating region;
# * a 8-8 network mixes faster on energy (IAT 19-66) but still fails, and
#   on yacht fails and loses calibration (LPPD -4.90, coverage 0.69).
#
# Rows tagged *_s12 (this script with the start and the first and
# last tenth of each chain's training log-likelihood, response scale;
# beside a 100k-row benchmark on the same 2 cores, so times are inflated):
# * energy base_s12 repeats the base row draw for draw (same verdict, IAT,
#   metrics).  Its chains start from ensemble members 300-370 nats below
#   the level MCLMC reaches in its warm-up, then wander over +-40 nats;
# * a longer-trained ensemble (the "mile" preset with 2,600-12,500 epochs,
#   about 100,000 AdamW steps per member instead of 500 epochs) starts the
#   chains near or above MCLMC's level.  Each chain then stays at a level
#   of its own (energy: +70 and -120 in two chains, 190 nats apart; one
#   chain is flagged an outlier on energy and on yacht), and the verdict
#   still fails on energy, concrete and yacht (chain-wise R-hat of the
#   log-likelihood 1.31-1.46, 1.05-1.39 and 1.14-1.42).  Airfoil comes
#   closest: the log-likelihood passes (1.01-1.05,
#   IAT 18-31) and the predictions' 90% quantile of one chain is 1.109.  The
#   test metrics move both ways: energy LPPD -0.303 -> -0.165, airfoil
#   -1.638 -> -1.660, concrete -2.931 -> -2.945, yacht 0.191 -> 0.170 (one
#   split, one seed): one large gain and three small losses, not enough to
#   change the default's ensemble;
# * an exact sampler does not pass either: DEI-NUTS (sampler = "dei", the
#   default network and likelihood, 8x MILE's time) on energy climbs 100-200
#   nats over its 1,000 draws without levelling off (chain-wise R-hat of the
#   log-likelihood 1.20-1.99, step sizes 0.0008-0.0017).  The posterior's
#   high-likelihood region on energy is reached slowly by every sampler
#   here, so the verdict's failure is the posterior's
#   geometry, not MCLMC's bias alone.
# * t40same_s12 / t40long_s12 (both cores free): the sampling phase 4 times
#   longer (40,000 steps, thin 40), with the tuning cut to 20,000 steps (the
#   default's cost) or kept at 50,000 (1.5 times the cost).  The
#   predictions' 90% quantile then passes on most chains (1.03-1.12), and
#   concrete with the longer budget passes (the first fit of these four
#   sets to do so); the log-likelihood still fails on airfoil (1.01-1.18),
#   yacht (1.10-1.26) and energy (1.06-1.50).  Not enough to change the
#   default's budget.  Yacht's split-1 coverage is 0.76-0.79 in every
#   variant (its 62 test points; 0.84 over the panel's 3 splits).
# * both together (de*_t40long_s12: the longer ensemble and the longer
#   sampling phase, 1.5 times the default's cost plus the ensemble):
#   airfoil comes within rounding of passing (log-likelihood 1.02-1.06,
#   predictions 1.04-1.10, the last just above 1.1); yacht (1.05-1.32) and
#   energy (1.06-1.78) fail.  Energy's test LPPD is the best of all rows
#   (-0.144).
#
# Internals (bnnmc:::function_draws(), has_sigma()): this script dissects
# the convergence verdict, so it reads the log-likelihood draws the verdict
# itself computes.
suppressPackageStartupMessages(library(bnnmc))
# expr under set.seed(seed), leaving the script's own random stream as it was
with_seed <- function(seed, expr) {
  old <- get0(".Random.seed", envir = globalenv(), inherits = FALSE)
  on.exit(if (is.null(old)) rm(".Random.seed", envir = globalenv()) else
    assign(".Random.seed", old, envir = globalenv()))
  set.seed(seed, kind = "Mersenne-Twister", normal.kind = "Inversion", sample.kind = "Rejection")
  expr
}
`%||%` <- function(a, b) if (is.null(a) || (length(a)==1 && is.na(a))) b else a
args <- commandArgs(TRUE); nm <- args[1]
samp <- if (length(args) > 1 && nzchar(args[2])) eval(parse(text = args[2])) else NULL
extra <- if (length(args) > 2) eval(parse(text = args[3])) else list()
tag <- if (length(args) > 3) args[4] else "x"
dir <- Sys.getenv("BNNMC_DATA_DIR", file.path("..", "shared", "data", "uci"))
d <- bnn_read_uci(nm, dir = dir)
i <- with_seed(1, sample(nrow(d), round(0.8 * nrow(d))))
train <- d[i, ]; test <- d[-i, ]
a <- c(list(y ~ ., data = train, seed = 1, progress = FALSE), extra)
if (!is.null(samp)) { a$sampler <- samp; a$init <- "ensemble"; a$ensemble <- bnn_optimizer_preset("mile") }
t0 <- proc.time()[[3]]
fit <- suppressWarnings(do.call(bnn_fit, a))
el <- proc.time()[[3]] - t0
cv <- fit$convergence
m <- bnn_metrics(fit, test)
S <- dim(fit$draws)[1]; K <- dim(fit$draws)[2]
fs <- bnnmc:::function_draws(fit, seq_len(nrow(fit$X)))
ll <- matrix(fs$loglik, S, K)
iat <- apply(ll, 2, function(x) { a <- acf(x, lag.max = S/3, plot = FALSE)$acf[-1]; k <- which(a < 0.05)[1]; 1 + 2*sum(a[seq_len(max(1, (k %||% length(a)) - 1))]) })
# the training log-likelihood at each chain's start (its ensemble member; the
# last parameter of the start is log sigma) and its mean over the first and
# the last tenth of the kept draws
start_ll <- vapply(fit$inits, function(th) {
  if (bnnmc:::has_sigma(fit$spec)) th[length(th)] <- exp(th[length(th)])
  f1 <- fit; f1$chain_status <- "ok"
  f1$draws <- array(th, c(1L, 1L, length(th)), dimnames = list(NULL, NULL, dimnames(fit$draws)[[3]]))
  sum(bnnmc:::function_draws(f1, seq_len(nrow(fit$X)))$loglik)
}, numeric(1))
tenth <- function(x, i) mean(x[seq(floor((i - 1) * S / 10) + 1, floor(i * S / 10))])
cat(sprintf("%s %s start_ll=%s ll_tenth1=%s ll_tenth10=%s\n", nm, tag,
  paste(round(start_ll), collapse = ","), paste(round(apply(ll, 2, tenth, 1)), collapse = ","),
  paste(round(apply(ll, 2, tenth, 10)), collapse = ",")))
cat(sprintf("%s %s conv=%s cwLL=%s q90=%s out=%d | eps=%s L=%s | iat_ll=%s | sig=%.4f | rmse=%.3f lppd=%.3f cov90=%.3f | %.1fs\n",
  nm, tag, cv$converged, paste(round(cv$chains$rhat_loglik, 3), collapse = ","), paste(round(cv$chains$rhat_f_q90, 3), collapse=","),
  sum(cv$chains$outlier), paste(signif(fit$stepsize, 3), collapse=","), paste(signif(fit$L, 3), collapse=","),
  paste(round(iat), collapse=","), median(fit$draws[, , dim(fit$draws)[3]]), m$rmse, m$lppd, m$coverage_90, el))
st <- fit$sampler_stats; cat("stats vars:", dimnames(st)[[3]], "\n"); for (v in dimnames(st)[[3]]) cat(v, signif(apply(st[, , v], 2, function(z) c(min(z), median(z), max(z))), 3), "\n"); cat("reverted", fit$n_reverted, "\n")
saveRDS(list(ll = ll, sig = fit$draws[, , dim(fit$draws)[3]], draws = if (Sys.getenv("SAVEDRAWS") == "1") fit$draws), file.path(Sys.getenv("BNNMC_DIAG_DIR", tempdir()), sprintf("%s_%s.rds", nm, tag)))

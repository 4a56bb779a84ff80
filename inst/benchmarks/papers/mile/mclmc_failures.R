# Sommer et al. (2025), Table 5: failure rates (% of chains with NaN) of naive
# MCLMC and of MILE, both started from deep-ensemble members.
#
#   Rscript inst/benchmarks/papers/mile/mclmc_failures.R [--datasets yacht,energy,concrete,airfoil]
#       [--chains 100] [--mile_chains 100] [--split 4] [--seed 4]
#       [--tune 40000,5000,5000] [--samples 10000] [--f32_steps 50]
#       [--f32_only FALSE] [--precision double|single|both]
#       [--init ensemble|random|prior] [--f32_flags FLAGS]
#       [--data DIR] [--out DIR] [--note TEXT]
#
# Run from the repository root (--precision single/both compile
# inst/benchmarks/f32 from src/).
#
# The setting of the reference code's experiments/feasibility/feas.yaml:
#   * data split 70/10/20 (bnn_split(protocol = "mile"), rep = --split; the
#     configuration's rng is 4), standardised as bnn_fit() does;
#   * network 16-16-16 ReLU with the heteroscedastic Gaussian head (2 outputs),
#     N(0, 1) prior: the configuration's hidden_structure [16, 16, 16, 2]
#     (the paper's text says "the same models as Table 1", i.e. 16-16);
#   * deep ensemble: AdamW, learning rate 0.01 (feas.yaml; MILE's UCI runs
#     use 0.001), weight decay 0.001, batch 32, at most 500 epochs, patience 10
#     on the validation set.  MILE's code trains one member per chain
#     (n_chains members, each with its own key and data shuffling), so
#     --chains members are trained here too; nothing is recycled;
#   * naive MCLMC: MILE's tuning code (40000/5000/5000 steps, num_effective_
#     samples 100, trust 1.5, no preconditioning, L0 = max(sqrt(d), 15))
#     with desired energy variance 5e-4 (constant) and initial step size 26.0,
#     then 10000 sampling steps thinned by 10, with BlackJAX 1.2.2's handling
#     of non-finite values (bnn_mclmc(tuning = "naive", stepsize = 26),
#     safeguard "blackjax");
#   * MILE: the same starts (the first --mile_chains members), MILE's tuning
#     (energy variance 0.5 -> 0.1, initial step size = the ensemble's
#     learning rate 0.01) and the same BlackJAX 1.2.2 handling of non-finite
#     values (MILE's code has the same handle_nans and an unchecked sampling
#     kernel), i.e. bnn_mclmc(safeguard = "blackjax").
# A chain fails when its position, momentum or gradient turns non-finite, or
# its step size NaN in tuning stages 1-2 (BlackJAX never recovers from that);
# see ?bnn_mclmc.  Chains run one after another in this process.
#
# One row per (dataset, method) is appended to <out>/mile_t5.csv: chains,
# failed chains, failure rate (%), the paper's rate, where the chains failed
# (phase:count), and for the chains that did not fail: how many are stuck
# (tuned step size below 1e-8), the median of their tuned step sizes and
# the median over chains of the median log posterior of their draws (lp__;
# compare with MILE's); then seconds (elapsed and CPU of the sampler; the
# ensemble separately), mean gradient evaluations per chain (failed chains
# stop early), settings, note and date.
#
# Single precision: MILE's code does not switch on JAX's 64-bit mode, so it
# ran in float32, where the squared gradient norm in the momentum update
# overflows as soon as |gradient| > sqrt(3.4e38) = 1.8e19; the momentum and
# the next position are then NaN, and a chain at such a point is lost.
# bnnmc computes in double precision.  Column f32_overflow counts the chains
# whose first --f32_steps tuning steps (replayed with the same seed and chain
# number, i.e. the trajectory of the fit) reach a state with a gradient
# norm above 1.8e19: an indication (not a replay of float32 arithmetic) of
# chains that float32 would have lost.  --f32_only TRUE computes only this
# column (the ensembles are retrained, cheaply) and fills it into the rows
# of the same date already in the CSV.
#
# --precision single|both: a real single-precision replay.  Every chain of
# naive MCLMC and of MILE is also run (single: only) by the package's own
# numerical core compiled with `double` meaning `float`
# (inst/benchmarks/f32: src/model/model.c with the generic kernels, src/mcmc/mclmc.c,
# the same tuning and BlackJAX safeguard, unsuffixed constants in float,
# float libm; the random numbers are the package's, computed in double and
# rounded), from the same starts, seed and chain numbers as the double
# fits.  Rows with method "naive MCLMC (float32 replay)" / "MILE (float32
# replay)" have the same columns (f32_overflow NA; seconds are the
# replay's, generic kernels compiled with --f32_flags, by default
# "-march=native -ffp-contract=off -fvect-cost-model=dynamic": vectorised,
# no fused multiply-add, so the results equal those of R's -O2 build).
# Before any chain runs, the replay compiled with `double` kept must give
# the package's draws bit for bit (kernels forced to the generic ones,
# naive and MILE tuning on yacht, shortened to 2000/500/500 + 1000 steps);
# the script stops otherwise (it also prints, as a sanity check, lp__ of two
# shortened float32 MILE chains next to the double ones).  One row per
# chain (both precisions: status, where it failed, tuned step size and L,
# gradients, median lp__, seconds; for the replay also the energy error,
# step size, L and log density of the last tuning step, i.e. the failing
# one of a chain that failed in tuning; with the replay, the energy error of
# the first tuning step in both precisions) goes to <out>/mile_t5_chains.csv.
#
# --init ensemble (default, as in the paper): chains start from deep-
# ensemble members; random / prior: from bnn_fit()'s init = "random"
# (uniform(-2, 2)) or "prior" draws (no ensemble is trained; MILE's initial
# step size is then bnnmc's default 1e-3).  The init is recorded in the
# settings column.
#
# Internals (bnnmc:::C_kchain_*, sampler_kernel(), mclmc_tune_steps(),
# fit_spec(), C_model_logpost): it runs and inspects chains one at a time,
# below bnn_fit(), to see where each chain fails.
library(bnnmc)

opt <- list(datasets = "yacht,energy,concrete,airfoil", chains = "100", mile_chains = "",
            split = "4", seed = "4", tune = "40000,5000,5000", samples = "10000",
            f32_steps = "50", f32_only = "FALSE", precision = "double", init = "ensemble",
            f32_flags = "-march=native -ffp-contract=off -fvect-cost-model=dynamic",
            data = "", out = file.path("inst", "benchmarks", "papers", "mile"), note = "")
a <- commandArgs(trailingOnly = TRUE)
for (i in seq(1, length(a), by = 2)) opt[[sub("^--", "", a[i])]] <- a[i + 1]
data_dir <- if (nzchar(opt$data)) opt$data else
  Sys.getenv("BNNMC_DATA_DIR", file.path("..", "shared", "data", "uci"))
datasets <- strsplit(opt$datasets, ",")[[1]]
chains <- as.integer(opt$chains)
mile_chains <- if (nzchar(opt$mile_chains)) as.integer(opt$mile_chains) else chains
stopifnot(mile_chains <= chains)
split <- as.integer(opt$split)
seed <- as.integer(opt$seed)
n_tune <- as.integer(strsplit(opt$tune, ",")[[1]])
n_samples <- as.integer(opt$samples)
f32_steps <- as.integer(opt$f32_steps)
f32_only <- as.logical(opt$f32_only)
precision <- match.arg(opt$precision, c("double", "single", "both"))
run_double <- precision %in% c("double", "both")
run_single <- precision %in% c("single", "both")
init_kind <- match.arg(opt$init, c("ensemble", "random", "prior"))
if (f32_only && (run_single || init_kind != "ensemble"))
  stop("--f32_only TRUE goes with --precision double and --init ensemble")
hidden <- c(16, 16, 16)
paper <- c(airfoil = 86, concrete = 80, energy = 78, yacht = 85)
dir.create(opt$out, showWarnings = FALSE, recursive = TRUE)
out_file <- file.path(opt$out, "mile_t5.csv")
chain_file <- file.path(opt$out, "mile_t5_chains.csv")

if (run_single) {
  source(file.path("inst", "benchmarks", "f32", "f32.R"))
  # the replay in double precision must reproduce the package first
  sym_double <- f32_build(FALSE, flags = opt$f32_flags)
  sym_single <- f32_build(TRUE, flags = opt$f32_flags)
  cat("Validation: replay compiled in double precision vs the package (generic kernels)\n")
  f32_validate(sym_double, data_dir, seed = seed, sym_single = sym_single)
  cat("validation passed\n")
}

naive_sampler <- bnn_mclmc(tuning = "naive", stepsize = 26, n_tune = n_tune,
                           n_samples = n_samples)
mile_sampler <- bnn_mclmc(safeguard = "blackjax", n_tune = n_tune, n_samples = n_samples)
protocol_changed <- !identical(n_tune, c(40000L, 5000L, 5000L)) || n_samples != 10000L

timed <- function(expr) {
  t0 <- proc.time()
  val <- suppressWarnings(force(expr))   # failed chains are counted below
  t <- proc.time() - t0
  list(value = val, seconds = t[["elapsed"]],
       cpu = sum(t[c("user.self", "sys.self", "user.child", "sys.child")], na.rm = TRUE))
}

# Chains whose first n_steps tuning steps reach a gradient norm above
# sqrt(.Machine float max) (see the header), replayed chain by chain.
f32_limit <- sqrt(3.4028234663852886e38)
f32_overflow <- function(fit, sampler, n_steps) {
  if (n_steps <= 0) return(NA_integer_)
  spec <- bnnmc:::fit_spec(fit)
  lr <- if (!is.null(fit$ensemble)) fit$ensemble$optimizer$lr else NULL
  hit <- vapply(seq_len(fit$chains), function(k) {
    init <- fit$inits[[k]]
    kern <- bnnmc:::sampler_kernel(sampler, sum(bnnmc:::mclmc_tune_steps(sampler)),
                                   sampler$n_samples, length(init), lr)
    xp <- .Call(bnnmc:::C_kchain_new, "mclmc", spec, as.double(init), fit$seed, k,
                kern$settings)
    gnorm <- function() {
      pos <- .Call(bnnmc:::C_kchain_info, xp)$position
      sqrt(sum(.Call(bnnmc:::C_model_logpost, spec, pos)$grad^2))
    }
    worst <- gnorm()
    for (i in seq_len(min(n_steps, sampler$n_tune[1]))) {
      res <- .Call(bnnmc:::C_kchain_run, xp, 1L, integer(0))
      if (res$info$status != 0L) break
      worst <- max(worst, gnorm(), na.rm = TRUE)
    }
    worst > f32_limit
  }, logical(1))
  sum(hit)
}

phases <- c("stage1", "stage2", "stage3", "sampling")

# "phase:count;..." of the phases where the failed chains stopped
failed_in <- function(fail_phase) {
  if (!length(fail_phase)) return("")
  tab <- table(factor(fail_phase, levels = phases))
  tab <- tab[tab > 0]
  paste(names(tab), tab, sep = ":", collapse = ";")
}

# the note column: reduced chain counts, a changed protocol, --note
row_note <- function(reduced) {
  paste(c(reduced, if (protocol_changed)
    sprintf("tuning %s and %d sampling steps instead of 40000/5000/5000 and 10000",
            paste(n_tune, collapse = "/"), n_samples),
    if (nzchar(opt$note)) opt$note), collapse = "; ")
}

row_of <- function(ds, method, fit, t, paper_rate, settings, reduced) {
  failed <- fit$chain_status != "ok"
  where <- failed_in(fit$failed_at$phase[failed])
  note <- row_note(reduced)
  data.frame(table = "mile_t5", dataset = ds, method = method, chains = fit$chains,
             failed = sum(failed), failure_rate = 100 * mean(failed),
             paper_rate = paper_rate, failed_in = where,
             stuck = sum(!failed & fit$stepsize < 1e-8),
             stepsize_median = if (any(!failed)) stats::median(fit$stepsize[!failed]) else NA,
             lp_median = if (any(!failed))
               stats::median(apply(fit$sampler_stats[, !failed, "lp__", drop = FALSE], 2,
                                   stats::median)) else NA,
             seconds = t$seconds, cpu_seconds = t$cpu,
             grads_per_chain = mean(fit$n_grad), f32_overflow = NA_integer_,
             de_seconds = NA_real_, settings = settings, note = note,
             date = format(Sys.Date()), stringsAsFactors = FALSE)
}

write_row <- function(row) {
  new <- !file.exists(out_file)
  utils::write.table(row, out_file, sep = ",", row.names = FALSE, col.names = new,
                     append = !new, qmethod = "double")
  print(row[, c("dataset", "method", "chains", "failed", "failure_rate", "paper_rate",
                "failed_in", "stuck", "stepsize_median", "lp_median", "seconds",
                "grads_per_chain", "f32_overflow")], row.names = FALSE)
}

write_chains <- function(df) {
  new <- !file.exists(chain_file)
  utils::write.table(df, chain_file, sep = ",", row.names = FALSE, col.names = new,
                     append = !new, qmethod = "double")
}

# Energy error of each chain's first tuning step (from the same start, RNG
# stream, step size and L) in double and in single precision, by the
# replay run for one step: float32 loses a chain at once when it exceeds
# sqrt(3.4e38) = 1.8e19 (its square, in the step-size estimator, is Inf).
first_step_de <- function(sampler, k, setup) {
  one <- sampler
  one$n_tune <- c(1L, 0L, 0L)
  one$n_samples <- 0L
  t(vapply(seq_len(k), function(cid) {
    de <- function(sym) f32_chain(sym, setup$spec, setup$inits[[cid]], seed, cid, one,
                                  setup$lr)$res[["last_energy_change"]]
    c(first_de_double = de(sym_double), first_de_single = de(sym_single))
  }, numeric(2)))
}

# per-chain rows of a double-precision fit
chains_of_fit <- function(ds, method, fit) {
  lp <- fit$sampler_stats[, , "lp__", drop = FALSE]
  data.frame(dataset = ds, method = method, precision = "double", init = init_kind,
             chain = seq_len(fit$chains),
             status = ifelse(grepl("^non-finite state", fit$chain_status), "nonfinite",
                             as.character(fit$chain_status)),
             fail_phase = fit$failed_at$phase, fail_step = fit$failed_at$step,
             fail_reason = fit$failed_at$reason, stepsize = fit$stepsize, L = fit$L,
             n_grad = fit$n_grad, lp_median = apply(lp, 2, stats::median),
             seconds = fit$timing$warmup + fit$timing$sampling,
             last_energy_change = NA_real_, last_stepsize = NA_real_, last_L = NA_real_,
             last_logdens = NA_real_, date = format(Sys.Date()), stringsAsFactors = FALSE)
}

# All chains of one method through the float32 replay, from the starts of
# the double fit (same seed and chain numbers).  Returns list(row, chains).
replay_single <- function(ds, method, sampler, k, setup, paper_rate, settings, reduced) {
  t0 <- proc.time()
  per <- lapply(seq_len(k), function(cid) {
    t1 <- proc.time()[["elapsed"]]
    r <- f32_chain(sym_single, setup$spec, setup$inits[[cid]], seed, cid, sampler,
                   setup$lr)
    res <- r$res
    st <- res[["status"]]
    failed <- st != 0
    data.frame(dataset = ds, method = method, precision = "single", init = init_kind,
               chain = cid,
               status = c("ok", "bad_init", "stepsize", "nonfinite")[st + 1],
               fail_phase = if (res[["fail_phase"]] > 0) phases[res[["fail_phase"]]] else NA,
               fail_step = if (res[["fail_phase"]] > 0) res[["fail_step"]] else NA,
               fail_reason = if (res[["fail_phase"]] > 0)
                 c("state", "stepsize")[res[["fail_reason"]]] else NA,
               stepsize = res[["stepsize"]], L = res[["L"]], n_grad = res[["n_grad"]],
               lp_median = if (failed) NA else stats::median(r$lp),
               seconds = proc.time()[["elapsed"]] - t1,
               last_energy_change = res[["last_energy_change"]],
               last_stepsize = res[["last_stepsize"]], last_L = res[["last_L"]],
               last_logdens = res[["last_logdens"]],
               date = format(Sys.Date()), stringsAsFactors = FALSE)
  })
  per <- do.call(rbind, per)
  t <- proc.time() - t0
  failed <- per$status != "ok"
  where <- failed_in(per$fail_phase[failed])
  note <- row_note(reduced)
  row <- data.frame(table = "mile_t5", dataset = ds, method = method, chains = k,
                    failed = sum(failed), failure_rate = 100 * mean(failed),
                    paper_rate = paper_rate, failed_in = where,
                    stuck = sum(!failed & per$stepsize < 1e-8),
                    stepsize_median = if (any(!failed)) stats::median(per$stepsize[!failed]) else NA,
                    lp_median = if (any(!failed)) stats::median(per$lp_median[!failed]) else NA,
                    seconds = t[["elapsed"]],
                    cpu_seconds = sum(t[c("user.self", "sys.self")]),
                    grads_per_chain = mean(per$n_grad), f32_overflow = NA_integer_,
                    de_seconds = NA_real_,
                    settings = paste0(settings, "; float32 replay of the package's core ",
                                      "(generic kernels, ", opt$f32_flags, ")"),
                    note = note, date = format(Sys.Date()), stringsAsFactors = FALSE)
  list(row = row, chains = per)
}

common <- sprintf(paste0("16-16-16 ReLU, heteroscedastic head, N(0,1) prior; split rep %d ",
                         "(70/10/20); %s; safeguard blackjax (BlackJAX 1.2.2)"),
                  split,
                  if (init_kind == "ensemble")
                    sprintf(paste0("init ensemble (DE: adamw lr 0.01 wd 0.001 batch 32 ",
                                   "patience 10, one member per chain, seed %d)"), seed)
                  else sprintf("init %s (bnn_fit, seed %d)", init_kind, seed))
results <- list()
for (ds in datasets) {
  d <- bnn_read_uci(ds, dir = data_dir)
  sp <- bnn_split(d, protocol = "mile", rep = split)
  de <- if (init_kind == "ensemble")
    timed(bnn_fit_ensemble(y ~ ., data = sp$train, members = chains, hidden = hidden,
                       likelihood = "hetero_gaussian",
                       activation = "relu",
                       optimizer = bnn_optimizer_preset("mile", lr = 0.01),
                       valid_data = sp$valid, seed = seed, progress = FALSE)) else
    list(value = init_kind, seconds = NA_real_)
  dim_theta <- if (init_kind == "ensemble") length(de$value$parameters) else
    bnn_n_parameters(c(ncol(sp$train) - 1L, hidden, 2L))
  if (f32_only) {
    # only the single-precision indicator, filled into today's rows; the
    # fits are set up without running them (no tuning or sampling steps)
    shell <- function(sampler, k)
      suppressWarnings(bnn_fit(y ~ ., data = sp$train, hidden = hidden, activation = "relu",
                               likelihood = "hetero_gaussian",
                               sampler = bnn_mclmc(tuning = sampler$tuning, n_tune = c(0, 0, 0),
                                                   n_samples = 0, stepsize = 1),
                               chains = k, init = de$value, seed = seed, progress = FALSE))
    old <- utils::read.csv(out_file, stringsAsFactors = FALSE)
    if (is.null(old$f32_overflow)) {
      # a CSV written before the column existed: insert it where runs put it
      old$f32_overflow <- NA_integer_
      at <- match("grads_per_chain", names(old))
      old <- old[, c(names(old)[seq_len(at)], "f32_overflow",
                     setdiff(names(old)[-seq_len(at)], "f32_overflow"))]
    }
    for (m in c("naive MCLMC", "MILE")) {
      smp <- if (m == "MILE") mile_sampler else naive_sampler
      k <- if (m == "MILE") mile_chains else chains
      i <- which(old$dataset == ds & old$method == m & old$chains == k &
                 old$date == format(Sys.Date()))
      old$f32_overflow[i] <- f32_overflow(shell(smp, k), smp, f32_steps)
      cat(ds, m, "f32_overflow:", old$f32_overflow[i], "\n")
    }
    utils::write.csv(old, out_file, row.names = FALSE)
    next
  }
  reduced1 <- if (chains < 100) sprintf("%d of the paper's 100 chains (machine budget)", chains) else ""
  set1 <- sprintf(paste0("MILE tuning code %s, energy var 5e-4 constant, eps0 26, ",
                         "L0 sqrt(d) = %.1f (d = %d), %d sampling steps thin 10; %s"),
                  paste(n_tune, collapse = "/"), sqrt(dim_theta), dim_theta, n_samples,
                  common)
  reduced2 <- if (mile_chains < 100)
    sprintf("%d of the paper's 100 chains, started from the first %d %s (machine budget)",
            mile_chains, mile_chains,
            if (init_kind == "ensemble") "members" else "starts") else ""
  set2 <- sprintf(paste0("MILE tuning %s, energy var 0.5 -> 0.1, eps0 = %s, ",
                         "L0 max(sqrt(d), 15), %d sampling steps thin 10; %s"),
                  paste(n_tune, collapse = "/"),
                  if (init_kind == "ensemble") "DE lr 0.01" else "1e-3 (no ensemble)",
                  n_samples, common)
  methods <- list(
    list(name = "naive MCLMC", sampler = naive_sampler, k = chains, paper = paper[[ds]],
         settings = set1, reduced = reduced1),
    list(name = "MILE", sampler = mile_sampler, k = mile_chains, paper = 0,
         settings = set2, reduced = reduced2))
  for (m in methods) {
    fde <- matrix(NA_real_, m$k, 2, dimnames = list(NULL, c("first_de_double",
                                                           "first_de_single")))
    if (run_single) {
      setup <- f32_setup(y ~ ., sp$train, hidden, "relu", m$k, de$value, seed)
      fde <- first_step_de(m$sampler, m$k, setup)
    }
    if (run_double) {
      fit <- timed(bnn_fit(y ~ ., data = sp$train, hidden = hidden, activation = "relu",
                           likelihood = "hetero_gaussian",
                           sampler = m$sampler, chains = m$k, init = de$value,
                           seed = seed, progress = FALSE))
      r <- row_of(ds, m$name, fit$value, fit, m$paper, m$settings, m$reduced)
      r$de_seconds <- de$seconds
      r$f32_overflow <- f32_overflow(fit$value, m$sampler, f32_steps)
      write_row(r)
      pc <- chains_of_fit(ds, m$name, fit$value)
      pc <- cbind(pc[names(pc) != "date"], fde, pc["date"])
      write_chains(pc)
      results[[length(results) + 1L]] <- r
    }
    if (run_single) {
      rs <- replay_single(ds, paste(m$name, "(float32 replay)"), m$sampler, m$k, setup,
                          m$paper, m$settings, m$reduced)
      rs$row$de_seconds <- de$seconds
      write_row(rs$row)
      write_chains(cbind(rs$chains[names(rs$chains) != "date"], fde, rs$chains["date"]))
      results[[length(results) + 1L]] <- rs$row
    }
  }
}

if (f32_only) quit(save = "no")
res <- do.call(rbind, results)
cat("\nTable 5 (% of chains with NaN): bnnmc vs Sommer et al. (2025)\n")
tab <- data.frame(dataset = unique(res$dataset))
for (m in c("naive MCLMC", "naive MCLMC (float32 replay)", "MILE", "MILE (float32 replay)")) {
  sub <- res[res$method == m, ]
  if (!nrow(sub)) next
  sub <- sub[match(tab$dataset, sub$dataset), ]
  tab[[m]] <- sprintf("%.0f%% (%d/%d)", sub$failure_rate, sub$failed, sub$chains)
  if (!grepl("float32", m)) tab[[paste(m, "(paper)")]] <- sprintf("%.0f%%", sub$paper_rate)
  if (grepl("^naive", m))
    tab[[paste(m, "failed or stuck")]] <- sprintf("%.0f%%", 100 * (sub$failed + sub$stuck) / sub$chains)
}
print(tab, row.names = FALSE)
cat("(stuck: finite chains whose tuned step size is below 1e-8)\n")
cat("load average (1 min) at the end:",
    tryCatch(strsplit(readLines("/proc/loadavg"), " ")[[1]][1], error = function(e) NA), "\n")
cat("results appended to", out_file, "and", chain_file, "(per chain)\n")

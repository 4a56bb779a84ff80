# Speed of the symmetry tools (vignette("symmetry")) at the sizes of the
# paper's experiments, against these speed criteria:
#   1. canonicalising 1274 chains x 1000 draws of a 3 x 16 tanh network
#      (bnn_remove_symmetries(), a [1000, 1274, 594] array, 6 GB): < 2 s;
#   2. 1274 chains x (1024 warm-up + 1) NUTS iterations of f1 (1 x 3 tanh)
#      on D_S (sinusoidal, the paper's split and setup) end to end with
#      future::plan(multicore, workers = 2): < 60 s; plus the split of that
#      time into NUTS work (gradients, tree depths) and per-chain overhead
#      (1274 chains x (0 + 1) iterations: R, future, set-up, assembly);
#   3. bnn_modes() on 1274 one-draw chains of f1 (1274 x 3 neuron
#      vectors): < 5 s;
# and the paper's removal (k = 64) for reference.  Elapsed time and CPU time
# (user + system of this process and its finished children), which on a
# shared machine is the better measure; the 1-minute load average before
# and after each task.  Big tasks run once, bnn_modes() `reps` times
# (medians).  Run it alone, under nice, in the background:
#   BNNMC_DATA_DIR=/work/shared/data/uci nice -n 10 \
#     Rscript inst/benchmarks/speed/symmetry_speed.R [reps] [tasks] > symmetry_speed.log 2>&1 &
# Writes inst/benchmarks/speed/symmetry_speed.csv.  Needs about 13 GB of
# memory (the draws array and its canonical copy).
suppressMessages(library(bnnmc))
a <- commandArgs(trailingOnly = TRUE)
reps <- if (length(a)) as.integer(a[1]) else 3L
# optional second argument: the tasks to run (canonical, nuts, modes,
# paper), comma-separated; their rows replace those of the same tasks in
# the existing CSV, the other rows are kept
tasks <- if (length(a) > 1L) strsplit(a[2], ",")[[1]] else c("canonical", "nuts", "modes", "paper")
do <- function(task) task %in% tasks
out <- file.path("inst", "benchmarks", "speed", "symmetry_speed.csv")
data_dir <- Sys.getenv("BNNMC_DATA_DIR", file.path("..", "shared", "data", "uci"))
load1 <- function() {
  l <- tryCatch(readLines("/proc/loadavg", n = 1L, warn = FALSE), error = function(e) "")
  suppressWarnings(as.numeric(strsplit(l, " ")[[1]][1]))
}
timed <- function(expr) {
  l0 <- load1()
  st <- system.time(val <- force(expr))
  list(value = val, elapsed = st[["elapsed"]],
       cpu = sum(st[c("user.self", "sys.self")]) + sum(st[c("user.child", "sys.child")], na.rm = TRUE),
       load_before = l0, load_after = load1())
}
rows <- list()
add <- function(task, size, t, target, threads, note = "") {
  rows[[length(rows) + 1L]] <<- data.frame(
    task = task, size = size, seconds = t$elapsed, cpu_seconds = t$cpu, target_seconds = target,
    threads = threads, load_before = t$load_before, load_after = t$load_after, note = note,
    date = format(Sys.Date()))
  print(rows[[length(rows)]], row.names = FALSE)
}

G <- 1274L
# the one-draw chains of f1 that bnn_modes() and the paper's removal use
modes_fit <- function() {
  suppressWarnings(bnn_fit(y ~ x, bnn_paper_symmetry_data("sinusoidal", seed = 1), hidden = 3,
                           chains = G, warmup = 5, iter = 1, seed = 1, sampler = bnn_nuts(),
                           likelihood = bnn_likelihood("gaussian"), progress = FALSE))
}

# 1. canonical form of 1274 x 1000 draws of a 3 x 16 tanh network (draws
#    repeat a block of 8 x 1274 normal vectors: the time does not depend on
#    the values, and filling 6 GB with rnorm() would take minutes)
if (do("canonical")) {
  sizes <- c(1L, 16L, 16L, 16L, 1L)
  d <- bnn_n_parameters(sizes) + 1L
  n_it <- 1000L
  set.seed(1)
  arr <- array(rep_len(stats::rnorm(8 * G * d), n_it * G * d), c(n_it, G, d))
  # twice each, alternating: the first run also pays for making room for the
  # 6 GB result (page faults, huge-page compaction)
  for (th in c(2L, 1L, 2L, 1L)) {
    options(bnnmc.threads = th)
    t <- timed(bnn_remove_symmetries(arr, sizes = sizes, activation = "tanh"))
    t$value <- NULL
    invisible(gc())
    add("canonical, 3x16 tanh", sprintf("%d chains x %d draws", G, n_it), t, 2, th,
        sprintf("%.2f us per draw elapsed", t$elapsed / (G * n_it) * 1e6))
  }
  options(bnnmc.threads = NULL)
  rm(arr, t)
  invisible(gc())
}

# 2. the paper's "MCMC (ours)" fit of f1 on D_S, end to end, 2 workers
if (do("nuts")) {
  dd <- bnn_read_uci("sinusoidal", dir = data_dir)
  sp <- bnn_paper_uci_splits("sinusoidal", dir = data_dir)
  train <- bnn_standardize(dd[sp$train, ], test = dd[sp$test, ], stats = "full")$train
  lik <- bnn_likelihood("gaussian", sigma_prior = "half_normal", sigma_prior_scale = 1)
  f1_fit <- function(warmup, precision = "double") {
    suppressWarnings(bnn_fit(y ~ ., train, hidden = 3, activation = "tanh", likelihood = lik,
                             prior = bnn_prior(), sampler = bnn_nuts(max_treedepth = 10),
                             chains = G, warmup = warmup, iter = 1, seed = 0,
                             standardize = FALSE, progress = FALSE, precision = precision))
  }
  future::plan(future::multicore, workers = 2)
  # the paper's protocol (double precision), then the same fit in single
  # precision (the float32 network kernels)
  for (prec in c("double", "single")) {
    t <- timed(f1_fit(1024L, prec))
    fit <- t$value
    t$value <- NULL
    in_chain <- sum(fit$timing$warmup + fit$timing$sampling)
    depth <- fit$warmup_stats[, , "treedepth__"]
    grads <- sum(fit$n_grad)
    add(sprintf("f1 on D_S, NUTS 1024 + 1, end to end%s",
                if (prec == "single") ", single precision" else ""),
        sprintf("%d chains", G), t, 60, 2,
        sprintf(paste("%d chains ok; gradients per chain: median %.0f, mean %.0f; tree depth",
                      "(warm-up) median %g, mean %.2f; time inside the chains %.1f s",
                      "(%.2f us per gradient incl. NUTS)"),
                sum(fit$chain_status == "ok"), stats::median(fit$n_grad), mean(fit$n_grad),
                stats::median(depth), mean(depth), in_chain, in_chain / grads * 1e6))
    rm(fit)
  }
  t <- timed(f1_fit(0L))
  fit <- t$value
  t$value <- NULL
  add("f1 on D_S, 0 + 1 iterations (per-chain overhead)", sprintf("%d chains", G), t, NA, 2,
      sprintf("%.2f ms elapsed and %.2f ms CPU per chain; time inside the chains %.2f s",
              t$elapsed / G * 1e3, t$cpu / G * 1e3,
              sum(fit$timing$warmup + fit$timing$sampling)))
  future::plan(future::sequential)
  t <- timed(f1_fit(0L))
  t$value <- NULL
  add("f1 on D_S, 0 + 1 iterations (per-chain overhead)", sprintf("%d chains", G), t, NA, 1,
      sprintf("sequential plan: %.2f ms elapsed and %.2f ms CPU per chain",
              t$elapsed / G * 1e3, t$cpu / G * 1e3))
  rm(fit)
}

# 3. bnn_modes() on 1274 one-draw chains of f1 (1274 x 3 neuron vectors)
if (do("modes")) {
  fit <- modes_fit()
  ts <- lapply(seq_len(reps), function(i) {
    r <- timed(bnn_modes(fit))
    r$value <- NULL
    r
  })
  med <- function(f) stats::median(vapply(ts, function(r) r[[f]], 0))
  t <- list(elapsed = med("elapsed"), cpu = med("cpu"), load_before = ts[[1]]$load_before,
            load_after = ts[[reps]]$load_after)
  add("bnn_modes, f1", sprintf("%d chains x 1 draw", G), t, 5, 1,
      sprintf("median of %d runs", reps))
}

# 4. the paper's removal with k = 64 (k = 1024, the paper's, is much slower
#    in this R implementation)
if (do("paper")) {
  if (!exists("fit", inherits = FALSE)) fit <- modes_fit()
  t <- timed(bnn_remove_symmetries(fit, method = "paper", k = 64))
  t$value <- NULL
  add("paper removal (k = 64), f1", sprintf("%d chains x 1 draw", G), t, NA, 1, "1 run")
}

res <- do.call(rbind, rows)
task_of <- function(x) ifelse(grepl("^canonical", x), "canonical",
                              ifelse(grepl("^f1 on D_S", x), "nuts",
                                     ifelse(grepl("^bnn_modes", x), "modes", "paper")))
if (length(tasks) < 4L && file.exists(out)) {
  old <- utils::read.csv(out, stringsAsFactors = FALSE)
  res <- rbind(old[!task_of(old$task) %in% tasks, ], res)
  res <- res[order(match(task_of(res$task), c("canonical", "nuts", "modes", "paper"))), ]
}
print(res, row.names = FALSE)
utils::write.csv(res, out, row.names = FALSE)

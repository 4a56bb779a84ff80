# Staber and Da Veiga's Table 2 (AF#1) with the samplers of bnnmc: coverage
# over many training sets (MCP with its Monte Carlo SE, MAE of CCP), Q^2,
# function-space MMD^2 to a per-set HMC reference, and cost.  Sourced by
# reproduce.R for --table coverage_t2 (and coverage_t4, coverage_t5, coverage_t6: the
# paper's Tables 4-6, AF#2-AF#4, with NUTS, MILE and deep ensembles):
#
#   nice -n 10 Rscript inst/benchmarks/papers/reproduce.R --table coverage_t2 --sets 50 \
#       --workers 1 [--jobs DIR] [--seed 2022] [--families exact,sg,approx] [--note TEXT]
#
# Every finished (set, method) job is saved in --jobs (default
# coverage_t2_jobs/ in the working directory), so an interrupted run resumes and
# a larger --sets adds training sets.  Writes <out>/coverage_t2.csv (one row per
# method configuration and per method family's best configuration, beside
# the paper's values), <out>/coverage_t2_mcp.csv.gz (MCP against the level; gzip keeps the installed package small) and
# <out>/coverage_t2_points.csv.gz (PICP per set and CCP per test point at 0.95).
#
# Budget actually run (a 2-core machine shared with other jobs; the paper
# used 500 sets and 10^5-iteration runs): see the `note` column.
#   hmc      static HMC reference, 3 chains x (100 burn-in + 100 kept),
#            integration time 0.2 (about 150 leapfrog steps at the adapted
#            step size, the paper: 10,000), step size by dual averaging to
#            mean acceptance 0.9 during burn-in (paper: acceptance >= 0.8),
#            chains started at 3 Adam-trained networks
#   nuts     2 chains from random starts, 150 warm-up + 100 draws, tree
#            depth <= 7 (the posterior needs the full depth 10: 1023 steps)
#   dei      DEI-MCMC: 4 NUTS chains from a 4-member deep ensemble (Adam,
#            weight decay 0.01, 1000 epochs), 100 warm-up + 100 draws, tree
#            depth <= 7
#   mile     MILE: 4 MCLMC chains from a 4-member ensemble (MILE preset),
#            2000 tuning steps + 1000 sampling steps thinned by 10
#   ensemble deep ensembles of 10 members (paper: 200), Adam with weight
#            decay 0.01, 1000 full-batch epochs, over the paper's
#            learning-rate grid logspace(-4, -1, 10)
#   sg family, swag, mc_dropout, la-kfac: see sg_methods below (--families
#            exact,sg,approx picks the groups; the HMC reference is always
#            included; a study directory can be extended by a group later)
#
# --table coverage_boot: the bootstrap version on real data that the paper
# recommends, on concrete (16-16 ReLU, heteroscedastic Gaussian head,
# standardised data): 700 random rows, the first 500 resampled with
# replacement for each training set, the other 200 held out as the test
# set; a deep ensemble (5 members, MILE's preset) and MILE (4 chains, 2000
# tuning and 1000 sampling steps thinned by 10).  Writes <out>/coverage_boot.csv.
library(bnnmc)
# expr under set.seed(seed), leaving the script's own random stream as it was
with_seed <- function(seed, expr) {
  old <- get0(".Random.seed", envir = globalenv(), inherits = FALSE)
  on.exit(if (is.null(old)) rm(".Random.seed", envir = globalenv()) else
    assign(".Random.seed", old, envir = globalenv()))
  set.seed(seed, kind = "Mersenne-Twister", normal.kind = "Inversion", sample.kind = "Rejection")
  expr
}
n_sets <- as.integer(opt$sets %||% "10")
if (opt$table == "coverage_boot") {
  seed <- as.integer(opt$seed %||% "1")
  conc <- bnn_read_uci("concrete", dir = data_dir)
  i <- with_seed(seed, sample(nrow(conc), 700))
  # iter is the number of draws kept per chain: MILE runs 1000 sampling
  # steps thinned by 10 (as in the committed tables)
  methods <- list(
    bnn_method("ensemble", members = 5L, optimizer = bnn_optimizer_preset("mile")),
    bnn_method("mile", chains = 4L, warmup = 2000L, iter = 100L, thin = 10L))
  st <- bnn_coverage_study(conc[i[1:500], ], methods, n_sets = n_sets, formula = y ~ .,
                           test = conc[i[501:700], ],
                           model = list(hidden = c(16, 16), likelihood = "hetero_gaussian"),
                           seed = seed, dir = opt$jobs %||% "coverage_boot_jobs", progress = TRUE)
  print(st)
  s <- summary(st)
  s <- cbind(table = "coverage_boot", dataset = "concrete", s,
             note = sprintf("%d bootstrap resamples of 500 rows, 200 held-out test rows%s", n_sets,
                            if (nzchar(opt$note)) paste0("; ", opt$note) else ""),
             date = format(Sys.Date()))
  utils::write.csv(s, out_file, row.names = FALSE)
  quit(save = "no")
}
seed <- as.integer(opt$seed %||% "2022")
jobs_dir <- opt$jobs %||% paste0(opt$table, "_jobs")
af <- c(coverage_t2 = "AF1", coverage_t4 = "AF2", coverage_t5 = "AF3", coverage_t6 = "AF4")[[opt$table]]
task <- bnn_paper_task(af)
# Tables 4-6 (AF#2-AF#4): NUTS, MILE and deep ensembles over every third
# value of the learning-rate grid, no HMC reference (no MMD column), unless
# --families asks for more
t2 <- af == "AF1"
reference <- if (t2) "hmc" else NULL
lr_grid <- 10^seq(-4, -1, length.out = 10)
if (!t2) lr_grid <- lr_grid[c(1, 4, 7, 10)]
methods <- c(list(
  if (t2) bnn_method("hmc", trajectory_length = 0.2),
  bnn_method("nuts", chains = 2L, warmup = 150L, iter = 100L, max_treedepth = 7L),
  if (t2) bnn_method("dei", chains = 4L, warmup = 100L, iter = 100L, max_treedepth = 7L,
                     ensemble = bnn_optimizer_preset("dei", epochs = 1000)),
  bnn_method("mile", chains = 4L, warmup = 2000L, iter = 100L, thin = 10L)),
  lapply(lr_grid, function(lr)
    bnn_method("ensemble", members = 10L, label = sprintf("ensemble_lr%.2e", lr),
               optimizer = bnn_optimizer_preset("dei", epochs = 1000, lr = lr))))
methods <- Filter(Negate(is.null), methods)
# The stochastic-gradient family and the approximations (Table 2's other
# rows), on every 3rd value of the paper's 10-value grids (values 1, 4, 7,
# 10 of Table 3), with a budget of 10^4 gradients per run (paper 10^5):
# SGLD/pSGLD 5000 burn-in + 5000 steps, thinned by 10; SGHMC (10 leapfrog
# steps per transition) 500 + 500 transitions.  Every chain starts at the
# MAP (2000 Adam epochs), as in the paper and its code; CV uses the MAP as
# the fixed centre, SVRG refreshes it every 100 gradients.  Cyclical
# variants: M = 10 cycles over the run (the paper also 100 and 1000: not
# run, for time).  500 draws per configuration (SG: the kept draws;
# the approximations: draws = 500; the paper: 2000).  SWAG: the paper's
# learning rates times N = 100 (bnnmc's loss is per row), rank 20, 200
# epochs of batch-32 SGD from the MAP; MC dropout at rates 0.1, 0.2, 0.3
# with Adam at the two middle values of that grid (1e-3 and 1e-2: values 4
# and 7 of the paper's; for time); LA-KFAC with the prior precision by marginal
# likelihood (the paper's LA "step size" grid has no stated meaning).
fams <- strsplit(opt$families %||% (if (t2) "exact,sg,approx" else "exact"), ",")[[1]]
if (!all(fams %in% c("exact", "sg", "approx"))) stop("--families: exact, sg and/or approx")
grid4 <- function(a, b) 10^seq(a, b, length.out = 10)[c(1, 4, 7, 10)]
sg_runs <- function(label, make, eps, sghmc = grepl("sghmc", label)) {
  lapply(eps, function(e) bnn_method(
    if (sghmc) "sghmc" else if (grepl("psgld", label)) "psgld" else "sgld",
    label = sprintf("%s_lr%.2e", label, e),
    sampler = make(e), chains = 1L, warmup = if (sghmc) 500L else 5000L,
    iter = 500L, thin = if (sghmc) 1L else 10L))   # 500 draws kept (5000 SGLD steps)
}
sgld_eps <- grid4(-8, -5); sghmc_eps <- grid4(-8, -6)
sg_methods <- if ("sg" %in% fams) c(
  sg_runs("sgld", function(e) bnn_sgld(e, start = "map"), sgld_eps),
  sg_runs("sgld-cv", function(e) bnn_sgld(e, gradient = "cv"), sgld_eps),
  sg_runs("sgld-svrg", function(e) bnn_sgld(e, gradient = "svrg"), sgld_eps),
  sg_runs("sghmc", function(e) bnn_sghmc(e, start = "map"), sghmc_eps),
  sg_runs("sghmc-cv", function(e) bnn_sghmc(e, gradient = "cv"), sghmc_eps),
  sg_runs("sghmc-svrg", function(e) bnn_sghmc(e, gradient = "svrg"), sghmc_eps),
  unlist(lapply(10L, function(M) c(
    sg_runs(sprintf("csgld(%d)", M), function(e) bnn_sgld(e, cycles = M, start = "map"),
            sgld_eps),
    sg_runs(sprintf("csghmc(%d)", M), function(e) bnn_sghmc(e, cycles = M, start = "map"),
            sghmc_eps))), recursive = FALSE),
  sg_runs("psgld", function(e) bnn_psgld(e, start = "map"), grid4(-4, -1)))
approx_methods <- if ("approx" %in% fams) c(
  lapply(grid4(-7, -5) * 100, function(lr)
    bnn_method("swag", label = sprintf("swag_lr%.2e", lr), lr = lr, draws = 500L)),
  unlist(lapply(c(0.1, 0.2, 0.3), function(p) lapply(grid4(-4, -1)[2:3], function(lr)
    bnn_method("mc_dropout", label = sprintf("mc_dropout(%.1f)_lr%.2e", p, lr), dropout = p,
               draws = 500L, optimizer = bnn_optimizer(optimizer = "adam", lr = lr, weight_decay = 0,
                                         epochs = 1000, batch_size = 32,
                                         loss = "posterior")))), recursive = FALSE),
  list(bnn_method("laplace", label = "la-kfac", draws = 500L)))
# the HMC reference (methods[[1]]) is always part of the study
methods <- c(if ("exact" %in% fams) methods else if (t2) methods[1], sg_methods,
             approx_methods)
family <- function(lab) sub("_lr.*$", "", lab)

if (requireNamespace("progressr", quietly = TRUE)) progressr::handlers(global = FALSE)
t0 <- proc.time()
st <- bnn_coverage_study(task, methods, n_sets = n_sets, seed = seed, dir = jobs_dir,
                         reference = reference, progress = TRUE)
cat(sprintf("study: %.0f s elapsed\n", (proc.time() - t0)[["elapsed"]]))
print(st)

s <- summary(st)
s$family <- family(s$method)
s$accept <- tapply(st$jobs$accept, st$jobs$method, mean, na.rm = TRUE)[s$method]
s$stepsize <- tapply(st$jobs$stepsize, st$jobs$method, mean, na.rm = TRUE)[s$method]
s$cpu_seconds_total <- tapply(st$jobs$seconds, st$jobs$method, sum)[s$method]
paper <- utils::read.csv(file.path(here, "paper_tables.csv"))
paper <- paper[paper$table == opt$table, ]
pv <- function(method, metric) {
  v <- paper$value[paper$method == method & paper$metric == metric]
  if (length(v)) v[1] else NA_real_
}
paper_name <- c(ensemble = "Deep ensemble", swag = "SWAG", psgld = "pSGLD",
                "mc_dropout(0.1)" = "MC Drop.(0.1)", "mc_dropout(0.2)" = "MC Drop.(0.2)",
                "mc_dropout(0.3)" = "MC Drop.(0.3)")
for (f in c("sgld", "sgld-cv", "sgld-svrg", "sghmc", "sghmc-cv", "sghmc-svrg",
            sprintf("csgld(%d)", c(10, 100, 1000)), sprintf("csghmc(%d)", c(10, 100, 1000))))
  paper_name[f] <- toupper(f)
rows <- list()
add <- function(r, config, note) {
  pm <- paper_name[r$family]
  rows[[length(rows) + 1L]] <<- data.frame(
    table = opt$table, task = af, method = r$family, config = config, n_sets = r$n_sets,
    level = r$level, mcp = r$mcp, mcp_se = r$mcp_se, mae_ccp = r$mae_ccp, picp_sd = r$picp_sd,
    q2 = r$q2, q2_se = r$q2_se, width = r$width, mmd2_f_hmc = r$mmd_ref %||% NA_real_,
    accept = r$accept, stepsize = r$stepsize, rhat_f_max = r$rhat_max,
    seconds = r$seconds, grads = r$n_grad,
    paper_best_mcp = if (is.na(pm)) NA else pv(pm, "best_mcp"),
    paper_q2_at_best_mcp = if (is.na(pm)) NA else pv(pm, "q2_at_best_mcp"),
    paper_best_q2 = if (is.na(pm)) NA else pv(pm, "best_q2"),
    paper_mcp_at_best_q2 = if (is.na(pm)) NA else pv(pm, "mcp_at_best_q2"),
    date = format(Sys.Date()), note = paste(c(note, if (nzchar(opt$note)) opt$note), collapse = "; "),
    stringsAsFactors = FALSE)
}
budget <- sprintf("partial: %d training sets (paper 500); short runs, see inst/benchmarks/papers/coverage/coverage_study.R", n_sets)
for (i in seq_len(nrow(s))) add(s[i, ], s$method[i], budget)
for (f in unique(s$family)) {
  g <- s[s$family == f & s$n_sets > 0, ]
  if (nrow(g) < 2L) next
  b1 <- g[which.min(abs(g$mcp - g$level)), ]
  add(b1, paste("best MCP:", b1$method), budget)
  b2 <- g[which.max(g$q2), ]
  add(b2, paste("best Q2:", b2$method), budget)
}
res <- do.call(rbind, rows)
utils::write.csv(res, out_file, row.names = FALSE)
cur <- bnn_mcp_curve(st)
utils::write.csv(data.frame(method = rep(colnames(cur), each = nrow(cur)),
                            level = rep(st$levels, ncol(cur)), mcp = as.vector(cur)),
                 gzfile(sub("\\.csv$", "_mcp.csv.gz", out_file)), row.names = FALSE)
li <- which(abs(st$levels - 0.95) < 1e-9)
pts <- do.call(rbind, lapply(seq_along(st$methods), function(k) {
  I <- matrix(st$inside[, k, li, ], nrow = st$n_sets)
  I <- I[stats::complete.cases(I), , drop = FALSE]
  if (!nrow(I)) return(NULL)
  cm <- bnn_coverage_metrics(I, 0.95)
  rbind(data.frame(method = st$methods[k], kind = "picp", index = seq_along(cm$picp),
                   x = NA_real_, value = cm$picp),
        data.frame(method = st$methods[k], kind = "ccp", index = seq_along(cm$ccp),
                   x = st$test$x, value = cm$ccp))
}))
# PICP and CCP of the methods without a grid and of each family's best-MCP
# configuration (all 89 configurations would make the installed package
# too large), to 4 decimals
best_cfg <- sub("^best MCP: ", "", res$config[grepl("^best MCP", res$config)])
pts <- pts[!grepl("_lr", pts$method) | pts$method %in% best_cfg, ]
pts$x <- round(pts$x, 4)
pts$value <- round(pts$value, 4)
# gzipped: the per-point rows are large and only read back by read.csv()
utils::write.csv(pts, gzfile(sub("\\.csv$", "_points.csv.gz", out_file)), row.names = FALSE)
print(res[, c("method", "config", "n_sets", "mcp", "mcp_se", "mae_ccp", "q2", "mmd2_f_hmc",
              "seconds", "paper_best_mcp", "paper_best_q2")], row.names = FALSE)

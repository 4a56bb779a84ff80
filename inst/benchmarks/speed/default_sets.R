# The data sets of the default's benchmarks against BART
# (speed/default_vs_bart.R) and of the decisions on its budget
# (decisions/default_budget.R, decisions/default_sampling_phase.R) and the
# Student-t likelihood (decisions/default_student.R), each
# with the response renamed y, and their one 80/20 split; and BART as the
# benchmarks run it (also for decisions/default_likelihood*.R).  Sourced by
# those scripts; `dir` is where the UCI files are (BNNMC_DATA_DIR, by
# default ../shared/data/uci).
default_bench_sets <- function(dir = Sys.getenv("BNNMC_DATA_DIR",
                                                file.path("..", "shared", "data", "uci"))) list(
  mcycle = function() transform(MASS::mcycle, y = accel, accel = NULL),
  quakes = function() transform(quakes, y = mag, mag = NULL),
  Boston = function() transform(MASS::Boston, y = medv, medv = NULL),
  faithful = function() transform(faithful, y = eruptions, eruptions = NULL),
  yacht = function() bnn_read_uci("yacht", dir = dir),
  energy = function() bnn_read_uci("energy", dir = dir),
  concrete = function() bnn_read_uci("concrete", dir = dir),
  airfoil = function() bnn_read_uci("airfoil", dir = dir))

# The split: set.seed(100), 20% of the rows (rounded) to the test set;
# another `seed` gives another random split of the same sizes.
default_bench_split <- function(d, seed = 100) {
  set.seed(seed)
  te <- sample(nrow(d), round(0.2 * nrow(d)))
  list(train = d[-te, ], test = d[te, ])
}


# `n` random rows of a larger set, in their order (set.seed(20231)), or
# the set itself when it has at most `n`: the subsample of the decisions'
# larger sets (protein, bikesharing, the wine sets).
# Friedman's first function, the standard BART benchmark: `p` U(0, 1)
# inputs of which x1..x5 enter, y = 10 sin(pi x1 x2) + 20 (x3 - 0.5)^2 +
# 10 x4 + 5 x5 + N(0, 1); drawn after set.seed(seed).
bench_friedman <- function(n, p = 10, seed) {
  set.seed(seed)
  d <- as.data.frame(matrix(stats::runif(n * p), n, p,
                            dimnames = list(NULL, paste0("x", seq_len(p)))))
  d$y <- 10 * sin(pi * d$x1 * d$x2) + 20 * (d$x3 - 0.5)^2 + 10 * d$x4 + 5 * d$x5 +
    stats::rnorm(n)
  d
}

bench_subsample <- function(d, n) {
  if (nrow(d) <= n) return(d)
  set.seed(20231)
  d[sort(sample(nrow(d), n)), ]
}

# Sets bnnmc's internal constant `name` (e.g. ".likelihood_guard") to
# `value` for the decisions' variants, returning its value before.
set_bnnmc_constant <- function(name, value) {
  ns <- asNamespace("bnnmc")
  old <- get(name, ns)
  unlockBinding(name, ns)
  assign(name, value, envir = ns)
  lockBinding(name, ns)
  old
}

# The i-th command-line argument of a script, split at commas (the seeds,
# sets or variants to run), or `default` when it is not given.
bench_list_arg <- function(args, i, default)
  if (length(args) >= i) strsplit(args[i], ",")[[1]] else default

# BART as every comparison here runs it (dbarts, in Suggests for the
# benchmarks only): 200 trees, 4 chains of 500 burn-in and 2,000 kept
# draws, one thread, seed 1, on the columns of `train` other than y.  The
# draws of the test points' means `mu` [draw, point] and of `sigma`, the
# wall seconds of the fit, and the test log predictive density per point.
# The training rows' fits are not kept (keeptrainfits = FALSE): at 100,000
# rows they would be 8,000 x 100,000 doubles.
bart_test_draws <- function(train, test) {
  x <- as.matrix(train[, setdiff(names(train), "y")])
  xt <- as.matrix(test[, setdiff(names(test), "y")])
  t0 <- proc.time()[["elapsed"]]
  b <- dbarts::bart(x, train$y, xt, ntree = 200, nskip = 500, ndpost = 2000, nchain = 4,
                    nthread = 1, keeptrees = FALSE, keeptrainfits = FALSE, verbose = FALSE,
                    seed = 1)
  secs <- proc.time()[["elapsed"]] - t0
  mu <- b$yhat.test
  sig <- as.vector(b$sigma)
  ll <- stats::dnorm(matrix(test$y, nrow(mu), ncol(mu), byrow = TRUE), mu, sig, log = TRUE)
  lme <- function(a) { m <- max(a); m + log(mean(exp(a - m))) }
  list(mu = mu, sigma = sig, seconds = secs, lppd = mean(apply(ll, 2, lme)))
}

# Predictive draws [draw, point] of bart_test_draws()'s result `b`, from
# R's random number generator as it stands (the caller seeds it).
bart_predictive <- function(b) b$mu + b$sigma * matrix(stats::rnorm(length(b$mu)), nrow(b$mu))

# Coverage of the central 90% intervals of bart_test_draws()'s result `b`
# for the test responses `y`: quantiles of its predictive draws made with
# seed 1.
bart_cov90 <- function(b, y) {
  set.seed(1)
  pp <- bart_predictive(b)
  lo <- apply(pp, 2, stats::quantile, 0.05)
  hi <- apply(pp, 2, stats::quantile, 0.95)
  mean(y >= lo & y <= hi)
}

# Appends the rows of data frame `x` to the gzip-compressed CSV file `path`
# (a header only when the file is new): each call adds a gzip member, which
# read.csv() reads as one file.
append_csv_gz <- function(x, path) {
  new <- !file.exists(path)
  con <- gzfile(path, "a")
  on.exit(close(con))
  utils::write.table(x, con, sep = ",", row.names = FALSE, col.names = new)
}

# The split of a set named as the decision benchmarks name them: a set of
# `sets` (default_bench_sets()) on its benchmark split, or "friedman1000",
# Friedman's function with 1,000 training and 2,000 test rows (seed 1).
bench_named_split <- function(set, sets = default_bench_sets()) {
  if (set == "friedman1000")
    return(list(train = bench_friedman(1000, seed = 1), test = bench_friedman(2000, seed = 1001)))
  default_bench_split(sets[[set]]())
}

# Writes the rows `res` to the CSV file `path` (gzip if it ends in .gz),
# where the rows of an earlier run of the sets `sets_run` are replaced and
# those of the other sets kept, in the order of `sets_all`.
write_replacing_sets <- function(res, path, sets_run, sets_all) {
  if (file.exists(path)) {
    old <- utils::read.csv(path)
    res <- rbind(old[!old$set %in% sets_run, ], res)
    res <- res[order(match(res$set, sets_all)), ]
  }
  con <- if (grepl("\\.gz$", path)) gzfile(path, "w") else file(path, "w")
  on.exit(close(con))
  utils::write.csv(res, con, row.names = FALSE)
}

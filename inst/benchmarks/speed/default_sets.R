# The data sets of the default's benchmarks against BART
# (speed/default_vs_bart.R) and of the decisions on its budget
# (decisions/default_budget.R, decisions/default_sampling_phase.R) and the
# Student-t likelihood (decisions/default_student.R), each
# with the response renamed y, and their one 80/20 split.  Sourced by those
# scripts; `dir` is where the UCI files are (BNNMC_DATA_DIR, by default
# ../shared/data/uci).
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

# The split: set.seed(100), 20% of the rows (rounded) to the test set.
default_bench_split <- function(d) {
  set.seed(100)
  te <- sample(nrow(d), round(0.2 * nrow(d)))
  list(train = d[-te, ], test = d[te, ])
}


# The i-th command-line argument of a script, split at commas (the seeds,
# sets or variants to run), or `default` when it is not given.
bench_list_arg <- function(args, i, default)
  if (length(args) >= i) strsplit(args[i], ",")[[1]] else default

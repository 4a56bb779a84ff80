# The data sets of the default's benchmarks against BART
# (speed/default_vs_bart.R) and of the decisions on its budget
# (decisions/default_budget.R, decisions/default_sampling_phase.R), each
# with the response renamed y, and their one 80/20 split.  Sourced by those
# scripts; `dir` is where the UCI files are (BNNMC_DATA_DIR).
default_bench_sets <- function(dir) list(
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


# The default fit end to end as a user runs it on two cores (target: under
# 15 s): bnn_fit(y ~ ., data = train, seed = 1) on 1,052 airfoil
# rows (drawn with seed 1), 4 chains, future::plan(multisession, workers =
# 2) with its workers started beforehand, in double and single precision,
# alternating; elapsed seconds, the 1-minute load average before each fit.
#   BNNMC_DATA_DIR=/path/uci Rscript inst/benchmarks/speed/default_fit.R [reps]
# Writes inst/benchmarks/speed/default_fit.csv.
suppressPackageStartupMessages(library(bnnmc))
# expr under set.seed(seed), leaving the script's own random stream as it was
with_seed <- function(seed, expr) {
  old <- get0(".Random.seed", envir = globalenv(), inherits = FALSE)
  on.exit(if (is.null(old)) rm(".Random.seed", envir = globalenv()) else
    assign(".Random.seed", old, envir = globalenv()))
  set.seed(seed, kind = "Mersenne-Twister", normal.kind = "Inversion", sample.kind = "Rejection")
  expr
}
args <- commandArgs(trailingOnly = TRUE)
reps <- if (length(args)) as.integer(args[1]) else 3L
dir <- Sys.getenv("BNNMC_DATA_DIR", file.path("..", "shared", "data", "uci"))
d <- bnn_read_uci("airfoil", dir = dir)
i <- with_seed(1, sample(nrow(d), 1052))
train <- d[i, ]
load1 <- function() tryCatch(as.numeric(strsplit(readLines("/proc/loadavg"), " ")[[1]][1]),
                             error = function(e) NA_real_)
old <- future::plan(future::multisession, workers = 2)
# start the workers and load bnnmc in them before timing
invisible(suppressWarnings(bnn_fit(y ~ ., data = train[1:50, ], seed = 1, progress = FALSE,
                                   chains = 2, iter = 100)))
rows <- list()
for (r in seq_len(reps)) for (pr in if (r %% 2) c("double", "single") else c("single", "double")) {
  l0 <- load1()
  t <- system.time(f <- suppressWarnings(bnn_fit(y ~ ., data = train, seed = 1, progress = FALSE,
                                                 precision = pr)))[["elapsed"]]
  rows[[length(rows) + 1]] <- data.frame(date = format(Sys.Date()), data = "airfoil", n = nrow(train),
                                         chains = 4, workers = 2, precision = pr, rep = r,
                                         elapsed_s = t, load_before = l0,
                                         chain_seconds_sum = sum(f$timing$warmup + f$timing$sampling))
  cat(sprintf("rep %d %s: %.1f s (load %.1f)\n", r, pr, t, l0))
}
future::plan(old)
res <- do.call(rbind, rows)
med <- tapply(res$elapsed_s, res$precision, stats::median)
cat(sprintf("median elapsed: double %.1f s, single %.1f s (target 15 s)\n", med[["double"]], med[["single"]]))
utils::write.csv(res, file.path("inst", "benchmarks", "speed", "default_fit.csv"), row.names = FALSE)

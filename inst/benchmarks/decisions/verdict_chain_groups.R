# Is the verdict's "NOT reliable" on the UCI sets true?  The predictions'
# part of the verdict (bnn_convergence()) says the pooled predictive mean of
# a fit's chains has a Monte Carlo error above a tenth of the predictive sd
# (or drifts).  If that is right, more chains must change the predictions
# materially on data the chains did not see; where the verdict says
# "reliable", they must not.
# On each set of speed/default_vs_bart.R (its one 80/20 split,
# speed/default_sets.R) and Friedman's function at 1,000 training rows
# (2,000 test rows), the default call with chains = 16 (8 per model where
# the default stacks two networks); the chains of its first model are cut
# into consecutive groups of 2 and of 4 (the default runs 2 per model where
# it stacks, 4 otherwise).  Per group: the verdict of those chains alone
# (Monte Carlo error and drift of the pooled predictive mean in predictive
# sds, reliable or not), the test log predictive density per point of
# their equal-weight mixture and of all the model's chains, and the
# difference (`gain`: what the other chains add).
#   Rscript inst/benchmarks/decisions/verdict_chain_groups.R [sets...]
# One core.  Writes verdict_chain_groups.csv.gz (gzip; the rows of the
# sets run replace those of an earlier run).
suppressPackageStartupMessages(library(bnnmc))
source(file.path("inst", "benchmarks", "speed", "default_sets.R"))
options(bnnmc.threads = 1L, mc.cores = 1L)
args <- commandArgs(trailingOnly = TRUE)
uci <- default_bench_sets()
sets_all <- c(names(uci), "friedman1000")
sets_run <- if (length(args)) args else sets_all
out_csv <- file.path("inst", "benchmarks", "decisions", "verdict_chain_groups.csv.gz")
ns <- asNamespace("bnnmc")
lme <- function(a) {
  m <- max(a)
  m + log(mean(exp(a - m)))
}
rows <- list()
for (set in sets_run) {
  s <- bench_named_split(set, uci)
  t0 <- proc.time()[["elapsed"]]
  fit <- suppressMessages(suppressWarnings(bnn_fit(y ~ ., data = s$train, seed = 1,
                                                   progress = FALSE, chains = 16L)))
  secs <- proc.time()[["elapsed"]] - t0
  net <- ns$network_only(fit)
  ok <- which(net$chain_status == "ok")
  # each chain's test log predictive density per point [point, chain]
  lpd <- vapply(ok, function(k)
    apply(ns$pointwise_loglik_unweighted(ns$bnnfit_subset_chains(net, k), s$test), 2L, lme),
    numeric(nrow(s$test)))
  mix <- function(idx) mean(apply(lpd[, idx, drop = FALSE], 1L, lme))
  all_chains <- mix(seq_along(ok))
  for (size in c(2L, 4L)) {
    for (g in seq_len(length(ok) %/% size)) {
      idx <- (g - 1L) * size + seq_len(size)
      cv <- ns$convergence_verdict(ns$bnnfit_subset_chains(net, ok[idx]), adequacy = FALSE)
      pr <- cv$predictions
      row <- data.frame(set = set, n_train = nrow(s$train),
                        likelihood = net$likelihood$family, model_chains = length(ok),
                        size = size, group = g, mc_error = pr$mc_error, drift = pr$drift,
                        loo_cov90 = pr$loo_coverage, reliable = isTRUE(pr$reliable),
                        lppd_group = mix(idx), lppd_all = all_chains,
                        gain = all_chains - mix(idx), seconds = secs)
      print(row, row.names = FALSE, digits = 4)
      rows[[length(rows) + 1L]] <- row
    }
  }
}
write_replacing_sets(do.call(rbind, rows), out_csv, sets_run, sets_all)

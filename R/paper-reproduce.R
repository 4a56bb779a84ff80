# The paper-reproduction part of the API: one overview page.  The functions
# themselves are in the other paper-*.R files (paper-tasks.R,
# paper-symmetry-data.R, paper-make-regression.R, paper-uci-splits.R,
# paper-mode-probs.R, paper-lm-baseline.R).

#' Reproducing the papers
#'
#' bnnmc's user API is what a statistician fitting a Bayesian neural network
#' to their own data calls: [bnn_fit()] and the sampler settings
#' ([bnn_nuts()], [bnn_mclmc()], ...), the approximations
#' ([bnn_fit_ensemble()], [bnn_fit_laplace()], ...), predictions, metrics,
#' diagnostics and [bnn_read_uci()] for the UCI files wherever they are
#' kept.  The functions below serve only the protocols of the papers the
#' package reproduces (the scripts in `inst/benchmarks/papers/` and the
#' vignettes use them); they share the prefix `bnn_paper_`:
#'
#' | function | what it gives | paper |
#' |---|---|---|
#' | [bnn_paper_uci_splits()] | the fixed 80/20 train/test indices of the UCI benchmarks | Wiese et al. (2023), Sommer et al. (2024, 2025) |
#' | [bnn_paper_task()], [bnn_paper_task_data()] | the synthetic tasks AF1-AF4 and their training sets | Staber and Da Veiga |
#' | [bnn_paper_symmetry_data()] | the synthetic data sets of the symmetry paper | the symmetry paper |
#' | [bnn_paper_mode_probs_halfnormal()] | its half-normal mode probabilities | the symmetry paper |
#' | [bnn_paper_make_regression()] | scikit-learn's `make_regression` data | FBNN (Moslemi et al.) |
#' | [bnn_paper_lm_baseline()] | the papers' linear-model baseline rows | the benchmark tables |
#'
#' @name bnnmc-papers
#' @family paper reproduction
#' @examples
#' task <- bnn_paper_task("AF1")
#' d <- bnn_paper_task_data(task, n_sets = 1, seed = 1)
#' str(d$train[[1]])
NULL

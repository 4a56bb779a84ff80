# Names of earlier versions, kept for one version with a deprecation
# message (once per session and name, as lifecycle's soft deprecation):
# functions that fit are verbs (bnn_fit_*), settings are nouns (bnn_nuts(),
# bnn_sgld(), ...), and the spelling is American throughout.

.deprecated_said <- new.env(parent = emptyenv())

deprecated_name <- function(old, new) {
  if (isTRUE(.deprecated_said[[old]])) return(invisible())
  assign(old, TRUE, envir = .deprecated_said)
  message(sprintf("%s() is deprecated and will be removed in the next version; use %s() instead.",
                  old, new))
}

#' Deprecated names
#'
#' Functions renamed in bnnmc 0.1.0 so that the API has one grammar: a
#' function that fits is a verb, `bnn_fit_*()`, as [bnn_fit()]; settings are
#' nouns ([bnn_nuts()], [bnn_sgld()], [bnn_optimizer()]); spelling is
#' American ([bnn_standardize()], [bnn_summarize_draws()]).  The old names
#' work for one more version and say once per session what to use.
#'
#' | old name | new name |
#' |---|---|
#' | `bnn_ensemble()` | [bnn_fit_ensemble()] |
#' | `bnn_swag()` | [bnn_fit_swag()] |
#' | `bnn_laplace()` | [bnn_fit_laplace()] |
#' | `bnn_mc_dropout()` | [bnn_fit_mc_dropout()] |
#' | `bnn_summarise_draws()` | [bnn_summarize_draws()] |
#' | `bnn_uci()` | [bnn_read_uci()] |
#' | `bnn_uci_splits()` | [bnn_paper_uci_splits()] |
#' | `bnn_task()` | [bnn_paper_task()] |
#' | `bnn_task_data()` | [bnn_paper_task_data()] |
#' | `bnn_symmetry_data()` | [bnn_paper_symmetry_data()] |
#' | `bnn_make_regression()` | [bnn_paper_make_regression()] |
#' | `bnn_mode_probs_halfnormal()` | [bnn_paper_mode_probs_halfnormal()] |
#' | `bnn_lm_baseline()` | [bnn_paper_lm_baseline()] |
#'
#' The functions that serve only the papers' protocols carry the prefix
#' `bnn_paper_` ([bnnmc-papers]); the UCI reader, which reads the files
#' wherever a user keeps them, is [bnn_read_uci()].
#'
#' @param ... Passed to the new function.
#' @return What the new function returns.
#' @name bnnmc-deprecated
#' @keywords internal
#' @examples
#' d <- bnn_summarise_draws(array(rnorm(400), c(100, 2, 2)))
NULL

#' @rdname bnnmc-deprecated
#' @export
bnn_ensemble <- function(...) {
  deprecated_name("bnn_ensemble", "bnn_fit_ensemble")
  bnn_fit_ensemble(...)
}
#' @rdname bnnmc-deprecated
#' @export
bnn_swag <- function(...) {
  deprecated_name("bnn_swag", "bnn_fit_swag")
  bnn_fit_swag(...)
}
#' @rdname bnnmc-deprecated
#' @export
bnn_laplace <- function(...) {
  deprecated_name("bnn_laplace", "bnn_fit_laplace")
  bnn_fit_laplace(...)
}
#' @rdname bnnmc-deprecated
#' @export
bnn_mc_dropout <- function(...) {
  deprecated_name("bnn_mc_dropout", "bnn_fit_mc_dropout")
  bnn_fit_mc_dropout(...)
}
#' @rdname bnnmc-deprecated
#' @export
bnn_summarise_draws <- function(...) {
  deprecated_name("bnn_summarise_draws", "bnn_summarize_draws")
  bnn_summarize_draws(...)
}
#' @rdname bnnmc-deprecated
#' @export
bnn_uci <- function(...) {
  deprecated_name("bnn_uci", "bnn_read_uci")
  bnn_read_uci(...)
}
#' @rdname bnnmc-deprecated
#' @export
bnn_uci_splits <- function(...) {
  deprecated_name("bnn_uci_splits", "bnn_paper_uci_splits")
  bnn_paper_uci_splits(...)
}
#' @rdname bnnmc-deprecated
#' @export
bnn_task <- function(...) {
  deprecated_name("bnn_task", "bnn_paper_task")
  bnn_paper_task(...)
}
#' @rdname bnnmc-deprecated
#' @export
bnn_task_data <- function(...) {
  deprecated_name("bnn_task_data", "bnn_paper_task_data")
  bnn_paper_task_data(...)
}
#' @rdname bnnmc-deprecated
#' @export
bnn_symmetry_data <- function(...) {
  deprecated_name("bnn_symmetry_data", "bnn_paper_symmetry_data")
  bnn_paper_symmetry_data(...)
}
#' @rdname bnnmc-deprecated
#' @export
bnn_make_regression <- function(...) {
  deprecated_name("bnn_make_regression", "bnn_paper_make_regression")
  bnn_paper_make_regression(...)
}
#' @rdname bnnmc-deprecated
#' @export
bnn_mode_probs_halfnormal <- function(...) {
  deprecated_name("bnn_mode_probs_halfnormal", "bnn_paper_mode_probs_halfnormal")
  bnn_paper_mode_probs_halfnormal(...)
}
#' @rdname bnnmc-deprecated
#' @export
bnn_lm_baseline <- function(...) {
  deprecated_name("bnn_lm_baseline", "bnn_paper_lm_baseline")
  bnn_paper_lm_baseline(...)
}

# The fit object: its one constructor, new_bnnfit(), its validator and the
# one list of its fields.  Every path that returns a fit ends here: the
# chains of bnn_fit() (fit_engine(), R/fit-plan.R), the CES pipeline
# (R/fit-ces.R), the approximations and as_bnnfit() (R/approx-fit.R) and
# bnn_combine_chains() (R/run-combine.R); a copy with fields replaced
# (the convergence verdict, the default model's check, draws with the
# symmetries removed, a subset of the chains) goes through bnnfit_with().
# Below them, the chain statuses a fit's chain_status holds, looked up by
# name in the table C owns.

# The fields of a `bnnfit`, in the order the object holds them.
#   name:    the field (`fit$<name>`)
#   type:    what the validator checks (see bnnfit_field_ok())
#   need:    "always" (every fit has it; NULL only where the type allows
#            it), "model" (from the formula's model, prepare_model(); a fit
#            converted from an ensemble has the ones the ensemble kept),
#            "optional" (left out of the object when NULL)
#   meaning: what it holds
.bnnfit_fields <- utils::read.table(header = TRUE, sep = "|", strip.white = TRUE,
                                    stringsAsFactors = FALSE, quote = "", text = "
name          | type       | need     | meaning
draws         | array3     | always   | the kept draws [iteration, chain, variable], sigma on its natural scale; a failed chain's are NA
sampler_stats | array3     | always   | the kept transitions' statistics [iteration, chain, statistic] (Stan's names: accept_stat__, stepsize__, ..., lp__)
warmup_stats  | array3     | always   | the same statistics of the warm-up transitions
n_grad        | numeric    | always   | gradient evaluations per chain
stepsize      | numeric    | always   | the final step size per chain (NA for a kernel without one)
L             | numeric    | always   | MCLMC's momentum decoherence length per chain (NA for other samplers)
n_reverted    | numeric    | always   | MCLMC's reverted transitions per chain (NA for other samplers)
inv_metric    | matrix?    | always   | the diagonal inverse metric in use at the end, one row per chain (NULL: none)
timing        | data.frame | always   | seconds per chain: columns chain, warmup, sampling
chain_status  | factor     | always   | each chain's status, a factor whose levels are the statuses' labels (chain_status_levels()); \"ok\" or why it failed
failed_at     | data.frame | always   | where each chain failed: columns chain, phase, step, reason (NA for a chain that did not)
spec          | list       | always   | the network's specification for the C code (sizes, activation, likelihood, prior), without the training data
sampler       | list       | always   | the sampler's settings object with the run resolved (class bnn_sampler), or the approximation's label
warmup        | count      | always   | warm-up transitions per chain (in the sampler's unit, sampler_units())
iter          | count      | always   | sampling transitions per chain (the draws kept times thin)
thin          | count      | always   | transitions between kept draws
seed          | numeric    | always   | the seed; chain k's random numbers come from (seed, k)
chains        | count      | always   | the number of chains
chain_id      | numeric    | optional | each chain's id (its random numbers and start are those of chain id of the seed)
parameters    | character  | always   | the parameters' names (the draws' third dimension)
weights       | any        | model    | observation weights (NULL: none)
offset        | any        | model    | the formula's offset (NULL: none)
na_action     | any        | model    | the model frame's na.action attribute (NULL: no row dropped)
formula       | formula    | model    | the model's formula
terms         | any        | model    | the model frame's terms
xlevels       | any        | model    | levels of the factors among the predictors
contrasts     | any        | model    | contrasts of the factors among the predictors
x_center      | any        | model    | the predictors' centres (standardisation)
x_scale       | any        | model    | the predictors' scales (standardisation)
y_center      | any        | model    | the response's centre (standardisation)
y_scale       | any        | model    | the response's scale (standardisation)
y             | any        | model    | the response as given
levels        | any        | model    | the classes of a categorical response (NULL: a numeric response)
model_frame   | any        | model    | the model frame
data          | any        | model    | the training data: the model frame's rows of the data's columns that the formula and weights use (kfold() and update() refit to them; NULL if the rows could not be matched)
hidden        | any        | model    | the hidden layers' widths
activation    | character  | model    | the hidden layers' activation
likelihood    | list       | model    | the likelihood (bnn_likelihood())
prior         | list       | model    | the prior (bnn_prior())
X             | any        | model    | the (standardised) design matrix
y_model       | any        | model    | the response on the model's scale (standardised or coded)
waves         | list       | optional | chains = bnn_waves(): the log of the waves and their settings
call          | any        | always   | the call that made the fit
inits         | list       | optional | the chains' starting points (unconstrained scale)
elapsed       | numeric    | always   | seconds the fit took
cost_estimate | numeric    | optional | the cost estimated before the chains ran (seconds)
partial       | list       | optional | bnn_interrupted(): the chains that had finished when the fit was interrupted (chains) and those asked for (asked)
precision     | character  | optional | the network's arithmetic: \"double\" or \"single\"
ensemble      | list       | optional | the deep ensemble that gave the chains' starts
simd          | character  | optional | the SIMD level the chains ran at
ces           | list       | optional | CES: the times, gradient counts, calibration run, emulator and its checks
approx        | list       | optional | an approximation's own results (method, summary, ...)
convergence   | list       | optional | the convergence verdict of bnn_convergence() made at the end of the fit
model_choice  | data.frame | optional | the default model's check: the elpds of the two models compared (network and linear model, or heteroscedastic and homoscedastic or Student-t network: attribute check)
symmetries    | character  | optional | the method whose symmetries were removed from the draws (bnn_remove_symmetries())
stacking      | list       | optional | bnn_stack_chains(): the chains' weights in the predictive distribution, how they were computed
mixture       | list       | optional | the default's check stacked two models: the other model's fit, the two weights, and kind (\"likelihood\" for the two networks)
")

# Fields that fits of earlier versions have and this version no longer
# writes: accepted by the validator (also a strict one) and read by no
# code.
#   protocol: the sampler's name as given ("mile", "dei", ...); the
#             protocol is now the sampler object's class (bnn_mile(),
#             bnn_dei(); sampler_protocol_name())
.bnnfit_retired <- c("protocol")

# Does `x` have the type `type` of the field table?  Cheap checks only
# (the draws can be gigabytes: shapes and storage, never values).
bnnfit_field_ok <- function(x, type) {
  switch(type,
         array3 = is.array(x) && length(dim(x)) == 3L && is.numeric(x),
         numeric = is.numeric(x),
         count = is.numeric(x) && length(x) == 1L && !is.na(x) && x >= 0,
         "matrix?" = is.null(x) || is.matrix(x),
         data.frame = is.data.frame(x),
         factor = is.factor(x),
         list = is.list(x),
         character = is.character(x),
         formula = inherits(x, "formula"),
         any = TRUE)
}

# Checks a fit's fields against the table: every "always" field present and
# of its type, the per-chain fields as long as the chains, no field the
# table does not know.  Returns the fit (invisibly) or stops naming the
# field; an error here is a bug of the code that built the fit.  A retired
# field (.bnnfit_retired) of a fit saved by an earlier version is let be.  With
# strict = FALSE (a copy of an existing fit, perhaps made by an older
# version) fields the table does not list, or lacks, are let be; those
# present are still checked.
validate_bnnfit <- function(fit, strict = TRUE) {
  tab <- .bnnfit_fields
  nms <- names(fit)
  bad <- function(...) stop("Invalid bnnfit (internal error): ", ..., call. = FALSE)
  if (!is.list(fit) || is.null(nms) || any(!nzchar(nms)) || anyDuplicated(nms))
    bad("its fields must be a list with distinct names.")
  unknown <- setdiff(nms, c(tab$name, .bnnfit_retired))
  if (strict && length(unknown))
    bad("field(s) ", paste0("'", unknown, "'", collapse = ", "), " are not fields of a fit.")
  missing <- setdiff(tab$name[tab$need == "always"], nms)
  if (strict && length(missing))
    bad("field(s) ", paste0("'", missing, "'", collapse = ", "), " are missing.")
  for (i in which(tab$name %in% nms)) {
    x <- fit[[tab$name[i]]]
    if (is.null(x) && tab$need[i] != "always") next
    if (!bnnfit_field_ok(x, tab$type[i]))
      bad("field '", tab$name[i], "' must be of type ", tab$type[i], ", not ",
          class(x)[1L], ".")
  }
  n_ch <- dim(fit$draws)[2L]
  for (f in c("sampler_stats", "warmup_stats"))
    if (!is.null(fit[[f]]) && dim(fit[[f]])[2L] != n_ch)
      bad("field '", f, "' must have ", n_ch, " chains.")
  for (f in c("n_grad", "stepsize", "L", "n_reverted", "chain_status", "chain_id"))
    if (!is.null(fit[[f]]) && length(fit[[f]]) != n_ch)
      bad("field '", f, "' must have one value per chain (", n_ch, ").")
  for (f in c("timing", "failed_at", "inv_metric"))
    if (!is.null(fit[[f]]) && nrow(fit[[f]]) != n_ch)
      bad("field '", f, "' must have one row per chain (", n_ch, ").")
  if (!is.null(fit$chains) && fit$chains != n_ch) bad("field 'chains' must be ", n_ch, ".")
  invisible(fit)
}

# The one constructor of a fit.
#   chains: the chains' part (assemble_fit(), or an approximation's draws
#           in the same shape), with the network's `spec`
#   model:  the model of a formula fit (prepare_model()); its `spec` is
#           not used (the chains' is)
#   ...:    the run's fields (call, elapsed, ...)
#   class:  subclasses before "bnnfit" (an approximation: "bnn_approx")
# The fields are put in the table's order; optional fields that are NULL
# are left out; the spec is stored without the training data (the fit has
# it once, in `X` and `y_model`).
new_bnnfit <- function(chains, model = list(), ..., class = character()) {
  fields <- c(chains, model[setdiff(names(model), c("spec", names(chains)))], list(...))
  bnnfit_build(fields, class, strict = TRUE)
}

# A copy of `fit` with fields replaced, added or (NULL) removed, through
# the constructor: fields of a fit made by an older version that the table
# no longer lists are kept as they are.
bnnfit_with <- function(fit, ...) {
  new <- list(...)
  fields <- unclass(fit)
  for (nm in names(new)) fields[nm] <- list(new[[nm]])
  bnnfit_build(fields, setdiff(class(fit), "bnnfit"), strict = FALSE)
}

# The fit restricted to some chains (positions `chains`) and iterations
# (`iterations` of the kept draws): every per-chain field follows.
bnnfit_subset_chains <- function(fit, chains = seq_len(dim(fit$draws)[2L]),
                                 iterations = seq_len(dim(fit$draws)[1L])) {
  if (is.logical(chains)) chains <- which(chains)
  rows <- function(x) if (is.null(x)) NULL else {
    x <- x[chains, , drop = FALSE]
    if (is.data.frame(x)) rownames(x) <- NULL
    x
  }
  at <- function(x) if (is.null(x)) NULL else x[chains]
  bnnfit_with(fit,
              draws = fit$draws[iterations, chains, , drop = FALSE],
              sampler_stats = fit$sampler_stats[iterations, chains, , drop = FALSE],
              warmup_stats = fit$warmup_stats[, chains, , drop = FALSE],
              n_grad = at(fit$n_grad), stepsize = at(fit$stepsize), L = at(fit$L),
              n_reverted = at(fit$n_reverted), chain_status = at(fit$chain_status),
              chain_id = at(fit$chain_id), inits = at(fit$inits),
              inv_metric = rows(fit$inv_metric), timing = rows(fit$timing),
              failed_at = rows(fit$failed_at), chains = length(chains),
              stacking = NULL,                  # its weights were the chains'
              mixture = NULL)                   # the network's chains alone
}

bnnfit_build <- function(fields, class, strict) {
  tab <- .bnnfit_fields
  drop <- tab$name[tab$need == "optional"]
  fields <- fields[!(names(fields) %in% drop & vapply(fields, is.null, logical(1)))]
  if (!is.null(fields$spec)) {
    fields$spec$X <- NULL
    fields$spec$y <- NULL
  }
  known <- intersect(tab$name, names(fields))
  fields <- fields[c(known, setdiff(names(fields), known))]
  validate_bnnfit(fields, strict)
  structure(fields, class = c(class, "bnnfit"))
}

# The chain statuses: C owns their one table (kernel.h's bnn_status_table:
# code, name, label of a fit's chain_status, default reason), read once
# into .status_cache; R looks a status up by its name ("ok", "bad_init",
# "stepsize", "metric", "nonfinite", "failed", "stuck", "interrupted").
.status_cache <- new.env(parent = emptyenv())

chain_status_table <- function() {
  if (is.null(.status_cache$table))
    .status_cache$table <- as.data.frame(.Call(C_chain_status_table),
                                         stringsAsFactors = FALSE)
  .status_cache$table
}

# The row of each status name (an error for a name the table does not have).
chain_status_row <- function(name) {
  tab <- chain_status_table()
  i <- match(name, tab$name)
  if (anyNA(i))
    stop("Unknown chain status '", name[is.na(i)][1L], "' (internal error).", call. = FALSE)
  i
}

# The C code of a status name, and the name of a C code.
chain_status_code <- function(name) chain_status_table()$code[chain_status_row(name)]
chain_status_name <- function(code) {
  tab <- chain_status_table()
  i <- match(code, tab$code)
  if (anyNA(i))
    stop("Unknown chain status code ", code[is.na(i)][1L], " (internal error).", call. = FALSE)
  tab$name[i]
}

# The label a fit's chain_status shows for a status name, and the levels of
# that factor: the labels of every status a fit can hold, in code order.
chain_status_label <- function(name) chain_status_table()$label[chain_status_row(name)]
chain_status_levels <- function() {
  tab <- chain_status_table()
  tab$label[tab$in_fit]
}

# bnn_fit(), the user's function: its arguments, checked and resolved into a
# run of the sampler, handed to the engine (R/fit-plan.R, fit_engine()).

#' Fit a Bayesian neural network by MCMC
#'
#' Builds a fully connected network from a formula, standardizes predictors
#' and response with the training data's mean and standard deviation, and
#' samples the posterior of all weights and biases, one chain at a time or
#' in parallel through \pkg{future} ([bnnmc-parallel]).  The default is
#' MILE (a deep ensemble, then one microcanonical Langevin chain per member)
#' on a 16-16 tanh network with 4 chains; `sampler = "nuts"` is NUTS with
#' Stan's defaults, as in rstanarm and brms.  An interrupt (Ctrl-C) ends the
#' fit at once, and under a parallel plan cancels its chains still running
#' in the workers where the backend allows it; [bnn_interrupted()] returns
#' the chains that had finished.  [bnn_default] describes
#' the defaults, their evidence and the default model's check.
#'
#' @param formula A model formula, e.g. `y ~ .`, expanded as by
#'   [stats::model.matrix()]; `offset()` terms are added to the mean.
#' @param data A data frame.
#' @param hidden Widths of the hidden layers, e.g. `c(16, 16)`;
#'   `integer(0)` gives a (Bayesian) linear model.
#' @param activation Activation of the hidden layers; see [bnn_activations()].
#' @param family The likelihood as glm and brms write it: `gaussian()`,
#'   `poisson()`, `binomial()` (Bernoulli, or `cbind(successes, failures)`),
#'   [negbinomial()], [student()] or their names; canonical links only.
#'   Give `family` or `likelihood`.  A 0/1 numeric response without either
#'   is fitted by a Bernoulli model, with a message.  `family = gaussian()`
#'   is the default model, as in glm and brms ([bnn_default]).
#' @param likelihood A likelihood name or [bnn_likelihood()] object: by default
#'   `"gaussian"` (numeric), `"bernoulli"`/`"categorical"` (factor); the
#'   papers' heteroscedastic Gaussian is `"hetero_gaussian"`
#'   ([bnn_default]).
#' @param prior A [bnn_prior()] object or `"normal"` / `"laplace"`.  Not
#'   given, it is `bnn_prior(fan_in = TRUE)` (weights Normal(0, 1/fan-in),
#'   biases Normal(0, 1)) for a numeric response without `likelihood` (the
#'   default model) and for the count and Student-t families, and
#'   Normal(0, 1) on every weight and bias (the papers') for a likelihood
#'   given by name or object and for a factor response ([bnn_default]).
#'   [prior_summary()] shows the prior of a fit.
#' @param sampler `NULL` (the default: MILE on a shorter budget in single
#'   precision, [bnn_default]), or `"mile"`, `"nuts"`, `"hmc"`, `"dei"`,
#'   `"rwm"`, `"pcn"`, `"mclmc"`, `"sgld"`, `"psgld"`, `"sghmc"`, `"ces"`, or
#'   a settings object ([bnn_mile()], [bnn_dei()], [bnn_nuts()],
#'   [bnn_mclmc()], [bnn_sgld()], [bnn_ces()], ...).  `"dei"` (DEI-MCMC) and
#'   `"mile"` (MILE) start one chain (NUTS, MCLMC) from each member of a
#'   deep ensemble, as the papers do, on the papers' budget.
#' @param chains Number of chains, or [bnn_waves()] settings (chains run in
#'   waves until the chain-count bound for the modes found is met).
#' @param warmup Warm-up (adaptation) budget per chain, not kept, in the
#'   sampler's own unit; `NULL` takes the sampler's default ([bnn_default]).
#'   `warmup = 0` adapts nothing.
#' @param iter The number of draws kept per chain (as cmdstanr's
#'   `iter_sampling`), for every sampler.  `NULL` (not given) takes the
#'   sampler's default: 1000, but 500 for the default sampler (200 on
#'   large data; [bnn_default]).  From 2 to 99 draws per chain give a warning; one draw
#'   per chain from many chains is the design of [bnn_modes()] and
#'   [bnn_waves()].
#' @param thin Transitions behind each kept draw (`NULL`: 1; 10 for MCLMC,
#'   MILE and the default sampler).
#' @param init `"random"` (uniform(-2, 2), as Stan), `"prior"`,
#'   `"ensemble"` (a deep ensemble of `chains` members), a
#'   [bnn_fit_ensemble()] of the same model, a list of one vector per chain,
#'   a matrix of one row per chain, or a function of the chain index.
#' @param seed A whole number from 0 to `.Machine$integer.max` (`NULL`: one
#'   from R's RNG); the same draws whatever the plan ([bnnmc-package]).
#' @param subset,na.action As in [stats::lm()].  Missing values are an error
#'   unless `na.action` is given; with `na.exclude`, `fitted()`,
#'   `residuals()` and `log_lik()` are padded with `NA`.
#' @param standardize Standardize predictors and response with the training
#'   data's statistics (strongly recommended: the priors assume it).
#' @param ensemble Optimizer settings ([bnn_optimizer()]) of a deep ensemble for the starts.
#' @param valid_data Validation data for the ensemble's early stopping (as MILE's protocol).
#' @param progress A progress bar through \pkg{progressr}: `NULL` (default) in
#'   interactive sessions, `TRUE` always, `FALSE` (as `refresh = 0`) never.
#'   Outside interactive sessions (Rscript) progress is a message line
#'   every 30 seconds: with `TRUE`, and with `NULL` for fits estimated
#'   above a minute ([bnnmc-parallel], "Progress").
#' @param weights Observation weights, as in [stats::lm()]: each log-likelihood
#'   term is multiplied by its weight, as in rstanarm and brms.
#' @param chain_id Ids of the chains this call runs (as rstan's `chain_id`),
#'   to split a long run and join it by [bnn_combine_chains()].
#' @param precision `"double"` or `"single"` (float32 layers, about half
#'   the cost; draws within Monte Carlo error of double's).  `NULL` (the
#'   default): single for the default sampler, double when `sampler` is
#'   given (the papers' protocols run in double).
#' @param ... Not used: every argument after `data` must be named in full;
#'   an unknown or misspelt one is an error that names the argument meant.
#' @return A `bnnfit`: draws `[iteration, chain, parameter]` (`$draws`),
#'   sampler statistics with Stan's names (`$sampler_stats`), timings, and
#'   what [predict.bnnfit()] needs.  A failed chain has `NA` draws, a status
#'   other than `"ok"` in `$chain_status` and a warning (class
#'   `bnnmc_chain_failure`); methods use the other chains.
#'
#' @template habits
#' @seealso [bnn_default] (the defaults and the default model's check),
#'   [predict.bnnfit()], [bnn_convergence()], [bnn_metrics()],
#'   `vignette("getting-started")`.
#' @export
#' @examples
#' # the default sampler, MILE (a deep ensemble, then MCLMC from each member)
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 4, chains = 2,
#'                seed = 42, progress = FALSE)
#' fit
#' head(predict(fit, newdata = mtcars[1:5, ], type = "interval"))
#' # NUTS, as rstanarm and brms (here with short runs)
#' nuts <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 4, chains = 2,
#'                 sampler = bnn_nuts(adapt_delta = 0.9), warmup = 200,
#'                 iter = 200, seed = 42, progress = FALSE)
#' nuts
bnn_fit <- function(formula, data, ..., hidden = c(16, 16), activation = "tanh",
                    likelihood = NULL, family = NULL, prior = NULL, sampler = NULL,
                    chains = 4, warmup = NULL, iter = NULL, thin = NULL,
                    init = "random", seed = NULL, subset, na.action,
                    standardize = TRUE, ensemble = NULL, valid_data = NULL,
                    progress = NULL, weights = NULL, chain_id = NULL,
                    precision = NULL) {
  call <- match.call()
  # family = as glm and brms users write it, mapped to the likelihood;
  # family = gaussian() is the default model (R/model-family.R)
  default_family <- FALSE
  if (!is.null(family)) {
    if (!is.null(likelihood))
      stop("Give 'family' or 'likelihood', not both.", call. = FALSE)
    likelihood <- family_likelihood(family)
    default_family <- is_default_family(family, likelihood)
  }
  # which settings the user gave (missing() is FALSE once reassigned)
  given <- c(warmup = !is.null(warmup), iter = !is.null(iter),
             thin = !is.null(thin), init = !missing(init))
  # what of the model, sampler and starts the user gave: with none of them,
  # the default model is checked against a linear one (R/fit-choice.R)
  given_model <- c(hidden = !missing(hidden), activation = !missing(activation),
                   # a count or Student-t likelihood, and family = gaussian(),
                   # still have the check against the linear model
                   likelihood = !is.null(likelihood) && !is_new_family(likelihood) &&
                     !default_family,
                   prior = !is.null(prior),
                   sampler = !is.null(sampler), init = given[["init"]],
                   ensemble = !is.null(ensemble), valid_data = !is.null(valid_data),
                   chain_id = !is.null(chain_id), waves = inherits(chains, "bnn_waves"))
  # family = gaussian() takes the default's fan-in prior (as the count and
  # Student-t families do, default_prior())
  if (default_family && is.null(prior)) prior <- bnn_prior(fan_in = TRUE)
  # arguments after `...` match only by their full names: anything else
  # lands here, and a misspelt one is named with the argument meant
  # brms/rstanarm spellings (cores, refresh, adapt_delta, control, ...) get
  # the bnnmc way in their error
  stop_foreign_args(list(...), "bnn_fit")
  stop_unknown_args(list(...), names(formals(sys.function())), "bnn_fit")
  mf <- match.call(expand.dots = FALSE)
  m <- match(c("formula", "data", "subset", "na.action", "weights"), names(mf), 0L)
  mf <- mf[c(1L, m)]
  # the default (no sampler given): MILE with the default budget, in single
  # precision unless `precision` says otherwise (default_sampler()); a
  # sampler given by name or object runs as given, in double precision
  default_run <- is.null(sampler)
  sampler <- if (default_run) default_sampler() else as_sampler(sampler)
  waves <- NULL
  if (inherits(chains, "bnn_waves")) {
    waves <- chains
    chains <- waves$max_chains
    if (!sampler_allows(sampler, "waves"))
      stop(sprintf("'chains = bnn_waves()' is not available for sampler = \"%s\".",
                   sampler$method), call. = FALSE)
    if (identical(init, "ensemble") || inherits(init, "bnn_ensemble") ||
        (identical(sampler_protocol_default(sampler, "init", NULL), "ensemble") &&
         !given[["init"]]))
      stop(paste0("'chains = bnn_waves()' needs starting points that do not depend on the ",
                  "number of chains: init = \"random\", \"prior\", a function, or a list ",
                  "of max_chains vectors (not a deep ensemble)."), call. = FALSE)
  }
  if (!is.null(chain_id)) {
    if (!is.null(waves))
      stop("'chain_id' cannot be combined with 'chains = bnn_waves()'.", call. = FALSE)
    if (!sampler_allows(sampler, "chain_id"))
      stop(sprintf("'chain_id' is not available for sampler = \"%s\".", sampler$method),
           call. = FALSE)
    chain_id <- check_chain_id(chain_id)
    if (missing(chains)) chains <- length(chain_id)
  }
  precision <- if (is.null(precision)) { if (default_run) "single" else "double" } else
    check_precision(precision)
  chains <- check_count(chains, "chains", 1L)
  if (!is.null(chain_id) && length(chain_id) != chains)
    stop(sprintf("'chain_id' must have one id per chain (%d), not %d.", chains,
                 length(chain_id)), call. = FALSE)
  # One meaning for every sampler: `iter` draws are kept per chain, each
  # `thin` transitions apart, after `warmup` (the sampler's own unit, see
  # sampler_units()).  The run's settings are resolved into a new sampler
  # object (sampler_resolve_run()); `iter` becomes the sampling transitions.
  warmup <- if (given[["warmup"]]) check_count(warmup, "warmup", 0L) else
    sampler_protocol_default(sampler, "warmup", 1000L)
  # not given: 1000 draws, or what an MCLMC settings object (the default
  # sampler's included) keeps (sampler_resolve_run())
  iter <- if (given[["iter"]]) check_count(iter, "iter", 1L) else 1000L
  thin <- if (given[["thin"]]) check_count(thin, "thin", 1L) else sampler_default_thin(sampler)
  if (as.double(iter) * thin > .Machine$integer.max)
    stop("'iter' * 'thin' (the sampling transitions per chain) is too large.", call. = FALSE)
  run <- sampler_resolve_run(sampler, warmup, iter, thin, given)
  model <- prepare_model(mf, parent.frame(), formula, data, hidden, activation,
                         likelihood, prior, standardize,
                         # CES: the sampling stage here; its engine checks all stages
                         per_par = bytes_per_parameter(sampler_draws_sampler(sampler),
                                                       chains, run$n_keep))
  check_sampler_model(sampler, model$prior)
  # the default sampler on large data: its warm-up on a subsample of the
  # rows and a shorter sampling (R/run-warm-subsample.R)
  if (default_run)
    run <- default_run_for_rows(run, NROW(model$spec$X), given, model$likelihood$family)
  model$spec <- spec_set_precision(model$spec, precision)
  check_float_range(model$spec, precision)
  if (!given[["init"]]) init <- sampler_protocol_default(sampler, "init", init)
  if (is.null(seed)) seed <- new_seed()
  seed <- check_count(seed, "seed", 0L)
  # the SIMD level of options(bnnmc.simd), from here on in this session (the
  # chains' workers apply the same, see dispatch_chains())
  apply_simd(simd_option())
  # the check of the likelihood on a continuous response of enough rows,
  # else the check against a linear model on small data (R/fit-choice.R)
  # (not with a family named: family = gaussian() keeps its one likelihood)
  lcheck <- !default_family && likelihood_check_applies(given_model, model, chains)
  check <- !lcheck && linear_check_applies(given_model, model)
  # a plain fit (something of the model, sampler or starts given, or the
  # default's checks switched off): the sampler's engine (R/fit-plan.R;
  # CES has its own)
  plain <- any(given_model) || !isTRUE(getOption("bnnmc.prior_check", TRUE))
  if (plain && !lcheck && !check)
    return(warn_overdispersion(
      fit_engine(model, run$sampler, chains, run$warmup, run$iter, run$thin, init, seed,
                 progress, call, given[["init"]], waves = waves,
                 chain_id = chain_id, ensemble = ensemble, valid_data = valid_data,
                 precision = precision)))
  # the default model: one plan per model it fits (R/fit-plan.R), the
  # choices between them steps on the finished fits (R/fit-choice.R)
  # the gradient of a network on these rows is timed once for all plans
  gradient_times <- new.env(parent = emptyenv())
  plan_of <- function(m, ch = chains, r = run, label = "network", keep = check || lcheck,
                      whole = !(check || lcheck), ...)
    new_bnn_plan(m, r$sampler, ch, r$warmup, r$iter, r$thin, init, seed, progress, call,
                 given[["init"]], waves = waves,
                 chain_id = chain_id, ensemble = ensemble, valid_data = valid_data,
                 precision = precision, keep_loglik = keep, label = label,
                 # an interrupt keeps the chains of a fit of one model only
                 keep_interrupted = whole, gradient_times = gradient_times, ...)
  # another model on the same data, in the fit's precision
  variant <- function(...) {
    m <- model_variant(model, ...)
    m$spec <- spec_set_precision(m$spec, precision)
    check_float_range(m$spec, precision)
    m
  }
  def <- if (lcheck) {
    # half the chains (rounded up) for the papers' heteroscedastic network
    # (its Normal(0, 1) prior), the rest for the default's homoscedastic one,
    # which tunes for .likelihood_homo_tune of the default's steps unless
    # `warmup` is given (R/fit-choice.R): the run resolved as if that warmup
    # had been given
    n_het <- as.integer(ceiling(chains / 2))
    run_gau <- if (given[["warmup"]]) run else
      sampler_resolve_run(run$sampler, round(run$warmup * .likelihood_homo_tune), iter, thin,
                          replace(given, "warmup", TRUE))
    # the second model: the homoscedastic one, or with
    # options(bnnmc.stack_second = "student") the Student-t network of the
    # same size in its place, with the same chains and budget
    second <- if (stack_second() == "student")
      plan_of(variant(likelihood = bnn_likelihood("student")), chains - n_het, run_gau,
              label = "student") else
      plan_of(model, chains - n_het, run_gau, label = "homoscedastic")
    pair <- fit_plan_pair(
      plan_of(variant(likelihood = "hetero_gaussian"), n_het, label = "heteroscedastic",
              optional = TRUE),
      second,
      # with chains run in parallel, the two models' chains run together
      # (one model's after the other's would leave workers idle)
      together = chains_in_parallel(chains))
    choose_default_likelihood(pair$a, pair$b, pair$seconds, together = chains_in_parallel(chains))
  } else if (check) {
    # the default model's check: the same family's linear model (no hidden
    # layer), sampled by NUTS, with the user's call (update() and kfold()
    # re-run the whole check with the same internal settings, so update(fit)
    # reproduces the fit; the outcome is recorded in $model_choice); its
    # verdict is computed by the check if it is returned alone
    nuts <- as_sampler("nuts")
    lrun <- sampler_resolve_run(nuts, sampler_protocol_default(nuts, "warmup", 1000L),
                                iter, 1L, given)
    lin <- new_bnn_plan(variant(hidden = integer(0), likelihood = likelihood, prior = prior),
                        lrun$sampler, chains, lrun$warmup, lrun$iter, lrun$thin, "random", seed,
                        FALSE, call, FALSE, precision = precision,
                        verdict = FALSE, estimate_cost = FALSE, label = "linear",
                        keep_interrupted = FALSE,
                        optional = TRUE)
    pair <- fit_plan_pair(plan_of(model), lin, together = FALSE)
    choose_default_model(pair$a, pair$b, c(network = pair$seconds[["a"]],
                                           linear = pair$seconds[["b"]]))
  } else {
    fit_plans(list(network = plan_of(model)))$network
  }
  if (wider_prior_applies(given_model, model, def$fit)) {
    # the model-fit check found structure the default's prior left: the
    # same network with a wider prior, all the chains, started where the
    # default's chains ended (a shorter tuning); PSIS-LOO or the check
    # decides (R/fit-choice.R)
    t0 <- proc.time()[["elapsed"]]
    # (the Student-t network's likelihood when the stack's Student-t one was
    # returned alone; a model that is Student-t already, family = student(),
    # keeps its own settings)
    wvar <- if (identical(def$fit$likelihood$family, "student") &&
                !identical(model$likelihood$family, "student"))
      variant(prior = widened_prior(model$prior), likelihood = bnn_likelihood("student")) else
      variant(prior = widened_prior(model$prior))
    wplan <- wider_prior_plan(plan_of(wvar,
                                      label = "wider prior", keep = TRUE, optional = TRUE,
                                      whole = FALSE), def$fit)
    wide <- fit_plans(list(wider = wplan))$wider
    def <- choose_wider_prior(def, wide, proc.time()[["elapsed"]] - t0,
                              warm = isTRUE(wplan$given_init))
  }
  for (cnd in def$warnings) warning(cnd)
  warn_overdispersion(def$fit)
}

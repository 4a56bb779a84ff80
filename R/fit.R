# bnn_fit(), the user's function: its arguments, checked and resolved into a
# run of the sampler, handed to the engine (R/fit-engine.R, fit_engine()).

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
#' in the workers where the backend allows it.
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
#'   is the default model, as in glm and brms: the homoscedastic Gaussian
#'   with the default's prior (see `prior`) and the default's check against
#'   the linear model on small data; it keeps the Gaussian on a 0/1 response
#'   and is not stacked with the heteroscedastic network on larger data (see
#'   "The default model's check").
#' @param likelihood A likelihood name or [bnn_likelihood()] object: by default
#'   `"gaussian"` (numeric), `"bernoulli"`/`"categorical"` (factor); the
#'   papers' heteroscedastic Gaussian is `"hetero_gaussian"` (see
#'   "Defaults").
#' @param prior A [bnn_prior()] object or `"normal"` / `"laplace"`.  Not
#'   given, it is `bnn_prior(fan_in = TRUE)` (weights Normal(0, 1/fan-in),
#'   biases Normal(0, 1)) for a numeric response without `likelihood` (the
#'   default likelihood, which `family = gaussian()` of [bnn_fit()] names)
#'   and for the count and Student-t families, and Normal(0, 1) on every
#'   weight and bias (the papers') for a likelihood given by name or object
#'   (`likelihood = "gaussian"`, `"hetero_gaussian"`) and for a factor
#'   response.  [prior_summary()] shows the prior of a fit.
#' @param sampler `"mile"`, `"nuts"`, `"hmc"`, `"dei"`, `"rwm"`,
#'   `"pcn"`, `"mclmc"`, `"sgld"`, `"psgld"`, `"sghmc"`, `"ces"`, or a
#'   settings object ([bnn_nuts()], [bnn_mclmc()], [bnn_sgld()], [bnn_ces()],
#'   ...).  `"dei"` (DEI-MCMC) and `"mile"` (MILE) start one chain (NUTS,
#'   MCLMC) from each member of a deep ensemble, as the papers do.  Not
#'   given, the default is MILE on a shorter budget (20,000 tuning and 5,000
#'   sampling steps, every 10th kept) in single precision: the same test log
#'   density as MILE's own budget at a third of its time (see "Defaults");
#'   `sampler = "mile"` runs the paper's budget (50,000 and 10,000 steps).
#' @param chains Number of chains, or [bnn_waves()] settings (chains run in
#'   waves until the chain-count bound for the modes found is met).
#' @param warmup Warm-up (adaptation) budget per chain, not kept, in the
#'   sampler's own unit (see "Iterations, warm-up and thinning"); `NULL`
#'   takes the sampler's default.  `warmup = 0` adapts nothing.
#' @param iter The number of draws kept per chain (as cmdstanr's
#'   `iter_sampling`), for every sampler.  `NULL` (not given) takes the
#'   sampler's default: 1000, but 500 for the default sampler (its 5,000
#'   sampling steps, every 10th kept) and `n_samples / thin` of a
#'   [bnn_mclmc()] object (see "Iterations, warm-up and thinning").  From 2
#'   to 99 draws per chain give a warning; one draw per chain from many
#'   chains is the design of [bnn_modes()] and [bnn_waves()].
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
#' @section Iterations, warm-up and thinning:
#'   `iter` is the number of draws kept per chain and `thin` the number of
#'   transitions behind each; `warmup` is counted in the sampler's own
#'   transitions, and `print(fit)` states it with its unit.  Not given,
#'   they take these defaults (a fit keeps `iter` draws per chain, `iter *
#'   thin` transitions after the warm-up):
#'
#'   | sampler | unit of `warmup` | default `warmup` | default `iter` | default `thin` |
#'   |---|---|---|---|---|
#'   | `"nuts"`, `"hmc"` | iterations, Stan's windowed adaptation | 1000 | 1000 | 1 |
#'   | `"dei"` | NUTS iterations | 100 | 1000 | 1 |
#'   | `"rwm"`, `"pcn"` | proposals, step size adaptation | 1000 | 1000 | 1 |
#'   | `"mile"`, `"mclmc"` | tuning steps, split 80/10/10 over three stages | 50000 | 1000 | 10 |
#'   | not given (the default) | as `"mile"` | 20000 | 500 | 10 |
#'   | `"sgld"`, `"psgld"`, `"sghmc"` | minibatch steps | 1000 | 1000 | 1 |
#'   | `"ces"` | iterations of the sampling stage | 1000 | 1000 | 1 |
#'
#'   A [bnn_mclmc()] object given as `sampler` keeps its own `n_tune`,
#'   `n_samples` and `thin` unless `warmup`, `iter` or `thin` is given.
#'
#' @section Defaults:
#'   Chosen for test log density, calibration and time: see
#'   `vignette("benchmarks")`, "The evidence behind `?bnn_fit`".  The
#'   default sampler's budget and precision: on yacht, energy, concrete and
#'   airfoil (three seeds each) MILE's full budget in double precision was
#'   no better in test log density than the shorter budget in single
#'   precision, which takes about a third of the time; a quarter of MILE's
#'   budget was worse on yacht and energy.  The default likelihood is the
#'   homoscedastic Gaussian with the fan-in prior, whose predictive
#'   distribution stays calibrated on small and noisy data.  With more than
#'   200 rows of a continuous response the papers' heteroscedastic Gaussian
#'   (`likelihood = "hetero_gaussian"`) often predicts better -- by 0.3 to
#'   0.6 nats per test point on average on energy, concrete, airfoil,
#'   protein and bikesharing, and stacked with the homoscedastic network by
#'   0.5 to 1.0 on yacht and 0.7 on ChickWeight -- but its predictive sd is a network output
#'   and can be far too small at single points (on one energy split a 90%
#'   interval 0.4 wide, 3 from the observed value), so there the default
#'   stacks the two (see "The default model's check" below).  The Student-t likelihood (`family = student()`, robust
#'   regression: the network gives the location, the scale `sigma` and the
#'   degrees of freedom `nu` are sampled) predicted better than the default
#'   in log density on energy, concrete and airfoil, by 0.09 to 0.19 nats
#'   per test point over three seeds with 90% coverage of 0.87 to 0.93, was
#'   level with it on quakes and yacht and 0.1 behind on Boston, and its
#'   posterior mean had a higher test RMSE (its location fits the bulk of
#'   the data); when the residuals of a first fit have heavy tails or
#'   outliers, fit it too and compare the two with `loo()`.  The papers' model is `likelihood = "hetero_gaussian"` with
#'   `sampler = "mile"`, `"dei"` or `"nuts"`.  A predictive sd that
#'   collapses (e.g. onto tied responses) gives a warning of class
#'   `bnnmc_sd_collapse`.
#'
#' @section The default model's check:
#'   A call giving none of `hidden`, `activation`, `prior`, `sampler`,
#'   `init`, `ensemble`, `valid_data`, `chain_id` or waves (nor a likelihood
#'   other than a count or Student-t family), without `weights` and at most
#'   500 rows (200 for a continuous numeric response, which gets the check
#'   below on more), also fits the same family's linear model (NUTS; logistic
#'   regression for a two-level factor) and stacks the two (Yao, Vehtari,
#'   Simpson and Gelman 2018): the weights that maximise the PSIS-LOO log
#'   score of their mixture.  When one model has at least 95% of the weight
#'   it is returned alone, saying so if it is the linear model, which then
#'   prints as one, with coefficients on the data's scale.  Otherwise the
#'   fit returned is the network's with the linear model's in `$mixture`:
#'   its predictions (`predict()`, `posterior_predict()`, `log_lik()`,
#'   `bnn_metrics()`, ...) use each model's draws in proportion to
#'   its weight, `ndraws(fit)` draws in all (the fit's own number, e.g.
#'   1000 with weights 0.8 and 0.2 are 800 of the one model's draws and 200
#'   of the other's, evenly spaced over each model's chains), while its
#'   parameter draws, diagnostics and convergence verdict are the
#'   network's.  `$model_choice` and `print()` give the elpds and weights,
#'   and the stack's own elpd, which `loo()` of the fit estimates (each
#'   model's PSIS-LOO mixed with the weights; see [loo.bnnfit()]).  Give
#'   `hidden` or set
#'   `options(bnnmc.linear_check = FALSE)` to keep the network alone.
#'
#'   On 201 to 2,000 rows of a continuous numeric response (no value in
#'   10% of the rows, at least 100 distinct values or half as many as rows)
#'   the same call, with at least two chains, instead fits the network with
#'   the papers' heteroscedastic Gaussian likelihood (its Normal(0, 1) prior)
#'   on half the chains (rounded up) and with the default homoscedastic one
#'   on the others (with half the tuning steps unless `warmup` is given:
#'   its simpler posterior settles sooner, and where the heteroscedastic
#'   model predicts better it only shapes the tails), and stacks the two
#'   by their PSIS-LOO elpds on the (at most 500, evenly spaced) training
#'   rows the convergence verdict uses, the homoscedastic model keeping at
#'   least 10% of the weight.  The
#'   heteroscedastic network predicted these sets much better on average,
#'   but its predictive sd is a network output that can be far too small at
#'   a single point; the homoscedastic share caps the loss there.  The cost
#'   is that of one model with all the chains, plus a second ensemble and
#'   verdict and the heteroscedastic network's longer gradient (up to about
#'   a quarter more time on more than 500 rows; on 201 to 500 rows about
#'   the time of the network and the linear check it replaces).  When the
#'   chains run in parallel (`options(mc.cores)` or a \pkg{future} plan),
#'   the two models' chains run together, as one fit's would, with the same
#'   draws as one after the other.  The fit returned is the model with
#'   the larger weight, with the other in `$mixture` (predictions pool both,
#'   `ndraws(fit)` draws shared by the weights, as above);
#'   `print()` and `$model_choice` give the elpds and weights.  When the
#'   heteroscedastic model gets less than 5% of the weight, the
#'   homoscedastic fit is returned alone, with its share of the chains (on
#'   two of faithful's three splits: its test log density was still above
#'   that of the network with all four chains).  Give
#'   `likelihood`, `hidden` or set `options(bnnmc.likelihood_check = FALSE)`
#'   to fit one model with all the chains.
#'
#' @template habits
#' @seealso [predict.bnnfit()], [bnn_convergence()], [bnn_metrics()], `vignette("getting-started")`.
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
                    likelihood = NULL, family = NULL, prior = NULL, sampler = "mile",
                    chains = 4, warmup = NULL, iter = NULL, thin = NULL,
                    init = "random", seed = NULL, subset, na.action,
                    standardize = TRUE, ensemble = NULL, valid_data = NULL,
                    progress = NULL, weights = NULL, chain_id = NULL,
                    precision = NULL) {
  call <- match.call()
  env <- parent.frame()
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
                   sampler = !missing(sampler), init = given[["init"]],
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
  default_run <- missing(sampler)
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
  fit_net <- function(m = model, ch = chains, defer = FALSE, r = run)
    fit_engine(m, r$sampler, ch, r$warmup, r$iter, r$thin, init, seed,
               progress, call, given[["init"]], waves = waves,
               chain_id = chain_id, ensemble = ensemble, valid_data = valid_data,
               precision = precision, keep_loglik = check || lcheck, defer = defer)
  if (lcheck) {
    # half the chains (rounded up) for the papers' heteroscedastic network
    # (its Normal(0, 1) prior), the rest for the default's homoscedastic one
    n_het <- as.integer(ceiling(chains / 2))
    fit_het <- function(defer = FALSE) {
      het <- prepare_model(mf, env, formula, data, hidden, activation, "hetero_gaussian",
                           NULL, standardize, notes = FALSE)
      het$spec <- spec_set_precision(het$spec, precision)
      check_float_range(het$spec, precision)
      fit_net(het, n_het, defer)
    }
    # the homoscedastic model tunes for .likelihood_homo_tune of the
    # default's steps unless `warmup` is given (R/fit-choice.R): the run
    # resolved as if that warmup had been given
    run_gau <- if (given[["warmup"]]) run else
      sampler_resolve_run(run$sampler, round(run$warmup * .likelihood_homo_tune), iter, thin,
                          replace(given, "warmup", TRUE))
    fit_gau <- function(defer = FALSE) fit_net(model, chains - n_het, defer, run_gau)
    # with chains run in parallel, the two models' chains run together
    # (one model's after the other's would leave workers idle)
    return(choose_default_likelihood(fit_het, fit_gau,
                                     together = chains_in_parallel(chains)))
  }
  if (!check) return(warn_overdispersion(fit_net()))
  # the default model's check: the same family's linear model (no hidden
  # layer), sampled by NUTS, its call saying so (update() and kfold() refit it)
  fit_lin <- function() {
    lin <- prepare_model(mf, env, formula, data, integer(0), activation, likelihood, prior,
                         standardize, notes = FALSE)
    lin$spec <- spec_set_precision(lin$spec, precision)
    nuts <- as_sampler("nuts")
    lrun <- sampler_resolve_run(nuts, sampler_protocol_default(nuts, "warmup", 1000L),
                                iter, 1L, given)
    # the user's call: update() and kfold() re-run the whole check (with
    # the same internal settings, so update(fit) reproduces the fit); the
    # outcome is recorded in $model_choice
    lcall <- call
    # (its verdict is computed by the check if it is returned alone)
    fit_engine(lin, lrun$sampler, chains, lrun$warmup, lrun$iter, lrun$thin, "random", seed,
               FALSE, lcall, FALSE, precision = precision,
               verdict = FALSE, estimate_cost = FALSE)
  }
  warn_overdispersion(choose_default_model(fit_net, fit_lin))
}

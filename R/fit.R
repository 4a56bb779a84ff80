# bnn_fit(): formula interface, data handling and the fit object.

#' Fit a Bayesian neural network by MCMC
#'
#' Builds a fully connected network from a formula, standardises predictors
#' and response with the training data's mean and standard deviation, and
#' samples the posterior of all weights and biases with the chosen sampler,
#' one independent chain at a time (or in parallel through the `future`
#' framework when a parallel plan is set).
#'
#' @param formula A model formula, e.g. `y ~ .`; factors and interactions are
#'   expanded with [stats::model.matrix()] and every column is standardised.
#' @param data A data frame.
#' @param hidden Widths of the hidden layers, e.g. `c(16, 16)` (the papers'
#'   default); `integer(0)` gives a (Bayesian) linear model.
#' @param activation Activation of the hidden layers; see [bnn_activations()].
#' @param likelihood A likelihood name or [bnn_likelihood()] object.  Numeric
#'   responses default to the homoscedastic `"gaussian"` (one sampled
#'   `sigma`), factors to `"bernoulli"` or `"categorical"`; the papers'
#'   heteroscedastic Gaussian is `"hetero_gaussian"` (see "Defaults" below).
#' @section Ties and the heteroscedastic likelihood:
#'   A heteroscedastic Gaussian has its own noise sd for every observation.
#'   Where many observations share one response value (a point mass, such as
#'   the exact zeros of a burned-area target), the network can put its mean
#'   on that value and shrink the sd there; the Gaussian density then grows
#'   without bound, and the posterior piles up on a spike (limited only by
#'   the clip of the sd at 1e-6 response sds) that makes predictions near
#'   the ties wildly overconfident.  One `sigma` shared by all observations
#'   (`likelihood = "gaussian"`, the default) cannot collapse onto a subset,
#'   because shrinking it costs the fit of every other point.  With any likelihood,
#'   a fit whose posterior mean predictive sd is below 0.001 response sds
#'   (0.0001 when the response has few ties) on at least 1% of the training
#'   points (and 2 of them) gets a warning of class `bnnmc_sd_collapse`
#'   naming the cause.
#' @param prior A [bnn_prior()] object or `"normal"` / `"laplace"`.  `NULL`
#'   (default): `bnn_prior(fan_in = TRUE)` (weights Normal(0, 1/fan-in),
#'   biases Normal(0, 1)) for a numeric response whose `likelihood` is not
#'   given, else the papers' Normal(0, 1) on every weight and bias
#'   ([bnn_prior()]); see "Defaults" below.
#' @param sampler `"mile"` (default; see "Defaults" below), `"nuts"`,
#'   `"hmc"`, `"dei"`, `"rwm"`,
#'   `"pcn"`, `"mclmc"`, `"sgld"`, `"psgld"`, `"sghmc"`, `"ces"`, or a
#'   settings object from [bnn_nuts()], [bnn_hmc()], [bnn_rwm()],
#'   [bnn_pcn()], [bnn_mclmc()], or for large data the stochastic-gradient
#'   samplers [bnn_sgld()], [bnn_psgld()] and [bnn_sghmc()], or [bnn_ces()]
#'   (calibration-emulation-sampling, FBNN: a pipeline of three stages whose
#'   draws are those of its sampling stage).  The protocols of the papers:
#'   * `"dei"` (DEI-MCMC, Sommer et al. 2024): a deep ensemble of `chains`
#'     members is trained ([bnn_optimizer_preset()] `"dei"`), and one NUTS
#'     chain starts at each member, with 100 warm-up iterations unless
#'     `warmup` is given;
#'   * `"mile"` (Sommer et al. 2025): the same with MCLMC and MILE's tuning
#'     ([bnn_mclmc()]; 40k/5k/5k tuning steps, 10k sampling steps thinned by
#'     10, initial step size = the ensemble's learning rate), the ensemble
#'     trained with the `"mile"` preset (`"mile_class"`, learning rate 0.01,
#'     for a factor response);
#'   * `"mclmc"`: MCLMC with MILE's tuning from `init` (random by default).
#'   For MCLMC samplers `iter` and `thin` (if given) set the sampling steps
#'   and thinning, and `warmup` (if given) the tuning steps, split 80/10/10
#'   over the three tuning stages.
#'
#'   The naive-MCLMC baseline of MILE's Table 5 (chains that can turn NaN)
#'   runs from the members of a deep ensemble with
#'   `sampler = bnn_mclmc(tuning = "naive", stepsize = 26)` and
#'   `init = <bnn_ensemble>` (see [bnn_mclmc()], `safeguard`, and the
#'   example below); `sampler = "mile"` with the same `init` is MILE.
#' @section Reproducibility:
#' A seed gives the same draws, bit for bit, under every \pkg{future} plan
#' and chain order, as long as the chains run on the same C kernels.  The
#' kernels are chosen by `options(bnnmc.kernels = )`: `"auto"` (default,
#' the best the CPU supports), `"portable"` (plain C: the same draws on
#' every CPU), `"avx2"` or `"avx512"` (an error when not available).
#' `bnn_fit()` applies the option when it starts, and sends it with the
#' chains to every \pkg{future} worker, which applies it before running
#' them (workers are other R processes and do not share the session's
#' options).  The fit's `$kernels` records the kernels its chains ran on
#' (`"generic"` for portable, `"avx2+fma"`, `"avx512"`).  The environment
#' variable `BNNMC_KERNELS`, read when bnnmc is loaded, sets the option's
#' default.  See also [bnnmc-package].
#'
#' @section Defaults:
#'   The default fit is MILE (`sampler = "mile"`: a deep ensemble, then one
#'   MCLMC chain from each member with MILE's tuning) of a 16-16 tanh network
#'   with 4 chains; for a numeric response, the homoscedastic Gaussian
#'   likelihood (one `sigma`, half-normal(1) prior on the standardised
#'   scale) and weights Normal(0, 1/fan-in) (biases Normal(0, 1)).  The
#'   sampler and network were chosen
#'   by measuring candidate defaults (sampler, width, activation,
#'   likelihood) on the six UCI regression sets of the papers for test LPPD,
#'   RMSE and time (`vignette("benchmarks")`, section "Defaults for a first
#'   fit"; `inst/benchmarks/first_fit_defaults.R`): on data of a few hundred
#'   rows MILE takes well under a minute and predicts about as well as NUTS
#'   (better test LPPD on two of four sets, worse on two, lower RMSE on all),
#'   whose fits of the same network took 3 to 9 minutes, hit the maximum tree
#'   depth in most transitions and diverged.  Wider
#'   networks (32-32) were slower and worse.  The papers' protocols are one
#'   argument away: `sampler = "nuts"` (Stan's defaults: 4 chains of 1000
#'   warm-up and 1000 sampling iterations, as rstanarm and brms), `"dei"`
#'   and `"mile"`.  For large data (tens of thousands of rows and more) the
#'   stochastic-gradient samplers cost per step what a batch costs, not what
#'   the data set costs.
#'
#'   The likelihood and prior were chosen for calibration (issue #23;
#'   `vignette("benchmarks")`, section "A default chosen for calibration";
#'   `inst/benchmarks/decisions/default_panel.R`).  The papers' model, the
#'   heteroscedastic Gaussian (the network outputs a mean and a log sd) with
#'   Normal(0, 1) on every weight, was the default before: its log-sd head
#'   is a network output under unit priors, so its prior predictive sd spans
#'   many orders of magnitude, and small or noisy data do not pin it down.
#'   On a panel of 22 regression sets of 30 to 1,503 rows (3 to 5 random
#'   splits each), the homoscedastic Gaussian with fan-in scaled weights
#'   kept every predictive draw within 27 response sds of its median (the
#'   old default: up to 2.2 million) and met the panel's thresholds (test
#'   log density at most 0.05 below `lm`'s, 90% coverage in \[0.80, 0.98\],
#'   no draw beyond 50 sds) on 16 of the 22 sets, more than any other
#'   candidate (old default 8, homoscedastic with Normal(0, 1) weights 14);
#'   no candidate met them on all.  It misses them on six sets of at most 50
#'   rows.  On sets of a few hundred rows and more it predicts worse than
#'   the Normal(0, 1) prior (e.g. concrete, airfoil) and than the
#'   heteroscedastic head where the noise varies: there `prior = bnn_prior()`
#'   or `likelihood = "hetero_gaussian"` are worth comparing, e.g. by [loo::loo()].
#'   The papers' protocols stay one argument away:
#'   `likelihood = "hetero_gaussian"` (an explicit likelihood keeps the
#'   Normal(0, 1) prior unless `prior` is given) with `sampler = "mile"`,
#'   `"dei"` or `"nuts"` is exactly the old default.
#'
#'   Known shortfalls of this default (issue #23, measured in
#'   `inst/benchmarks/decisions/`): over 20 random splits its test log
#'   density is below `lm`'s by 0.06 to 0.22 per point on six near-linear
#'   sets of at most 50 rows (`default_panel_tiny.R`), and on the UCI sets
#'   yacht, energy, concrete and airfoil its chains fail the convergence
#'   verdict (the training log-likelihood drifts; `default_verdict.R`,
#'   `default_verdict_diagnosis.R`), which `bnn_fit()` reports as a warning.
#' @param chains Number of chains, or [bnn_waves()] settings: chains are
#'   then run in waves until the number run meets the chain-count bound
#'   for the mode probabilities estimated from them.
#' @param warmup The warm-up (adaptation) budget per chain, not kept, in the
#'   sampler's own unit (see "Iterations, warm-up and thinning" below);
#'   `NULL` (default) takes the sampler's default.  With
#'   `warmup = 0` nothing is adapted: NUTS (and HMC with `adapt_stepsize`)
#'   starts from the step size of Stan's initial heuristic (one leapfrog step
#'   with acceptance near 0.8) and keeps it, and `print()` says "not
#'   adapted".
#' @param iter The number of draws kept per chain (as cmdstanr's
#'   `iter_sampling`), for every sampler.  `update(fit, iter = 2 * k)` is a
#'   run twice as long.  A fit keeping fewer than 100 draws per chain warns.
#' @param thin Transitions behind each kept draw: a chain runs
#'   `iter * thin` sampling transitions and keeps every `thin`-th.  `NULL`
#'   (default) takes the sampler's default (1; 10 for MCLMC and MILE).
#' @section Iterations, warm-up and thinning:
#'   `iter` is always the number of draws kept per chain and `thin` the
#'   number of transitions behind each, so a chain makes `iter * thin`
#'   sampling transitions.  The warm-up is counted in the sampler's own
#'   transitions:
#'
#'   | sampler | unit of `warmup` | default `warmup` | default `thin` |
#'   |---|---|---|---|
#'   | `"nuts"`, `"hmc"` | iterations (trajectories), with Stan's windowed adaptation | 1000 | 1 |
#'   | `"dei"` | NUTS iterations | 100 | 1 |
#'   | `"rwm"`, `"pcn"` | iterations (proposals), step size adaptation | 1000 | 1 |
#'   | `"mile"`, `"mclmc"` | tuning steps (integration steps), split 80/10/10 over the three tuning stages | 50000 (40k/5k/5k) | 10 |
#'   | `"sgld"`, `"psgld"`, `"sghmc"` | burn-in iterations (minibatch steps) | 1000 | 1 |
#'   | `"ces"` | iterations of the sampling stage (the calibration stage has `calibration_warmup`) | 1000 | 1 |
#'
#'   `print(fit)` states the warm-up with its unit.  A sampler object whose
#'   own settings fix the run (`bnn_mclmc(n_samples = , thin = )`) keeps them
#'   unless `iter` or `thin` is given.
#' @param init Initial values: `"random"` (uniform(-2, 2) per coordinate, as
#'   Stan and NumPyro), `"prior"` (a draw from the prior), `"ensemble"` (a
#'   deep ensemble of `chains` members is trained with `ensemble` settings,
#'   one chain per member), a [bnn_fit_ensemble()] fitted on the same model
#'   (chain \eqn{k} starts at member \eqn{k}, recycled when there are more
#'   chains than members; for MILE's tuning the initial step size is the
#'   ensemble's learning rate), a list with one
#'   numeric vector per chain, a matrix with one row per chain, or a function
#'   of the chain index returning a vector.  Values are on the unconstrained
#'   scale (`log sigma`).  Inits with a non-finite log posterior are
#'   redrawn up to 100 times for `"random"`; a user-supplied one fails that
#'   chain.
#' @param seed A whole number from 0 to `.Machine$integer.max`.  The same seed gives the same draws for each
#'   chain, whatever the order or the number of workers the chains run on
#'   (on the same kernels: see `options(bnnmc.kernels)` in [bnnmc-package]).
#'   `NULL` draws one from R's RNG.
#' @param subset,na.action As in [stats::lm()].  Missing values are an error
#'   unless `na.action = na.omit` (or another function) is given; with
#'   `na.exclude`, `fitted()`, `residuals()` and `log_lik()` of the training
#'   data are padded with `NA` at the dropped rows.  `offset()` terms in the
#'   formula are added to the mean on the response's scale (numeric
#'   responses).
#' @param standardize Standardise predictors and response with the training
#'   data's statistics (strongly recommended: the priors assume it).  With
#'   `FALSE` and the heteroscedastic likelihood, a response whose largest
#'   absolute value exceeds 1e4 or whose sd is below 1e-4 is an error (that
#'   likelihood bounds the predictive sd to \[1e-6, 1e6\]).
#' @param ensemble Optimiser settings ([bnn_optimizer()]) of the ensemble
#'   trained when `init = "ensemble"`; by default the preset of the protocol.
#' @param valid_data Optional validation data frame for the ensemble's early
#'   stopping (MILE's protocol uses one); it is not used by the sampler, and
#'   a warning says so when no ensemble is trained.
#' @param progress Progress of the whole fit (one bar for all chains, warm-up
#'   and sampling, with the chains done and the time left), through the
#'   `progressr` package (if installed), which follows the rule that a
#'   package signals progress and the user decides how it is shown
#'   ([progressr::handlers()]).  `NULL` (default): progress is signalled
#'   (cheaply, at most five times a second) and shown in interactive sessions
#'   or wherever the user enabled it (`progressr::handlers(global = TRUE)`,
#'   or a call wrapped in [progressr::with_progress()]); `TRUE`: shown with
#'   the user's handlers in any session; `FALSE`: nothing is signalled.
#' @param weights Optional observation weights (a column of `data` or a
#'   vector, evaluated like [stats::lm()]'s): a weighted likelihood, each
#'   observation's log-likelihood multiplied by its weight, as in rstanarm
#'   and brms.  Finite and non-negative.  A deep ensemble trained for the
#'   chains' starts is trained unweighted (it only gives starting points).
#'   `log_lik()` of the training data is weighted too.
#' @param chain_id Optional ids of the chains this call runs (distinct whole
#'   numbers >= 1, one per chain; `chains` defaults to their number), as
#'   rstan's `chain_id`.  Chain \eqn{k} of a seed has its own random numbers
#'   and the start it has in a fit of \eqn{k} or more chains (random and
#'   prior starts are drawn for all chains up to `max(chain_id)`, a deep
#'   ensemble trains `max(chain_id)` members; pass a trained [bnn_fit_ensemble()]
#'   as `init` to train it once).  A long run can so be split over calls,
#'   sessions or machines and joined by [bnn_combine_chains()] into the fit
#'   one call over all ids would give, draw for draw.  A list or matrix
#'   `init` gives the starts of this call's chains, in `chain_id` order; an
#'   `init` function is called with the chain id.  Not with
#'   `chains = bnn_waves()` nor `sampler = "ces"`.
#' @param precision `"double"` (default) or `"single"`: the floating-point
#'   precision of the network's forward and backward pass in the log
#'   posterior's gradient.  With `"single"` the layers run in float32 (on
#'   float copies of the data's rows and weights rounded per evaluation, 16
#'   lanes per AVX-512 instruction instead of 8), while the log-likelihood
#'   sum, the log prior, energies, accept/reject decisions and the
#'   sampler's state stay in double.  It applies to every sampler and to the
#'   deep ensemble trained for the starts (NUTS, HMC, DEI, MILE/MCLMC,
#'   SG-MCMC, pCN, RWM, CES's calibration and exact stages).  The fit
#'   records it (`$precision`, shown by `print()`); predictions,
#'   [log_lik()] and the metrics are computed in double, and
#'   [bnn_log_posterior()] of the fit in the fit's precision.
#'
#'   **When to use it.** For large data (thousands of rows and more), where
#'   the gradient dominates the run time: on the authors' machine (AVX-512)
#'   one gradient of the 16-16 tanh network was 2.05 times as fast on
#'   airfoil (1,052 rows) and 2.06 times on protein (32,011 rows), the
#'   default 4-chain fit on airfoil 1.88 times, with the same test RMSE and
#'   LPPD within the seed-to-seed spread; see
#'   `inst/benchmarks/speed/single_precision.csv`.  Tiny networks on little
#'   data gain little (the sampler's own work is in double).  Double stays
#'   the default: its draws are the reproducible ones.
#'
#'   **What it costs in accuracy.** float32 has a relative precision of
#'   about 6e-8: the gradient differs from double's by about 1e-7 to 1e-6 of
#'   its norm (tests/testthat/test-single-precision.R checks 1e-4 for nine
#'   network shapes and every likelihood with each kernel; the worst was
#'   7.6e-7; NUTS in single precision on a conjugate linear model gives
#'   posterior means within 0.9 MCSE of the exact ones), which is far below Monte
#'   Carlo error, so posterior means and predictions agree within MCSE, but
#'   draws are not bit-identical to double ones (nor across kernels).  The
#'   log density's value differs by about 1e-7 relative, so Hamiltonian
#'   energy errors below about 1e-7 times the log density are rounding
#'   noise; a chain that diverges fails exactly as in double.
#' @param ... Not used: every argument after `data` must be named in full, and
#'   an unknown or misspelt one is an error that suggests the argument meant
#'   (e.g. `chain = 2` names `chains` and `chain_id`).
#' @return An object of class `bnnfit` with the draws as an array
#'   `[iteration, chain, parameter]` (`$draws`), sampler statistics with
#'   Stan's names (`$sampler_stats`), the number of gradient evaluations and
#'   timings per chain, and everything [predict.bnnfit()] needs.  Chains that
#'   failed have all draws `NA`, a status other than `"ok"` in
#'   `$chain_status` and a warning (class `bnnmc_chain_failure`); all
#'   methods use the other chains.  `$failed_at` (one row per chain) says
#'   where an MCLMC chain with `safeguard = "blackjax"` turned non-finite:
#'   `phase` (`"stage1"`, `"stage2"`, `"stage3"` or `"sampling"`), `step`
#'   (from 1 within the phase) and `reason` (`"state"`: position, momentum
#'   or gradient non-finite; `"stepsize"`: the tuned step size became NaN);
#'   `$n_grad` counts the gradients such a chain evaluated before it was
#'   stopped.  A chain that never left its initial values (every transition
#'   rejected) is a failed chain too ("the chain never moved").
#'
#'   Before anything is allocated, the number of parameters and the memory
#'   the fit will need are checked against a limit (4 GB by default, see
#'   [bnn_model_size()]).
#' @export
#' @examples
#' # the default: MILE (a deep ensemble, then MCLMC from each member)
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 4, chains = 2, seed = 42)
#' fit
#' head(predict(fit, newdata = mtcars[1:5, ], type = "interval"))
#' # NUTS, as rstanarm and brms (here with short runs)
#' nuts <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 4, chains = 2,
#'                 sampler = "nuts", warmup = 150, iter = 100, seed = 42)
#' nuts
#' \donttest{
#' # Naive MCLMC (MILE's Table 5) versus MILE from the same deep ensemble,
#' # with short runs; chains of the naive sampler may fail (a warning)
#' ens <- bnn_fit_ensemble(mpg ~ wt + hp, data = mtcars, hidden = c(16, 16),
#'                     members = 4, optimizer = bnn_optimizer(epochs = 200),
#'                     seed = 1, progress = FALSE)
#' short <- list(n_tune = c(800, 100, 100), n_samples = 500)
#' naive <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = c(16, 16),
#'                  activation = "relu", chains = 4, init = ens, seed = 1,
#'                  sampler = do.call(bnn_mclmc, c(list(tuning = "naive"), short)),
#'                  progress = FALSE)
#' naive$chain_status
#' naive$failed_at
#' mile <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = c(16, 16),
#'                 activation = "relu", chains = 4, init = ens, seed = 1,
#'                 sampler = do.call(bnn_mclmc, short), progress = FALSE)
#' mile$chain_status
#' }
bnn_fit <- function(formula, data, ..., hidden = c(16, 16), activation = "tanh",
                    likelihood = NULL, prior = NULL, sampler = "mile",
                    chains = 4, warmup = NULL, iter = 1000, thin = NULL,
                    init = "random", seed = NULL, subset, na.action,
                    standardize = TRUE, ensemble = NULL, valid_data = NULL,
                    progress = NULL, weights = NULL, chain_id = NULL,
                    precision = c("double", "single")) {
  call <- match.call()
  # which settings the user gave (missing() is FALSE once reassigned)
  given <- c(warmup = !is.null(warmup), iter = !missing(iter),
             thin = !is.null(thin), init = !missing(init))
  # arguments after `...` match only by their full names: anything else
  # lands here, and a misspelt one is named with the argument meant
  stop_unknown_args(list(...), names(formals(sys.function())), "bnn_fit")
  mf <- match.call(expand.dots = FALSE)
  m <- match(c("formula", "data", "subset", "na.action", "weights"), names(mf), 0L)
  mf <- mf[c(1L, m)]
  protocol <- if (is.character(sampler) && length(sampler) == 1L) sampler else NA_character_
  sampler <- as_sampler(sampler)
  waves <- NULL
  if (inherits(chains, "bnn_waves")) {
    waves <- chains
    chains <- waves$max_chains
    if (inherits(sampler, "bnn_ces"))
      stop("'chains = bnn_waves()' is not available for sampler = \"ces\".", call. = FALSE)
    if (identical(init, "ensemble") || inherits(init, "bnn_ensemble") ||
        (protocol %in% c("dei", "mile") && !given[["init"]]))
      stop(paste0("'chains = bnn_waves()' needs starting points that do not depend on the ",
                  "number of chains: init = \"random\", \"prior\", a function, or a list ",
                  "of max_chains vectors (not a deep ensemble)."), call. = FALSE)
  }
  if (!is.null(chain_id)) {
    if (!is.null(waves))
      stop("'chain_id' cannot be combined with 'chains = bnn_waves()'.", call. = FALSE)
    if (inherits(sampler, "bnn_ces"))
      stop("'chain_id' is not available for sampler = \"ces\".", call. = FALSE)
    chain_id <- check_chain_id(chain_id)
    if (missing(chains)) chains <- length(chain_id)
  }
  precision <- check_precision(precision)
  chains <- check_count(chains, "chains", 1L)
  if (!is.null(chain_id) && length(chain_id) != chains)
    stop(sprintf("'chain_id' must have one id per chain (%d), not %d.", chains,
                 length(chain_id)), call. = FALSE)
  # One meaning for every sampler: `iter` draws are kept per chain, each
  # `thin` transitions apart, after `warmup` (the sampler's own unit, see
  # run_units()).  Below, `iter` becomes the number of sampling transitions.
  warmup <- if (given[["warmup"]]) check_count(warmup, "warmup", 0L) else 1000L
  iter <- check_count(iter, "iter", 1L)
  thin <- if (given[["thin"]]) check_count(thin, "thin", 1L) else
    if (inherits(sampler, "bnn_mclmc")) as.integer(sampler$thin) else 1L
  if (as.double(iter) * thin > .Machine$integer.max)
    stop("'iter' * 'thin' (the sampling transitions per chain) is too large.", call. = FALSE)
  n_keep_est <- if (inherits(sampler, "bnn_mclmc") && !given[["iter"]] && !given[["thin"]])
    ceiling(sampler$n_samples / thin) else iter
  iter <- iter * thin
  model <- prepare_model(mf, parent.frame(), formula, data, hidden, activation,
                         likelihood, prior, standardize,
                         # CES: the sampling stage here; fit_ces() checks all stages
                         per_par = bytes_per_parameter(
                           if (inherits(sampler, "bnn_ces")) sampler$sampler else sampler,
                           chains, n_keep_est))
  check_sampler_model(sampler, model$prior)
  model$spec <- spec_set_precision(model$spec, precision)
  if (identical(protocol, "dei") && !given[["warmup"]]) warmup <- 100L
  if (protocol %in% c("dei", "mile") && !given[["init"]]) init <- "ensemble"
  if (is.null(seed)) seed <- new_seed()
  seed <- check_count(seed, "seed", 0L)
  # the kernels of options(bnnmc.kernels), from here on in this session (the
  # chains' workers apply the same, see dispatch_chains())
  apply_kernels(kernels_option())
  if (inherits(sampler, "bnn_ces")) {
    fit <- fit_ces(model, sampler, chains, warmup, iter, thin, init, seed, progress, call,
                   given[["init"]])
    fit$precision <- precision
    return(fit)
  }
  is_mclmc <- inherits(sampler, "bnn_mclmc")
  if (is_mclmc) {
    if (given[["iter"]] || given[["thin"]]) sampler$n_samples <- iter
    sampler$thin <- thin
    if (given[["warmup"]])
      sampler$n_tune <- as.integer(round(warmup * c(0.8, 0.1, 0.1)))
    warmup <- sum(sampler$n_tune)
    iter <- sampler$n_samples
    thin <- sampler$thin
  }

  spec <- model$spec
  dim <- spec_dim(spec)
  # what the fit will cost, said up front when it is long (R/run-cost.R)
  cost <- tryCatch(fit_cost(spec, sampler, chains, warmup, iter, init,
                            ensemble_opt = if (identical(init, "ensemble"))
                              ensemble %||% protocol_preset(protocol, model$likelihood),
                            n_members = max(chain_id %||% chains)),
                   error = function(e) NULL)
  if (!isFALSE(progress) || (!is.null(cost) && cost$total > 600))
    announce_cost(cost, call, chains, full_batch = !inherits(sampler, "bnn_sgmcmc"))
  # chain k of this fit is chain ids[k] of the seed: its RNG stream and its
  # start are those it has in a fit of max(ids) chains (random and prior
  # inits come from one stream, an ensemble's member k from (seed, k))
  ids <- chain_id %||% seq_len(chains)
  n_gen <- max(ids)
  pick <- function(x) if (is.null(chain_id)) x else x[ids]
  ens <- NULL
  if (inherits(init, "bnn_ensemble")) {
    ens <- init
  } else if (identical(init, "ensemble")) {
    opt <- ensemble %||% protocol_preset(protocol, model$likelihood)
    ens <- train_ensemble(model, n_gen, opt, valid_data, NULL, seed,
                          progress %||% interactive())
  }
  if (!is.null(valid_data) && !(identical(init, "ensemble") && !inherits(init, "bnn_ensemble")))
    warn_cond(paste0("'valid_data' is only used for the early stopping of a deep ensemble ",
                     "trained here (init = \"ensemble\", sampler = \"dei\" or \"mile\"); ",
                     "it is ignored by this fit. Evaluate held-out data with ",
                     "bnn_metrics(fit, newdata = ...) instead."), "bnnmc_ignored_argument")
  inits <- if (!is.null(ens)) pick(ensemble_inits(ens, n_gen, dim, spec)) else
    if (is.character(init) || is.function(init))
      pick(make_inits(init, n_gen, dim, spec, model$prior, seed)) else
        make_inits(init, chains, dim, spec, model$prior, seed)
  if (inherits(sampler, "bnn_sgmcmc")) {
    prep <- sg_prepare(sampler, spec, inits, seed, warmup, iter, given[["init"]])
    sampler <- prep$sampler
    inits <- prep$inits
  }

  pars <- bnn_parameter_names(spec$sizes, sigma = has_sigma(spec))
  phases <- if (is_mclmc) c(tuning = warmup, sampling = iter) else
    c("warm-up" = warmup, sampling = iter)
  lr <- if (!is.null(ens)) ens$optimizer$lr else NULL
  render <- isTRUE(progress %||% interactive())
  # run_ids(pos) runs the chains at positions `pos` of this fit
  kernels_used <- character(0)
  run_ids <- function(pos) {
    prog <- make_progress(!isFALSE(progress), length(pos), warmup + iter, phases = phases,
                          render = render)
    out <- dispatch_chains(pos, function(k) {
      run_chain_any(spec, inits[[k]], seed, ids[k], sampler, warmup, iter, thin,
                    progress = prog, lr = lr)
    })
    kernels_used <<- union(kernels_used, attr(out, "kernels"))
    out
  }
  finish <- function(res) {
    fit <- assemble_fit(res, pars, spec, sampler, warmup, iter, thin, seed, length(res),
                        ids[seq_along(res)])
    fit <- c(fit, model[setdiff(names(model), c("spec", names(fit)))])
    class(fit) <- "bnnfit"
    fit
  }
  t_start <- proc.time()[[3]]
  if (is.null(waves)) {
    res <- run_ids(seq_len(chains))
    wave_log <- NULL
  } else {
    wv <- run_waves(waves, run_ids, finish, verbose = render)
    res <- wv$res
    wave_log <- wv$log
    chains <- length(res)
    inits <- inits[seq_len(chains)]
  }
  elapsed <- proc.time()[[3]] - t_start
  fit <- finish(res)
  if (!is.null(wave_log)) fit$waves <- list(log = wave_log, settings = waves)
  fit$call <- call
  fit$protocol <- protocol
  fit$inits <- inits
  fit$elapsed <- elapsed
  fit$cost_estimate <- cost$total
  fit$precision <- precision
  fit$ensemble <- ens
  fit$kernels <- kernels_used
  fit$spec$X <- NULL
  fit$spec$y <- NULL
  class(fit) <- "bnnfit"
  report_failures(fit)
  check_sd_collapse(fit)
  check_short_run(fit)
  fit$convergence <- check_convergence(fit)
  fit
}

# A run that keeps fewer than 100 draws per chain: its summaries, R-hat and
# ESS are unreliable (Stan's guidance), so say so with the call to run.
check_short_run <- function(fit, min_draws = 100L) {
  n <- dim(fit$draws)[1]
  # with every chain failed there is nothing to summarise: the failure
  # report says what happened
  if (n >= min_draws || !any(fit$chain_status == "ok")) return(invisible(NULL))
  warn_cond(sprintf(paste0("This fit keeps %d draw(s) per chain; summaries, R-hat and ESS need at ",
                           "least %d. Run longer, e.g. update(fit, iter = %d) (iter is the number ",
                           "of draws kept per chain)."), n, min_draws, max(1000L, min_draws)),
            "bnnmc_short_run")
}

# Model frame, design, response and specification shared by bnn_fit() and
# bnn_fit_ensemble().  mf is the matched call reduced to formula/data/subset/
# na.action; env is the caller's frame.
prepare_model <- function(mf, env, formula, data, hidden, activation, likelihood,
                          prior, standardize, per_par = NULL) {
  if (missing(formula) || !inherits(formula, "formula"))
    stop("'formula' must be a formula such as y ~ x1 + x2.", call. = FALSE)
  if (missing(data) || !is.data.frame(data))
    stop("'data' must be a data frame.", call. = FALSE)
  hidden <- check_hidden(hidden)
  activation <- match_choice(activation, names(.activations), "activation")
  if (!is.null(prior)) prior <- as_prior(prior)
  mf$drop.unused.levels <- TRUE
  if (is.null(mf$na.action)) mf$na.action <- quote(stats::na.fail)
  mf[[1L]] <- quote(stats::model.frame)
  mf <- tryCatch(eval(mf, env), error = function(e) {
    msg <- conditionMessage(e)
    if (grepl("missing values", msg))
      stop("'data' has missing values in the model's variables; remove them or set ",
           "na.action = na.omit (the default na.action here is na.fail).", call. = FALSE)
    stop("Cannot build the model frame from 'formula' and 'data': ", msg, call. = FALSE)
  })
  design <- design_from_frame(mf, standardize)
  y <- design$y
  lik <- response_likelihood(y, likelihood)
  prior <- prior %||% default_prior(y, likelihood)   # R/defaults.R
  w <- frame_weights(mf)
  off <- stats::model.offset(mf)
  if (!is.null(off)) {
    if (lik$family %in% c("bernoulli", "categorical"))
      stop("offset() in the formula is supported for numeric responses only.", call. = FALSE)
    if (!is.numeric(off) || any(!is.finite(off)))
      stop("The offset must be finite numbers.", call. = FALSE)
    off <- as.double(off)
  }
  # an offset enters the mean on the response's scale, y = f(x) + offset, so
  # the network models y - offset (exactly the same Gaussian likelihood)
  yinfo <- encode_response(if (is.null(off)) y else y - off, lik, standardize)
  sizes <- layer_sizes(ncol(design$X), hidden, lik, n_class = yinfo$n_class)
  check_model_size(sizes, per_par)
  spec <- make_spec(sizes, activation, lik, prior, X = design$X, y = yinfo$y)
  if (!is.null(w)) spec$weights <- w
  list(spec = spec, weights = w, offset = off, na_action = attr(mf, "na.action"),
       formula = formula, terms = design$terms, xlevels = design$xlevels,
       contrasts = design$contrasts, x_center = design$center, x_scale = design$scale,
       y_center = yinfo$center, y_scale = yinfo$scale, y = y, levels = yinfo$levels,
       model_frame = mf, hidden = hidden, activation = activation, likelihood = lik,
       prior = prior, X = design$X, y_model = yinfo$y)
}

# Observation weights of the model frame (weights = in bnn_fit()): NULL or
# finite non-negative doubles, not all zero.
frame_weights <- function(mf) {
  w <- stats::model.weights(mf)
  if (is.null(w)) return(NULL)
  if (!is.numeric(w) || any(!is.finite(w)) || any(w < 0) || !any(w > 0))
    stop("'weights' must be finite non-negative numbers, not all zero, one per observation.",
         call. = FALSE)
  as.double(w)
}

# The response of new data on the model's scale (standardised, or class
# indices from 0).  With offset = TRUE the model's offset is subtracted
# first (the scale of the network's own output, for the optimiser).
model_response <- function(object, newdata, offset = FALSE) {
  tt <- object$terms
  yname <- all.vars(tt)[attr(tt, "response")]
  if (is.null(newdata[[yname]]) && !yname %in% names(newdata)) {
    mf <- tryCatch(stats::model.frame(tt, newdata, na.action = stats::na.pass),
                   error = function(e) stop("'newdata' lacks the response '", yname, "'.",
                                            call. = FALSE))
    yv <- stats::model.response(mf)
  } else {
    mf <- stats::model.frame(tt, newdata, xlev = object$xlevels, na.action = stats::na.pass)
    yv <- stats::model.response(mf)
  }
  if (anyNA(yv)) stop("'newdata' has missing values in the response.", call. = FALSE)
  if (is_classification(object)) {
    f <- if (is.logical(yv)) factor(yv, levels = c(FALSE, TRUE)) else factor(yv)
    bad <- setdiff(levels(droplevels(f)), object$levels)
    if (length(bad))
      stop("'newdata' has response level(s) not seen in training: ",
           paste(bad, collapse = ", "), ".", call. = FALSE)
    return(as.double(match(as.character(f), object$levels) - 1L))
  }
  if (offset && !is.null(object$offset)) yv <- yv - design_offset(object, newdata)
  as.double((yv - object$y_center) / object$y_scale)
}

# Design matrix without intercept, standardised columns.
design_from_frame <- function(mf, standardize) {
  mt <- attr(mf, "terms")
  y <- stats::model.response(mf)
  if (is.null(y)) stop("'formula' must have a response on its left-hand side.", call. = FALSE)
  attr(mt, "intercept") <- 1L
  X <- stats::model.matrix(mt, mf)
  X <- X[, colnames(X) != "(Intercept)", drop = FALSE]
  if (ncol(X) == 0L) stop("'formula' has no predictors.", call. = FALSE)
  center <- colMeans(X)
  scale <- apply(X, 2L, stats::sd)
  if (nrow(X) < 2L) stop("'data' must have at least 2 rows.", call. = FALSE)
  nonfin <- colSums(!is.finite(X)) > 0
  if (any(nonfin))
    stop("'data' has non-finite values (Inf, -Inf) in predictor(s): ",
         paste(colnames(X)[nonfin], collapse = ", "), ". Remove or replace them.",
         call. = FALSE)
  const <- !is.finite(scale) | scale == 0
  if (any(const))
    stop("Constant predictor(s) in 'data': ", paste(colnames(X)[const], collapse = ", "),
         ". Remove them from the formula.", call. = FALSE)
  if (!standardize) {
    center[] <- 0
    scale[] <- 1
  }
  Xs <- sweep(sweep(X, 2L, center, "-"), 2L, scale, "/")
  storage.mode(Xs) <- "double"
  attr(Xs, "assign") <- NULL
  attr(Xs, "contrasts") <- NULL
  list(X = Xs, y = y, terms = mt, center = center, scale = scale,
       xlevels = stats::.getXlevels(mt, mf), contrasts = attr(X, "contrasts"))
}

response_likelihood <- function(y, likelihood) {
  if (is.factor(y) || is.logical(y)) {
    nlev <- if (is.logical(y)) 2L else nlevels(y)
    if (nlev < 2L) stop("The response factor must have at least 2 levels.", call. = FALSE)
    dflt <- if (nlev == 2L) "bernoulli" else "categorical"
    lik <- as_likelihood(likelihood %||% dflt)
    if (!lik$family %in% c("bernoulli", "categorical"))
      stop(sprintf("A factor response needs likelihood \"%s\", not \"%s\".", dflt, lik$family),
           call. = FALSE)
    if (lik$family == "bernoulli" && nlev != 2L)
      stop("likelihood \"bernoulli\" needs a response with 2 levels; use \"categorical\".",
           call. = FALSE)
    return(lik)
  }
  if (!is.numeric(y) || is.matrix(y))
    stop("The response must be a numeric vector (regression) or a factor ",
         "(classification), not ", class(y)[1], ".", call. = FALSE)
  lik <- as_likelihood(likelihood %||% default_numeric_likelihood(y))
  if (lik$family %in% c("bernoulli", "categorical"))
    stop(sprintf("likelihood \"%s\" needs a factor response.", lik$family), call. = FALSE)
  lik
}

encode_response <- function(y, lik, standardize) {
  if (lik$family %in% c("bernoulli", "categorical")) {
    f <- if (is.logical(y)) factor(y, levels = c(FALSE, TRUE)) else y
    return(list(y = as.double(as.integer(f) - 1L), center = 0, scale = 1,
                levels = levels(f), n_class = nlevels(f)))
  }
  if (!all(is.finite(y))) stop("The response has non-finite values.", call. = FALSE)
  center <- if (standardize) mean(y) else 0
  scale <- if (standardize) stats::sd(y) else 1
  if (!(scale > 0)) stop("The response is constant.", call. = FALSE)
  if (!standardize && lik$family == "hetero_gaussian") {
    # the heteroscedastic likelihood bounds the predictive sd to [1e-6, 1e6]
    # on the model's scale (as MILE's code); a response far from unit scale
    # would be fitted with a clipped sd (and the unit prior cannot reach its
    # mean), so refuse rather than return intervals of the wrong width
    sy <- stats::sd(y)
    if (max(abs(y)) > 1e4 || sy < 1e-4)
      stop(sprintf(paste0("With standardize = FALSE the response must be on a moderate scale: ",
                          "its sd is %s and its largest absolute value %s, but the ",
                          "heteroscedastic likelihood bounds the predictive sd to [1e-6, 1e6] ",
                          "and the prior assumes unit scale. Use standardize = TRUE (the default), ",
                          "or rescale the response (e.g. to thousands)."),
                   format(signif(sy, 3)), format(signif(max(abs(y)), 3))), call. = FALSE)
  }
  list(y = as.double((y - center) / scale), center = center, scale = scale,
       levels = NULL, n_class = NA_integer_)
}

# One initial vector per chain (unconstrained scale).
make_inits <- function(init, chains, dim, spec, prior, seed) {
  finite_lp <- function(th) {
    lp <- .Call(C_model_logpost, spec, matrix(th, ncol = 1L))$lp
    is.finite(lp)
  }
  if (is.character(init) && length(init) == 1L) {
    init <- match_choice(init, c("random", "prior"), "init")
    return(with_seed(seed, lapply(seq_len(chains), function(cid) {
      for (attempt in 1:100) {
        th <- if (init == "random") stats::runif(dim, -2, 2) else {
          s <- spec$prior_scale
          net <- if (prior$family == "normal") stats::rnorm(length(s), 0, s) else
            s * (stats::rexp(length(s)) - stats::rexp(length(s)))
          if (dim > length(s)) c(net, stats::runif(1, -2, 2)) else net
        }
        if (finite_lp(th)) return(th)
      }
      stop(sprintf("Could not find initial values with a finite log posterior for chain %d after 100 attempts.", cid),
           call. = FALSE)
    })))
  }
  from_fun <- is.function(init)
  if (from_fun) init <- lapply(seq_len(chains), init)
  if (is.matrix(init)) init <- lapply(seq_len(nrow(init)), function(i) init[i, ])
  if (is.numeric(init) && !is.list(init)) {
    if (chains != 1L)
      stop(sprintf("'init' must be a list with one vector per chain (%d).", chains),
           call. = FALSE)
    init <- list(init)
  }
  if (!is.list(init))
    stop("'init' must be \"random\", \"prior\", a list of vectors, a matrix or a function.",
         call. = FALSE)
  if (length(init) != chains)
    stop(sprintf("'init' has %d starting points but there are %d chains.", length(init), chains),
         call. = FALSE)
  lapply(seq_along(init), function(i) {
    v <- init[[i]]
    who <- if (from_fun) sprintf("The 'init' function's value for chain %d", i) else
      sprintf("'init' for chain %d", i)
    if (!is.numeric(v) || length(v) != dim)
      stop(sprintf("%s must be a numeric vector of length %d (the number of parameters), not %s of length %d.",
                   who, dim, class(v)[1L], length(v)), call. = FALSE)
    bad <- which(!is.finite(v))
    if (length(bad))
      stop(sprintf("%s has missing or non-finite values (%s at position%s %s); initial values must be finite.",
                   who, paste(unique(format(v[bad])), collapse = ", "),
                   if (length(bad) > 1L) "s" else "",
                   paste(bad[seq_len(min(5L, length(bad)))], collapse = ", ")), call. = FALSE)
    as.double(v)
  })
}

assemble_fit <- function(res, pars, spec, sampler, warmup, iter, thin, seed, chains,
                         ids = seq_len(chains)) {
  n_keep <- NROW(res[[1]]$draws)
  dim <- length(pars)
  dn <- list(iteration = NULL, chain = NULL, variable = pars)
  d1 <- res[[1L]]$draws
  # one chain whose draws already have the fit's shape and names (the
  # generic driver's, R/chains.R): taken as they are, without a copy
  one <- chains == 1L && identical(dim(d1), c(n_keep, 1L, dim)) &&
    identical(dimnames(d1), dn)
  draws <- if (one) d1 else array(NA_real_, c(n_keep, chains, dim), dimnames = dn)
  rm(d1)
  snames <- res[[1]]$stat_names %||% .stat_names
  nw <- nrow(res[[1]]$warmup_stats)
  stats <- array(NA_real_, c(n_keep, chains, length(snames)),
                 dimnames = list(iteration = NULL, chain = NULL, variable = snames))
  wstats <- array(NA_real_, c(nw, chains, length(snames)),
                  dimnames = list(iteration = NULL, chain = NULL, variable = snames))
  for (c in seq_len(chains)) {
    if (!one) draws[, c, ] <- res[[c]]$draws
    stats[, c, ] <- res[[c]]$stats
    wstats[, c, ] <- res[[c]]$warmup_stats
  }
  if (has_sigma(spec)) draws[, , dim] <- exp(draws[, , dim])
  status <- vapply(res, function(r) r$status, integer(1))
  fa <- lapply(res, function(r) r$failed_at)
  failed_at <- data.frame(
    chain = ids,
    phase = vapply(fa, function(f) f$phase %||% NA_character_, character(1)),
    step = vapply(fa, function(f) as.double(f$step %||% NA_real_), numeric(1)),
    reason = vapply(fa, function(f) f$reason %||% NA_character_, character(1)),
    stringsAsFactors = FALSE)
  structure(list(
    draws = draws, sampler_stats = stats, warmup_stats = wstats,
    n_grad = vapply(res, function(r) r$n_grad, numeric(1)),
    stepsize = vapply(res, function(r) r$stepsize, numeric(1)),
    L = vapply(res, function(r) r$L %||% NA_real_, numeric(1)),
    n_reverted = vapply(res, function(r) r$n_reverted %||% NA_real_, numeric(1)),
    inv_metric = do.call(rbind, lapply(res, function(r) r$inv_metric)),
    timing = data.frame(chain = ids,
                        warmup = vapply(res, function(r) r$time_warmup, numeric(1)),
                        sampling = vapply(res, function(r) r$time_sampling, numeric(1))),
    chain_status = factor(.chain_status[status + 1L], levels = .chain_status),
    failed_at = failed_at,
    spec = spec, sampler = sampler, warmup = warmup, iter = iter, thin = thin,
    seed = seed, chains = chains, chain_id = ids, parameters = pars),
    class = "bnnfit")
}

report_failures <- function(fit) {
  diverged <- .chain_status[5L]
  bad <- which(fit$chain_status != "ok" & fit$chain_status != diverged)
  for (c in bad) {
    why <- as.character(fit$chain_status[c])
    fa <- fit$failed_at
    if (!is.null(fa) && !is.na(fa$reason[c]) && why == .chain_status[6L])
      why <- sprintf("%s (%s, step %s)", fa$reason[c], fa$phase[c],
                     format(fa$step[c], scientific = FALSE, trim = TRUE))
    warn_cond(sprintf("Chain %d failed: %s. Its draws are NA.", fit$chain_id[c] %||% c, why),
              "bnnmc_chain_failure")
  }
  # chains that turned non-finite (MCLMC with safeguard = "blackjax"): one
  # warning naming them all and where each failed
  div_ch <- which(fit$chain_status == diverged)
  if (length(div_ch)) {
    fa <- fit$failed_at
    where <- if (is.null(fa)) rep("", length(div_ch)) else
      sprintf(" (%s, step %s%s)", fa$phase[div_ch], format(fa$step[div_ch], scientific = FALSE, trim = TRUE),
              ifelse(fa$reason[div_ch] %in% "stepsize", ", step size NaN", ""))
    warn_cond(sprintf(paste0("%d of %d chains failed: non-finite state (NaN/Inf), the chain ",
                             "diverged: chain%s %s. Their draws are NA."),
                      length(div_ch), length(fit$chain_status),
                      if (length(div_ch) > 1L) "s" else "",
                      paste0((fit$chain_id %||% seq_along(fit$chain_status))[div_ch], where,
                             collapse = ", ")),
              "bnnmc_chain_failure")
  }
  ok <- fit$chain_status == "ok"   # failed chains were reported above
  div <- if ("divergent__" %in% dimnames(fit$sampler_stats)[[3]])
    sum(fit$sampler_stats[, ok, "divergent__"], na.rm = TRUE) else 0
  if (div > 0)
    warn_cond(paste0(sprintf("%d divergent transitions after warm-up (%.1f%% of draws). ",
                             div, 100 * div / (dim(fit$sampler_stats)[1] * sum(ok))),
                     "The draws near them may be biased; consider a larger adapt_delta, ",
                     "a smaller prior scale, or ensemble starts."), "bnnmc_divergence")
  if (identical(fit$sampler$method, "nuts")) {
    hit <- sum(fit$sampler_stats[, ok, "treedepth__"] >= fit$sampler$max_treedepth, na.rm = TRUE)
    if (hit > 0)
      warn_cond(sprintf("%d transitions hit the maximum tree depth of %d.", hit,
                        fit$sampler$max_treedepth), "bnnmc_treedepth")
  }
  invisible(NULL)
}

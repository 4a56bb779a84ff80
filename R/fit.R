# bnn_fit(), the user's function: its arguments, checked and resolved into a
# run of the sampler, handed to the engine (R/fit-engine.R, fit_engine()).

#' Fit a Bayesian neural network by MCMC
#'
#' Builds a fully connected network from a formula, standardises predictors
#' and response with the training data's mean and standard deviation, and
#' samples the posterior of all weights and biases with the chosen sampler,
#' one independent chain at a time (or in parallel through the `future`
#' framework when a parallel plan is set).  An interrupt (Ctrl-C) ends the
#' fit at once; under a parallel plan its chains still running in the workers
#' are cancelled too, where the backend allows it (see [bnnmc-parallel]).
#'
#' @param formula A model formula, e.g. `y ~ .`; factors and interactions are
#'   expanded with [stats::model.matrix()] and every column is standardised.
#' @param data A data frame.
#' @param hidden Widths of the hidden layers, e.g. `c(16, 16)` (the papers'
#'   default); `integer(0)` gives a (Bayesian) linear model.
#' @param activation Activation of the hidden layers; see [bnn_activations()].
#' @param family The likelihood as glm and brms users write it:
#'   [stats::gaussian()], [stats::poisson()], [stats::binomial()] (a
#'   Bernoulli for a factor, logical or 0/1 response; successes out of trials
#'   for `cbind(successes, failures)`), [negbinomial()], [student()], or
#'   their names (`"negbinomial"`, `"student"`, ...); see [negbinomial()].
#'   Only the canonical links (log, logit, identity) are available.  Give
#'   `family` or `likelihood`, not both.  A numeric response with only the
#'   values 0 and 1 and neither argument is fitted by a Bernoulli model
#'   (with a message), as glm's binomial family and brms's bernoulli take
#'   such a response: a Gaussian would give "probabilities" outside
#'   \[0, 1\]; `family = gaussian()` still fits one.  Counts under the
#'   default Gaussian get a message that the count families exist.
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
#' and chain order, as long as the chains run on the same SIMD level of the
#' C compute kernels, chosen by `options(bnnmc.simd = )`: `"auto"` (default,
#' the best the CPU supports), `"portable"` (plain C: the same draws on
#' every CPU), `"avx2"` or `"avx512"` (an error when not available).
#' `bnn_fit()` applies the option when it starts, and sends it with the
#' chains to every \pkg{future} worker, which applies it before running
#' them (workers are other R processes and do not share the session's
#' options).  The fit's `$simd` records the SIMD level its chains ran on
#' (`"generic"` for portable, `"avx2+fma"`, `"avx512"`).  The environment
#' variable `BNNMC_SIMD`, read when bnnmc is loaded, sets the option's
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
#'   fit"; `inst/benchmarks/decisions/first_fit_defaults.R`): on data of a few hundred
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
#'   The likelihood and prior were chosen for calibration
#'   (`vignette("benchmarks")`, section "A default chosen for calibration";
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
#' @section The default model's check:
#'   On small data that are close to linear the network predicts worse than
#'   a linear model: over 20 random splits of six such sets of 30 to 50 rows
#'   its test log density was 0.06 to 0.22 per point below `lm`'s
#'   (`inst/benchmarks/decisions/default_panel_tiny.R`), with NUTS in place
#'   of MILE still 0.05 to 0.23 below, while the same family's linear model
#'   sampled exactly was within 0.03 of `lm` on all six
#'   (`default_panel_candidates.R`).  So a call that gives nothing of the
#'   model, the sampler or the starts (`hidden`, `activation`, `likelihood`,
#'   `prior`, `sampler`, `init`, `ensemble`, `valid_data`, `chain_id`,
#'   waves), for a numeric response or a two-level factor (whose linear
#'   model is logistic regression) without `weights` and at most 500
#'   training rows, also fits that linear model (no hidden layer, the same
#'   likelihood and prior, NUTS with Stan's defaults; about a second) and
#'   returns whichever of the two has the larger PSIS-LOO elpd on the
#'   training data (plain PSIS, [loo::loo()]).  Returning the linear model is
#'   said in one line; `$model_choice` records both elpds (with their
#'   standard errors and counts of Pareto k above 0.7) and `print()` shows
#'   the choice and the time of the whole call, split into the network, the
#'   linear model and the check.  A linear model returned speaks as one:
#'   `print()`, [coef()][coef.bnnfit], `posterior_interval()` and `summary()`
#'   give its coefficients on the data's scale, named as by `lm()`.  On
#'   `MASS::Pima.tr` the check returns logistic regression: its log density
#'   on `Pima.te` is -0.438 per point against the network's -0.449 and
#'   `glm(family = binomial)`'s -0.441.  The linear fit's call names
#'   `hidden = integer(0)` and `sampler = "nuts"`, so [update()] and
#'   [kfold()][kfold.bnnfit] refit it.
#'   The warnings of the fit not returned (e.g. a network's convergence
#'   warning) are dropped.  Give `hidden` (e.g. `hidden = c(16, 16)`) to fit
#'   the network alone, or set `options(bnnmc.linear_check = FALSE)`.  Above
#'   500 rows the check is not made: its cost grows with the rows (10-20 s
#'   on airfoil's 1,052), and on the panel the network was ahead of `lm` on
#'   every set of more than 100 rows.  PSIS-LOO of the MILE network on a few
#'   dozen rows has many Pareto k above 0.7; it favours the linear model by
#'   4 to 35 nats there, far beyond that noise.  See `vignette("benchmarks")`,
#'   "A default chosen for calibration", for the panel with and without the
#'   check.
#'
#'   A known shortfall (`inst/benchmarks/decisions/`): on the UCI
#'   sets yacht, energy, concrete and airfoil the network's chains fail the
#'   convergence verdict (the training log-likelihood drifts;
#'   `default_verdict.R`, `default_verdict_diagnosis.R`), which `bnn_fit()`
#'   reports as a warning.
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
#'   (on the same SIMD level: see `options(bnnmc.simd)` in [bnnmc-package]).
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
#'   airfoil (1,052 rows) and 2.06 times on protein (32,011 rows), of the
#'   16-16 ReLU network 1.7 times on airfoil, the default 4-chain fit on
#'   airfoil 1.8 times (28.6 s against 16.2 s on two cores), with the same
#'   test RMSE and LPPD within the seed-to-seed spread; see
#'   `inst/benchmarks/speed/single_precision.csv` and `default_fit.csv`.
#'   MILE's 12-chain fit of protein (32,011 rows, 16-16 ReLU) took 16.3 to
#'   16.9 minutes on two cores in single precision (three splits), with
#'   test LPPD -0.763 to -0.776, and 34 minutes in double on a quiet machine
#'   (55 and 58 for the other two splits, which shared the cores), with
#'   test LPPD -0.759 to -0.769 (the paper: 19.5 minutes, -0.750 +- 0.018;
#'   `inst/benchmarks/papers/mile/mile_precision.csv`).
#'   Tiny networks on little data gain less (the sampler's own work is in
#'   double).  Double stays the default: its draws are the reproducible
#'   ones.  A fit whose cost estimate is two minutes or more in double
#'   precision gives its estimate in single precision too, when it starts.
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
#'
#'   A default call that made the check against a linear model (section
#'   "The default model's check") has `$model_choice`: a data frame with one
#'   row per model (`model`: `"network"`, `"linear"`; `network`: the layer
#'   sizes; `elpd_loo` and `se`: the plain PSIS-LOO elpd on the training
#'   data and its standard error; `pareto_k_high`: observations with Pareto
#'   k above loo's threshold; `chosen`), with the check's seconds as the
#'   attribute `seconds` and the seconds of the whole call and its parts
#'   (`total`, `network`, `linear`, `check`) as the attribute `timing`.
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
                    likelihood = NULL, family = NULL, prior = NULL, sampler = "mile",
                    chains = 4, warmup = NULL, iter = 1000, thin = NULL,
                    init = "random", seed = NULL, subset, na.action,
                    standardize = TRUE, ensemble = NULL, valid_data = NULL,
                    progress = NULL, weights = NULL, chain_id = NULL,
                    precision = c("double", "single")) {
  call <- match.call()
  env <- parent.frame()
  # family = as glm and brms users write it, mapped to the likelihood
  if (!is.null(family)) {
    if (!is.null(likelihood))
      stop("Give 'family' or 'likelihood', not both.", call. = FALSE)
    likelihood <- family_likelihood(family)
  }
  # which settings the user gave (missing() is FALSE once reassigned)
  given <- c(warmup = !is.null(warmup), iter = !missing(iter),
             thin = !is.null(thin), init = !missing(init))
  # what of the model, sampler and starts the user gave: with none of them,
  # the default model is checked against a linear one (R/fit-choice.R)
  given_model <- c(hidden = !missing(hidden), activation = !missing(activation),
                   # a count or Student-t likelihood still has its linear check
                   likelihood = !is.null(likelihood) && !is_new_family(likelihood),
                   prior = !is.null(prior),
                   sampler = !missing(sampler), init = given[["init"]],
                   ensemble = !is.null(ensemble), valid_data = !is.null(valid_data),
                   chain_id = !is.null(chain_id), waves = inherits(chains, "bnn_waves"))
  # arguments after `...` match only by their full names: anything else
  # lands here, and a misspelt one is named with the argument meant
  # brms/rstanarm spellings (cores, refresh, adapt_delta, control, ...) get
  # the bnnmc way in their error
  stop_foreign_args(list(...), "bnn_fit")
  stop_unknown_args(list(...), names(formals(sys.function())), "bnn_fit")
  mf <- match.call(expand.dots = FALSE)
  m <- match(c("formula", "data", "subset", "na.action", "weights"), names(mf), 0L)
  mf <- mf[c(1L, m)]
  # the name the sampler was given by: the fit's `protocol` label
  sampler_name <- if (is.character(sampler) && length(sampler) == 1L) sampler else NA_character_
  sampler <- as_sampler(sampler)
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
  precision <- check_precision(precision)
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
  iter <- check_count(iter, "iter", 1L)
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
  fit_net <- function()
    fit_engine(model, run$sampler, chains, run$warmup, run$iter, run$thin, init, seed,
               progress, call, given[["init"]], sampler_name = sampler_name, waves = waves,
               chain_id = chain_id, ensemble = ensemble, valid_data = valid_data,
               precision = precision)
  if (!linear_check_applies(given_model, model)) return(fit_net())
  # the default model's check: the same family's linear model (no hidden
  # layer), sampled by NUTS, its call saying so (update() and kfold() refit it)
  fit_lin <- function() {
    lin <- prepare_model(mf, env, formula, data, integer(0), activation, likelihood, prior,
                         standardize, notes = FALSE)
    lin$spec <- spec_set_precision(lin$spec, precision)
    nuts <- as_sampler("nuts")
    lrun <- sampler_resolve_run(nuts, sampler_protocol_default(nuts, "warmup", 1000L),
                                iter, 1L, given)
    lcall <- call
    lcall$hidden <- integer(0)
    lcall$sampler <- "nuts"
    fit_engine(lin, lrun$sampler, chains, lrun$warmup, lrun$iter, lrun$thin, "random", seed,
               FALSE, lcall, FALSE, sampler_name = "nuts", precision = precision)
  }
  choose_default_model(fit_net, fit_lin)
}

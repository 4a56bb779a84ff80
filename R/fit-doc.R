# The help page ?bnn_default: what bnn_fit() does with the arguments it is
# not given (run lengths, the default sampler, likelihood and prior, the
# evidence behind them) and the default model's check, apart from
# ?bnn_fit so that the function's page stays short.

#' The defaults of bnn_fit() and the default model's check
#'
#' What [bnn_fit()] does with the arguments it is not given: each
#' sampler's warm-up, draws and thinning, the default sampler's budget and
#' precision, the default likelihood and prior and the evidence behind
#' them, and the default model's check, which fits a simpler model beside
#' the network (the linear model on small data, the heteroscedastic
#' network on larger data) and stacks the two.
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
#'   The default sampler's 500 draws are its 5,000 sampling steps, every
#'   10th kept, after 20,000 tuning steps; `sampler = "mile"` runs the
#'   paper's budget, 50,000 tuning and 10,000 sampling steps.  On more
#'   than 2,000 rows of a continuous response the default keeps 200 draws
#'   (2,000 sampling steps) and tunes mostly on a subsample of the rows
#'   (see "Large data").  A
#'   [bnn_mclmc()] object given as `sampler` keeps its own `n_tune`,
#'   `n_samples` and `thin` (its default `iter` is `n_samples / thin`)
#'   unless `warmup`, `iter` or `thin` is given.
#'
#' @section The default model:
#'   `family = gaussian()` is the default model, as in glm and brms: the
#'   homoscedastic Gaussian with the default's prior (below) and the
#'   default's check against the linear model on small data (see "The
#'   default model's check"); it keeps the Gaussian on a 0/1 response and
#'   is not stacked with the heteroscedastic network on larger data.
#'
#'   The prior not given is `bnn_prior(fan_in = TRUE)` (weights Normal(0,
#'   1/fan-in), biases Normal(0, 1)) for a numeric response without
#'   `likelihood` (the default likelihood, which `family = gaussian()` of
#'   [bnn_fit()] names) and for the count and Student-t families, and
#'   Normal(0, 1) on every weight and bias (the papers') for a likelihood
#'   given by name or object (`likelihood = "gaussian"`,
#'   `"hetero_gaussian"`) and for a factor response.  [prior_summary()]
#'   shows the prior of a fit.
#'
#'   The default sampler, not given, is MILE on a shorter budget (20,000
#'   tuning and 5,000 sampling steps, every 10th kept) in single precision
#'   (`precision = NULL`: single for the default sampler, double when
#'   `sampler` is given): the same test log density as MILE's own budget
#'   at a third of its time (see "Defaults").
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
#'   on half the chains (rounded up) and with a homoscedastic Student-t
#'   likelihood (`family = student()`: one scale and the degrees of
#'   freedom sampled, the default's fan-in prior) on the others (with half
#'   the tuning steps unless `warmup` is given: its simpler posterior
#'   settles sooner, and where the heteroscedastic model predicts better it
#'   only shapes the tails), and stacks the two by their PSIS-LOO elpds on
#'   the (at most 500, evenly spaced) training rows the convergence verdict
#'   uses, the Student-t model keeping at least 10% of the weight.  The
#'   heteroscedastic network predicted these sets much better on average,
#'   but its predictive sd is a network output that can be far too small at
#'   a single point; the Student-t share, with its heavy tails, caps the
#'   loss there.  (In earlier versions the second model was the
#'   homoscedastic Gaussian network; over ten splits of yacht, energy,
#'   concrete and airfoil the Student-t one gave a test log density 0.036
#'   nats per point higher on energy and within 0.005 on the other three,
#'   in `vignette("benchmarks")`; `options(bnnmc.stack_second =
#'   "gaussian")` restores it.)  The predictions of the stack pool the
#'   draws of both likelihoods, each by its own (the Gaussian draws as
#'   Student-t ones with infinite degrees of freedom); `sigma()` is not
#'   defined for it.  The cost
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
#'   Student-t fit is returned alone, with its share of the chains.  The
#'   same holds where the noise does not vary: when the Student-t network's
#'   leave-one-out quantile residuals keep one spread across every input
#'   and the fitted values (splines of their absolute values, as the
#'   model-fit check below, none with a Holm-adjusted p below 0.1;
#'   recorded in `$convergence$adequacy$spread`), the heteroscedastic
#'   network is not stacked, since its PSIS-LOO, unreliable at many points,
#'   overrates it (on Friedman's function at 1,000 rows it took 0.9 of the
#'   weight and the stack's test log density was -1.72, the homoscedastic
#'   network's alone -1.53, BART's -1.56); `options(bnnmc.stack_spread =
#'   FALSE)` stacks them by PSIS-LOO alone.  Give
#'   `likelihood`, `hidden` or set `options(bnnmc.likelihood_check = FALSE)`
#'   to fit one model with all the chains.
#'
#'   **The prior's scale, where the model does not fit.** After either
#'   check (on at most 2,000 rows, with the default's fan-in prior), the
#'   verdict's model-fit part ([bnn_convergence()]) asks whether the fit
#'   leaves structure that a smoother finds.  Where it does, the default
#'   also fits the same network with a prior three times wider
#'   (`bnn_prior(scale = 3, fan_in = TRUE)`, the default's chains and
#'   sampling; each chain starts where the default's same chain ended, from
#'   its tuned step size and L, and tunes for 4,000 steps instead of
#'   20,000) and keeps one of the two fits: the one with the larger PSIS-LOO elpd
#'   on the training data where PSIS-LOO holds for both (at most a tenth
#'   of the points with a Pareto k above 0.7), else the wider prior's when
#'   its own model-fit check finds no structure left.  A message says when
#'   the wider prior's fit is returned; `$convergence$adequacy$wider_prior`
#'   records the comparison, and the verdict's model-fit line of `print()`
#'   says which prior was kept.  On the ten README splits of
#'   `MASS::mcycle` the default's test RMSE came within 10% of
#'   `smooth.spline()`'s on all ten (the default's prior alone: 3 of 10;
#'   README split: 21.2 against the spline's 19.7, where it was 45.0), at
#'   the cost of the second fit (about half the first fit's time on those
#'   93 rows);
#'   where the check is quiet (every other fit of the panel in
#'   `inst/benchmarks/decisions/prior_step_panel.R`) nothing changes, draws
#'   and all.  Give `prior` or set `options(bnnmc.prior_check = FALSE)` to
#'   fit one prior.
#'
#' @section Large data:
#'   Every step of the default sampler evaluates the gradient on all rows,
#'   and 80% of its steps are tuning.  On more than 2,000 rows of a
#'   continuous response (the default's Gaussian likelihood) the default
#'   therefore spends the tuning mostly on a subsample: an eighth of the
#'   rows (at least 2,000, at most 8,000), drawn with the fit's `seed`,
#'   each row's likelihood weighted by the number of rows over the
#'   subsample's, so that the subsample's posterior is about as
#'   concentrated as the full data's.  The deep ensemble is trained on it
#'   and each chain runs its tuning there (stages 1 and 3, and stage 2 but
#'   for its last 500 steps); the chain then goes on from where it stands
#'   on all rows (the last 500 steps of stage 2 adapt the step size to all
#'   rows) and samples on all rows: the draws are of the whole data's
#'   posterior.  The sampling keeps 200 draws per chain (2,000 steps, every
#'   10th kept) instead of 500: on such data the chains agree closely (the
#'   verdict's Monte Carlo error of the predictions stays well below its
#'   threshold).  `print(fit)` shows the subsample's size with the
#'   sampler.  On Friedman's function the test log density was that of the
#'   default on all rows (within 0.002 nats per point at 4,000 and 16,000
#'   rows) in a quarter of its time at 16,000 rows, and on the UCI sets
#'   bikesharing and protein 0.01 to 0.02 nats per point below it in a
#'   fifth of its time; at 100,000 rows the default took about 2 minutes
#'   on one core
#'   (`inst/benchmarks/speed/large_default.R`, `vignette("benchmarks")`).
#'   Give `iter` or `thin` to keep the sampling you ask for, `sampler` to
#'   run a sampler as given, or set `options(bnnmc.warm_subsample = FALSE)`
#'   for the default on all rows throughout.  Count and categorical
#'   responses are fitted on all rows.
#'
#' @seealso [bnn_fit()], [loo.bnnfit()], `vignette("benchmarks")`.
#' @name bnn_default
#' @examples
#' # the default model on small data is checked against the linear model:
#' # the two stacked by PSIS-LOO, or the one with 95% of the weight alone
#' # (here with a shorter warm-up than the default's); give `hidden` or set
#' # options(bnnmc.linear_check = FALSE) to fit the network alone
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, chains = 2, warmup = 2000,
#'                iter = 100, seed = 1, progress = FALSE)
#' fit$model_choice
NULL

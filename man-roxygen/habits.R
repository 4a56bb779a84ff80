#' @section Coming from glm, brms or rstanarm:
#' | glm / brms / rstanarm | bnnmc |
#' |---|---|
#' | `family = gaussian()`, `poisson()`, `binomial()`, `negbinomial()`, `student()` | the same `family =` (or `likelihood =`, [bnn_likelihood()]); a factor response picks its own |
#' | `prior = normal(0, 1)` | `prior = bnn_prior("normal", scale = 1)` ([prior_summary()][prior_summary.bnnfit] shows it) |
#' | `chains = 4` | `chains = 4` |
#' | `cores = 4` | `options(mc.cores = 4)`, once per session, or a future plan ([bnnmc-parallel]) |
#' | `iter = 2000, warmup = 1000` (iter counts the warm-up) | `warmup = 1000, iter = 1000` (`iter` is the draws kept, as cmdstanr's `iter_sampling`) |
#' | `thin`, `seed`, `init`, `weights`, `subset`, `na.action` | the same names |
#' | `adapt_delta = 0.95`, `control = list(max_treedepth = 12)` | `sampler = bnn_nuts(adapt_delta = 0.95, max_treedepth = 12)` ([bnn_nuts()]) |
#' | `algorithm = "sampling"` (NUTS) | `sampler = "nuts"`; the default is MILE (`"mile"`) |
#' | `algorithm = "laplace"`, `"meanfield"` | [bnn_fit_laplace()], [bnn_fit_swag()], [bnn_fit_mc_dropout()] |
#' | `refresh = 0` | `progress = FALSE` |
#' | `predict(fit, newdata = )`, `posterior_predict()`, `posterior_epred()`, `fitted()` | the same ([predict.bnnfit()], [posterior_predict.bnnfit()]) |
#' | `loo()`, `kfold()`, `bayes_R2()`, `pp_check()`, `update()` | the same ([loo.bnnfit()], [kfold.bnnfit()], [update.bnnfit()]) |
#' | `summary()`, `as_draws()`, `nuts_params()` | the same ([summary.bnnfit()], [as_draws.bnnfit()]); parameters are named `W1[3,2]`, `b2[5]`, `sigma` |

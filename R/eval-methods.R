# Inference methods by name, for studies that fit many methods to many
# training sets (bnn_coverage_study()).  Each entry of the registry is a
# function fit(formula, data, model, seed, settings) returning a bnnfit, a
# bnn_ensemble, or list(mu, sd) of predictive parameters at newdata (see
# method_predictive()), plus its default settings.  New samplers register
# themselves with register_method() (one call in their own file), and are
# then available by name in bnn_method() and bnn_coverage_study().

.method_registry <- new.env(parent = emptyenv())

# defaults: a function returning the list of default settings (evaluated
# when a method is made, so that it may call constructors of other files).
register_method <- function(name, fit, defaults, description) {
  assign(name, list(fit = fit, defaults = defaults, description = description),
         envir = .method_registry)
  invisible(name)
}

# The network of a study: hidden, activation, likelihood, prior, standardize.
fit_args <- function(model) {
  model[intersect(names(model), c("hidden", "activation", "likelihood", "prior",
                                  "standardize"))]
}

quiet_fit <- function(...) bnn_fit(..., progress = FALSE)

register_method("nuts", function(formula, data, model, seed, s) {
  do.call(quiet_fit, c(list(formula = formula, data = data,
                            sampler = bnn_nuts(max_treedepth = s$max_treedepth,
                                               adapt_delta = s$adapt_delta),
                            chains = s$chains, warmup = s$warmup, iter = s$iter,
                            thin = s$thin, init = s$init, seed = seed), fit_args(model)))
}, function() list(chains = 4L, warmup = 1000L, iter = 1000L, thin = 1L, max_treedepth = 10L,
        adapt_delta = 0.8, init = "random"),
"NUTS from random starts (bnn_fit(sampler = bnn_nuts()))")

register_method("hmc", function(formula, data, model, seed, s) {
  do.call(quiet_fit, c(list(formula = formula, data = data,
                            sampler = bnn_hmc(stepsize = s$stepsize,
                                              trajectory_length = s$trajectory_length,
                                              adapt_stepsize = TRUE,
                                              adapt_delta = s$adapt_delta),
                            chains = s$chains, warmup = s$warmup, iter = s$iter,
                            thin = s$thin, init = s$init, seed = seed,
                            ensemble = s$ensemble), fit_args(model)))
}, function() list(chains = 3L, warmup = 100L, iter = 100L, thin = 1L, stepsize = 1e-3,
        trajectory_length = 1, adapt_delta = 0.9, init = "ensemble",
        ensemble = bnn_optimizer(optimizer = "adam", lr = 1e-2, epochs = 1000)),
"static HMC reference (Staber and Da Veiga): 3 chains, 100 burn-in and 100 kept iterations, step size tuned by dual averaging to mean acceptance adapt_delta during burn-in")

register_method("dei", function(formula, data, model, seed, s) {
  # bnn_fit(sampler = "dei") with the NUTS settings spelled out
  do.call(quiet_fit, c(list(formula = formula, data = data,
                            sampler = bnn_nuts(max_treedepth = s$max_treedepth,
                                               adapt_delta = s$adapt_delta),
                            chains = s$chains, warmup = s$warmup, iter = s$iter,
                            thin = s$thin, init = "ensemble", seed = seed,
                            ensemble = s$ensemble), fit_args(model)))
}, function() list(chains = 4L, warmup = 100L, iter = 1000L, thin = 1L, max_treedepth = 10L,
        adapt_delta = 0.8, ensemble = bnn_optimizer_preset("dei")),
"DEI-MCMC: NUTS chains started at deep-ensemble members (bnn_fit(sampler = \"dei\"))")

register_method("mile", function(formula, data, model, seed, s) {
  args <- list(formula = formula, data = data, sampler = "mile", chains = s$chains,
               seed = seed, ensemble = s$ensemble)
  for (nm in c("warmup", "iter", "thin")) if (!is.null(s[[nm]])) args[[nm]] <- s[[nm]]
  do.call(quiet_fit, c(args, fit_args(model)))
}, function() list(chains = 4L, warmup = NULL, iter = NULL, thin = NULL,
        ensemble = bnn_optimizer_preset("mile")),
"MILE: MCLMC chains started at deep-ensemble members (bnn_fit(sampler = \"mile\"))")

register_method("ensemble", function(formula, data, model, seed, s) {
  do.call(bnn_fit_ensemble, c(list(formula = formula, data = data, members = s$members,
                               optimizer = s$optimizer, seed = seed, progress = FALSE),
                          fit_args(model)))
}, function() list(members = 10L, optimizer = bnn_optimizer_preset("dei")),
"deep ensemble (bnn_fit_ensemble()), an equal mixture of its members")

# Stochastic-gradient MCMC (bnn_sgld(), bnn_psgld(), bnn_sghmc()): one
# sampler settings object, run through bnn_fit().
sg_method <- function(name, make) {
  register_method(name, function(formula, data, model, seed, s) {
    do.call(quiet_fit, c(list(formula = formula, data = data, sampler = s$sampler,
                              chains = s$chains, warmup = s$warmup, iter = s$iter,
                              thin = s$thin, seed = seed),
                         if (!is.null(s$init)) list(init = s$init), fit_args(model)))
  }, function() list(sampler = make(), chains = 1L, warmup = 1000L, iter = 1000L,
                     thin = 1L, init = NULL),
  sprintf("%s through bnn_fit(sampler = bnn_%s(...)); settings sampler, chains, warmup (burn-in), iter, thin, init",
          toupper(name), name))
}
sg_method("sgld", function() bnn_sgld())
sg_method("psgld", function() bnn_psgld())
sg_method("sghmc", function() bnn_sghmc())

# The approximations (Laplace, MC dropout, SWAG) are registered at the end
# of this file.

#' Inference methods for coverage studies
#'
#' A method by name with its settings, for [bnn_coverage_study()].  The
#' built-in methods and their default settings:
#' * `"nuts"`: NUTS from random starts, `chains = 4, warmup = 1000,
#'   iter = 1000, thin = 1, max_treedepth = 10, adapt_delta = 0.8,
#'   init = "random"`.
#' * `"hmc"`: the static HMC reference of Staber and Da Veiga, `chains = 3,
#'   warmup = 100, iter = 100` (100 burn-in, 100 kept draws per chain),
#'   `trajectory_length = 1` (integration time; the number of leapfrog steps
#'   is `trajectory_length / stepsize`), the step size tuned during burn-in
#'   by dual averaging to a mean acceptance of `adapt_delta = 0.9` (so that
#'   the acceptance is at least 0.8, the paper's rule) from `stepsize =
#'   1e-3`, chains started at the members of a deep ensemble
#'   (`init = "ensemble"`, trained with `ensemble`, Adam, learning rate
#'   0.01, 1000 epochs).
#' * `"dei"`: DEI-MCMC, `chains = 4, warmup = 100, iter = 1000, thin = 1,
#'   max_treedepth = 10, adapt_delta = 0.8`,
#'   `ensemble = bnn_optimizer_preset("dei")`.
#' * `"mile"`: MILE with its defaults (`warmup`, `iter`, `thin` as in
#'   [bnn_fit()] when `NULL`).
#' * `"ensemble"`: a deep ensemble, `members = 10`,
#'   `optimizer = bnn_optimizer_preset("dei")`.
#' * `"sgld"`, `"psgld"`, `"sghmc"`: stochastic-gradient MCMC, `sampler =
#'   bnn_sgld()` (resp. [bnn_psgld()], [bnn_sghmc()]) with its step size,
#'   batch size, control variates and cycles, `chains = 1, warmup = 1000`
#'   (burn-in), `iter = 1000, thin = 1, init = NULL` (the sampler's start).
#' * `"laplace"`, `"mc_dropout"`, `"swag"`: [bnn_fit_laplace()] (`hessian =
#'   "kfac"`, `prior_precision = NULL`), [bnn_fit_mc_dropout()] (`dropout =
#'   0.1`, `input_dropout = 0`) and [bnn_fit_swag()] (`rank = 20, epochs =
#'   200, collect_every = 1, lr = 1e-3, momentum = 0, batch_size = 32`),
#'   each with `draws = 2000` and the MAP (or dropout) training `optimizer
#'   = bnn_optimizer(optimizer = "adam", lr = 1e-2, weight_decay = 0,
#'   epochs = 1000, batch_size = 32, loss = "posterior")`.
#'
#' Any other method is given by `fit`, a function
#' `function(formula, data, model, seed, settings)` that returns a
#' `bnnfit`, a `bnn_ensemble`, or a function of `newdata` returning
#' `list(mu, sd)`, the predictive means and standard deviations of the
#' observation noise per draw (draws x points matrices); `model` is the
#' list of network arguments of [bnn_fit()] (`hidden`, `activation`,
#' `likelihood`, `prior`, `standardize`) and `settings` the list `...`.
#'
#' @param name A built-in method name (see [bnn_methods()]), or any label
#'   when `fit` is given.
#' @param ... Settings that override the method's defaults.
#' @param fit Optional fitting function (a custom method).
#' @param label Name of the method in results (default `name`).
#' @return An object of class `bnn_method`.
#' @export
#' @examples
#' bnn_method("nuts", chains = 2, warmup = 200, iter = 200)
#' bnn_methods()
bnn_method <- function(name, ..., fit = NULL, label = name) {
  if (!is.character(name) || length(name) != 1L || !nzchar(name))
    stop("'name' must be a method name such as \"nuts\".", call. = FALSE)
  if (!is.character(label) || length(label) != 1L || !nzchar(label) || grepl("[/\\\\]", label))
    stop("'label' must be a non-empty name without slashes.", call. = FALSE)
  over <- list(...)
  if (length(over) && (is.null(names(over)) || any(!nzchar(names(over)))))
    stop("Settings in '...' must be named.", call. = FALSE)
  if (!is.null(fit)) {
    if (!is.function(fit)) stop("'fit' must be a function.", call. = FALSE)
    return(structure(list(name = name, label = label, fit = fit, settings = over),
                     class = "bnn_method"))
  }
  if (!exists(name, envir = .method_registry, inherits = FALSE))
    stop(sprintf("Unknown method \"%s\"; the methods are %s, or give 'fit'.", name,
                 paste0('"', bnn_methods()$method, '"', collapse = ", ")), call. = FALSE)
  reg <- get(name, envir = .method_registry)
  defaults <- reg$defaults()
  bad <- setdiff(names(over), names(defaults))
  if (length(bad))
    stop(sprintf("Unknown setting(s) of method \"%s\": %s; its settings are %s.", name,
                 paste(bad, collapse = ", "), paste(names(defaults), collapse = ", ")),
         call. = FALSE)
  s <- defaults
  for (n in names(over)) s[n] <- list(over[[n]])
  structure(list(name = name, label = label, fit = reg$fit, settings = s),
            class = "bnn_method")
}

#' @rdname bnn_method
#' @return `bnn_methods()`: a data frame of the built-in method names and
#'   descriptions.
#' @export
bnn_methods <- function() {
  nm <- sort(ls(.method_registry))
  data.frame(method = nm,
             description = vapply(nm, function(n) get(n, envir = .method_registry)$description,
                                  character(1)),
             row.names = NULL, stringsAsFactors = FALSE)
}

#' @export
print.bnn_method <- function(x, ...) {
  cat(sprintf("<bnn_method> %s%s\n", x$name,
              if (x$label != x$name) sprintf(" (label \"%s\")", x$label) else ""))
  for (n in names(x$settings)) {
    v <- x$settings[[n]]
    cat(sprintf("  %s = %s\n", n, if (is.null(v)) "NULL" else if (is.list(v) || length(v) > 3)
      paste0("<", class(v)[1], ">") else paste(format(v), collapse = ", ")))
  }
  invisible(x)
}

as_method <- function(x) {
  if (inherits(x, "bnn_method")) return(x)
  if (is.character(x) && length(x) == 1L) return(bnn_method(x))
  stop("Each method must be a name such as \"nuts\" or a bnn_method() object.", call. = FALSE)
}

# Predictive means and noise sds (draws x points) of a method's result.
method_predictive <- function(obj, newdata, ndraws = NULL) {
  if (is_draws_object(obj)) {
    if (is_classification(obj))
      stop("Coverage studies are for regression fits.", call. = FALSE)
    pp <- predictive_params(obj, newdata, ndraws)
    # the study's Gaussian bounds would treat a stack's Student-t draws as
    # Gaussian ones
    if (is.matrix(pp$sigma))
      stop(paste0("Coverage studies need Gaussian predictive draws; this fit stacks ",
                  mixture_names(obj), "."), call. = FALSE)
    return(pp)
  }
  if (is.function(obj)) {
    pp <- obj(newdata)
    if (!is.list(pp) || is.null(pp$mu) || is.null(pp$sd))
      stop("A custom method's predictor must return list(mu, sd).", call. = FALSE)
    g <- .bnn_check_gauss(pp$mu, pp$sd, numeric(nrow(newdata)))
    return(list(mu = g$mu, sd = g$sd))
  }
  stop("A method's fit must return a bnnfit, a bnn_ensemble or a function of newdata.",
       call. = FALSE)
}

# Largest and median function-space R-hat over the test inputs of a fit
# with several chains (NA otherwise).
method_rhat <- function(obj, newdata) {
  if (!inherits(obj, "bnnfit") || sum(obj$chain_status == "ok") < 2L) return(c(NA_real_, NA_real_))
  r <- tryCatch(bnn_function_rhat(obj, newdata), error = function(e) NA_real_)
  if (all(is.na(r))) return(c(NA_real_, NA_real_))
  c(max(r, na.rm = TRUE), stats::median(r, na.rm = TRUE))
}

# ---- approximations as methods of a coverage study ----

# The approximate baselines of Staber & Da Veiga as named methods of
# coverage studies (bnn_method(), bnn_coverage_study()).  Here, after
# register_method() (top of this file), which must be defined before these
# calls run when the package is loaded.

register_method("laplace", function(formula, data, model, seed, s) {
  do.call(bnn_fit_laplace, c(list(formula = formula, data = data, hessian = s$hessian,
                              prior_precision = s$prior_precision, optimizer = s$optimizer,
                              draws = s$draws, seed = seed), fit_args(model)))
}, function() list(hessian = "kfac", prior_precision = NULL, draws = 2000L,
        optimizer = bnn_optimizer(optimizer = "adam", lr = 1e-2, weight_decay = 0,
                                  epochs = 1000, batch_size = 32, loss = "posterior")),
"Laplace approximation at the MAP (bnn_fit_laplace(); LA-KFAC by default)")

register_method("mc_dropout", function(formula, data, model, seed, s) {
  do.call(bnn_fit_mc_dropout, c(list(formula = formula, data = data, dropout = s$dropout,
                                 input_dropout = s$input_dropout, optimizer = s$optimizer,
                                 draws = s$draws, seed = seed), fit_args(model)))
}, function() list(dropout = 0.1, input_dropout = 0, draws = 2000L,
        optimizer = bnn_optimizer(optimizer = "adam", lr = 1e-2, weight_decay = 0,
                                  epochs = 1000, batch_size = 32, loss = "posterior")),
"MC dropout (bnn_fit_mc_dropout())")

register_method("swag", function(formula, data, model, seed, s) {
  do.call(bnn_fit_swag, c(list(formula = formula, data = data, rank = s$rank, epochs = s$epochs,
                           collect_every = s$collect_every, lr = s$lr, momentum = s$momentum,
                           batch_size = s$batch_size, optimizer = s$optimizer,
                           draws = s$draws, keep_iterates = FALSE, seed = seed),
                      fit_args(model)))
}, function() list(rank = 20L, epochs = 200L, collect_every = 1L, lr = 1e-3, momentum = 0,
        batch_size = 32L, draws = 2000L,
        optimizer = bnn_optimizer(optimizer = "adam", lr = 1e-2, weight_decay = 0,
                                  epochs = 1000, batch_size = 32, loss = "posterior")),
"SWAG from an SGD trajectory started at the MAP (bnn_fit_swag())")

# Checks of the arguments of the package's methods: misspelt or unknown names
# in '...' are errors or warnings that name the argument meant.

# The arguments of a user-facing method, checked where R would guess: a name
# that is only a prefix of an argument (`prob` for `probs`) is an error that
# names the candidates, rather than R's silent partial match; tidymodels'
# `new_data` is taken as `newdata`; arguments that no method uses (typos
# such as `draws =`) get a warning (other packages pass extra arguments to
# these generics).  Called first thing in a method as
#   newdata <- check_dots(list(...), "predict", newdata)
# and returns newdata (NULL for methods without one).
check_dots <- function(dots, fun, newdata = NULL) {
  f <- sys.function(-1L)
  call <- sys.call(-1L)
  check_exact_names(call, names(formals(f)), fun)
  if ("new_data" %in% names(dots) && "newdata" %in% names(formals(f))) {
    if (!is.null(newdata))
      stop(sprintf("%s(): give 'newdata' or 'new_data', not both.", fun), call. = FALSE)
    newdata <- dots$new_data
    if (is.null(newdata))
      stop(sprintf("%s(): 'new_data' is NULL; give a data frame (or leave it out for the training data).",
                   fun), call. = FALSE)
    dots$new_data <- NULL
  }
  warn_unused_dots(dots, fun)
  newdata
}

# Names in `call` that R would match partially to one of `formals`: an error
# naming the argument(s) meant.
check_exact_names <- function(call, formals, fun) {
  nm <- names(as.list(call))[-1L]
  nm <- nm[!is.na(nm) & nzchar(nm)]
  for (a in setdiff(nm, formals)) {
    cand <- formals[startsWith(formals, a) & formals != "..."]
    if (!length(cand)) next
    hint <- if (a == "prob" && "level" %in% formals)
      " ('probs' for predictive quantiles, 'level' for the probability mass of an interval)" else ""
    stop(sprintf("%s(): '%s' is not an argument; did you mean %s?%s Argument names must be given in full.",
                 fun, a, paste0("'", cand, "'", collapse = " or "), hint), call. = FALSE)
  }
  invisible(NULL)
}

# Warn about arguments that no method uses (typos such as `draws =`).
warn_unused_dots <- function(dots, fun) {
  if (length(dots))
    warning(sprintf("%s(): unused argument(s): %s.", fun,
                    paste(names(dots) %||% rep("<unnamed>", length(dots)), collapse = ", ")),
            call. = FALSE)
  invisible(NULL)
}

# Arguments that a function does not have (they arrived in its `...`): an
# error naming each, with the closest argument names, as a user who typed
# `chain = 2` or `iters = 500` needs (R's own partial matching would give
# "argument matches multiple formal arguments" or take a wrong one).
stop_unknown_args <- function(dots, formals, fun) {
  if (!length(dots)) return(invisible(NULL))
  nm <- names(dots) %||% rep("", length(dots))
  formals <- setdiff(formals, "...")
  if (any(!nzchar(nm)))
    stop(sprintf("%s(): %d unnamed argument(s) after 'data'; name them (e.g. hidden = c(16, 16)).",
                 fun, sum(!nzchar(nm))), call. = FALSE)
  msgs <- vapply(nm, function(a) {
    d <- utils::adist(a, formals, ignore.case = TRUE)[1, ]
    pre <- formals[startsWith(formals, a) | startsWith(a, formals)]
    close <- unique(c(pre, formals[d <= max(1, floor(nchar(a) / 3)) & d == min(d)]))
    if (length(close))
      sprintf("'%s' (did you mean %s?)", a, paste0("'", close, "'", collapse = " or "))
    else sprintf("'%s'", a)
  }, "")
  stop(sprintf("%s(): unknown argument(s): %s. See ?%s for its arguments.", fun,
               paste(msgs, collapse = ", "), fun), call. = FALSE)
}

# The .omc_check_* helpers validate scalar arguments of the optimiser and
# MCLMC wrappers, with errors naming the argument.
.omc_check_count <- function(x, name, min = 0, null_ok = FALSE) {
  if (is.null(x) && null_ok) return(NULL)
  if (!is.numeric(x) || length(x) != 1L || is.na(x) || x < min ||
      x != round(x) || x > .Machine$integer.max)
    stop(sprintf("'%s' must be a whole number >= %s%s", name, min,
                 if (null_ok) " or NULL" else ""), call. = FALSE)
  as.integer(x)
}

.omc_check_number <- function(x, name, lower = -Inf, upper = Inf,
                          lower_open = FALSE, upper_open = FALSE) {
  ok <- is.numeric(x) && length(x) == 1L && !is.na(x) &&
    (if (lower_open) x > lower else x >= lower) &&
    (if (upper_open) x < upper else x <= upper)
  if (!ok)
    stop(sprintf("'%s' must be a single number in %s%s, %s%s", name,
                 if (lower_open) "(" else "[", format(lower), format(upper),
                 if (upper_open) ")" else "]"), call. = FALSE)
  as.double(x)
}

.omc_check_seed <- function(seed, name = "seed") {
  if (!is.numeric(seed) || length(seed) != 1L || is.na(seed) || seed < 0 ||
      seed != round(seed) || seed >= 2^53)
    stop(sprintf("'%s' must be a whole number in [0, 2^53)", name), call. = FALSE)
  as.double(seed)
}

.omc_check_flag <- function(x, name) {
  if (!is.logical(x) || length(x) != 1L || is.na(x))
    stop(sprintf("'%s' must be TRUE or FALSE", name), call. = FALSE)
  x
}

# Arguments of brms::brm() and rstanarm's stan_*() (and JAGS's n.chains,
# n.iter) that bnn_fit() spells differently or does not have: the error says what to write in bnnmc
# (the user meant something; "unknown argument" alone would not say what).
# `family` is left to bnn_fit()'s own argument.
.foreign_fit_args <- list(
  cores = paste0("set the cores as for rstan, once per session: options(mc.cores = %s), ",
                 "or a future plan (see ?bnnmc-parallel)"),
  threads = paste0("bnnmc has no within-chain threads; run the chains in parallel with ",
                   "options(mc.cores = 4) (see ?bnnmc-parallel)"),
  refresh = "use progress = %s (progress is shown through progressr; see 'progress' in ?bnn_fit)",
  silent = "use progress = FALSE to show no progress",
  verbose = "use progress = TRUE (or FALSE)",
  open_progress = "use progress = TRUE (or FALSE)",
  adapt_delta = paste0("the NUTS target acceptance is set on the sampler: ",
                       "sampler = bnn_nuts(adapt_delta = %s) (the default sampler, MCLMC, ",
                       "has no acceptance target; see ?bnn_nuts)"),
  max_treedepth = "use sampler = bnn_nuts(max_treedepth = %s) (see ?bnn_nuts)",
  control = paste0("sampler settings go in the sampler object: sampler = bnn_nuts(%s) ",
                   "(see ?bnn_nuts, ?bnn_mclmc for the default sampler)"),
  algorithm = paste0("choose the method with 'sampler' (\"mile\", \"nuts\", \"dei\", ...; see ",
                     "?bnn_fit) or an approximation: bnn_fit_laplace(), bnn_fit_ensemble(), ",
                     "bnn_fit_swag(), bnn_fit_mc_dropout()"),
  backend = "bnnmc samples in its own C code; choose the method with 'sampler' (see ?bnn_fit)",
  inits = "the argument is 'init' (\"random\", \"prior\", a list of vectors or a function)",
  prior_intercept = "the network's priors are set with prior = bnn_prior(...) (see ?bnn_prior)",
  prior_aux = paste0("the prior of sigma is set in the likelihood: ",
                     "likelihood = bnn_likelihood(\"gaussian\", sigma_prior = ...) (see ?bnn_likelihood)"),
  QR = "the predictors are standardised instead (standardize = TRUE, the default)",
  n.chains = "the argument is 'chains'",
  n.iter = "the argument is 'iter' (draws kept per chain)",
  save_pars = "all parameters' draws are kept in the fit",
  sample_prior = "draw from the prior with init = \"prior\" or bnn_prior(); the fit has no prior draws",
  file = "save the fit with saveRDS(fit, file) and read it with readRDS(file)")

# An error for the arguments of .foreign_fit_args in `dots`.
stop_foreign_args <- function(dots, fun = "bnn_fit") {
  nm <- names(dots) %||% rep("", length(dots))
  hit <- which(nm %in% names(.foreign_fit_args))
  if (!length(hit)) return(invisible(NULL))
  msgs <- vapply(hit, function(i) {
    a <- nm[i]
    v <- dots[[i]]
    val <- switch(a,
      cores = if (is.numeric(v) && length(v) == 1L && is.finite(v)) format(v) else "4",
      refresh = if (isTRUE(all(v == 0))) "FALSE" else "TRUE",
      adapt_delta = , max_treedepth = if (is.numeric(v) && length(v) == 1L) format(v) else "...",
      control = {
        keep <- if (is.list(v)) v[intersect(names(v), c("adapt_delta", "max_treedepth", "stepsize"))]
        if (length(keep))
          paste(sprintf("%s = %s", names(keep), vapply(keep, function(x) format(x[1L]), "")),
                collapse = ", ") else "adapt_delta = 0.95, max_treedepth = 12"
      },
      "")
    how <- .foreign_fit_args[[a]]
    if (grepl("%s", how, fixed = TRUE)) how <- sprintf(how, val)
    sprintf("'%s': %s.", a, how)
  }, "")
  stop(sprintf("%s() has no argument%s %s (%s). %s", fun, if (length(hit) > 1L) "s" else "",
               paste0("'", nm[hit], "'", collapse = ", "),
               if (length(hit) > 1L) "arguments of brms, rstanarm or JAGS" else
                 "an argument of brms, rstanarm or JAGS", paste(msgs, collapse = " ")),
       call. = FALSE)
}

# precision = "single": the network's arithmetic is in float, whose largest
# value is 3.4e38; inputs (after standardisation) beyond 1e30 would overflow
# in the first layer's products and sums, and a response beyond 1e15 in its
# squared residuals.  An error that names float range and precision =
# "double", rather than chains or ensemble members that fail on non-finite
# values later.
check_float_range <- function(spec, precision) {
  if (!identical(precision, "single")) return(invisible(NULL))
  bigx <- if (length(spec$X)) max(abs(spec$X)) else 0
  bigy <- if (length(spec$y)) max(abs(spec$y)) else 0
  what <- c(if (bigx > 1e30) sprintf("a predictor value of %s", format(signif(bigx, 3))),
            if (bigy > 1e15) sprintf("a response value of %s", format(signif(bigy, 3))))
  if (length(what))
    stop(sprintf(paste0("precision = \"single\" computes in float, whose range ends at 3.4e38, ",
                        "but the data (after standardisation) have %s: the network's arithmetic ",
                        "would overflow. Use precision = \"double\", or standardize = TRUE ",
                        "(the default), or rescale the data."),
                 paste(what, collapse = " and ")), call. = FALSE)
  invisible(NULL)
}

# shinystan: as.shinystan() and launch_shinystan() for fits.
#
# shinystan's as.shinystan() is an S4 generic and shinystan is only
# suggested, so the method cannot be declared in NAMESPACE (that needs the
# generic at install time, i.e. importing shinystan and, through it, shiny).
# Instead the method is set when shinystan's namespace is loaded (or at once
# if it already is), from .onLoad() via a packageEvent() hook, into a private
# environment of bnnmc (the methods table lives with the generic, so dispatch
# finds it from anywhere).  launch_shinystan() is shinystan's S3 generic: the
# bnnfit method is registered for it (delayed), and bnnmc also exports a
# function of that name, so that launch_shinystan(fit) works after
# library(bnnmc) alone (as in brms and rstanarm): it calls the method for a
# bnnfit and shinystan's generic for anything else (not a generic of its
# own: shinystan's dispatch from inside bnnmc would find its default method
# and loop).

# Where the S4 class and method metadata go (an unlocked environment).
.eco_s4 <- new.env(parent = baseenv())

# Group sizes of the parameters from their names: "W1[2,3]" -> W1 = c(2, 3).
param_dims_from_names <- function(names) {
  base <- sub("\\[.*$", "", names)
  out <- lapply(split(names, factor(base, levels = unique(base))), function(nm) {
    if (!any(grepl("[", nm, fixed = TRUE))) return(numeric(0))
    idx <- do.call(rbind, lapply(strsplit(sub("^.*\\[(.*)\\]$", "\\1", nm), ","),
                                 as.integer))
    as.numeric(apply(idx, 2L, max))
  })
  out
}

# The method body, usable without shinystan's S4 dispatch.
bnnfit_as_shinystan <- function(X, model_name = NULL, note = NULL, ...) {
  eco_need("shinystan", "as.shinystan() of a bnnfit")
  fit <- X
  if (!inherits(fit, "bnnfit")) stop("'X' must be a bnnfit.", call. = FALSE)
  dots <- list(...)
  if (length(dots))
    warning("as.shinystan(): unused argument(s): ",
            paste(names(dots) %||% "<unnamed>", collapse = ", "), call. = FALSE)
  a <- fit_draws_array(fit)          # kept draws of the chains that ran, lp__ last
  ok <- as.integer(dimnames(a)[[2]])
  if (is.null(model_name))
    model_name <- sprintf("bnnmc: %s (hidden %s, %s, %s)", deparse1(fit$formula),
                          paste(fit$hidden, collapse = "-"), fit$activation,
                          format(fit$sampler))
  # Stan's NUTS statistics, for ShinyStan's NUTS pages
  algorithm <- sampler_stan_algorithm(sampler_upgrade(fit$sampler))
  nuts_names <- c("accept_stat__", "stepsize__", "treedepth__", "n_leapfrog__",
                  "divergent__", "energy__")
  sp <- NULL
  if (identical(algorithm, "NUTS") && all(nuts_names %in% dimnames(fit$sampler_stats)[[3]])) {
    sp <- lapply(ok, function(k) {
      m <- fit$sampler_stats[, k, nuts_names, drop = TRUE]
      m <- matrix(m, dim(fit$sampler_stats)[1], length(nuts_names),
                  dimnames = list(NULL, nuts_names))
      m
    })
  }
  notes <- c(sprintf("Fitted with bnnmc %s: %d chain(s) of %d, %d warm-up iterations (not kept), %d sampling iterations, thin %d, seed %d.",
                     utils::packageVersion("bnnmc"), length(ok), fit$chains,
                     as.integer(fit$warmup), as.integer(fit$iter), as.integer(fit$thin),
                     as.integer(fit$seed)),
             note)
  dims <- c(param_dims_from_names(fit$parameters), list(lp__ = numeric(0)))
  shinystan::as.shinystan(unclass(a), model_name = model_name, warmup = 0L,
                          param_dims = dims, sampler_params = sp,
                          algorithm = if (!is.null(sp)) algorithm,
                          max_treedepth = if (!is.null(sp)) fit$sampler$max_treedepth,
                          note = paste(notes, collapse = "\n"))
}

# Sets the S4 method (shinystan's namespace must be loaded).
register_shinystan <- function() {
  generic <- shinystan::as.shinystan
  # once per load of bnnmc (defining the class again warns)
  if (is.null(methods::getClassDef("bnnfit", where = .eco_s4, inherits = FALSE)))
    methods::setOldClass("bnnfit", where = .eco_s4)
  methods::setMethod(generic, "bnnfit", function(X, ...) bnnfit_as_shinystan(X, ...),
                     where = .eco_s4)
  invisible(TRUE)
}

#' Explore a fit in ShinyStan
#'
#' With \pkg{shinystan} installed, `shinystan::as.shinystan(fit)` turns a
#' `bnnfit` into a `shinystan` object and `shinystan::launch_shinystan(fit)`
#' opens it in the ShinyStan app.  The object holds the kept draws of every
#' chain that ran (warm-up iterations are not kept by bnnmc, so its warm-up
#' count is 0), `lp__` (shown as `log-posterior`), the parameters grouped by
#' layer (`W1`, `b1`, ...), and for NUTS fits the sampler statistics under
#' Stan's names (`accept_stat__`, `stepsize__`, `treedepth__`,
#' `n_leapfrog__`, `divergent__`, `energy__`) with the maximum tree depth,
#' so ShinyStan's NUTS diagnostics pages work.  Other samplers' statistics
#' have no ShinyStan page and are left out; the note says how the fit was
#' run.
#'
#' The `as.shinystan()` method is set when \pkg{shinystan} is loaded (bnnmc
#' only suggests it): install shinystan with `install.packages("shinystan")`.
#'
#' `as.shinystan(X, model_name = NULL, note = NULL)` takes the fit `X`, the
#' name of the model shown in ShinyStan (by default the formula, the
#' architecture and the sampler) and extra text for ShinyStan's notes.
#'
#' @name bnnmc_shinystan
#' @param object A `bnnfit`.
#' @param ... Passed to `shinystan::launch_shinystan()` (e.g.
#'   `launch.browser`).
#' @return `as.shinystan()`: a `shinystan` object; `launch_shinystan()`: as
#'   shinystan's.
#' @examples
#' if (requireNamespace("shinystan", quietly = TRUE)) {
#'   fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 2,
#'                  warmup = 100, iter = 100, seed = 1, sampler = "nuts",
#'                  progress = FALSE)
#'   sso <- shinystan::as.shinystan(fit)
#'   sso
#'   # shinystan::launch_shinystan(fit)   # opens the app
#' }
NULL

#' @rdname bnnmc_shinystan
#' @export
launch_shinystan <- function(object, ...) {
  if (inherits(object, "bnnfit")) return(launch_shinystan.bnnfit(object, ...))
  eco_need("shinystan", "launch_shinystan()")
  shinystan::launch_shinystan(object, ...)
}

#' @rdname bnnmc_shinystan
#' @exportS3Method shinystan::launch_shinystan
launch_shinystan.bnnfit <- function(object, ...) {
  eco_need("shinystan", "launch_shinystan() of a bnnfit")
  shinystan::launch_shinystan(bnnfit_as_shinystan(object), ...)
}

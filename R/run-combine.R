#' Combine chains run in separate fits
#'
#' Binds the chains of fits of one model that were run separately, for
#' example on several machines, in several sessions, or in pieces of a long
#' many-chains run, into one fit, as `rstan::sflist2stanfit()` and
#' `brms::combine_models()` do.  The fits must come from [bnn_fit()] with
#' the same data, model, sampler settings and `seed`, and distinct chain ids
#' (argument `chain_id` of [bnn_fit()]).  Chain `k` of a seed has the same
#' random numbers and the same start whichever call runs it, so the combined
#' fit has the draws, sampler statistics and step sizes of one
#' `bnn_fit(chains = n)` call over the same ids, bit for bit (`identical()`);
#' only the timings and `$call` differ.
#'
#' @param ... `bnnfit` objects, or one list of them.
#' @return A `bnnfit` whose chains are those of the inputs ordered by chain
#'   id (`$chain_id`); `$elapsed` is the sum of the inputs' elapsed times.
#' @seealso [bnn_fit()] (`chain_id`).
#' @export
#' @examples
#' # two pieces of a 4-chain NUTS run, then combined
#' a <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, sampler = "nuts",
#'              chain_id = 1:2, warmup = 300, iter = 300, seed = 3, progress = FALSE)
#' b <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, sampler = "nuts",
#'              chain_id = 3:4, warmup = 300, iter = 300, seed = 3, progress = FALSE)
#' ab <- bnn_combine_chains(a, b)
#' ab$chain_id
#' whole <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, sampler = "nuts",
#'                  chains = 4, warmup = 300, iter = 300, seed = 3, progress = FALSE)
#' identical(ab$draws, whole$draws)
bnn_combine_chains <- function(...) {
  fits <- list(...)
  if (length(fits) == 1L && is.list(fits[[1L]]) && !inherits(fits[[1L]], "bnnfit"))
    fits <- fits[[1L]]
  if (!length(fits))
    stop("'...' must hold at least one bnnfit object.", call. = FALSE)
  for (i in seq_along(fits)) {
    f <- fits[[i]]
    if (!inherits(f, "bnnfit"))
      stop(sprintf("Argument %d of '...' is not a bnnfit object (from bnn_fit()).", i),
           call. = FALSE)
    if (!is.null(f$waves))
      stop(sprintf("Argument %d of '...' was run in waves (chains = bnn_waves()); combine fits run with 'chain_id' instead.", i),
           call. = FALSE)
    if (!sampler_allows(sampler_upgrade(f$sampler), "combine"))
      stop(sprintf("Argument %d of '...' is a fit of %s; its chains cannot be combined.", i,
                   format(f$sampler)), call. = FALSE)
  }
  if (length(fits) == 1L) return(fits[[1L]])
  tab <- .bnnfit_fields
  for (i in seq_along(fits)) {
    lacks <- setdiff(tab$name[tab$need == "always"], names(fits[[i]]))
    if (length(lacks))
      stop(sprintf(paste0("Argument %d of '...' was made by an earlier version of bnnmc (it has ",
                          "no %s); refit it with this version to combine its chains."),
                   i, paste0("'", lacks, "'", collapse = ", ")), call. = FALSE)
  }
  # draws of one parametrisation only: symmetry-removed draws (and their
  # method) with raw ones would give a fit whose $symmetries label depends
  # on the order of the arguments
  sym <- vapply(fits, function(f) f$symmetries %||% "none", character(1))
  if (length(unique(sym)) > 1L) {
    i <- which(sym != sym[1L])[1L]
    lab <- function(s) if (s == "none") "raw draws" else
      sprintf("draws with the symmetries removed (\"%s\")", s)
    stop(sprintf(paste0("Argument 1 of '...' has %s but argument %d %s: chains of ",
                        "different parametrisations cannot be combined. Combine the raw ",
                        "fits, then apply bnn_remove_symmetries() to the result."),
                 lab(sym[1L]), i, lab(sym[i])), call. = FALSE)
  }
  # what must agree: data, model, sampler settings and seed
  same <- c("precision", "spec", "sampler", "warmup", "iter", "thin", "seed", "parameters",
            "formula", "terms", "xlevels", "contrasts", "x_center", "x_scale", "y_center",
            "y_scale", "y", "levels", "X", "y_model", "weights", "offset", "hidden",
            "activation", "likelihood", "prior")
  what <- c(seed = "seed", warmup = "warm-up", iter = "iterations", thin = "thinning",
            sampler = "sampler settings", spec = "network and likelihood",
            precision = "precision (bnn_fit(precision = ))")
  f1 <- fits[[1L]]
  # formulas and terms are compared without the environment they were made in
  no_env <- function(x) {
    attr(x, ".Environment") <- NULL
    x
  }
  # fits made before bnn_fit(precision = ) existed were double
  field <- function(f, nm) if (nm == "precision") f[[nm]] %||% "double" else f[[nm]]
  for (i in seq_along(fits)[-1L]) for (nm in same) {
    if (!identical(no_env(field(f1, nm)), no_env(field(fits[[i]], nm))))
      stop(sprintf(paste0("The fits differ in their %s (argument 1 and argument %d of '...'): ",
                          "only chains of one model, data, sampler and seed can be combined; ",
                          "run the pieces with the same settings and distinct 'chain_id'."),
                   if (nm %in% names(what)) what[[nm]] else paste0("'", nm, "' (data or model)"), i),
           call. = FALSE)
  }
  # a fit run without chain_id has the chains 1, ..., chains
  ids <- unlist(lapply(fits, function(f) f$chain_id %||% seq_len(f$chains)), use.names = FALSE)
  if (anyDuplicated(ids))
    stop(sprintf(paste0("Chain %d is in more than one fit: with one seed, a chain id names one ",
                        "chain; give the pieces distinct 'chain_id'."), ids[anyDuplicated(ids)]),
         call. = FALSE)
  ord <- order(ids)
  bind3 <- function(nm) {
    parts <- lapply(fits, function(f) f[[nm]])
    d <- dim(parts[[1L]])
    out <- array(NA_real_, c(d[1L], length(ids), d[3L]), dimnames = dimnames(parts[[1L]]))
    at <- 0L
    for (p in parts) {
      k <- dim(p)[2L]
      out[, at + seq_len(k), ] <- p
      at <- at + k
    }
    out[, ord, , drop = FALSE]
  }
  vec <- function(nm) unlist(lapply(fits, function(f) f[[nm]]), use.names = FALSE)[ord]
  rows <- function(nm) {
    x <- do.call(rbind, lapply(fits, function(f) f[[nm]]))
    x <- x[ord, , drop = FALSE]
    if (is.data.frame(x)) rownames(x) <- NULL
    x
  }
  call <- match.call()
  ens <- lapply(fits, function(f) f$ensemble)
  n_mem <- vapply(ens, function(e) if (is.null(e)) 0 else as.numeric(e$members), numeric(1))
  chain_status <- unlist(lapply(fits, function(f) as.character(f$chain_status)))[ord]
  # the chains' fields, bound in the order of their ids, with the run's
  # settings the fits share (checked above)
  chains_part <- list(
    draws = bind3("draws"), sampler_stats = bind3("sampler_stats"),
    warmup_stats = bind3("warmup_stats"), n_grad = vec("n_grad"), stepsize = vec("stepsize"),
    L = vec("L"), n_reverted = vec("n_reverted"), inv_metric = rows("inv_metric"),
    timing = rows("timing"), chain_status = factor(chain_status, levels = levels(f1$chain_status)),
    failed_at = rows("failed_at"), spec = f1$spec, sampler = f1$sampler, warmup = f1$warmup,
    iter = f1$iter, thin = f1$thin, seed = f1$seed, chains = length(ids), chain_id = ids[ord],
    parameters = f1$parameters)
  model <- f1[intersect(tab$name[tab$need == "model"], names(f1))]
  # with the rest of the first fit's fields (the precision, what an
  # approximation or the default model's check recorded, ...), but for those
  # of its own chains: its verdict (made again below) and its chains'
  # stacking weights; fields of earlier versions the table no longer lists
  # are left out
  rest <- setdiff(intersect(tab$name, names(f1)),
                  c(names(chains_part), names(model), "call", "elapsed", "inits", "simd",
                    "ensemble", "convergence", "stacking"))
  model <- c(model, f1[rest])
  build <- function(convergence)
    new_bnnfit(chains_part, model, class = setdiff(class(f1), "bnnfit"), call = call,
               elapsed = sum(vapply(fits, function(f) f$elapsed %||% NA_real_, numeric(1))),
               inits = unlist(lapply(fits, function(f) f$inits), recursive = FALSE)[ord],
               simd = unique(unlist(lapply(fits, function(f) f$simd))),
               ensemble = ens[[which.max(n_mem)]], convergence = convergence)
  # the verdict of the joined chains (each piece's was of its own chains)
  out <- build(NULL)
  build(tryCatch(bnn_convergence(out), error = function(e) NULL))
}

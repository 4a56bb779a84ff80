# Fits whose predictive distribution mixes two models: the default's check
# (R/fit-choice.R) stacks its network and its linear model by their
# PSIS-LOO elpds (Yao, Vehtari, Simpson and Gelman 2018) when neither
# takes (almost) all the weight; on larger data it stacks the
# heteroscedastic and the homoscedastic Gaussian network (or, with
# options(bnnmc.stack_second = "student"), the Student-t network in the
# homoscedastic one's place).  Such a fit is the first model's, with
# $mixture = list(fit = <the other model's fit>, weights = c(network = ,
# linear = ), or c(heteroscedastic = , homoscedastic = ) or
# c(heteroscedastic = , student = ) in either order with kind =
# "likelihood"); every predictive function uses the draws of each model in
# proportion to its weight, through pred_setup(), block_params(),
# block_outputs() and class_prob_summary() (R/predict.R).  A Gaussian and
# a Student-t component pool as Student-t draws (student_block()), so
# nothing may read the pooled draws' likelihood from the first component's
# $likelihood: pred_is_family() asks both.  The parameter draws, diagnostics and
# the convergence verdict are the first model's.

# The fit without its mixture: the network's own chains and draws, which
# the per-chain views (the verdict, the cumulative LPPD plot, the modes'
# function plot) read.
network_only <- function(object) {
  if (is.null(object$mixture)) object else bnnfit_with(object, mixture = NULL)
}

# What a mixture mixes, in words: "the network and the linear model",
# "the heteroscedastic and the homoscedastic Gaussian network", or with a
# Student-t network in the homoscedastic one's place (stack_second(),
# R/fit-choice.R) "the heteroscedastic Gaussian and the Student-t network".
mixture_names <- function(object) {
  if (!identical(object$mixture$kind, "likelihood")) return("the network and the linear model")
  if (has_student_component(object))
    "the heteroscedastic Gaussian and the Student-t network" else
    "the heteroscedastic and the homoscedastic Gaussian network"
}

# Does a mixture have a Student-t component (in either place)?
has_student_component <- function(object) {
  "student" %in% c(object$likelihood$family, object$mixture$fit$likelihood$family)
}

# Are a fit's predictive draws a family's of R/model-family.R (pp$family
# set) rather than Gaussian: its own likelihood's or, for a mixture, either
# component's (a Gaussian and a Student-t network pool as Student-t draws:
# student_block()).  Functions that choose between the Gaussian code and
# the family's by the fit ask this, not the first component's likelihood.
pred_is_family <- function(object) {
  is_family_lik(object) || (!is.null(object$mixture) && is_family_lik(object$mixture$fit))
}

# The fit's components, in the order of $mixture$weights: the fit itself
# without its mixture, then the other model.
mixture_components <- function(object) list(network_only(object), object$mixture$fit)

# Whole numbers n[k] summing to `total`, proportional to the weights w
# (largest remainders).
largest_remainder <- function(w, total) {
  raw <- w / sum(w) * total
  n <- floor(raw)
  short <- total - sum(n)
  if (short > 0) {
    top <- order(raw - n, decreasing = TRUE)[seq_len(short)]
    n[top] <- n[top] + 1
  }
  n
}

# Draws the fit's predictive functions use: as many as the fit's own draws
# (ndraws(fit): its chains that did not fail), or ndraws of them, shared
# among the models by their weights -- so posterior_predict(), log_lik()
# and posterior_epred() of a stacked fit have ndraws(fit) rows, as any
# fit's.  Fewer only if a model's share would be more than the draws it
# has (a model with failed chains): as many as keep each share within its
# model's draws.
pooled_ndraws <- function(object, ndraws = NULL) {
  own <- function(f) sum(f$chain_status == "ok") * dim(f$draws)[1L]
  S <- own(object)
  w <- object$mixture$weights
  comps <- mixture_components(object)
  for (k in seq_along(w))
    if (w[[k]] > 0) S <- min(S, floor(own(comps[[k]]) / w[[k]]))
  if (!is.null(ndraws)) S <- min(S, check_count(ndraws, "ndraws", 1L))
  as.integer(S)
}

# Draws of each component of a mixture for a prediction with ndraws.
mixture_counts <- function(object, ndraws = NULL) {
  largest_remainder(object$mixture$weights, pooled_ndraws(object, ndraws))
}

# pred_setup() of a mixture: one setup per component with its share of the
# draws (NULL for a component without draws), the design of the first.
mixture_setup <- function(object, newdata, ndraws, allow_na) {
  comps <- mixture_components(object)
  n_k <- mixture_counts(object, ndraws)
  parts <- lapply(seq_along(comps), function(k)
    if (n_k[k] > 0) pred_setup(comps[[k]], newdata, n_k[k], allow_na))
  first <- parts[[which(n_k > 0)[1L]]]
  list(X = first$X, th = NULL, missing = first$missing, trials = first$trials,
       comps = comps, parts = parts)
}

# Draws of a pred_setup().
ps_ndraws <- function(ps) {
  if (is.null(ps$parts)) return(ncol(ps$th))
  sum(vapply(ps$parts, function(p) if (is.null(p)) 0L else ncol(p$th), 0L))
}

# f(component, its setup) for each component with draws.
mixture_parts <- function(ps, f) {
  has <- !vapply(ps$parts, is.null, logical(1))
  Map(f, ps$comps[has], ps$parts[has])
}

# mixture_parts()'s results joined along the draws: [draw, row] matrices
# and [draw, row, class] arrays by rows, per-draw vectors (sigma, nu, phi)
# end to end; the family name and the binomial's trials (per row) as they
# are.
mixture_block <- function(ps, f) {
  res <- mixture_parts(ps, f)
  if (length(res) == 1L) return(res[[1L]])
  fams <- vapply(res, function(r) r$family %||% "gaussian", "")
  if (length(unique(fams)) > 1L) return(student_block(res, fams))
  out <- res[[1L]]
  for (nm in names(out)) {
    v <- lapply(res, `[[`, nm)
    x <- v[[1L]]
    if (is.null(x) || is.character(x) || nm == "trials") next
    out[[nm]] <- if (is.matrix(x)) do.call(rbind, v) else
      if (is.array(x)) bind_draw_arrays(v) else unlist(v, use.names = FALSE)
  }
  out
}

# mixture_block() of a Gaussian (homo- or heteroscedastic) and a
# Student-t component: both as Student-t draws, family "student" with the
# scale `sigma` a [draw, row] matrix (a Gaussian draw's sd) and `nu` per
# draw, Inf for a Gaussian draw (a t with infinite degrees of freedom is
# the normal: pt(q, Inf) == pnorm(q), dt(x, Inf) == dnorm(x), rt(n, Inf)
# draws normals), so every Student-t path (family_rdraws(),
# family_log_density(), family_quantiles(), the PIT) treats each draw by
# its own likelihood.  `res`: block_params() of each component, `fams`
# their families ("gaussian" for either Gaussian).  Other pairs of
# families are refused.
student_block <- function(res, fams) {
  if (!all(fams %in% c("gaussian", "student")))
    stop(sprintf(paste0("Predictions of a mixture of a %s and a %s model are not available: ",
                        "only Gaussian and Student-t components can be pooled."),
                 fams[1L], fams[2L]), call. = FALSE)
  parts <- lapply(seq_along(res), function(k) {
    r <- res[[k]]
    S <- nrow(r$mu)
    n <- ncol(r$mu)
    if (fams[k] == "student")
      return(list(mu = r$mu, sd = r$sd, sigma = matrix(r$sigma, S, n), nu = r$nu))
    # block_params(sd = FALSE) of a Gaussian: no sd (only means are wanted)
    sdm <- r$sd %||% matrix(NA_real_, S, n)
    list(mu = r$mu, sd = sdm, sigma = sdm, nu = rep(Inf, S))
  })
  join <- function(nm) do.call(rbind, lapply(parts, `[[`, nm))
  list(family = "student", mu = join("mu"), sd = join("sd"), sigma = join("sigma"),
       nu = unlist(lapply(parts, `[[`, "nu"), use.names = FALSE))
}

# [draw, row, class] arrays joined along the draws.
bind_draw_arrays <- function(v) {
  d <- dim(v[[1L]])
  S <- vapply(v, function(a) dim(a)[1L], 0L)
  out <- array(NA_real_, c(sum(S), d[2L], d[3L]))
  s0 <- 0L
  for (k in seq_along(v)) {
    out[s0 + seq_len(S[k]), , ] <- v[[k]]
    s0 <- s0 + S[k]
  }
  out
}

# block_outputs() of a mixture: raw outputs [row, output, draw] of each
# component joined along the draws (the two models have the same outputs).
mixture_outputs <- function(ps, idx) {
  res <- mixture_parts(ps, function(obj, p) block_outputs(obj, p, idx))
  if (length(res) == 1L) return(res[[1L]])
  d <- dim(res[[1L]])
  array(unlist(res, use.names = FALSE), c(d[1L], d[2L], sum(vapply(res, function(a) dim(a)[3L], 0L))))
}

# class_prob_summary() of a mixture: each component's summary with its
# share of the draws, combined as the pooled draws would be.
mixture_class_summary <- function(object, newdata, ndraws, y) {
  comps <- mixture_components(object)
  n_k <- mixture_counts(object, ndraws)
  keep <- which(n_k > 0)
  res <- lapply(keep, function(k) class_prob_summary(comps[[k]], newdata, n_k[k], y = y))
  w <- n_k[keep] / sum(n_k[keep])
  prob <- Reduce(`+`, Map(function(r, wk) wk * r$prob, res, w))
  out <- list(prob = prob, loglik = NULL, lpd = NULL, n_draws = sum(n_k))
  if (!is.null(y)) {
    out$loglik <- Reduce(`+`, Map(function(r, wk) wk * r$loglik, res, w))
    lp <- vapply(res, `[[`, numeric(nrow(prob)), "lpd") + rep(log(w), each = nrow(prob))
    out$lpd <- apply(matrix(lp, nrow(prob)), 1L, log_sum_exp)
  }
  out
}

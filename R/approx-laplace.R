# Laplace approximation at the MAP: full Hessian (small networks) or KFAC
# (Kronecker-factored curvature per layer, src/model/laplace.c), prior precision
# given or tuned by the Laplace marginal likelihood.

#' Laplace approximation of a Bayesian neural network
#'
#' Approximates the posterior by the Gaussian \eqn{N(\theta^*, H^{-1})} at
#' the MAP \eqn{\theta^*}, with \eqn{H} the curvature of the negative log
#' posterior there, and returns `draws` Gaussian draws as a fit that works
#' with [predict.bnnfit()], [bnn_metrics()], `loo()`, the draws
#' conversions and the plots exactly as a sampler fit (one "chain").
#'
#' **MAP.** The network is trained by the optimiser ([bnn_optimizer()],
#' loss `"posterior"` is forced) from Glorot-uniform starting weights, or
#' taken from `map`.  With `hessian = "full"` or `"ggn"` the MAP is then
#' polished by Newton (Gauss-Newton) steps \eqn{\theta \leftarrow \theta +
#' H^{-1}\nabla\log p(\theta \mid y)} (step halving until the log
#' posterior increases; at most `newton` steps, stopping when the
#' gradient's largest entry is below 1e-9, the gain in log posterior is
#' below 1e-10, or the Hessian is not positive definite), so that a (locally)
#' convex posterior's mode is found to machine precision; on the conjugate
#' linear model one step gives the exact posterior mean.
#'
#' **Full Hessian** (`hessian = "full"`, for up to a few thousand
#' parameters): central differences of the analytic gradient (from C),
#' \eqn{H_{\cdot j} = -(\nabla(\theta + h_j e_j) - \nabla(\theta - h_j
#' e_j))/(2h_j)} with \eqn{h_j = } `fd_step` \eqn{\max(1, |\theta_j|)},
#' symmetrised; \eqn{2d} gradient evaluations.  It is the Hessian of the
#' log posterior, so it includes the sampled `log sigma` of a Gaussian
#' likelihood.  Draws are \eqn{\theta^* + R^{-1}z} with \eqn{H = R^\top R}
#' (Cholesky) and \eqn{z \sim N(0, I)}.  If the log-likelihood part of
#' \eqn{H} (\eqn{H} minus the prior precision) is not positive
#' semi-definite (a saddle or an unconverged MAP, common for networks),
#' its negative eigenvalues are set to 0, with a warning of class
#' `bnnmc_laplace_indefinite`, so that \eqn{H} is positive definite and
#' the marginal likelihood below is well defined.
#'
#' **Full generalised Gauss-Newton** (`hessian = "ggn"`): \eqn{\sum_i
#' J_i^\top \Lambda_i J_i} plus the prior precision, \eqn{J_i} the Jacobian
#' of row \eqn{i}'s network outputs (central differences of the forward
#' pass), \eqn{\Lambda_i} the Fisher information of the likelihood in the
#' outputs (\eqn{1/\sigma^2}; \eqn{p(1-p)}; \eqn{diag(p) - pp^\top};
#' \eqn{diag(1/sd^2, 2)} for the heteroscedastic Gaussian's mean and log
#' sd; \eqn{2n} plus its prior's curvature for a sampled `log sigma`).  It
#' is always positive definite, so Newton (Gauss-Newton) polishing and the
#' marginal likelihood are well defined without the projection above; it
#' is the curvature of Laplace libraries.  (Without the projection, an
#' indefinite log-likelihood Hessian would make \eqn{-\frac12\log\det
#' H(\tau)} grow without bound as \eqn{H(\tau)} approaches singularity,
#' and the tuning would pick a spurious \eqn{\tau}.)  On models linear in the parameters with a Gaussian
#' likelihood (the conjugate linear model) all three curvatures agree.
#'
#' **KFAC** (`hessian = "kfac"`, for large networks; Ritter et al. 2018):
#' per weight layer \eqn{l} the generalised Gauss-Newton block of the
#' log-likelihood is approximated by \eqn{N\,E[g g^\top] \otimes E[\tilde
#' a \tilde a^\top]}, \eqn{\tilde a} the layer's input with a 1 appended
#' (for the bias), \eqn{g} the gradient of the network output with respect
#' to the layer's pre-activations times the square root of the output's
#' likelihood precision (\eqn{1/\sigma} for a Gaussian with fixed sigma,
#' \eqn{\sqrt{p(1-p)}} for Bernoulli), expectations over the \eqn{N}
#' training rows.  The posterior precision of the layer is that plus
#' \eqn{\tau_l I}; layers are independent.  Sampling uses the
#' eigendecompositions of the two factors, so memory and time are
#' \eqn{O(\sum_l (f_{in}+1)^3 + f_{out}^3)} and never \eqn{d^2}.  KFAC
#' needs a one-output likelihood with no parameter of its own: Gaussian
#' with fixed `sigma` or Bernoulli.
#'
#' **Prior precision.** `prior_precision = NULL` uses the model's Normal
#' prior (precision \eqn{1/s^2} per parameter; KFAC needs one value per
#' layer, i.e. equal weight and bias scales).  A number \eqn{\tau} replaces
#' the prior of all network parameters by \eqn{N(0, 1/\tau)} (the MAP is
#' found under it).  `"marglik"` tunes one scalar \eqn{\tau} by maximising
#' the Laplace approximation of the log marginal likelihood
#' \deqn{\log p(y \mid \theta^*) + \log p(\theta^* \mid \tau) +
#' \tfrac d2\log 2\pi - \tfrac12\log\det H(\tau),}
#' a 1-D optimisation over \eqn{\log\tau} in \eqn{[10^{-6}, 10^6]}
#' started from the model's prior.  With `hessian = "full"`
#' or `"ggn"` (`marglik = "refit"`) the MAP is re-found by Newton steps under each new
#' \eqn{\tau} and \eqn{\tau} re-tuned until it changes by less than 1e-8
#' (relative; at most 20 rounds), which on the conjugate linear model gives
#' the exact evidence maximiser; `marglik = "posthoc"` (always for KFAC)
#' keeps the MAP of the original prior and only tunes \eqn{\tau}, as the
#' Laplace library of Daxberger et al. (2021) does.  The tuned prior
#' becomes the fit's prior (`$prior`, and `lp__` of the draws).
#'
#' **Predictions** average the network over the weight draws (the "NN
#' predictive"), like every fit of the package.  With a small prior
#' precision this predictive is known to underfit a Laplace approximation
#' of a network badly (Immer et al. 2021, who recommend the linearised
#' predictive, which a draws-based fit cannot represent); expect a wider
#' and less accurate predictive than the MAP's.
#'
#' The Laplace baseline of the symmetry study (homoscedastic
#' Gaussian likelihood with a sampled sigma, MAP, full Hessian of the log
#' posterior, prior precision tuned by marginal likelihood, 1274 Gaussian
#' draws) is
#' `bnn_fit_laplace(y ~ ., d, hidden = 3, activation = "tanh", likelihood =
#' "gaussian", hessian = "full", prior_precision = "marglik", draws = 1274)`;
#' the Hessian then includes `log sigma`, and the negative eigenvalues of
#' its log-likelihood part, if any, are set to 0 (see above);
#' `hessian = "ggn"` is the same with the Gauss-Newton curvature.
#'
#' This is a function of its own rather than a `sampler` of [bnn_fit()]:
#' it runs no chains and has settings (MAP, curvature, prior tuning) that
#' no sampler has.
#'
#' @inheritParams bnn_fit
#' @param prior A [bnn_prior()] object or `"normal"` / `"laplace"` (default
#'   Normal(0, 1) on every weight and bias, whatever the likelihood).
#' @param hessian The curvature: `"full"` (exact Hessian), `"ggn"` (full
#'   generalised Gauss-Newton) or `"kfac"`, see Details.
#' @param prior_precision `NULL`, a positive number or `"marglik"`, see
#'   Details.
#' @param marglik `"refit"` or `"posthoc"` (prior tuning with the full
#'   Hessian), see Details.
#' @param optimizer A [bnn_optimizer()] for the MAP (its `loss` is set to
#'   `"posterior"`).
#' @param map Optional MAP (or starting point) on the unconstrained scale
#'   (`log sigma`), in the layout of [bnn_parameter_names()]; with it the
#'   optimiser is not run.
#' @param newton Maximum number of Newton steps polishing the MAP, in total
#'   over the rounds of `marglik = "refit"` (full Hessian and GGN only; 0
#'   for none).
#' @param draws Number of Gaussian draws.
#' @param fd_step Relative step of the central differences, from `1e-10`
#'   to `0.1`.
#' @return A fit of class `c("bnn_approx", "bnnfit")` with draws
#'   `[draw, 1, parameter]`; `$approx` holds `map`, `hessian` (full: the
#'   \eqn{d \times d} precision; KFAC: `NULL`), `kfac` (KFAC: per layer the
#'   factors `A`, `G` (sums over rows), the layer's parameter indices and
#'   `tau`), `prior_precision`, `log_marglik` (the Laplace log marginal
#'   likelihood at the final prior), `newton_steps` and `optim` (the
#'   optimiser's result, or `NULL`).
#' @export
#' @examples
#' set.seed(1)
#' d <- data.frame(x = runif(40, -2, 2))
#' d$y <- sin(2 * d$x) + rnorm(40, sd = 0.1)
#' la <- bnn_fit_laplace(y ~ x, d, hidden = 8, likelihood = bnn_likelihood("gaussian", sigma = 0.3),
#'                   hessian = "ggn", prior_precision = "marglik", draws = 200, seed = 1,
#'                   optimizer = bnn_optimizer(optimizer = "adam", lr = 0.01,
#'                                             weight_decay = 0, epochs = 500))
#' la
#' la$approx$prior_precision
#' head(predict(la, d, type = "interval"))
#' # KFAC
#' lk <- bnn_fit_laplace(y ~ x, d, hidden = c(16, 16), hessian = "kfac",
#'                   likelihood = bnn_likelihood("gaussian", sigma = 0.3),
#'                   draws = 200, seed = 1,
#'                   optimizer = bnn_optimizer(optimizer = "adam", lr = 0.01,
#'                                             weight_decay = 0, epochs = 300))
#' bnn_metrics(lk, d)$rmse
bnn_fit_laplace <- function(formula, data, hidden = c(16, 16), activation = "tanh",
                        likelihood = NULL, prior = bnn_prior(),
                        hessian = c("full", "ggn", "kfac"), prior_precision = NULL,
                        marglik = c("refit", "posthoc"),
                        optimizer = bnn_optimizer(optimizer = "adam", weight_decay = 0,
                                                  epochs = 2000, loss = "posterior"),
                        map = NULL, newton = 20, draws = 1000, seed = NULL,
                        fd_step = 1e-4, subset, na.action, standardize = TRUE) {
  call <- match.call()
  hessian <- match_choice(hessian[1L], c("full", "ggn", "kfac"), "hessian")
  marglik <- match_choice(marglik[1L], c("refit", "posthoc"), "marglik")
  if (hessian == "kfac") marglik <- "posthoc"
  tune <- FALSE
  if (!is.null(prior_precision)) {
    if (identical(prior_precision, "marglik")) {
      tune <- TRUE
    } else {
      if (!is.numeric(prior_precision) || length(prior_precision) != 1L ||
          is.na(prior_precision) || !is.finite(prior_precision) || prior_precision <= 0)
        stop("'prior_precision' must be NULL, a single positive number or \"marglik\", not ",
             deparse1(prior_precision), ".", call. = FALSE)
      prior <- bnn_prior("normal", scale = 1 / sqrt(prior_precision))
    }
  }
  prior <- as_prior(prior)
  if (prior$family != "normal")
    stop("'prior' must be a Normal prior for the Laplace approximation.", call. = FALSE)
  newton <- check_count(newton, "newton", 0L)
  draws <- check_draws(draws)
  fd_step <- check_positive(fd_step, "fd_step")
  # a relative step: above 0.1 the differences are not local (1e300 gave
  # "infinite or missing values in 'x'"), below 1e-10 rounding error swamps them
  if (fd_step > 0.1 || fd_step < 1e-10)
    stop(sprintf(paste0("'fd_step' (the relative step of the central differences) must be ",
                        "between 1e-10 and 0.1, not %s."), format(fd_step)), call. = FALSE)
  mf <- match.call(expand.dots = FALSE)
  m <- match(c("formula", "data", "subset", "na.action"), names(mf), 0L)
  mf <- mf[c(1L, m)]
  model <- prepare_model(mf, parent.frame(), formula, data, hidden, activation,
                         likelihood, prior, standardize)
  refuse_new_family(model, "bnn_fit_laplace()")
  if (is.null(seed)) seed <- new_seed()
  seed <- check_count(seed, "seed", 0L)
  spec <- model$spec
  dim <- spec_dim(spec)
  n_net <- bnn_n_parameters(spec$sizes)
  if (hessian == "kfac") kfac_check(spec)
  t0 <- proc.time()[[3]]
  opt <- NULL
  if (is.null(map)) {
    optimizer$loss <- "posterior"
    opt <- approx_optimize(spec, optimizer, seed)
    theta <- opt$par
  } else {
    if (!is.numeric(map) || length(map) != dim || anyNA(map))
      stop(sprintf("'map' must be a numeric vector of length %d (the number of parameters).",
                   dim), call. = FALSE)
    theta <- as.double(map)
  }
  n_grad <- if (is.null(opt)) 0 else opt$n_grad
  ng <- 0
  if (hessian != "kfac") {
    curv <- if (hessian == "ggn") laplace_ggn else laplace_hessian
    pol <- laplace_newton(spec, theta, newton, fd_step, curv)
    theta <- pol$theta
    tau <- 1 / spec$prior_scale^2
    H <- laplace_psd(pol$H, tau)
    n_neg <- attr(H, "n_neg")
    n_steps <- pol$steps
    ng <- ng + pol$n_grad
    if (tune) {
      tau0 <- NA_real_
      for (round in seq_len(if (marglik == "refit") 20L else 1L)) {
        tau_s <- laplace_tune_full(theta, H, n_net, tau)
        tau <- rep(tau_s, n_net)
        spec_new <- spec
        spec_new$prior_scale <- rep(1 / sqrt(tau_s), n_net)
        Hn <- laplace_shift_prior(H, 1 / spec$prior_scale^2, tau, dim)
        spec <- spec_new
        H <- Hn
        if (marglik == "refit") {
          # the Newton budget is shared by all rounds
          pol <- laplace_newton(spec, theta, max(0L, newton - n_steps), fd_step, curv)
          theta <- pol$theta
          H <- laplace_psd(pol$H, tau)
          n_neg <- attr(H, "n_neg")
          n_steps <- n_steps + pol$steps
          ng <- ng + pol$n_grad
        }
        if (!is.na(tau0) && abs(log(tau_s / tau0)) < 1e-8) break
        tau0 <- tau_s
      }
    }
    if (n_neg > 0)
      warn_cond(sprintf(paste0("The Hessian of the log-likelihood at the MAP is not positive ",
                               "semi-definite: its %d negative eigenvalue(s) were set to 0 ",
                               "(the MAP may not have converged; hessian = \"ggn\" avoids ",
                               "this)."), n_neg), "bnnmc_laplace_indefinite")
    fac <- laplace_factor(H, min(tau))
    lp <- .Call(C_model_logpost, spec, matrix(theta, ncol = 1L))$lp
    lml <- lp + dim / 2 * log(2 * pi) - sum(log(diag(fac)))
    z <- with_seed(seed, matrix(stats::rnorm(dim * draws), dim, draws))
    th <- t(theta + backsolve(fac, z))
    tau_out <- if (tune || !is.null(prior_precision)) tau[1L] else unique(1 / spec$prior_scale^2)
    kf <- NULL
  } else {
    n_steps <- 0L
    kf <- laplace_kfac_factors(spec, theta)
    tau <- kfac_layer_tau(spec)
    if (tune) {
      tau <- rep(kfac_tune(kf, theta, n_net), length(tau))
      spec$prior_scale <- rep(1 / sqrt(tau[1L]), n_net)
    }
    for (l in seq_along(kf)) kf[[l]]$tau <- tau[l]
    lp <- .Call(C_model_logpost, spec, matrix(theta, ncol = 1L))$lp
    lml <- lp + dim / 2 * log(2 * pi) - 0.5 * kfac_logdet(kf)
    th <- with_seed(seed, kfac_draws(kf, theta, draws))
    H <- NULL
    tau_out <- if (length(unique(tau)) == 1L) tau[1L] else tau
  }
  if (tune || !is.null(prior_precision))
    model$prior <- bnn_prior("normal", scale = 1 / sqrt(tau_out[1L]))
  model$spec <- spec
  pars <- bnn_parameter_names(spec$sizes, sigma = has_sigma(spec))
  pars[length(pars)] <- if (has_sigma(spec)) "log_sigma" else pars[length(pars)]
  names(theta) <- pars
  if (!is.null(H)) {
    attr(H, "n_neg") <- NULL
    dimnames(H) <- list(pars, pars)
  }
  elapsed <- proc.time()[[3]] - t0
  approx <- list(method = "laplace", curvature = hessian, map = theta, hessian = H,
                 kfac = kf, prior_precision = tau_out, log_marglik = lml,
                 newton_steps = n_steps, optim = opt,
                 summary = list(
                   curvature = switch(hessian,
                                      full = "full Hessian (central differences)",
                                      ggn = "full generalised Gauss-Newton",
                                      kfac = "KFAC (generalised Gauss-Newton)"),
                   "prior prec." = paste0(paste(fmt_num(unique(tau_out)), collapse = ", "),
                                          if (tune) " (tuned by marginal likelihood)" else ""),
                   "log marglik" = fmt_num(lml, 6)))
  approx_fit(model, th, "laplace", approx, elapsed, n_grad + ng, seed, call)
}

# Hessian of the negative log posterior by central differences of the
# analytic gradient, symmetrised; returns list(H, n_grad).
laplace_hessian <- function(spec, theta, fd_step) {
  d <- length(theta)
  h <- fd_step * pmax(1, abs(theta))
  H <- matrix(0, d, d)
  block <- max(1L, min(d, floor(2e6 / d)))
  for (j0 in seq(1L, d, by = block)) {
    idx <- j0:min(d, j0 + block - 1L)
    k <- length(idx)
    P <- matrix(theta, d, 2L * k)
    P[cbind(idx, seq_len(k))] <- theta[idx] + h[idx]
    P[cbind(idx, k + seq_len(k))] <- theta[idx] - h[idx]
    G <- .Call(C_model_logpost, spec, P)$grad
    H[, idx] <- -(G[, seq_len(k), drop = FALSE] - G[, k + seq_len(k), drop = FALSE]) /
      rep(2 * h[idx], each = d)
  }
  list(H = (H + t(H)) / 2, n_grad = 2 * d)
}

# Generalised Gauss-Newton (Fisher) matrix of the negative log posterior:
# sum_i J_i' Lambda_i J_i over rows, J_i the Jacobian of the network outputs
# (central differences of the forward pass), Lambda_i the Fisher information
# of the likelihood in the outputs, plus the prior's precision; for a
# sampled sigma the log sigma entry is its Fisher information 2n plus the
# curvature of its prior.  Returns list(H, n_grad).
laplace_ggn <- function(spec, theta, fd_step) {
  d <- length(theta)
  n_net <- bnn_n_parameters(spec$sizes)
  X <- spec$X
  n <- nrow(X)
  K <- spec$sizes[length(spec$sizes)]
  h <- fd_step * pmax(1, abs(theta))
  f0 <- .Call(C_model_forward, spec, matrix(theta, ncol = 1L), X, 1L)[, , 1]
  f0 <- matrix(f0, n, K)
  J <- array(0, c(n, K, n_net))
  block <- max(1L, min(n_net, floor(2e6 / (n * K))))
  for (j0 in seq(1L, n_net, by = block)) {
    idx <- j0:min(n_net, j0 + block - 1L)
    k <- length(idx)
    P <- matrix(theta, d, 2L * k)
    P[cbind(idx, seq_len(k))] <- theta[idx] + h[idx]
    P[cbind(idx, k + seq_len(k))] <- theta[idx] - h[idx]
    Fo <- .Call(C_model_forward, spec, P, X, .bnn_threads())
    J[, , idx] <- (Fo[, , seq_len(k), drop = FALSE] - Fo[, , k + seq_len(k), drop = FALSE]) /
      rep(2 * h[idx], each = n * K)
  }
  Jk <- function(k) matrix(J[, k, ], n, n_net)
  lik <- names(.likelihoods)[match(spec$lik, .likelihoods)]
  G <- switch(lik,
    gaussian_fixed = crossprod(Jk(1)) / spec$sigma_fixed^2,
    gaussian = crossprod(Jk(1)) * exp(-2 * theta[d]),
    hetero_gaussian = {
      ls <- pmin(pmax(f0[, 2], log(1e-6)), log(1e6))
      crossprod(Jk(1) * exp(-ls)) + 2 * crossprod(Jk(2))
    },
    bernoulli = {
      p <- stats::plogis(f0[, 1])
      crossprod(Jk(1) * sqrt(p * (1 - p)))
    },
    categorical = {
      pr <- exp(f0 - apply(f0, 1, max))
      pr <- pr / rowSums(pr)
      m <- Reduce(`+`, lapply(seq_len(K), function(k) Jk(k) * pr[, k]))
      Reduce(`+`, lapply(seq_len(K), function(k) crossprod(Jk(k) * sqrt(pr[, k])))) -
        crossprod(m)
    })
  H <- matrix(0, d, d)
  H[seq_len(n_net), seq_len(n_net)] <- G
  i <- seq_len(n_net)
  H[cbind(i, i)] <- H[cbind(i, i)] + 1 / spec$prior_scale^2
  if (d > n_net) {
    sg <- exp(theta[d])
    c0 <- spec$sigma_prior_scale
    H[d, d] <- 2 * n + switch(names(.sigma_priors)[match(spec$sigma_prior, .sigma_priors)],
      half_normal = 2 * (sg / c0)^2,
      half_normal_variance = 8 * (sg^2 / c0)^2,
      exponential = c0 * sg)
  }
  list(H = (H + t(H)) / 2, n_grad = 0)   # forward passes only
}

# Newton polishing of the MAP; returns list(theta, H (at theta), steps, n_grad).
laplace_newton <- function(spec, theta, newton, fd_step, curvature = laplace_hessian) {
  lpg <- function(th) .Call(C_model_logpost, spec, matrix(th, ncol = 1L))
  cur <- lpg(theta)
  hs <- curvature(spec, theta, fd_step)
  ng <- 1 + hs$n_grad
  steps <- 0L
  for (it in seq_len(newton)) {
    g <- as.double(cur$grad)
    if (!all(is.finite(g)) || max(abs(g)) < 1e-9) break
    R <- tryCatch(chol(hs$H), error = function(e) NULL)
    if (is.null(R)) break
    step <- backsolve(R, forwardsolve(t(R), g))
    a <- 1
    moved <- FALSE
    for (k in 1:30) {
      cand <- lpg(theta + a * step)
      ng <- ng + 1
      if (is.finite(cand$lp) && cand$lp >= cur$lp) {
        moved <- TRUE
        break
      }
      a <- a / 2
    }
    if (!moved) break
    gain <- cand$lp - cur$lp
    theta <- theta + a * step
    cur <- cand
    hs <- curvature(spec, theta, fd_step)
    ng <- ng + hs$n_grad
    steps <- steps + 1L
    if (gain <= 1e-10) break   # converged: the log posterior gains < 1e-10
  }
  list(theta = theta, H = hs$H, steps = steps, n_grad = ng)
}

# H minus the prior precision tau (network parameters) projected on the
# positive semi-definite matrices (negative eigenvalues set to 0), plus
# tau again; attribute n_neg: how many eigenvalues were negative (beyond
# rounding).  A GGN is returned as it is.
laplace_psd <- function(H, tau) {
  i <- seq_along(tau)
  L <- H
  L[cbind(i, i)] <- L[cbind(i, i)] - tau
  e <- eigen(L, symmetric = TRUE)
  tol <- 1e-10 * max(1, abs(e$values))
  neg <- e$values < -tol
  if (!any(neg)) return(structure(H, n_neg = 0L))
  v <- pmax(e$values, 0)
  L <- tcrossprod(e$vectors * rep(sqrt(v), each = nrow(L)))
  L[cbind(i, i)] <- L[cbind(i, i)] + tau
  structure((L + t(L)) / 2, n_neg = sum(neg))
}

# Replace the prior precision on the network parameters: H - diag(old) + diag(new).
laplace_shift_prior <- function(H, old, new, dim) {
  n <- length(old)
  i <- seq_len(n)
  H[cbind(i, i)] <- H[cbind(i, i)] - old + new
  H
}

# Upper Cholesky factor of H; indefinite H: eigenvalues raised to floor.
laplace_factor <- function(H, floor) {
  R <- tryCatch(chol(H), error = function(e) NULL)
  if (!is.null(R)) return(R)
  e <- eigen(H, symmetric = TRUE)
  bad <- sum(e$values < floor)
  warn_cond(sprintf(paste0("The Hessian at the MAP is not positive definite (%d of %d ",
                           "eigenvalues below the prior precision %s were raised to it); ",
                           "the MAP may not have converged."),
                    bad, length(e$values), trimws(fmt_num(floor))),
            "bnnmc_laplace_indefinite")
  v <- pmax(e$values, floor)
  chol(crossprod(t(e$vectors) * rep(sqrt(v), each = nrow(H))))
}

# Tune a scalar prior precision tau on the network parameters with the
# full Hessian H (computed under per-parameter precision tau_cur): maximise
# n/2 log tau - tau/2 |theta_net|^2 - 1/2 log det(H - diag(tau_cur) + tau D).
laplace_tune_full <- function(theta, H, n_net, tau_cur) {
  ss <- sum(theta[seq_len(n_net)]^2)
  dim <- nrow(H)
  i <- seq_len(n_net)
  # log det(H_nn + t I) from one eigendecomposition; a sigma coordinate
  # enters through its Schur complement
  Hnn <- H[i, i, drop = FALSE]
  Hnn[cbind(i, i)] <- Hnn[cbind(i, i)] - tau_cur
  e <- eigen(Hnn, symmetric = TRUE)
  if (dim > n_net) {
    hs <- drop(crossprod(e$vectors, H[i, dim]))
    hss <- H[dim, dim]
  }
  f <- function(lt) {
    t <- exp(lt)
    ev <- e$values + t
    if (any(ev <= 0)) return(-.Machine$double.xmax)
    ld <- sum(log(ev))
    if (dim > n_net) {
      sc <- hss - sum(hs^2 / ev)
      if (!(sc > 0)) return(-.Machine$double.xmax)
      ld <- ld + log(sc)
    }
    n_net / 2 * lt - t / 2 * ss - ld / 2
  }
  lo <- log(1e-6)
  hi <- log(1e6)
  # a coarse grid, then a bracketed 1-D search around its best point
  grid <- seq(lo, hi, length.out = 57L)
  fv <- vapply(grid, f, numeric(1))
  if (!any(fv > -.Machine$double.xmax))
    stop("The Laplace marginal likelihood is not finite for any prior precision in ",
         "[1e-6, 1e6]: the Hessian of the log-likelihood is far from positive definite.",
         call. = FALSE)
  k <- which.max(fv)
  a <- grid[max(1L, k - 1L)]
  b <- grid[min(length(grid), k + 1L)]
  exp(stats::optimize(f, c(a, b), maximum = TRUE, tol = 1e-10)$maximum)
}

# ------------------------------------------------------------------ KFAC --

kfac_check <- function(spec) {
  ok <- spec$lik %in% .likelihoods[c("gaussian_fixed", "bernoulli")] &&
    spec$sizes[length(spec$sizes)] == 1L
  if (!ok)
    stop(paste0("hessian = \"kfac\" needs 'likelihood' = bnn_likelihood(\"gaussian\", ",
                "sigma = <fixed>) or \"bernoulli\" (one output, no likelihood parameter); ",
                "use hessian = \"full\" otherwise."), call. = FALSE)
  invisible(TRUE)
}

# Flat indices of layer l's parameters in the order vec([W; b^T]).
kfac_index <- function(sizes) {
  off <- 0L
  lapply(seq_len(length(sizes) - 1L), function(l) {
    fin <- sizes[l]
    fout <- sizes[l + 1L]
    w <- matrix(off + seq_len(fin * fout), fin, fout)
    idx <- as.vector(rbind(w, off + fin * fout + seq_len(fout)))
    off <<- off + fin * fout + fout
    idx
  })
}

# One prior precision per layer (weights and biases must agree).
kfac_layer_tau <- function(spec) {
  ix <- kfac_index(spec$sizes)
  vapply(seq_along(ix), function(l) {
    t <- unique(1 / spec$prior_scale[ix[[l]]]^2)
    if (length(t) != 1L)
      stop(paste0("hessian = \"kfac\" needs one prior precision per layer (equal weight ",
                  "and bias scales, no fan_in scaling); give 'prior_precision'."),
           call. = FALSE)
    t
  }, numeric(1))
}

# Factors (sums over rows) from C with their eigendecompositions.
laplace_kfac_factors <- function(spec, theta) {
  f <- .Call(C_laplace_kfac, spec, as.double(theta))
  ix <- kfac_index(spec$sizes)
  n <- nrow(spec$X)
  lapply(seq_along(ix), function(l) {
    eA <- eigen(f$A[[l]], symmetric = TRUE)
    eG <- eigen(f$G[[l]], symmetric = TRUE)
    list(A = f$A[[l]], G = f$G[[l]], index = ix[[l]], n = n,
         UA = eA$vectors, lA = pmax(eA$values, 0), UG = eG$vectors, lG = pmax(eG$values, 0))
  })
}

# Eigenvalues of the layer's likelihood curvature (G kron A) / n, as a
# (fin + 1) x fout matrix matching vec([W; b^T]) in the eigenbasis.
kfac_eigen <- function(k) outer(k$lA, k$lG) / k$n

kfac_logdet <- function(kf) sum(vapply(kf, function(k) sum(log(kfac_eigen(k) + k$tau)),
                                       numeric(1)))

# Post-hoc tuning of one prior precision for all layers.
kfac_tune <- function(kf, theta, n_net) {
  ss <- sum(theta[seq_len(n_net)]^2)
  ev <- unlist(lapply(kf, kfac_eigen))
  f <- function(lt) n_net / 2 * lt - exp(lt) / 2 * ss - 0.5 * sum(log(ev + exp(lt)))
  grid <- seq(log(1e-6), log(1e6), length.out = 57L)
  k <- which.max(vapply(grid, f, numeric(1)))
  a <- grid[max(1L, k - 1L)]
  b <- grid[min(length(grid), k + 1L)]
  exp(stats::optimize(f, c(a, b), maximum = TRUE, tol = 1e-10)$maximum)
}

# draws x dim: theta + per layer (U_G kron U_A) diag(1 / sqrt(lambda + tau)) z,
# i.e. U_A Z_s U_G^T for draw s, computed for all draws at once.  The
# normals of a layer are drawn as an array [fin + 1, draw, fout] (layers in
# order): the right product is then one matrix product, the left one
# another, and one aperm gives the [draw, vec([W; b^T])] layout.
kfac_draws <- function(kf, theta, draws) {
  out <- matrix(rep(theta, each = draws), draws)
  for (k in kf) {
    na <- length(k$lA)
    nf <- length(k$lG)
    sc <- 1 / sqrt(kfac_eigen(k) + k$tau)                  # na x nf
    Z <- matrix(stats::rnorm(na * draws * nf), na * draws, nf) *
      sc[rep.int(seq_len(na), draws), , drop = FALSE]      # rows (k, s)
    Y <- k$UA %*% matrix(Z %*% t(k$UG), na)                # na x (draws nf)
    dim(Y) <- c(na, draws, nf)
    Y <- aperm(Y, c(2L, 1L, 3L))
    dim(Y) <- c(draws, na * nf)
    out[, k$index] <- out[, k$index] + Y
  }
  out
}

# The KFAC posterior precision as a full d x d matrix (small networks,
# for checking).
kfac_precision <- function(kf, dim) {
  P <- matrix(0, dim, dim)
  for (k in kf) {
    P[k$index, k$index] <- kronecker(k$G, k$A) / k$n + diag(k$tau, length(k$index))
  }
  P
}

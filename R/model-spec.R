# Model specification: activations, likelihoods, priors and the flat
# parameter layout shared with the C core.

.activations <- c(tanh = 0L, relu = 1L, leaky_relu = 2L, silu = 3L,
                  sigmoid = 4L, softplus = 5L, gelu = 6L, trunc_relu = 7L,
                  identity = 8L)
.likelihoods <- c(hetero_gaussian = 0L, gaussian = 1L, gaussian_fixed = 2L,
                  bernoulli = 3L, categorical = 4L, poisson = 6L, negbinomial = 7L,
                  student = 8L, binomial = 9L)
.lik_families <- c("hetero_gaussian", "gaussian", "bernoulli", "categorical",
                   "poisson", "negbinomial", "student", "binomial")
# likelihoods of counts (log link) and of successes out of trials (logit)
.count_families <- c("poisson", "negbinomial", "binomial")
.priors <- c(normal = 0L, laplace = 1L)
.sigma_priors <- c(half_normal = 0L, exponential = 1L, half_normal_variance = 2L)

#' Activation functions available for hidden layers
#'
#' `bnn_activations()` lists the names accepted by the `activation` argument
#' of [bnn_fit()]: `"tanh"`, `"relu"`, `"leaky_relu"` (negative slope 0.01),
#' `"silu"` (x times the logistic sigmoid), `"sigmoid"`, `"softplus"`,
#' `"gelu"` (exact, with the normal CDF), `"trunc_relu"` (the ReLU clipped to
#' \[0, 1\]) and `"identity"`.  Activations follow every hidden layer; the
#' output layer is linear.
#'
#' @return A character vector.
#' @export
#' @examples
#' bnn_activations()
bnn_activations <- function() names(.activations)

#' Likelihood of a Bayesian neural network
#'
#' @param family `"hetero_gaussian"` (this constructor's default, as in the
#'   papers; [bnn_fit()] defaults to `"gaussian"` for a numeric response): the network
#'   has two outputs per observation, the mean and the log standard deviation,
#'   and the standard deviation is clipped to \[1e-6, 1e6\].
#'   `"gaussian"`: one output, the mean, and a scalar standard deviation
#'   `sigma` that is sampled (on the log scale, Jacobian included) under
#'   `sigma_prior`, or fixed when `sigma` is given.
#'   `"bernoulli"` (logit link) and `"categorical"` (softmax) are used for
#'   factor responses.
#'   `"poisson"` and `"negbinomial"` (log link) are for counts: the network's
#'   output is the log of the expected count (plus an `offset()` of the
#'   formula, e.g. `offset(log(exposure))`), and the response stays on the
#'   count scale (it is not standardised; the log of the mean count is a
#'   fixed part of the log mean, so the network's prior is centred on the
#'   data's rate).  The negative binomial has variance `mu + mu^2 / phi`
#'   (`phi` is brms's `shape`), sampled on the log scale under a
#'   gamma(`phi_prior`) prior.
#'   `"student"`: robust regression, the network gives the location, `sigma`
#'   is as the Gaussian's and the degrees of freedom `nu` have a
#'   gamma(`nu_prior`) prior (brms's gamma(2, 0.1); here on `nu > 0`,
#'   sampled on the log scale) or are fixed by `nu`.
#'   `"binomial"`: successes out of trials, given as
#'   `cbind(successes, failures) ~ ...` as in [stats::glm()] (logit link).
#' @param sigma For `"gaussian"`: a fixed standard deviation on the scale of
#'   the standardised response, or `NULL` (default) to sample it.
#' @param sigma_prior Prior of a sampled `sigma`: `"half_normal"` (on
#'   `sigma`, the default), `"exponential"` (on `sigma`) or
#'   `"half_normal_variance"` (half-normal on the variance `sigma^2`).  Wiese
#'   et al. (2023) print "a half-normal prior on the variance" while their
#'   reference code puts it on `sigma`; both readings are available, the
#'   code's is the default.  Every prior is applied on `log sigma` with its
#'   Jacobian.
#' @param sigma_prior_scale Scale of the half-normal prior (of `sigma` or of
#'   `sigma^2`), or rate of the exponential prior.
#' @param nu For `"student"`: fixed degrees of freedom (e.g. `nu = 4`), or
#'   `NULL` (default) to sample them.
#' @param nu_prior For `"student"` with `nu` sampled: shape and rate of the
#'   gamma prior of `nu`.
#' @param phi_prior For `"negbinomial"`: shape and rate of the gamma prior of
#'   the dispersion `phi` (brms's default for its `shape`, gamma(0.01, 0.01)).
#' @return An object of class `bnn_likelihood`.
#' @export
#' @examples
#' bnn_likelihood()
#' bnn_likelihood("gaussian", sigma_prior = "exponential", sigma_prior_scale = 1)
#' bnn_likelihood("gaussian", sigma_prior = "half_normal_variance")
#' bnn_likelihood("gaussian", sigma = 0.5)
#' bnn_likelihood("negbinomial")
#' bnn_likelihood("student", nu = 4)
bnn_likelihood <- function(family = c("hetero_gaussian", "gaussian", "bernoulli",
                                      "categorical", "poisson", "negbinomial", "student",
                                      "binomial"),
                           sigma = NULL,
                           sigma_prior = c("half_normal", "exponential", "half_normal_variance"),
                           sigma_prior_scale = 1, nu = NULL, nu_prior = c(2, 0.1),
                           phi_prior = c(0.01, 0.01)) {
  if (missing(family)) family <- "hetero_gaussian"
  family <- match_choice(family, .lik_families, "likelihood")
  if (!is.null(nu)) {
    if (family != "student")
      stop("'nu' (fixed degrees of freedom) is for the \"student\" likelihood only.",
           call. = FALSE)
    check_positive(nu, "nu")
  }
  for (nm in c("nu_prior", "phi_prior")) {
    v <- get(nm)
    if (!is.numeric(v) || length(v) != 2L || anyNA(v) || any(!is.finite(v)) || any(v <= 0))
      stop(sprintf("'%s' must be two positive numbers: the gamma prior's shape and rate.", nm),
           call. = FALSE)
  }
  sigma_prior <- match_choice(if (missing(sigma_prior)) "half_normal" else sigma_prior,
                              names(.sigma_priors), "sigma_prior")
  check_positive(sigma_prior_scale, "sigma_prior_scale")
  if (!is.null(sigma)) {
    if (family != "gaussian")
      stop("'sigma' can only be fixed for the \"gaussian\" likelihood.", call. = FALSE)
    check_positive(sigma, "sigma")
  }
  out <- list(family = family, sigma = sigma, sigma_prior = sigma_prior,
              sigma_prior_scale = sigma_prior_scale)
  # the new families' settings only where they apply, so the objects of the
  # other likelihoods stay as they were
  if (family == "student") {
    out$nu <- nu
    out$nu_prior <- as.double(nu_prior)
  }
  if (family == "negbinomial") out$phi_prior <- as.double(phi_prior)
  structure(out, class = "bnn_likelihood")
}

#' @export
print.bnn_likelihood <- function(x, ...) {
  cat("<bnn_likelihood>", format(x), "\n")
  invisible(x)
}

#' @export
format.bnn_likelihood <- function(x, ...) {
  switch(x$family,
    hetero_gaussian = "heteroscedastic Gaussian (outputs: mean, log sd)",
    gaussian = if (is.null(x$sigma))
      sprintf("Gaussian, sigma ~ %s(%s)", x$sigma_prior, x$sigma_prior_scale)
    else sprintf("Gaussian, sigma fixed at %s", x$sigma),
    bernoulli = "Bernoulli (logit)",
    categorical = "categorical (softmax)",
    poisson = "Poisson (log)",
    negbinomial = sprintf("negative binomial (log), phi ~ gamma(%s, %s)",
                          x$phi_prior[1], x$phi_prior[2]),
    student = sprintf("Student-t, sigma ~ %s(%s), nu %s", x$sigma_prior, x$sigma_prior_scale,
                      if (is.null(x[["nu"]])) sprintf("~ gamma(%s, %s)", x$nu_prior[1], x$nu_prior[2])
                      else sprintf("fixed at %s", x[["nu"]])),
    binomial = "binomial (logit), successes out of trials")
}

#' Prior on the network's weights and biases
#'
#' Independent Normal(0, s) or Laplace(0, b) priors on every weight and bias,
#' as in the papers (default: Normal(0, 1), "unit Gaussian").
#'
#' @param family `"normal"` or `"laplace"`.
#' @param scale Scale of the weights' prior: one number, or one per weight
#'   layer (hidden layers first, output layer last).  For the Normal it is
#'   the standard deviation, for the Laplace the scale b.
#' @param bias_scale Scale of the biases' prior, recycled like `scale`;
#'   defaults to `scale`.
#' @param fan_in If `TRUE`, the weights' scale of each layer is divided by
#'   the square root of the layer's number of inputs (the biases' is not).
#' @return An object of class `bnn_prior`.
#' @export
#' @examples
#' bnn_prior()
#' bnn_prior("laplace", scale = 0.1)
#' bnn_prior(scale = c(1, 1, 0.5), fan_in = TRUE)
bnn_prior <- function(family = c("normal", "laplace"), scale = 1,
                      bias_scale = scale, fan_in = FALSE) {
  if (missing(family)) family <- "normal"
  family <- match_choice(family, names(.priors), "prior")
  for (nm in c("scale", "bias_scale")) {
    v <- get(nm)
    if (!is.numeric(v) || length(v) < 1L || anyNA(v) || any(v <= 0) || any(!is.finite(v)))
      stop(sprintf("'%s' must be positive finite numbers.", nm), call. = FALSE)
  }
  if (!is.logical(fan_in) || length(fan_in) != 1L || is.na(fan_in))
    stop("'fan_in' must be TRUE or FALSE.", call. = FALSE)
  structure(list(family = family, scale = scale, bias_scale = bias_scale,
                 fan_in = fan_in), class = "bnn_prior")
}

#' @export
format.bnn_prior <- function(x, ...) {
  sc <- if (length(x$scale) == 1L) format(x$scale) else
    paste0("(", paste(format(x$scale), collapse = ", "), ")")
  paste0(if (x$family == "normal") "Normal(0, " else "Laplace(0, ", sc, ")",
         if (x$fan_in) " / sqrt(fan-in)" else "")
}

#' @export
print.bnn_prior <- function(x, ...) {
  cat("<bnn_prior>", format(x), "\n")
  invisible(x)
}

as_likelihood <- function(x) {
  if (inherits(x, "bnn_likelihood")) return(x)
  if (is.character(x) && length(x) == 1L) {
    if (identical(x, "gaussian_fixed"))
      stop("Use bnn_likelihood(\"gaussian\", sigma = <value>) for a fixed sd.",
           call. = FALSE)
    return(bnn_likelihood(x))
  }
  stop("'likelihood' must be a name such as \"hetero_gaussian\" or a bnn_likelihood() object.",
       call. = FALSE)
}

as_prior <- function(x) {
  if (inherits(x, "bnn_prior")) return(x)
  if (is.character(x) && length(x) == 1L) return(bnn_prior(x))
  stop("'prior' must be \"normal\", \"laplace\" or a bnn_prior() object.", call. = FALSE)
}

check_hidden <- function(hidden) {
  if (is.null(hidden)) hidden <- integer(0)
  if (!is.numeric(hidden) || anyNA(hidden) || any(hidden != round(hidden)) ||
      any(hidden < 1))
    stop("'hidden' must be a vector of positive whole numbers (layer widths), ",
         "or integer(0) for no hidden layer.", call. = FALSE)
  if (any(hidden > .Machine$integer.max))
    stop("'hidden' widths must be at most .Machine$integer.max; see ?bnn_model_size ",
         "for the size limits.", call. = FALSE)
  as.integer(hidden)
}

# Layer sizes: inputs, hidden..., outputs.
layer_sizes <- function(p, hidden, lik, n_class = 2L) {
  n_out <- switch(lik$family, hetero_gaussian = 2L, categorical = n_class, 1L)
  as.integer(c(p, hidden, n_out))
}

#' Names of the flat parameter vector
#'
#' The parameters of a network are stored in one vector: for each weight
#' layer l = 1, ..., L the weight matrix `W<l>` (inputs x units, column-major:
#' `W<l>[i,j]` connects input i to unit j), then the biases `b<l>[j]`; last
#' the likelihood's own parameter `sigma` (sampled homoscedastic Gaussian
#' only, reported on its natural scale; a fit's draws add `phi` for the
#' negative binomial and `sigma`, `nu` for the Student-t, see
#' [bnn_likelihood()]).  With the heteroscedastic head, unit
#' 1 of the output layer is the mean and unit 2 the log standard deviation.
#'
#' @param sizes Layer sizes: number of inputs, hidden widths, outputs.
#' @param sigma Whether a `sigma` parameter follows the network's.
#' @return A character vector of parameter names.
#' @export
#' @examples
#' bnn_parameter_names(c(2, 3, 2))
bnn_parameter_names <- function(sizes, sigma = FALSE) {
  sizes <- as.integer(sizes)
  out <- character(0)
  for (l in seq_len(length(sizes) - 1L)) {
    fin <- sizes[l]
    fout <- sizes[l + 1L]
    out <- c(out,
             sprintf("W%d[%d,%d]", l, rep(seq_len(fin), fout), rep(seq_len(fout), each = fin)),
             sprintf("b%d[%d]", l, seq_len(fout)))
  }
  if (sigma) out <- c(out, "sigma")
  out
}

#' Turn a flat parameter vector into weight matrices and bias vectors
#'
#' @param theta A numeric parameter vector in the layout of
#'   [bnn_parameter_names()].
#' @param sizes Layer sizes: number of inputs, hidden widths, outputs.
#' @return A list with one element per weight layer, each a list of `W`
#'   (inputs x units) and `b`, plus `sigma` when present.
#' @export
#' @examples
#' th <- seq_len(bnn_n_parameters(c(2, 3, 1)))
#' bnn_unflatten(th, c(2, 3, 1))
bnn_unflatten <- function(theta, sizes) {
  sizes <- as.integer(sizes)
  n_net <- bnn_n_parameters(sizes)
  if (!is.numeric(theta) || !(length(theta) %in% c(n_net, n_net + 1L)))
    stop(sprintf("'theta' must be numeric of length %d (or %d with sigma).",
                 n_net, n_net + 1L), call. = FALSE)
  out <- list()
  off <- 0L
  for (l in seq_len(length(sizes) - 1L)) {
    fin <- sizes[l]
    fout <- sizes[l + 1L]
    W <- matrix(theta[off + seq_len(fin * fout)], fin, fout)
    off <- off + fin * fout
    b <- theta[off + seq_len(fout)]
    off <- off + fout
    out[[sprintf("layer%d", l)]] <- list(W = W, b = b)
  }
  if (length(theta) > n_net) out$sigma <- theta[[n_net + 1L]]
  out
}

#' Number of network parameters for given layer sizes
#' @param sizes Layer sizes: number of inputs, hidden widths, outputs.
#' @return An integer.
#' @export
#' @examples
#' bnn_n_parameters(c(5, 16, 16, 2))  # the papers' airfoil network: 402
bnn_n_parameters <- function(sizes) {
  sizes <- as.integer(sizes)
  L <- length(sizes) - 1L
  sum(sizes[-(L + 1L)] * sizes[-1L] + sizes[-1L])
}

# Per-parameter prior scales in the flat layout.
prior_scales <- function(prior, sizes) {
  L <- length(sizes) - 1L
  rec <- function(v, what) {
    if (length(v) == 1L) return(rep(v, L))
    if (length(v) != L)
      stop(sprintf("prior '%s' must have length 1 or %d (one per weight layer).",
                   what, L), call. = FALSE)
    v
  }
  ws <- rec(prior$scale, "scale")
  bs <- rec(prior$bias_scale, "bias_scale")
  out <- numeric(0)
  for (l in seq_len(L)) {
    fin <- sizes[l]
    fout <- sizes[l + 1L]
    w <- if (prior$fan_in) ws[l] / sqrt(fin) else ws[l]
    out <- c(out, rep(w, fin * fout), rep(bs[l], fout))
  }
  out
}

# The list handed to C (see src/api/api_util.c).
make_spec <- function(sizes, activation, lik, prior, X = NULL, y = NULL) {
  spec <- list(
    type = "bnn",
    sizes = as.integer(sizes),
    act = .activations[[activation]],
    lik = if (lik$family == "gaussian" && !is.null(lik$sigma))
      .likelihoods[["gaussian_fixed"]] else .likelihoods[[lik$family]],
    sigma_fixed = if (is.null(lik$sigma)) 1 else lik$sigma,
    sigma_prior = .sigma_priors[[lik$sigma_prior]],
    sigma_prior_scale = lik$sigma_prior_scale,
    prior = .priors[[prior$family]],
    prior_scale = prior_scales(prior, sizes),
    X = X, y = y
  )
  if (lik$family %in% c("student", "negbinomial")) {
    # fixed nu (0 = sampled) and the gamma prior of nu or phi (src/api/api_util.c)
    spec$nu_fixed <- lik[["nu"]] %||% 0
    ab <- if (lik$family == "student") lik$nu_prior else lik$phi_prior
    spec$aux_prior_shape <- ab[1]
    spec$aux_prior_rate <- ab[2]
  }
  spec
}

# precision = "double" or "single" (bnn_fit()); spec$precision = 1L makes
# the C model (bnn_model_from_spec, src/api/api_util.c) run the network's
# forward and backward pass in float for every sampler built from the spec.
check_precision <- function(precision) {
  if (identical(precision, c("double", "single"))) return("double")
  match_choice(precision, c("double", "single"), "precision")
}
spec_set_precision <- function(spec, precision) {
  spec$precision <- if (identical(precision, "single")) 1L else NULL
  spec
}
spec_precision <- function(spec) {
  if (identical(spec$precision, 1L)) "single" else "double"
}

spec_dim <- function(spec) {
  bnn_n_parameters(spec$sizes) + length(lik_par_names(spec))
}

has_sigma <- function(spec) spec$lik == .likelihoods[["gaussian"]]

# Names of the likelihood's own parameters, after the network's: each is
# sampled on the log scale and reported on its natural scale.
lik_par_names <- function(spec) {
  lik <- spec$lik
  if (lik == .likelihoods[["gaussian"]]) return("sigma")
  if (lik == .likelihoods[["negbinomial"]]) return("phi")
  if (lik == .likelihoods[["student"]])
    return(if (isTRUE(spec$nu_fixed > 0)) "sigma" else c("sigma", "nu"))
  character(0)
}

# All parameter names of a specification (network's, then likelihood's).
spec_par_names <- function(spec) c(bnn_parameter_names(spec$sizes), lik_par_names(spec))

#' Log posterior density and its gradient
#'
#' Evaluates the log posterior (up to a constant; the log-likelihood plus the
#' log prior, Jacobian of `log sigma` included) of a fitted model's
#' specification at parameter vectors on the sampler's unconstrained scale
#' (`log sigma` in place of `sigma`, likewise `log phi` and `log nu`), with
#' the gradient computed by
#' backpropagation in C.  Useful for checking, and for plugging the model
#' into other samplers.
#'
#' @param object A `bnnfit`.
#' @param theta A numeric vector or a matrix with one parameter vector per
#'   column, on the unconstrained scale.
#' @return A list with `lp`, `loglik`, `logprior` (one value per column) and
#'   `grad` (a matrix, one column per parameter vector).
#' @export
#' @examples
#' fit <- bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 1,
#'                warmup = 100, iter = 100, seed = 1, sampler = "nuts")
#' th <- bnn_unconstrain(fit, fit$draws[1, 1, ])   # a draw, as stored
#' str(bnn_log_posterior(fit, th))
bnn_log_posterior <- function(object, theta) {
  if (!inherits(object, "bnnfit")) stop("'object' must be a bnnfit.", call. = FALSE)
  theta <- as.matrix(theta)
  storage.mode(theta) <- "double"
  if (nrow(theta) != length(object$parameters))
    stop(sprintf("'theta' must have %d entries (or rows).", length(object$parameters)),
         call. = FALSE)
  .Call(C_model_logpost, fit_spec(object), theta)
}

#' @rdname bnn_log_posterior
#' @param draws Parameter vector(s) on the natural scale (`sigma`, `phi`,
#'   `nu`), as the model stores them (`fit$draws`: `sigma` of the
#'   standardised response; `as.matrix(fit)` and posterior's formats show
#'   it on the response's scale instead).
#' @export
bnn_unconstrain <- function(object, draws) {
  k <- length(lik_par_names(object$spec))
  if (!k) return(draws)
  if (is.matrix(draws)) {
    j <- nrow(draws) - k + seq_len(k)
    draws[j, ] <- log(draws[j, , drop = FALSE])
  } else {
    j <- length(draws) - k + seq_len(k)
    draws[j] <- log(draws[j])
  }
  draws
}

# The fit's specification with its (standardised) training data.
fit_spec <- function(object) {
  spec <- object$spec
  spec$X <- object$X
  spec$y <- object$y_model
  spec
}

# Layer and role of each parameter name: "W2[3,1]" -> layer 2, weight.
parameter_layers <- function(pars) {
  layer <- suppressWarnings(as.integer(sub("^[Wb]([0-9]+)\\[.*$", "\\1", pars)))
  role <- ifelse(grepl("^W[0-9]+\\[", pars), "weight",
                 ifelse(grepl("^b[0-9]+\\[", pars), "bias", "other"))
  data.frame(parameter = pars, layer = layer, role = role, stringsAsFactors = FALSE)
}

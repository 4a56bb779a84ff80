# Families as glm and brms users write them (family = poisson(), "student",
# negbinomial(), ...), the responses of the count likelihoods, and what each
# of the Poisson, negative binomial, Student-t and binomial likelihoods
# needs for prediction: the draws' parameters, predictive draws, the log
# density of observations and predictive quantiles.  The Gaussian and the
# classification likelihoods keep their own code (R/predict.R).

#' Negative binomial and Student-t families
#'
#' Constructors for `bnn_fit(family = )`, named as in brms:
#' `negbinomial()` is [bnn_likelihood]`("negbinomial")` (log link) and
#' `student()` is [bnn_likelihood]`("student")` (identity link).  The
#' families of base R, [stats::poisson()], [stats::binomial()] and
#' [stats::gaussian()], are accepted by `bnn_fit(family = )` too, as are
#' brms's `negbinomial()` and `student()` objects and the names
#' `"poisson"`, `"negbinomial"`, `"student"`, `"binomial"`, `"gaussian"`.
#'
#' @param link The link function: `"log"` for `negbinomial()`,
#'   `"identity"` for `student()` (the only links available).
#' @param ... Further arguments of [bnn_likelihood()], e.g. `nu = 4` to fix
#'   the Student-t's degrees of freedom or `phi_prior = c(2, 1)`.
#' @return A [bnn_likelihood()] object.
#' @export
#' @examples
#' negbinomial()
#' student(nu = 4)
#' fit <- bnn_fit(breaks ~ wool + tension, data = warpbreaks, family = negbinomial(),
#'                hidden = integer(0), sampler = "nuts", chains = 1, warmup = 100,
#'                iter = 100, seed = 1, progress = FALSE)
#' head(predict(fit))
negbinomial <- function(link = "log", ...) {
  check_link(link, "log", "negbinomial")
  bnn_likelihood("negbinomial", ...)
}

#' @rdname negbinomial
#' @export
student <- function(link = "identity", ...) {
  check_link(link, "identity", "student")
  bnn_likelihood("student", ...)
}

check_link <- function(link, canonical, family) {
  if (!is.character(link) || length(link) != 1L || is.na(link) || link != canonical)
    stop(sprintf("family \"%s\" is available with the %s link only, not link \"%s\".",
                 family, canonical, paste(format(link), collapse = " ")), call. = FALSE)
  invisible(TRUE)
}

# family = (bnn_fit()) to a likelihood: a bnn_likelihood, a name, a family
# of base R (poisson(), binomial(), gaussian(), or the function itself, as
# glm accepts family = poisson) or a brmsfamily.  "binomial" is the
# Bernoulli likelihood for a factor, logical or 0/1 response and the
# binomial with trials for cbind(successes, failures) (prepare_model()).
family_likelihood <- function(family) {
  if (inherits(family, "bnn_likelihood")) return(family)
  if (is.function(family)) family <- family()
  canonical <- c(gaussian = "identity", poisson = "log", binomial = "logit",
                 negbinomial = "log", student = "identity", bernoulli = "logit")
  if (is.list(family) && is.character(family$family)) {
    fam <- family$family
    if (grepl("^Negative Binomial\\(", fam)) {
      # MASS::negative.binomial(theta) fixes the dispersion; here it is a
      # parameter of the model (phi), which cannot be held fixed
      theta <- suppressWarnings(as.numeric(sub("^Negative Binomial\\((.*)\\)$", "\\1", fam)))
      prior <- if (is.finite(theta) && theta > 0)
        sprintf(" To keep it near %s, give it a narrow prior: family = negbinomial(phi_prior = c(400, %s)) (mean %s, sd 5%%).",
                format(theta), format(signif(400 / theta, 6)), format(theta)) else ""
      stop(sprintf(paste0("family = %s fixes the negative binomial's dispersion (theta), ",
                          "which bnnmc cannot hold fixed: family = negbinomial() estimates ",
                          "it (phi, with the prior phi_prior = c(shape, rate) of a gamma).%s"),
                   fam, prior), call. = FALSE)
    }
    if (identical(fam, "Negative Binomial")) fam <- "negbinomial"
    link <- family$link %||% canonical[[fam]] %||% NA_character_
    if (!fam %in% names(canonical))
      stop(sprintf(paste0("'family' must be gaussian(), poisson(), binomial(), ",
                          "\"negbinomial\" or \"student\", not \"%s\"."), fam), call. = FALSE)
    check_link(link, canonical[[fam]], fam)
    return(bnn_likelihood(fam))
  }
  if (is.character(family) && length(family) == 1L && !is.na(family)) {
    fam <- match_choice(family, c("gaussian", "poisson", "binomial", "negbinomial",
                                  "student", "bernoulli", "categorical",
                                  "hetero_gaussian"), "family")
    return(bnn_likelihood(fam))
  }
  stop(paste0("'family' must be a family such as poisson() or binomial(), or one of ",
              "\"gaussian\", \"poisson\", \"binomial\", \"negbinomial\", \"student\"."),
       call. = FALSE)
}

# The response and its likelihood before encoding: a numeric 0/1 response
# without a likelihood, and any response the "binomial" family gets that is
# not cbind(successes, failures), is a Bernoulli (the response becomes a
# factor with levels 0, 1); counts under the default Gaussian get a note.
# notes = FALSE: the same model built a second time (the linear check).
family_response <- function(y, likelihood, notes = TRUE) {
  lik <- if (!is.null(likelihood)) as_likelihood(likelihood) else NULL
  is01 <- is.numeric(y) && !is.matrix(y) && length(y) > 0L && all(y %in% c(0, 1))
  if (!is.null(lik) && lik$family == "binomial" && !is.matrix(y)) {
    if (is.factor(y) || is.logical(y)) return(list(y = y, likelihood = "bernoulli"))
    if (is01) return(list(y = factor(y, levels = c(0, 1)), likelihood = "bernoulli"))
    stop(paste0("family binomial() needs a factor, logical or 0/1 response (Bernoulli) ",
                "or cbind(successes, failures) (binomial with trials)."), call. = FALSE)
  }
  if (is.null(lik) && is01) {
    if (notes)
      message("The response has only the values 0 and 1: fitting a Bernoulli model ",
              "(logit link). Set family = gaussian() for a Gaussian one.")
    return(list(y = factor(y, levels = c(0, 1)), likelihood = "bernoulli"))
  }
  if (is.null(lik) && notes && is.numeric(y) && !is.matrix(y) && all(y >= 0) &&
      all(y == round(y)))
    message("The response looks like counts: family = poisson() or \"negbinomial\" ",
            "models them on the count scale (a Gaussian is fitted now).")
  list(y = y, likelihood = likelihood)
}

# Counts: non-negative whole numbers.
check_counts <- function(y, what = "The response") {
  if (!is.numeric(y) || any(!is.finite(y)) || any(y < 0) || any(y != round(y)))
    stop(sprintf("%s must be non-negative whole numbers (counts) for this likelihood.", what),
         call. = FALSE)
  invisible(TRUE)
}

# The model's y of a count likelihood (columns as src/model/model.h says) and the
# centre of the linear predictor: the log of the mean rate (Poisson, NB) or
# the logit of the overall proportion (binomial), a fixed part of it so the
# network's prior is centred on the data (the response is not standardised).
encode_count_response <- function(y, lik, off) {
  n <- NROW(y)
  off <- if (is.null(off)) rep(0, n) else off
  if (lik$family == "binomial") {
    if (!is.matrix(y) || ncol(y) != 2L)
      stop("The binomial likelihood needs cbind(successes, failures) as the response.",
           call. = FALSE)
    check_counts(y, "cbind(successes, failures)")
    s <- as.double(y[, 1L])
    tr <- s + as.double(y[, 2L])
    if (n && all(tr == 0))
      stop(paste0("Every observation of cbind(successes, failures) has 0 trials (successes + ",
                  "failures), so the binomial likelihood has no information and the draws ",
                  "would be the prior's. Check the response's columns."), call. = FALSE)
    p <- (sum(s) + 0.5) / (sum(tr) + 1)
    centre <- stats::qlogis(p)
    ym <- cbind(s, tr, off + centre, lchoose(tr, s))
  } else {
    check_counts(y)
    y <- as.double(y)
    centre <- log((sum(y) + 0.5) / sum(exp(off)))
    ym <- cbind(y, off + centre, lgamma(y + 1))
  }
  dimnames(ym) <- NULL
  list(y = ym, center = 0, scale = 1, levels = NULL, n_class = NA_integer_,
       eta_center = centre)
}

# ------------------------------------------------------------ prediction --

# The draws' parameters of a Poisson, negative binomial, Student-t or
# binomial fit from network outputs out (n x K x S) and draws th (dim x S,
# unconstrained): mu (expected response, [draw, observation]), sd (its
# predictive sd), and what each family needs.  trials: the binomial's, from
# the response (training data or newdata with the response).
family_params <- function(object, out, th, X, trials = NULL) {
  fam <- object$likelihood$family
  n <- dim(out)[1]
  S <- dim(out)[3]
  eta <- t(matrix(out[, 1, ], n, S))
  nnet <- bnn_n_parameters(object$spec$sizes)
  if (fam == "student") {
    sigma <- exp(th[nnet + 1L, ]) * object$y_scale
    nu <- if (!is.null(object$likelihood[["nu"]])) rep(object$likelihood[["nu"]], S) else
      exp(th[nnet + 2L, ])
    mu <- eta * object$y_scale + object$y_center
    off <- attr(X, "offset")
    if (!is.null(off)) mu <- mu + rep(off, each = S)
    sdv <- ifelse(nu > 2, sigma * sqrt(nu / pmax(nu - 2, 1e-12)), Inf)
    return(list(family = fam, mu = mu, sd = matrix(sdv, S, n), sigma = sigma, nu = nu))
  }
  eta <- eta + object$likelihood$eta_center
  off <- attr(X, "offset")
  if (!is.null(off)) eta <- eta + rep(off, each = S)
  if (fam == "binomial") {
    if (is.null(trials))
      stop("Predictions of a binomial fit need the trials: give 'newdata' with the response ",
           "cbind(successes, failures).", call. = FALSE)
    p <- stats::plogis(eta)
    Nm <- matrix(trials, S, n, byrow = TRUE)
    return(list(family = fam, eta = eta, prob = p, trials = trials, mu = Nm * p,
                sd = sqrt(Nm * p * (1 - p))))
  }
  mu <- exp(eta)
  if (fam == "poisson") return(list(family = fam, eta = eta, mu = mu, sd = sqrt(mu)))
  phi <- exp(th[nnet + 1L, ])
  list(family = fam, eta = eta, mu = mu, phi = phi, sd = sqrt(mu + mu^2 / phi))
}

# The binomial's trials of the training data or of newdata (NULL when
# newdata lacks the response).
family_trials <- function(object, newdata) {
  if (object$likelihood$family != "binomial") return(NULL)
  y <- if (is.null(newdata)) object$y else
    tryCatch(stats::model.response(stats::model.frame(object$terms, newdata,
                                                      xlev = object$xlevels,
                                                      na.action = stats::na.pass)),
             error = function(e) NULL)
  if (is.null(y)) return(NULL)
  as.double(y[, 1L] + y[, 2L])
}

# Posterior predictive draws [draw, observation]: integers >= 0 for counts.
family_draws <- function(pp, seed) with_seed(seed, family_rdraws(pp))

# The same from R's random number stream as it stands (no seed).
family_rdraws <- function(pp) {
  S <- nrow(pp$mu)
  n <- ncol(pp$mu)
  matrix(switch(pp$family,
    poisson = stats::rpois(S * n, pp$mu),
    negbinomial = stats::rnbinom(S * n, size = rep(pp$phi, n), mu = pp$mu),
    binomial = stats::rbinom(S * n, rep(pp$trials, each = S), pp$prob),
    student = pp$mu + student_scale(pp) * stats::rt(S * n, df = rep(pp$nu, n))),
    S, n)
}

# The Student-t scale of every draw and observation, as a vector in the
# order of pp$mu's values: pp$sigma is one scale per draw (a Student-t fit)
# or a [draw, observation] matrix (a mixture with a Gaussian component,
# student_block(), R/predict-mixture.R).
student_scale <- function(pp) {
  if (is.matrix(pp$sigma)) as.vector(pp$sigma) else rep(pp$sigma, ncol(pp$mu))
}

# log p(y_i | theta_s) [draw, observation]; y: the response on its own
# scale (counts; a two-column matrix of successes and failures).
family_log_density <- function(pp, y) {
  S <- nrow(pp$mu)
  n <- ncol(pp$mu)
  out <- switch(pp$family,
    poisson = stats::dpois(rep(y, each = S), pp$mu, log = TRUE),
    negbinomial = stats::dnbinom(rep(y, each = S), size = rep(pp$phi, n), mu = pp$mu,
                                 log = TRUE),
    binomial = stats::dbinom(rep(y[, 1L], each = S), rep(y[, 1L] + y[, 2L], each = S),
                             pp$prob, log = TRUE),
    student = {
      sg <- student_scale(pp)
      stats::dt((rep(y, each = S) - pp$mu) / sg, df = rep(pp$nu, n), log = TRUE) - log(sg)
    })
  matrix(out, S, n)
}

# The p-quantile of each observation's Student-t mixture over draws (the
# columns of pp$mu; scale pp$sigma per draw or per draw and observation,
# degrees of freedom pp$nu per draw, Inf for a Gaussian draw):
# safeguarded Newton iteration on the mixture CDF inside the bracket of the
# components' quantiles (a bisection step where Newton would leave it), to
# 1e-10 in probability or 1e-12 of the bracket; a handful of CDF and
# density evaluations per observation where bisection took 60.
student_mixture_quantile <- function(pp, p, max_iter = 100L) {
  S <- nrow(pp$mu)
  n <- ncol(pp$mu)
  qc <- pp$mu + pp$sigma * stats::qt(p, pp$nu)        # the components' quantiles
  lo <- apply(qc, 2L, min)
  hi <- apply(qc, 2L, max)
  x <- colMeans(qc)
  width <- pmax(hi - lo, 1e-300)
  active <- seq_len(n)
  for (it in seq_len(max_iter)) {
    if (!length(active)) break
    sg <- if (is.matrix(pp$sigma)) pp$sigma[, active, drop = FALSE] else pp$sigma
    z <- (matrix(x[active], S, length(active), byrow = TRUE) - pp$mu[, active, drop = FALSE]) / sg
    f_cdf <- colMeans(stats::pt(z, df = pp$nu)) - p
    dens <- colMeans(stats::dt(z, df = pp$nu) / sg)
    # converged points keep x (a Newton step from a root may land on the
    # bracket's end and be replaced by a bisection step)
    conv <- abs(f_cdf) < 1e-10
    below <- f_cdf < 0
    lo[active] <- ifelse(below, x[active], lo[active])
    hi[active] <- ifelse(below, hi[active], x[active])
    step <- x[active] - f_cdf / dens
    bad <- !is.finite(step) | step <= lo[active] | step >= hi[active]
    step[bad] <- (lo[active][bad] + hi[active][bad]) / 2
    step[conv] <- x[active][conv]
    moved <- abs(step - x[active])
    x[active] <- step
    done <- conv | moved < 1e-12 * width[active] | hi[active] - lo[active] < 1e-12 * width[active]
    active <- active[!done]
  }
  x
}

# Quantiles of the predictive mixture over draws at probabilities probs
# (observations x probs): for counts the smallest integer whose mixture CDF
# reaches each probability (integer intervals), for the Student-t the root
# of its mixture CDF by bisection.
# The components' CDF at k, and their quantiles at p, for row i of a count
# or binomial fit's parameters pp: one value per draw.
count_cdf <- function(pp) switch(pp$family,
  poisson = function(k, i) stats::ppois(k, pp$mu[, i]),
  negbinomial = function(k, i) stats::pnbinom(k, size = pp$phi, mu = pp$mu[, i]),
  binomial = function(k, i) stats::pbinom(k, pp$trials[i], pp$prob[, i]))
count_quantile <- function(pp) switch(pp$family,
  poisson = function(p, i) stats::qpois(p, pp$mu[, i]),
  negbinomial = function(p, i) stats::qnbinom(p, size = pp$phi, mu = pp$mu[, i]),
  binomial = function(p, i) stats::qbinom(p, pp$trials[i], pp$prob[, i]))

# Whether each count y[i] lies in the central interval [q_a, q_b] of its
# predictive mixture, with the quantiles of family_quantiles(): q_p is the
# first k from the components' smallest quantile on with F(k) >= p - 1e-12.
# So y >= q_a exactly when F(y) >= a - 1e-12 and y reaches that smallest
# quantile, which it does when F(y) >= a + 1e-12 (a component then has
# F_s(y) >= a); y <= q_b exactly when not y - 1 >= q_b, likewise.  F(y) and
# F(y - 1) decide all but the rows within 1e-12 of a or b, whose smallest
# component quantile is computed: the same answers as the quantiles'
# without searching for them (two CDF evaluations per row and draw).
count_covered <- function(pp, y, levels) {
  cdf <- count_cdf(pp)
  qfun <- count_quantile(pp)
  n <- length(y)
  Fy <- vapply(seq_len(n), function(i) mean(cdf(y[i], i)), numeric(1))
  Fy1 <- vapply(seq_len(n), function(i) if (y[i] > 0) mean(cdf(y[i] - 1, i)) else 0, numeric(1))
  reaches <- function(Fk, k, p) {
    ok <- Fk >= p - 1e-12
    near <- which(ok & Fk < p + 1e-12)
    for (i in near) ok[i] <- k[i] >= min(qfun(p, i))
    ok
  }
  vapply(levels, function(l) {
    a <- (1 - l) / 2
    b <- 1 - a
    mean(reaches(Fy, y, a) & !(y > 0 & reaches(Fy1, y - 1, b)))
  }, numeric(1))
}

family_quantiles <- function(pp, probs) {
  S <- nrow(pp$mu)
  n <- ncol(pp$mu)
  out <- matrix(NA_real_, n, length(probs))
  if (pp$family == "student") {
    for (j in seq_along(probs)) out[, j] <- student_mixture_quantile(pp, probs[j])
    return(out)
  }
  cdf_fun <- count_cdf(pp)
  qfun <- count_quantile(pp)
  for (i in seq_len(n)) {
    for (j in seq_along(probs)) {
      # the mixture's quantile is the first k between its components'
      # smallest and largest quantile with F(k) >= p (to 1e-12); F is
      # nondecreasing in k, so bisection finds it in log2(width) evaluations
      # (a count draw of a small dispersion can make the width millions)
      qs <- qfun(probs[j], i)
      lo <- min(qs)
      hi <- max(qs)
      while (lo < hi) {
        mid <- lo + floor((hi - lo) / 2)
        if (mean(cdf_fun(mid, i)) >= probs[j] - 1e-12) hi <- mid else lo <- mid + 1
      }
      out[i, j] <- lo
    }
  }
  out
}

is_family_lik <- function(object) {
  isTRUE(object$likelihood$family %in% c(.count_families, "student"))
}

# predict() of a count, binomial or Student-t fit from its parameters pp.
family_predict <- function(pp, type, level, seed) {
  switch(type,
    response = colMeans(pp$mu),
    mean_draws = pp$mu,
    draws = family_draws(pp, seed %||% new_seed()),
    interval = {
      check_prob(level, "level")
      a <- (1 - level) / 2
      if (ncol(pp$mu) == 0L)
        return(data.frame(mean = numeric(0), lower = numeric(0), upper = numeric(0)))
      q <- family_quantiles(pp, c(a, 1 - a))
      data.frame(mean = colMeans(pp$mu), lower = q[, 1], upper = q[, 2])
    },
    stop(sprintf("type = \"%s\" is not available for this fit.", type), call. = FALSE))
}

# Is `family` (as given to bnn_fit(), mapped to `likelihood` by
# family_likelihood()) the default model's: gaussian() or "gaussian", as
# glm's and brms's default family?  A bnn_likelihood() object given as
# family is a likelihood setting (e.g. a fixed sigma), not the default.
is_default_family <- function(family, likelihood) {
  !inherits(family, "bnn_likelihood") && identical(likelihood$family, "gaussian") &&
    is.null(likelihood$sigma)
}

# Is likelihood (a likelihood or family = after family_likelihood()) one of
# the count or Student-t likelihoods?  Their fits keep the default's check
# against the linear model of the same likelihood (R/fit-choice.R).
is_new_family <- function(likelihood) {
  isTRUE(tryCatch(as_likelihood(likelihood)$family %in% c(.count_families, "student"),
                  error = function(e) FALSE))
}

# Methods not (yet) built for the count and Student-t likelihoods say so.
refuse_new_family <- function(model, what) {
  fam <- model$likelihood$family
  if (fam %in% c(.count_families, "student"))
    stop(sprintf(paste0("%s is not available for the %s likelihood; use bnn_fit() with ",
                        "sampler = \"mile\" (the default), \"nuts\" or an SG-MCMC sampler."),
                 what, fam), call. = FALSE)
  invisible(TRUE)
}

# The model's y columns (as encode_count_response() builds them, with the
# fit's centre of the linear predictor) of counts or successes/failures yv
# with offset off (NULL: none): e.g. validation data of a deep ensemble.
count_model_y <- function(object, yv, off) {
  lik <- object$likelihood
  enc <- encode_count_response(yv, lik, off)
  ccol <- if (lik$family == "binomial") 3L else 2L
  ym <- enc$y
  ym[, ccol] <- ym[, ccol] - enc$eta_center + lik$eta_center   # the fit's centre
  ym
}

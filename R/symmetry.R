# Symmetries of MLP posteriors (Wiese et al. 2023, "Towards efficient MCMC
# sampling in Bayesian neural networks by exploiting symmetry"): how many
# equioutput parameter vectors there are, and exact transformations between
# them.  Hidden layer l (1-based) is the output of weight layer l; neuron i
# of it owns column i of W<l>, b<l>[i] and row i of W<l+1> (the layout of
# bnn_parameter_names()).

# Which activations admit which symmetries besides permutations:
# sign flips need an odd activation (a(-x) = -a(x)); rescaling by c > 0 needs
# a positively homogeneous one (a(c x) = c a(x)).
.sym_flip <- c("tanh", "identity")
.sym_rescale <- c("relu", "leaky_relu", "identity")

sym_mode <- function(activation) {
  if (activation == "identity")
    stop("activation = \"identity\": every invertible linear map of a hidden layer is ",
         "an equioutput transformation, so no canonical form is offered.", call. = FALSE)
  if (activation %in% .sym_flip) 1L else if (activation %in% .sym_rescale) 2L else 0L
}

#' Number of equioutput transformations of an MLP
#'
#' Counts the parameter vectors that give the same network function as a
#' generic one (Wiese et al. 2023, Sec. 3): the \eqn{M_l!} permutations of
#' the neurons of every hidden layer and, for odd activations (`"tanh"`,
#' `"identity"`), the \eqn{2^{M_l}} sign flips, so that the count is the
#' lower bound \eqn{\prod_l M_l!\,2^{M_l}} for tanh and \eqn{\prod_l M_l!}
#' otherwise.  For positively homogeneous activations (`"relu"`,
#' `"leaky_relu"`, `"identity"`) every neuron can moreover be rescaled by any
#' \eqn{c > 0}, an infinite set that the count leaves out (and says so).
#'
#' @param hidden Hidden layer widths, or a `bnnfit` (then `activation` is
#'   taken from it).
#' @param activation Activation of the hidden layers, see [bnn_activations()].
#' @return An object of class `bnn_equioutput_count`: `log10` (the log10 of
#'   the count, computed with `lgamma()`, so exact to double precision for
#'   any width), `per_layer_log10`, `value` (the count as a double; `Inf`
#'   when it overflows), `sign_flips` and `rescaling_infinite` (logical), and
#'   `formatted` (the count in words, exact as an integer up to 2^53).
#' @references Wiese, J. G., Wimmer, L., Papamarkou, T., Bischl, B.,
#'   Günnemann, S. and Rügamer, D. (2023).  Towards efficient MCMC sampling
#'   in Bayesian neural networks by exploiting symmetry.  ECML PKDD 2023.
#'   \doi{10.48550/arXiv.2304.02902}
#' @export
#' @examples
#' bnn_equioutput_count(3, "tanh")             # 3! * 2^3 = 48
#' bnn_equioutput_count(c(16, 16, 16), "tanh") # about 2.58e54
#' bnn_equioutput_count(c(16, 16), "relu")     # permutations; rescalings infinite
bnn_equioutput_count <- function(hidden, activation = "tanh") {
  if (inherits(hidden, "bnnfit")) {
    activation <- hidden$activation
    hidden <- hidden$hidden
  }
  hidden <- check_hidden(hidden)
  activation <- match_choice(activation, names(.activations), "activation")
  flips <- activation %in% .sym_flip
  per <- (lgamma(hidden + 1) + if (flips) hidden * log(2) else 0) / log(10)
  lg <- sum(per)
  value <- 10^lg
  exact <- lg < log10(2^53)
  formatted <- if (exact) format(round(value), scientific = FALSE, big.mark = ",") else {
    e <- floor(lg)
    sprintf("%.6fe%+d", 10^(lg - e), as.integer(e))
  }
  structure(list(hidden = hidden, activation = activation, log10 = lg,
                 per_layer_log10 = per, value = if (exact) round(value) else value,
                 sign_flips = flips, rescaling_infinite = activation %in% .sym_rescale,
                 formatted = formatted),
            class = "bnn_equioutput_count")
}

#' @export
format.bnn_equioutput_count <- function(x, ...) {
  arch <- if (length(x$hidden)) paste(x$hidden, collapse = "-") else "no hidden layer"
  what <- if (x$sign_flips) "permutations x sign flips" else "permutations"
  out <- sprintf("%s %s network: at least %s equioutput parameter vectors (%s; log10 = %.6f)",
                 arch, x$activation, x$formatted, what, x$log10)
  if (x$rescaling_infinite)
    out <- c(out, "plus the rescalings of every neuron by any c > 0: an infinite set")
  out
}

#' @export
print.bnn_equioutput_count <- function(x, ...) {
  cat(strwrap(format(x)[1L], width = 78, exdent = 2), sep = "\n")
  if (length(format(x)) > 1L) cat(strwrap(format(x)[2L], width = 78, exdent = 2), sep = "\n")
  invisible(x)
}

# ---- parameter containers -------------------------------------------------

# Checks x (vector, matrix with one draw per row, [iteration, chain,
# parameter] array, or bnnfit) against the layer sizes without copying it:
# list(sizes, activation, fit, n_net).  na_check = FALSE leaves the check
# for missing values to the caller.
sym_shape <- function(x, sizes, activation, what = "x", na_check = TRUE) {
  if (inherits(x, "bnnfit")) {
    sizes <- x$spec$sizes
    return(list(sizes = sizes, activation = x$activation, fit = TRUE,
                n_net = bnn_n_parameters(sizes)))
  }
  if (is.null(sizes))
    stop(sprintf("'sizes' (layer sizes: inputs, hidden widths, outputs) is needed when '%s' is not a bnnfit.",
                 what), call. = FALSE)
  if (!is.numeric(sizes) || length(sizes) < 2L || anyNA(sizes) || any(sizes < 1) ||
      any(sizes != round(sizes)))
    stop("'sizes' must be positive whole numbers: inputs, hidden widths, outputs.",
         call. = FALSE)
  sizes <- as.integer(sizes)
  if (!is.numeric(x))
    stop(sprintf("'%s' must be a numeric vector, matrix, draws array or bnnfit.", what),
         call. = FALSE)
  if (na_check && anyNA(x)) stop(sprintf("'%s' has missing (NA) values.", what), call. = FALSE)
  n_net <- bnn_n_parameters(sizes)
  dx <- dim(x)
  if (length(dx) > 3L)
    stop(sprintf("'%s' must be a vector, a matrix or a 3-d draws array.", what), call. = FALSE)
  n_par <- if (is.null(dx)) length(x) else dx[length(dx)]
  if (!(n_par %in% c(n_net, n_net + 1L)))
    stop(sprintf("'%s' has %d parameters per draw; layer sizes (%s) need %d (or %d with sigma).",
                 what, n_par, paste(sizes, collapse = ", "), n_net, n_net + 1L),
         call. = FALSE)
  list(sizes = sizes, activation = activation, fit = FALSE, n_net = n_net)
}

# Turns x (as for sym_shape()) into list(mat = n x d, sizes, activation,
# back = function(mat) giving x's shape back).
sym_input <- function(x, sizes, activation, what = "x") {
  sh <- sym_shape(x, sizes, activation, what)
  if (sh$fit) {
    fit <- x
    a <- fit$draws
    d <- dim(a)
    return(list(mat = matrix(a, d[1] * d[2], d[3]), sizes = sh$sizes,
                activation = sh$activation, fit = TRUE,
                back = function(m) {
                  a[] <- m
                  bnnfit_with(fit, draws = a)
                }))
  }
  dx <- dim(x)
  if (is.null(dx)) {
    mat <- matrix(as.double(x), 1L)
    back <- function(m) {
      v <- drop(m)
      names(v) <- names(x)
      v
    }
  } else if (length(dx) == 2L) {
    mat <- x
    storage.mode(mat) <- "double"
    back <- function(m) m
  } else {
    mat <- matrix(as.double(x), dx[1] * dx[2], dx[3])
    back <- function(m) {
      x[] <- m
      x
    }
  }
  list(mat = mat, sizes = sh$sizes, activation = activation, fit = FALSE, back = back)
}

# Column indices of neuron(s) `i` of hidden layer `l`.
neuron_index <- function(sizes, l, i) {
  L <- length(sizes) - 1L
  w_off <- c(0L, cumsum(sizes[-(L + 1L)] * sizes[-1L] + sizes[-1L]))
  fin <- sizes[l]
  M <- sizes[l + 1L]
  fout <- sizes[l + 2L]
  list(incoming = w_off[l] + as.vector(outer(seq_len(fin), (i - 1L) * fin, "+")),
       bias = w_off[l] + fin * M + i,
       outgoing = w_off[l + 1L] + as.vector(outer(i, (seq_len(fout) - 1L) * M, "+")))
}

check_layer <- function(layer, sizes) {
  H <- length(sizes) - 2L
  if (H < 1L) stop("The network has no hidden layer, hence no neuron symmetries.", call. = FALSE)
  if (!is.numeric(layer) || length(layer) != 1L || is.na(layer) || layer != round(layer) ||
      layer < 1 || layer > H)
    stop(sprintf("'layer' must be a hidden layer number between 1 and %d, not %s.", H,
                 deparse1(layer)), call. = FALSE)
  as.integer(layer)
}

check_neuron <- function(neuron, M) {
  if (!is.numeric(neuron) || anyNA(neuron) ||
      any(neuron != round(neuron)) || any(neuron < 1) || any(neuron > M))
    stop(sprintf("'neuron' must be neuron numbers between 1 and %d, not %s.", M,
                 deparse1(neuron)), call. = FALSE)
  unique(as.integer(neuron))
}

check_activation_for <- function(activation, allowed, what) {
  activation <- match_choice(activation, names(.activations), "activation")
  if (!activation %in% allowed)
    stop(sprintf("activation = \"%s\" admits no %s; it needs one of %s.", activation, what,
                 paste0('"', allowed, '"', collapse = ", ")), call. = FALSE)
  activation
}

#' Exact equioutput transformations of network parameters
#'
#' Transform a flat parameter vector, a matrix of draws (one per row), a
#' draws array `[iteration, chain, parameter]` or all draws of a fit into an
#' equioutput copy: one that gives exactly the same network function (up to
#' floating-point rounding).
#'
#' * `bnn_permute_neurons()` relabels the neurons of hidden layer `layer`:
#'   new neuron i is old neuron `perm[i]` (its incoming weights, bias and
#'   outgoing weights move together).  Any activation.
#' * `bnn_flip_neurons()` negates the incoming weights, the bias and the
#'   outgoing weights of the given neurons.  Odd activations only (`"tanh"`,
#'   `"identity"`): \eqn{w\,a(o) = (-w)\,a(-o)}.
#' * `bnn_rescale_neurons()` divides the incoming weights and the bias by
#'   `c` and multiplies the outgoing weights by `c`.  Positively homogeneous
#'   activations only (`"relu"`, `"leaky_relu"`, `"identity"`), and `c > 0`
#'   (for \eqn{c < 0} the identity \eqn{a(cx) = c\,a(x)} fails).
#'
#' Under the isotropic Normal prior ([bnn_prior()] with one scale for all
#' weights and biases) permutations and sign flips leave the log posterior
#' unchanged; rescalings change the prior (not the likelihood), so they
#' move probability mass, which the paper's theory excludes.
#'
#' @param x A numeric parameter vector in the layout of
#'   [bnn_parameter_names()] (with or without a trailing `sigma`), a matrix
#'   with one such vector per row, a 3-d draws array, or a `bnnfit`.
#' @param layer Hidden layer number, from 1 (next to the inputs).
#' @param perm A permutation of `1:M`, M the width of the layer.
#' @param neuron Neuron number(s) within the layer (none: `x` unchanged).
#' @param c Rescaling factor(s) > 0, recycled over `neuron`.
#' @param sizes Layer sizes (inputs, hidden widths, outputs); taken from the
#'   fit when `x` is a `bnnfit`.
#' @param activation The hidden activation; taken from the fit when `x` is a
#'   `bnnfit`.
#' @return `x` transformed, in the same shape (a fit with transformed
#'   draws).
#' @seealso [bnn_equioutput_count()], [bnn_remove_symmetries()].
#' @export
#' @examples
#' sizes <- c(1, 3, 1)
#' th <- rnorm(bnn_n_parameters(sizes))
#' th2 <- bnn_permute_neurons(th, 1, c(3, 1, 2), sizes = sizes)
#' th3 <- bnn_flip_neurons(th2, 1, 2, sizes = sizes, activation = "tanh")
#' # the same function:
#' x <- seq(-2, 2, length.out = 5)
#' net <- function(th) {
#'   p <- bnn_unflatten(th, sizes)
#'   drop(tanh(outer(x, p$layer1$W[1, ]) + rep(p$layer1$b, each = 5)) %*%
#'        p$layer2$W + p$layer2$b)
#' }
#' all.equal(net(th), net(th3))
#' bnn_rescale_neurons(th, 1, 1, c = 2, sizes = sizes, activation = "relu")
bnn_permute_neurons <- function(x, layer, perm, sizes = NULL) {
  inp <- sym_input(x, sizes, NULL)
  sizes <- inp$sizes
  layer <- check_layer(layer, sizes)
  M <- sizes[layer + 1L]
  if (!is.numeric(perm) || length(perm) != M || anyNA(perm) ||
      !identical(sort(as.integer(perm)), seq_len(M)) || any(perm != round(perm)))
    stop(sprintf("'perm' must be a permutation of 1:%d (the width of layer %d), not %s.",
                 M, layer, deparse1(perm)), call. = FALSE)
  perm <- as.integer(perm)
  new <- neuron_index(sizes, layer, seq_len(M))
  old <- neuron_index(sizes, layer, perm)
  mat <- inp$mat
  # neuron_index() lists incoming weights neuron by neuron and outgoing
  # weights output by output, so both orders match between new and old
  mat[, c(new$incoming, new$bias, new$outgoing)] <-
    inp$mat[, c(old$incoming, old$bias, old$outgoing)]
  inp$back(mat)
}

#' @rdname bnn_permute_neurons
#' @export
bnn_flip_neurons <- function(x, layer, neuron, sizes = NULL, activation = "tanh") {
  inp <- sym_input(x, sizes, activation)
  check_activation_for(inp$activation, .sym_flip, "sign flips (it is not odd)")
  sizes <- inp$sizes
  layer <- check_layer(layer, sizes)
  neuron <- check_neuron(neuron, sizes[layer + 1L])
  idx <- neuron_index(sizes, layer, neuron)
  cols <- c(idx$incoming, idx$bias, idx$outgoing)
  mat <- inp$mat
  mat[, cols] <- -mat[, cols]
  inp$back(mat)
}

#' @rdname bnn_permute_neurons
#' @export
bnn_rescale_neurons <- function(x, layer, neuron, c, sizes = NULL, activation = "relu") {
  inp <- sym_input(x, sizes, activation)
  check_activation_for(inp$activation, .sym_rescale,
                       "rescaling (it is not positively homogeneous)")
  sizes <- inp$sizes
  layer <- check_layer(layer, sizes)
  neuron <- check_neuron(neuron, sizes[layer + 1L])
  if (!is.numeric(c) || !length(c) %in% c(1L, length(neuron)) || anyNA(c) ||
      any(!is.finite(c)) || any(c <= 0))
    stop("'c' must be finite numbers > 0 (one, or one per neuron): a ReLU neuron ",
         "can be rescaled only by a positive factor.", call. = FALSE)
  c <- rep_len(c, length(neuron))
  mat <- inp$mat
  for (k in seq_along(neuron)) {
    idx <- neuron_index(sizes, layer, neuron[k])
    old_in <- mat[, c(idx$incoming, idx$bias)]
    old_out <- mat[, idx$outgoing]
    new_in <- old_in / c[k]
    new_out <- old_out * c[k]
    # the rescaled weights must stay finite, and nonzero where they were
    # (else the network's function changes): c = 1e-320 would write Inf
    # weights into a fit still marked "ok"
    lost <- function(old, new) any(is.finite(old) & (!is.finite(new) | (old != 0 & new == 0)))
    if (lost(old_in, new_in) || lost(old_out, new_out)) {
      v <- abs(c(old_in, old_out))
      v <- v[is.finite(v) & v > 0]
      stop(sprintf(paste0("'c' = %s would make weights of neuron %d of layer %d infinite ",
                          "or zero (its weights range over %s in magnitude): choose 'c' ",
                          "closer to 1."),
                   format(c[k], digits = 3), neuron[k], layer,
                   paste(format(range(v), digits = 3), collapse = " to ")),
           call. = FALSE)
    }
    mat[, c(idx$incoming, idx$bias)] <- new_in
    mat[, idx$outgoing] <- new_out
  }
  inp$back(mat)
}

# Mapping draws to one representative of their equioutput class.

#' Remove the equioutput symmetries from posterior draws
#'
#' Maps every draw to one representative of its class of equioutput
#' parameter vectors (those giving the same network function, see
#' [bnn_equioutput_count()]), so that draws from chains sitting in different
#' but equivalent modes become comparable: parameter-space R-hat, ESS,
#' marginal densities and clustering into modes then mean something.
#' Predictions do not change.
#'
#' `method = "canonical"` is an extension of Wiese et al. (2023), not their
#' method: a deterministic map, computed in C, that sends every equioutput
#' copy of a draw to the same vector (to rounding) and is idempotent.
#' * Odd activations (`"tanh"`) and those with permutation symmetry only
#'   (`"silu"`, `"sigmoid"`, `"softplus"`, `"gelu"`, `"trunc_relu"`): from
#'   the output side back, as in the paper, every neuron is flipped (odd
#'   activations) so that the sum of its outgoing weights is positive (its
#'   bias if that sum is 0), and the neurons of the layer are sorted by
#'   their bias (ties: by outgoing weights).
#' * Positively homogeneous activations (`"relu"`, `"leaky_relu"`): every
#'   neuron's incoming weights and bias are scaled to unit Euclidean norm,
#'   the scale moving to its outgoing weights, and neurons are sorted by
#'   bias (ties: by incoming weights).  The incoming weights of a layer
#'   depend on the scales of the layer below, so here the layers are
#'   processed from the input side forward.
#' * `"identity"` is not supported: any invertible linear map of a layer is
#'   then equioutput.
#'
#' The map is discontinuous where the sort key ties or a flipping quantity
#' is 0 (sets of measure zero); draws near such boundaries may land in
#' different orders, which shows up as a few outlying draws.
#'
#' @param x A `bnnfit`, or draws (a parameter vector, a matrix with one draw
#'   per row, or a `[iteration, chain, parameter]` array).
#' @param method `"canonical"` (see Details).
#' @param sizes,activation Layer sizes and activation when `x` is not a fit.
#' @return `x` with its draws mapped; a fit gets `$symmetries = "canonical"`.
#'   Chains that failed (all draws `NA`) are left out with a warning.
#' @references Wiese, J. G. et al. (2023).  Towards efficient MCMC sampling
#'   in Bayesian neural networks by exploiting symmetry.
#'   <doi:10.48550/arXiv.2304.02902>
#' @seealso [bnn_permute_neurons()], [bnn_diagnostics()] with
#'   `symmetries = "remove"`, [bnn_modes()].
#' @export
#' @examples
#' sizes <- c(1, 3, 1)
#' th <- rnorm(bnn_n_parameters(sizes))
#' th2 <- bnn_flip_neurons(bnn_permute_neurons(th, 1, c(2, 3, 1), sizes = sizes),
#'                         1, 1, sizes = sizes)
#' a <- bnn_remove_symmetries(th, sizes = sizes, activation = "tanh")
#' b <- bnn_remove_symmetries(th2, sizes = sizes, activation = "tanh")
#' all.equal(a, b)
bnn_remove_symmetries <- function(x, method = "canonical", sizes = NULL,
                                  activation = NULL) {
  method <- match_choice(method, "canonical", "method")
  if (!inherits(x, "bnnfit") && is.null(activation))
    stop("'activation' is needed when 'x' is not a bnnfit.", call. = FALSE)
  if (!is.null(activation))
    activation <- match_choice(activation, names(.activations), "activation")
  inp <- sym_input(x, sizes, activation)
  mode <- sym_mode(inp$activation)
  if (inp$fit) {
    st <- x$chain_status
    if (!is.null(st) && any(st != "ok"))
      warn_cond(sprintf("Chain(s) %s failed; their draws stay NA and are left out.",
                        paste(which(st != "ok"), collapse = ", ")),
                "bnnmc_chain_failure")
  }
  out <- .Call(C_symmetry_canonical, inp$mat, inp$sizes, mode, TRUE)
  attr(out, "n_skipped") <- NULL
  res <- inp$back(out)
  if (inp$fit) res$symmetries <- method
  res
}

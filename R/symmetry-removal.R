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
#' It reads the draws once and writes the result once, without copies in R,
#' over `getOption("bnnmc.threads", 2)` OpenMP threads (the result does not
#' depend on their number); its speed is that of reading and writing the
#' draws (a million draws of a 3 x 16 tanh network are 4.7 GB).
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
#' `method = "paper"` is the method of Wiese et al. (2023), Appendix B
#' (Algorithms 1-4), for tanh networks.  For each hidden layer, from the
#' output side back, the neurons of all draws are pooled as vectors
#' (incoming weights, outgoing weights, bias); (1) a hyperplane through the
#' origin is fitted as an unsupervised SVM, \eqn{\min_\beta \frac12
#' \|\beta\|^2 + C \sum \max(0, 1 - |\beta^\top\phi|)}, by minibatch SGD
#' (32 epochs, batches of 16, learning rate 0.1 decayed by 0.8 per epoch, as
#' the reference code) with `K_beta` random restarts, and neurons on its
#' negative side are flipped; (2) after column-wise standardisation a
#' `k`-nearest-neighbour graph with similarities
#' \eqn{\exp(-\|a-b\|^2/(2\sigma^2))} is built (the paper's formula; the
#' reference code used the unsquared distance), and for up to `iterations`
#' rounds every neuron gets class probabilities from its neighbours' current
#' labels and each draw's neurons are relabelled greedily under the
#' constraint that no two share a label (a random half of the draws adopt
#' their new labels per round, and the loop stops after 8 rounds without a
#' change, as the reference code).  With more than one hidden layer the
#' neuron vectors of a layer contain incoming weights that the symmetries of
#' the layers below (processed later) still scramble, so some neurons can be
#' mislabelled; the paper, whose experiments use one hidden layer, does not
#' discuss this, and `"canonical"` does not have the problem (its keys avoid
#' incoming weights).  The result depends on the draws
#' (it is not a fixed map) and is defined for the whole set of draws.  Its
#' cost grows with the square of the number of neuron vectors (G times the
#' layer width): a few thousand are fine.
#'
#' @param x A `bnnfit`, or draws (a parameter vector, a matrix with one draw
#'   per row, or a `[iteration, chain, parameter]` array).
#' @param method `"canonical"` or `"paper"` (see Details).
#' @param sizes,activation Layer sizes and activation when `x` is not a fit.
#' @param C,K_beta,k,sigma,iterations Settings of `method = "paper"`: the
#'   SVM's penalty and number of restarts (the reference code: 1 and 2), the
#'   neighbours, similarity scale and maximal rounds of the permutation step
#'   (the paper: 1024, 1 and 256).
#' @param seed Seed of the random parts of `method = "paper"` (the caller's
#'   RNG is left alone).
#' @return `x` with its draws mapped; a fit gets `$symmetries = "canonical"`.
#'   Chains that failed (all draws `NA`) are left out with a warning.
#'   Other missing (`NA`) or infinite values are an error.
#' @references Wiese, J. G. et al. (2023).  Towards efficient MCMC sampling
#'   in Bayesian neural networks by exploiting symmetry.
#'   \doi{10.48550/arXiv.2304.02902}
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
                                  activation = NULL, C = 1, K_beta = 2, k = 1024,
                                  sigma = 1, iterations = 256, seed = 0) {
  method <- match_choice(method, c("canonical", "paper"), "method")
  if (!inherits(x, "bnnfit") && is.null(activation))
    stop("'activation' is needed when 'x' is not a bnnfit.", call. = FALSE)
  if (!is.null(activation))
    activation <- match_choice(activation, names(.activations), "activation")
  inp <- sym_shape(x, sizes, activation, na_check = FALSE)
  mode <- sym_mode(inp$activation)
  if (inp$fit) {
    st <- x$chain_status
    if (!is.null(st) && any(st != "ok"))
      warn_cond(sprintf("Chain(s) %s failed; their draws stay NA and are left out.",
                        paste(which(st != "ok"), collapse = ", ")),
                "bnnmc_chain_failure")
  }
  if (method == "canonical") {
    # one pass in C over the draws as they are (no copies: a fit's
    # [iteration, chain, parameter] array can be gigabytes)
    a <- if (inp$fit) x$draws else x
    if (!is.double(a)) storage.mode(a) <- "double"
    res <- .Call(C_symmetry_canonical, a, inp$sizes, mode, .bnn_threads())
    # draws with a non-finite network parameter were skipped (a failed
    # chain's NA); an infinite value anywhere (also sigma) is an error, not
    # a draw left as it was without a word
    n_par <- if (is.null(dim(a))) length(a) else dim(a)[length(dim(a))]
    first_extra <- length(a) %/% n_par * inp$n_net + 1
    if ((res[[2L]] > 0L && any(is.infinite(a))) ||
        (first_extra <= length(a) && any(is.infinite(a[first_extra:length(a)]))))
      stop("'x' has infinite values (Inf); the symmetries of such draws are undefined.",
           call. = FALSE)
    if (!inp$fit) {
      # NA anywhere (also sigma) is an error, as everywhere in these tools
      if (res[[2L]] > 0L ||
          (first_extra <= length(a) && anyNA(a[first_extra:length(a)])))
        if (anyNA(a)) stop("'x' has missing (NA) values.", call. = FALSE)
      return(res[[1L]])
    }
    return(bnnfit_with(x, draws = res[[1L]], symmetries = method))
  }
  inp <- sym_input(x, sizes, activation)
  if (inp$activation != "tanh")
    stop("method = \"paper\" is for tanh networks (Wiese et al. 2023); use ",
         "method = \"canonical\" for activation = \"", inp$activation, "\".", call. = FALSE)
  check_positive(C, "C")
  K_beta <- check_count(K_beta, "K_beta", 1L)
  k <- check_count(k, "k", 1L)
  check_positive(sigma, "sigma")
  iterations <- check_count(iterations, "iterations", 1L)
  seed <- check_count(seed, "seed", 0L)
  n_net <- bnn_n_parameters(inp$sizes)
  rows <- which(stats::complete.cases(inp$mat))
  if (length(rows) < 2L) stop("method = \"paper\" needs at least 2 draws.", call. = FALSE)
  out <- inp$mat
  out[rows, seq_len(n_net)] <- with_seed(seed, remove_symmetries_paper(
    inp$mat[rows, seq_len(n_net), drop = FALSE], inp$sizes, C, K_beta, k, sigma,
    iterations))
  res <- inp$back(out)
  if (inp$fit) res <- bnnfit_with(res, symmetries = method)
  res
}

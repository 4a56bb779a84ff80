# The synthetic regression tasks AF1-AF4 of Staber and Da Veiga, with
# their surrogate networks.

# A seed derived from a study seed and integer indices (set, method,
# stream), so that every job's random numbers depend only on these and not
# on the order or place it runs in.  A multiplicative hash kept below
# .Machine$integer.max.
derive_seed <- function(seed, ...) {
  m <- 2147483629   # a prime below 2^31 - 1
  h <- as.double(seed) %% m
  for (v in c(...)) h <- (h * 69069 + as.double(v) + 1234567) %% m
  as.integer(h)
}

# Uniform draws on a union of disjoint intervals (rows of a 2-column
# matrix), each point in an interval with probability proportional to its
# length.
runif_union <- function(n, iv) {
  len <- iv[, 2] - iv[, 1]
  k <- sample.int(nrow(iv), n, replace = TRUE, prob = len)
  stats::runif(n, iv[k, 1], iv[k, 2])
}

#' Synthetic regression tasks AF1-AF4 (Staber and Da Veiga)
#'
#' The four one-dimensional regression problems of Staber and Da Veiga's
#' benchmark, with the surrogate network the paper fits to each (ReLU, a
#' Normal(0, 1) prior on every weight and bias, and a Gaussian likelihood
#' whose standard deviation is the task's known noise sd, on the raw
#' (unstandardised) scale).  Y = f(X) + sigma eps with eps ~ N(0, 1):
#'
#' | task | f(x) | sigma | N | N* | training x | test x | surrogate |
#' |---|---|---|---|---|---|---|---|
#' | AF1 | cos(2x) + sin(x) | 0.2 | 100 | 200 | U(-3, 3) | U(-3, 3) | 2 x 100 |
#' | AF2 | 0.1 x^3 | 0.25 | 100 | 200 | U(`[-4, -1]` U `[1, 4]`) | U(-4, 4) | 2 x 50 |
#' | AF3 | -(1 + x) sin(1.2 x) | 0.25 | 82 | 200 | 80 U(`[-6, -2]` U `[2, 6]`) + 2 U(-2, 2) | U(-6, 6) | 2 x 50 |
#' | AF4 | MLP(x; w0) | 0.02 | 120 | 120 | U(`[-10, -6]` U `[6, 10]` U `[14, 18]`) | U(-12, 22) | 3 x 100 |
#'
#' **Readings of the paper's inconsistencies.**  The noise column is a
#' standard deviation (the appendix writes N(0, 0.25), which would read as a
#' variance).  AF2's function is 0.1 x^2 in the paper's Table 1 and
#' 0.1 x^3 in its appendix: `exponent` chooses, default 3.  AF4's network
#' is a 1-input 1-100-100-100-1 ReLU network (the stated 20,501 parameters
#' are the count with one input, although Table 1 says D = 2) whose weights
#' w0 are drawn once from N(0, I) with the fixed seed `net_seed`.  The
#' AF2/AF3 surrogate 1-50-50-1 has 2,701 parameters (the paper says
#' 2,651).
#'
#' @param name `"AF1"`, `"AF2"`, `"AF3"` or `"AF4"`.
#' @param exponent AF2's exponent (3 or 2).
#' @param net_seed Seed of AF4's generating network.
#' @return An object of class `bnn_task`: the latent function `f`, the
#'   noise `sigma`, sizes `n` and `n_test`, samplers of the training and
#'   test inputs, and the surrogate (`hidden`, `activation`, `prior`,
#'   `likelihood`, `standardize = FALSE`).  Draw data with
#'   [bnn_paper_task_data()].
#' @references Staber, B. and Da Veiga, S. (2022). Benchmarking Bayesian
#'   neural networks and evaluation metrics for regression tasks.
#'   arXiv:2206.06779.
#' @seealso [bnn_paper_task_data()], [bnn_coverage_study()]
#' @family paper reproduction
#' @export
#' @examples
#' af1 <- bnn_paper_task("AF1")
#' af1
#' d <- bnn_paper_task_data(af1, n_sets = 2, seed = 1)
#' str(d$train[[1]])
#' plot(d$test$x, d$test$y)
#' curve(af1$f(x), add = TRUE)
bnn_paper_task <- function(name = c("AF1", "AF2", "AF3", "AF4"), exponent = 3, net_seed = 4L) {
  if (missing(name)) name <- "AF1"
  name <- match_choice(toupper(name), c("AF1", "AF2", "AF3", "AF4"), "name")
  iv <- function(...) matrix(c(...), ncol = 2, byrow = TRUE)
  task <- switch(name,
    AF1 = list(f = function(x) cos(2 * x) + sin(x), sigma = 0.2, n = 100L, n_test = 200L,
               train = iv(-3, 3), test = iv(-3, 3), hidden = c(100L, 100L),
               formula_text = "cos(2x) + sin(x)", ood = FALSE),
    AF2 = {
      if (!is.numeric(exponent) || length(exponent) != 1L || !(exponent %in% c(2, 3)))
        stop("'exponent' must be 3 (the paper's appendix) or 2 (its Table 1).", call. = FALSE)
      e <- exponent
      list(f = function(x) 0.1 * x^e, sigma = 0.25, n = 100L, n_test = 200L,
           train = iv(-4, -1, 1, 4), test = iv(-4, 4), hidden = c(50L, 50L),
           formula_text = sprintf("0.1 x^%d", e), ood = TRUE)
    },
    AF3 = list(f = function(x) -(1 + x) * sin(1.2 * x), sigma = 0.25, n = 82L, n_test = 200L,
               train = iv(-6, -2, 2, 6), train_gap = iv(-2, 2), n_gap = 2L,
               test = iv(-6, 6), hidden = c(50L, 50L),
               formula_text = "-(1 + x) sin(1.2x)", ood = TRUE),
    AF4 = {
      net_seed <- check_count(net_seed, "net_seed", 0L)
      sizes <- c(1L, 100L, 100L, 100L, 1L)
      w0 <- with_seed(net_seed, stats::rnorm(bnn_n_parameters(sizes)))
      spec <- make_spec(sizes, "relu", bnn_likelihood("gaussian", sigma = 1), bnn_prior())
      f <- function(x) {
        x <- as.double(x)
        as.vector(.Call(C_model_forward, spec, matrix(w0, ncol = 1L), matrix(x, ncol = 1L), 1L))
      }
      list(f = f, sigma = 0.02, n = 120L, n_test = 120L,
           train = iv(-10, -6, 6, 10, 14, 18), test = iv(-12, 22), hidden = c(100L, 100L, 100L),
           formula_text = sprintf("MLP(x; w0), 1-100-100-100-1 ReLU, w0 ~ N(0, I) (seed %d)", net_seed),
           ood = TRUE, net_seed = net_seed, w0 = w0)
    })
  task$name <- name
  task$exponent <- if (name == "AF2") exponent else NULL
  task$activation <- "relu"
  task$prior <- bnn_prior("normal", 1)
  task$likelihood <- bnn_likelihood("gaussian", sigma = task$sigma)
  task$standardize <- FALSE
  task$formula <- y ~ x
  structure(task, class = "bnn_task")
}

#' @export
print.bnn_task <- function(x, ...) {
  rng <- function(m) paste(sprintf("[%g, %g]", m[, 1], m[, 2]), collapse = " U ")
  cat(sprintf("Task %s: y = %s + N(0, %g^2)%s\n", x$name, x$formula_text, x$sigma,
              if (x$ood) " (out-of-distribution test inputs)" else ""))
  cat(sprintf(" training: %d points, x uniform on %s%s\n", x$n, rng(x$train),
              if (!is.null(x$n_gap)) sprintf(" (%d of them on %s)", x$n_gap, rng(x$train_gap)) else ""))
  cat(sprintf(" test:     %d points, x uniform on %s\n", x$n_test, rng(x$test)))
  sizes <- c(1L, x$hidden, 1L)
  cat(sprintf(" surrogate: %s %s network (%d parameters), prior %s, sigma fixed at %g, raw scale\n",
              paste(sizes, collapse = "-"), x$activation, bnn_n_parameters(sizes),
              format(x$prior), x$sigma))
  invisible(x)
}

# Training inputs of one set.
task_x_train <- function(task) {
  if (is.null(task$n_gap)) return(runif_union(task$n, task$train))
  c(runif_union(task$n - task$n_gap, task$train), runif_union(task$n_gap, task$train_gap))
}

task_frame <- function(task, x) {
  data.frame(x = x, y = task$f(x) + stats::rnorm(length(x), 0, task$sigma))
}

#' Draw training sets and a test set from a task
#'
#' Training set j is drawn with R's generator seeded from (`seed`, j), and
#' the test set from (`seed`, 0), so each set is the same whatever other
#' sets are drawn and in whatever order; R's random number state is left
#' as it was.
#'
#' @param task A [bnn_paper_task()] or its name.
#' @param n_sets Number of training sets.
#' @param seed A whole number.
#' @param sets Which training sets to draw (default `1:n_sets`).
#' @return A list with `train` (a list of data frames with columns `x` and
#'   `y`) and `test` (a data frame).
#' @family paper reproduction
#' @export
#' @examples
#' d <- bnn_paper_task_data("AF2", n_sets = 1, seed = 3)
#' range(d$train[[1]]$x); range(d$test$x)
bnn_paper_task_data <- function(task, n_sets = 1, seed = 1, sets = seq_len(n_sets)) {
  task <- as_task(task)
  seed <- check_count(seed, "seed", 0L)
  if (!is.numeric(sets) || anyNA(sets) || any(sets < 1) || any(sets != round(sets)))
    stop("'sets' must be positive whole numbers.", call. = FALSE)
  list(train = lapply(sets, function(j) task_train_set(task, seed, j)),
       test = task_test_set(task, seed))
}

task_train_set <- function(task, seed, j) {
  with_seed(derive_seed(seed, j, 1L), task_frame(task, task_x_train(task)))
}

task_test_set <- function(task, seed) {
  with_seed(derive_seed(seed, 0L, 2L), task_frame(task, runif_union(task$n_test, task$test)))
}

as_task <- function(task) {
  if (inherits(task, "bnn_task")) return(task)
  if (is.character(task) && length(task) == 1L) return(bnn_paper_task(task))
  stop("'task' must be a bnn_paper_task() or a task name such as \"AF1\".", call. = FALSE)
}

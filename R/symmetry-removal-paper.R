# The symmetry removal of Wiese et al. (2023), Appendix B, Algorithms 1-4,
# for tanh networks: per hidden layer, from the output side back, a sign
# step (an unsupervised max-margin hyperplane through the origin, neurons on
# its negative side flipped) and a permutation step (iterative greedy
# constrained k-nearest-neighbour relabelling).

# Columns of the neuron vectors (incoming weights, outgoing weights, bias)
# of hidden layer l, as a list over neurons.
neuron_columns <- function(sizes, l) {
  lapply(seq_len(sizes[l + 1L]), function(i) {
    id <- neuron_index(sizes, l, i)
    c(id$incoming, id$outgoing, id$bias)
  })
}

# Algorithm 1: the unsupervised SVM  min 1/2 |b|^2 + C sum max(0, 1 - |b'phi|)
# by minibatch SGD (the reference code's optimiser: 32 epochs, batch 16,
# learning rate 0.1 decayed by 0.8 per epoch, unit-norm random start), best
# of K restarts by the loss of the last epoch.
svm_plane <- function(Phi, C, K, epochs = 32L, batch = 16L, lr = 0.1, decay = 0.8) {
  n <- nrow(Phi)
  best <- NULL
  best_loss <- Inf
  for (k in seq_len(K)) {
    b <- stats::rnorm(ncol(Phi))
    b <- b / sqrt(sum(b^2))
    eta <- lr
    for (ep in seq_len(epochs)) {
      idx <- sample.int(n)
      losses <- numeric(0)
      for (s in seq(1L, n, by = batch)) {
        rows <- idx[s:min(n, s + batch - 1L)]
        P <- Phi[rows, , drop = FALSE]
        z <- drop(P %*% b)
        act <- abs(z) < 1
        losses <- c(losses, 0.5 * sum(b^2) + C * sum(pmax(0, 1 - abs(z))))
        g <- b - C * colSums(P[act, , drop = FALSE] * sign(z[act]))
        b <- b - eta * g / length(rows)
      }
      eta <- eta * decay
    }
    loss <- mean(losses)
    if (loss < best_loss) {
      best_loss <- loss
      best <- b
    }
  }
  best
}

# Algorithms 2 and 3: iterative greedy constrained k-NN classification.
# V: (G * M) x q neuron vectors, sample-major (rows g*M + i); returns a G x M
# matrix: the new slot of each neuron of each sample.
knn_relabel <- function(V, G, M, k, sigma, iterations, patience = 8L, share = 0.5) {
  n <- nrow(V)
  k <- min(k, n - 1L)
  sc <- apply(V, 2, stats::sd)
  Z <- scale(V, center = TRUE, scale = ifelse(sc > 0, sc, 1))
  D2 <- as.matrix(stats::dist(Z))^2
  diag(D2) <- Inf
  nn <- t(apply(D2, 1L, function(r) order(r)[seq_len(k)]))      # n x k
  w <- matrix(exp(-D2[cbind(rep(seq_len(n), k), as.vector(nn))] / (2 * sigma^2)), n, k)
  rm(D2)
  # symmetrise: the graph keeps an edge found from either end
  edges <- rbind(cbind(rep(seq_len(n), k), as.vector(nn), as.vector(w)),
                 cbind(as.vector(nn), rep(seq_len(n), k), as.vector(w)))
  edges <- edges[!duplicated(edges[, 1:2]), , drop = FALSE]
  from <- edges[, 1]
  to <- edges[, 2]
  wt <- edges[, 3]
  lab <- rep(seq_len(M), G)            # neuron i of every sample starts in class i
  stable <- 0L
  for (it in seq_len(iterations)) {
    # class weights: sum of similarities to neighbours with each label
    P <- numeric(n * M)
    s <- rowsum(wt, from + n * (lab[to] - 1L))
    P[as.integer(rownames(s))] <- s
    P <- matrix(P, n, M)
    P <- P / pmax(rowSums(P), 1e-300)
    # greedy constrained assignment per sample, vectorised over samples
    A <- array(P, c(M, G, M))                      # [neuron, sample, class]
    A <- aperm(A, c(2, 1, 3))                      # [sample, neuron, class]
    new <- matrix(0L, G, M)
    for (step in seq_len(M)) {
      flat <- matrix(A, G, M * M)
      j <- max.col(flat, ties.method = "first")
      i <- (j - 1L) %% M + 1L                      # neuron
      c <- (j - 1L) %/% M + 1L                     # class
      new[cbind(seq_len(G), i)] <- c
      for (cc in seq_len(M)) A[cbind(seq_len(G), i, cc)] <- -1
      for (ii in seq_len(M)) A[cbind(seq_len(G), ii, c)] <- -1
    }
    upd <- sample.int(G, max(1L, round(share * G)))
    old <- matrix(lab, G, M, byrow = TRUE)
    cand <- old
    cand[upd, ] <- new[upd, ]
    changed <- sum(cand != old)
    lab <- as.vector(t(cand))
    stable <- if (changed == 0L) stable + 1L else 0L
    if (stable >= patience) break
  }
  matrix(lab, G, M, byrow = TRUE)
}

# Algorithm 4 on a matrix of draws (rows), tanh network with layer sizes
# `sizes`.
remove_symmetries_paper <- function(mat, sizes, C, K_beta, k, sigma, iterations) {
  H <- length(sizes) - 2L
  G <- nrow(mat)
  for (l in rev(seq_len(H))) {
    M <- sizes[l + 1L]
    cols <- neuron_columns(sizes, l)
    # sign step on the raw neuron vectors, pooled over samples and neurons
    Phi <- do.call(rbind, lapply(seq_len(G), function(g)
      t(vapply(cols, function(cc) mat[g, cc], numeric(length(cols[[1]]))))))
    b <- svm_plane(Phi, C, K_beta)
    neg <- matrix(drop(Phi %*% b) < 0, G, M, byrow = TRUE)
    for (i in seq_len(M)) mat[neg[, i], cols[[i]]] <- -mat[neg[, i], cols[[i]]]
    # permutation step
    V <- do.call(rbind, lapply(seq_len(G), function(g)
      t(vapply(cols, function(cc) mat[g, cc], numeric(length(cols[[1]]))))))
    slot <- knn_relabel(V, G, M, k, sigma, iterations)
    # neuron i of sample g moves to slot[g, i]: new neuron s = old neuron
    # order(slot[g, ])[s]
    perm <- t(apply(slot, 1L, order))
    if (M > 1L) {
      blocks <- lapply(seq_len(M), function(s) {
        id <- neuron_index(sizes, l, s)
        c(id$incoming, id$bias, id$outgoing)
      })
      out <- mat
      for (s in seq_len(M)) {
        src <- perm[, s]
        for (o in seq_len(M)) {
          rows <- which(src == o)
          if (length(rows)) out[rows, blocks[[s]]] <- mat[rows, blocks[[o]]]
        }
      }
      mat <- out
    }
  }
  mat
}

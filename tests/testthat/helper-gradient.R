# The largest relative difference between the C gradient of the log
# posterior of `spec` at `theta` and central finite differences of step h.
fd_check <- function(spec, theta, h = 1e-5) {
  g <- .Call(C_model_logpost, spec, matrix(theta))$grad[, 1]
  fd <- vapply(seq_along(theta), function(i) {
    tp <- theta; tm <- theta
    tp[i] <- tp[i] + h; tm[i] <- tm[i] - h
    (.Call(C_model_logpost, spec, matrix(tp))$lp -
       .Call(C_model_logpost, spec, matrix(tm))$lp) / (2 * h)
  }, numeric(1))
  max(abs(g - fd) / pmax(1, abs(g)))
}

# The heteroscedastic likelihood on responses with many ties.
#
# A heteroscedastic Gaussian puts a separate noise sd on every observation.
# Where many observations share exactly the same response value (a point
# mass, e.g. the exact zeros of a burned-area target), the network can put
# its mean on that value and shrink the sd there: the Gaussian density then
# grows without bound (log density -log(sd) per tied point), so the
# posterior piles up on a spike that is an artefact of using a continuous
# density for a discrete mass, limited only by the clip of the sd at 1e-6
# (times the response's sd).  Test points near the ties get overconfident
# predictions (one spike 0.002 wide gave a test LPPD of -63,611).
#
# Remedy: the homoscedastic Gaussian with a sampled sigma.  One sigma shared
# by all observations cannot collapse onto a subset of them: shrinking it
# costs the fit of every other point, so the likelihood stays bounded.
# It was once the default only for a response with many ties (its most
# frequent value at least 10% of the observations and at least 10 of
# them: many_ties(), R/model-defaults.R), with a message; it is now the
# default likelihood of a numeric response (R/model-defaults.R; on 201 to
# 2,000 rows of a continuous one stacked with the heteroscedastic network,
# R/fit-choice.R), and likelihood = "hetero_gaussian" keeps the
# heteroscedastic one.  Whatever the likelihood, a fit whose
# posterior puts a near-zero predictive sd on training points gets a
# warning naming the cause: below 0.001 response sds on at least 1% of the
# training points when the response has many ties, below 0.0001 otherwise.

.sd_collapse_rel <- 1e-3        # with many ties
.sd_collapse_rel_any <- 1e-4    # whatever the response (the least noisy UCI set, yacht,
                                # has a smallest predictive sd of 0.003 response sds under MILE)

# Warn when the posterior mean of the predictive sd is near zero (relative
# to the response's sd) on at least 1% of the training points (and 2):
# below 1e-3 when the response has many ties (the collapse's cause), below
# 1e-4 otherwise; uses at most 100 draws.
check_sd_collapse <- function(fit) {
  if (!identical(fit$likelihood$family, "hetero_gaussian")) return(invisible(NULL))
  if (!any(fit$chain_status == "ok")) return(invisible(NULL))
  pp <- predictive_params(fit, NULL, ndraws = 100L)
  sd_rel <- colMeans(pp$sd) / stats::sd(fit$y)
  thr <- if (many_ties(fit$y)) .sd_collapse_rel else .sd_collapse_rel_any
  low <- which(sd_rel < thr)
  if (length(low) >= max(2L, ceiling(0.01 * length(sd_rel)))) {
    t <- response_ties(fit$y)
    vals <- unique(fit$y[low])
    warn_cond(sprintf(paste0("%d of %d training points have a predictive sd below %s times the ",
                             "response's sd (smallest %s): the heteroscedastic likelihood is ",
                             "collapsing onto them%s. Its density is unbounded there, so ",
                             "predictions near these points are overconfident. Use likelihood = ",
                             "\"gaussian\" (one sigma for all points)%s."),
                      length(low), length(sd_rel), format(thr),
                      format(signif(min(sd_rel), 2)),
                      if (length(vals) <= 3L)
                        sprintf(" (their responses: %s%s)", paste(format(vals), collapse = ", "),
                                if (t$share >= 0.05) sprintf("; %s makes up %.0f%% of the data",
                                                             format(t$value), 100 * t$share) else "")
                      else "",
                      if (t$share >= 0.05) ", or model the point mass (e.g. a hurdle model for excess zeros)" else ""),
              "bnnmc_sd_collapse")
  }
  invisible(NULL)
}

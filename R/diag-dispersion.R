# Overdispersion of a Poisson or binomial (with trials) fit: these
# likelihoods fix the variance by the mean (mu, and N p (1 - p)), so counts
# that vary more than that get intervals that are too narrow, and neither
# the chains' diagnostics nor the check against the linear model (which
# has the same likelihood) can see it.  bnn_fit() warns of it and print()
# says it.

# Posterior predictive p-value below which, with the data's Pearson
# statistic at least .dispersion_min_ratio times the replications', a fit
# is called overdispersed.
.dispersion_p <- 0.01
.dispersion_min_ratio <- 1.2

# A posterior predictive check of the Pearson statistic
# T(y, theta) = sum_i (y_i - mu_i)^2 / var_i at ndraws draws (fewer on
# large data, so that the [draw, observation] matrices stay near 2e6
# values), against replicated data drawn from the same draws (with the
# fit's seed, so print() gives the same figures every time): list(ratio =
# mean T of the data over mean T of the replications, p = the share of
# draws whose replication's T is at least the data's, family), or NULL
# for other likelihoods or when the predictions cannot be computed.
dispersion_check <- function(x, ndraws = 400L) {
  fam <- x$likelihood$family
  if (!isTRUE(fam %in% c("poisson", "binomial")) || is.null(x$X) || nrow(x$X) < 10L)
    return(NULL)
  tryCatch({
    n <- nrow(x$X)
    S <- min(pooled_ndraws(x), max(20L, min(as.integer(ndraws), floor(2e6 / n))))
    pp <- predictive_params(x, NULL, S)
    y <- response_values(x)
    if (is.matrix(y)) y <- y[, 1L]                    # the binomial's successes
    v <- pp$sd^2
    use <- is.finite(v) & v > 0                       # (a probability of 0 or 1)
    yrep <- with_seed(x$seed, family_rdraws(pp))
    pearson <- function(yy) rowSums(ifelse(use, (yy - pp$mu)^2 / v, 0))
    t_obs <- pearson(matrix(y, nrow(pp$mu), ncol(pp$mu), byrow = TRUE))
    t_rep <- pearson(yrep)
    if (!all(is.finite(c(t_obs, t_rep))) || mean(t_rep) <= 0) return(NULL)
    list(ratio = mean(t_obs) / mean(t_rep), p = mean(t_rep >= t_obs), family = fam)
  }, error = function(e) NULL)
}

# Is the result of dispersion_check() overdispersion?
overdispersed <- function(dc) {
  !is.null(dc) && dc$p < .dispersion_p && dc$ratio >= .dispersion_min_ratio
}

# The sentence for a dispersion_check() result that is overdispersed.
dispersion_text <- function(dc) {
  sprintf(paste0("the data vary %.1f times as much as the %s model's replications allow ",
                 "(Pearson statistic; posterior predictive p %s), so its predictive ",
                 "intervals are too narrow. %s"),
          dc$ratio, if (dc$family == "poisson") "Poisson" else "binomial",
          if (dc$p == 0) "< 0.01" else sprintf("= %.3f", dc$p),
          if (dc$family == "poisson")
            "family = negbinomial() models overdispersed counts." else
            paste0("The binomial has no dispersion parameter (and bnnmc no beta-binomial): ",
                   "predictors that explain the extra variation, or intervals read as too ",
                   "narrow, are what is left."))
}

# The fit, after a warning (class bnnmc_overdispersion) if it is
# overdispersed (bnn_fit()).
warn_overdispersion <- function(fit) {
  dc <- dispersion_check(fit)
  if (overdispersed(dc))
    warn_cond(paste0("bnn_fit(): ", dispersion_text(dc)), "bnnmc_overdispersion")
  fit
}

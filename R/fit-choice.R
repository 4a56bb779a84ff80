# The default model's check against a Bayesian linear model.
#
# On small data that are close to linear, the default network predicts
# worse than a linear model: on the six near-linear sets of 30 to 50 rows
# of inst/benchmarks/decisions/default_panel*.csv its test log density was
# 0.06 to 0.37 below lm's, while the same family's linear model (no hidden
# layer, fan-in prior, sampled exactly by NUTS) was within 0.03 of lm's on
# all of them.  So a default call also fits that linear model, which costs
# a second or two, and stacks the two by their PSIS-LOO elpds on the
# training data: one model alone when it has nearly all the weight (the
# earlier rule kept the one with the larger elpd), else their mixture
# (inst/benchmarks/decisions/panel_stacking.R compares the two rules on the
# panel).  Returning the linear model or a mixture is said in one line.

# Training rows above which the check is not made.  Its cost grows with the
# rows (two PSIS-LOO computations and a NUTS fit), while the network fell
# behind lm only on sets of at most 50 rows and was ahead of it on every
# panel set of more than 100 (default_panel_summary.csv; the check's cost:
# vignette("benchmarks")).
.linear_check_max_rows <- 500L

# Does the check apply?  Only to the default model of a numeric response
# (Gaussian) or of a two-level factor (Bernoulli, whose linear counterpart
# is logistic regression): nothing of the model, the sampler or the starts
# given, no observation weights, at most .linear_check_max_rows rows, and
# not switched off by options(bnnmc.linear_check = FALSE).  (bnn_fit()
# makes it only where the check of the likelihood below does not apply: a
# continuous Gaussian response of more than .likelihood_check_min_rows
# rows gets that one instead.)
linear_check_applies <- function(given, model) {
  isTRUE(getOption("bnnmc.linear_check", TRUE)) && !any(given) &&
    # the Gaussian default, a two-level factor (logistic regression), and
    # the count and Student-t likelihoods (their GLM counterparts)
    isTRUE(model$likelihood$family %in% c("gaussian", "bernoulli", "poisson", "negbinomial",
                                          "student", "binomial")) &&
    is.null(model$weights) &&
    ncol(model$X) >= 1L && nrow(model$X) <= .linear_check_max_rows
}

# Stacking weights below this share go to the other model alone: a weight
# near 1 is a choice of one model, as the PSIS-LOO comparison makes it.
.stack_min_weight <- 0.05

# The default model's check on the two finished fits (fit_plans()'s
# results, list(fit, loglik, warnings)): the network's `net` and the linear
# model's `lin` (NULL when it failed), stacked (Yao, Vehtari, Simpson and
# Gelman 2018): the weights of the two predictive distributions that
# maximise the PSIS-LOO log score of their mixture (loo::stacking_weights()).
# When one model has (almost) all the weight it is returned alone (nearly
# always the one with the larger elpd); otherwise the network's fit is
# returned with the linear model's as its $mixture (R/predict-mixture.R).
# `$model_choice` says what was compared.  psis_elpd: fit_psis_elpd() (a
# test gives its own).  Returns list(fit, warnings): the warnings of the
# fit returned, to be signalled again by the caller (those of the other
# fit are dropped: a convergence warning of a network that is not
# returned is no concern of the user's).  `seconds`: the time of the
# network's and the linear model's fits; with the check's own time they
# are the attribute "timing" of `$model_choice`, which print() shows.
choose_default_model <- function(net, lin, seconds = c(network = NA_real_, linear = NA_real_),
                                 psis_elpd = fit_psis_elpd) {
  t1 <- proc.time()[["elapsed"]]
  elpd <- function(f) if (is.null(f)) NULL else
    tryCatch(psis_elpd(f$fit, f$loglik), error = function(e) NULL)
  e_net <- elpd(net)
  e_lin <- if (!is.null(lin) && all(lin$fit$chain_status == "ok")) elpd(lin)
  both <- !is.null(e_net) && !is.null(e_lin)
  w <- if (both) stacking_pair(e_net$pointwise, e_lin$pointwise)
  stack <- both && min(w) >= .stack_min_weight
  use_lin <- both && !stack && w[2L] > w[1L]
  # the linear model's verdict, made only when it is returned alone (the
  # verdict of a stack is the network's); its warnings are the fit's
  if (use_lin) {
    v <- catch_warnings(function() bnnfit_with(lin$fit, convergence = check_convergence(lin$fit)))
    lin <- list(fit = v$fit, warnings = c(lin$warnings, v$warnings))
  }
  t2 <- proc.time()[["elapsed"]]
  out <- if (use_lin) lin else net
  out <- list(fit = out$fit, warnings = out$warnings)
  if (stack)
    out <- restate_remedy(list(
      fit = bnnfit_with(out$fit, mixture = list(fit = lin$fit,
                                                weights = c(network = w[1L], linear = w[2L]))),
      warnings = out$warnings))
  out$elpd <- returned_fit_elpd(out$fit, if (use_lin) e_lin else e_net, if (stack) e_lin,
                                if (stack) w)
  if (both) {
    out$fit <- bnnfit_with(out$fit, model_choice = structure(
      choice_table(c("network", "linear"), list(net$fit, lin$fit), list(e_net, e_lin), w,
                   c(!use_lin, use_lin | stack)),
      elpd_stack = if (stack) stack_elpd(e_net$pointwise, e_lin$pointwise, w),
      seconds = seconds[["linear"]] + (t2 - t1),
      timing = c(total = sum(seconds) + (t2 - t1), network = seconds[["network"]],
                 linear = seconds[["linear"]], check = t2 - t1)))
  }
  lin_name <- if (identical(lin$fit$likelihood$family, "bernoulli"))
    "linear model (logistic regression)" else "linear model"
  if (use_lin)
    message(sprintf(paste0(
      "bnn_fit(): a Bayesian %s predicts these data better than the %s network ",
      "(PSIS-LOO elpd %.1f against %.1f), so it is the model returned%s; give 'hidden' to ",
      "keep the network (?bnn_default, \"The default model's check\")."),
      lin_name,
      paste(net$fit$hidden, collapse = "-"), e_lin$elpd, e_net$elpd,
      uncertain_choice_note(e_net, e_lin, nrow(net$fit$X))))
  if (stack)
    message(sprintf(paste0(
      "bnn_fit(): %s, so the fit returned stacks them: its predictions use ",
      "the network's draws with weight %.2f and the linear model's with weight %.2f%s; give ",
      "'hidden' to keep the network alone (?bnn_default, \"The default model's check\")."),
      elpd_comparison_words(e_net, e_lin, sprintf("the %s network",
                                                  paste(net$fit$hidden, collapse = "-")),
                            sprintf("a Bayesian %s", lin_name), w),
      w[1L], w[2L], uncertain_choice_note(e_net, e_lin, nrow(net$fit$X))))
  out
}

# The verdict's advice (and its warning) for a fit that has just become a
# stack (`out`: list(fit, warnings) of catch_warnings()): the verdict was
# made for the model alone, and its advice can name what a mixture of two
# models has no use for (bnn_stack_chains(), which needs one set of chains).
restate_remedy <- function(out) {
  cv <- out$fit$convergence
  if (is.null(cv) || !isFALSE(cv$predictions$reliable)) return(out)
  cv$remedy <- prediction_remedy(out$fit, cv)
  out$fit <- bnnfit_with(out$fit, convergence = cv)
  out$warnings <- lapply(out$warnings, function(w)
    if (inherits(w, "bnnmc_unreliable_predictions")) unreliable_condition(cv) else w)
  out
}

# Said with elpds computed on fewer training points than the data have
# (the verdict's evenly spaced subset on larger data).
elpd_points_note <- function(e, n) {
  if (is.null(e$points) || e$points >= n) return("")
  sprintf(" over %d evenly spaced training rows", e$points)
}

# f() with its warnings held back: list(fit = f()'s value, warnings = the
# warning conditions, to be signalled again if that fit is returned).
catch_warnings <- function(f) {
  w <- list()
  fit <- withCallingHandlers(f(), warning = function(cnd) {
    w[[length(w) + 1L]] <<- cnd
    invokeRestart("muffleWarning")
  })
  list(fit = fit, warnings = w)
}

# The table of `$model_choice`: one row per model compared (`models`, their
# `fits` and PSIS-LOO results `e` of fit_psis_elpd()), with the stacking
# weights `w` and whether each is `chosen`; with points = TRUE also the
# training points each elpd was computed on.
choice_table <- function(models, fits, e, w, chosen, points = FALSE) {
  col <- function(k) unlist(lapply(e, `[[`, k))   # (as c() of the two values)
  tab <- data.frame(model = models,
                    network = vapply(fits, function(f) paste(f$spec$sizes, collapse = "-"), ""),
                    elpd_loo = col("elpd"), se = col("se"), pareto_k_high = col("k_high"),
                    weight = w, chosen = chosen, stringsAsFactors = FALSE)
  if (points) tab$points <- col("points")
  tab
}

# The PSIS-LOO elpd of the stack of two models with weights w from their
# pointwise elpds e1 and e2: sum_i log(w1 exp(e1_i) + w2 exp(e2_i)), what
# loo() of the stacked fit estimates (stacked_elpd_object(), R/loo.R).
stack_elpd <- function(e1, e2, w) sum(log_mix(cbind(e1, e2), w))

# The PSIS-LOO of the fit a check returns, from its models' results that the
# check computed (e1 of the fit returned, e2 of the model in its mixture and
# the weights w, or NULL): what default_fit_elpd() would compute again
# (the same values), so that the wider prior's step (choose_wider_prior())
# need not.  NULL unless they cover every training row (the verdict's
# points are at most 500).
returned_fit_elpd <- function(fit, e1, e2 = NULL, w = NULL) {
  n <- NROW(fit$X)
  if (is.null(e1) || length(e1$pointwise) != n || (!is.null(e2) && length(e2$pointwise) != n))
    return(NULL)
  if (is.null(e2)) return(list(pointwise = e1$pointwise, k_high = e1$k_high))
  list(pointwise = log_mix(cbind(e1$pointwise, e2$pointwise), w),
       k_high = max(e1$k_high, e2$k_high))
}

# How two models' PSIS-LOO results (fit_psis_elpd()) compare, in words,
# for the message of a stack with weights w: "about equally well" only
# when their elpds differ by less than 4 nats or two standard errors of
# the difference (the SE of the pointwise differences, as
# loo::loo_compare() computes it); otherwise which one predicts better,
# and that their stack predicts better than either (a weight of at least
# .stack_min_weight on each means the mixture's elpd is above both).
elpd_comparison_words <- function(e1, e2, name1, name2, w) {
  d <- e1$pointwise - e2$pointwise
  diff <- e1$elpd - e2$elpd
  se <- sqrt(length(d) * stats::var(d))
  figures <- sprintf("PSIS-LOO elpd %.1f against %.1f, a difference of %.1f with SE %.1f",
                     e1$elpd, e2$elpd, abs(diff), se)
  stacked <- stack_elpd(e1$pointwise, e2$pointwise, w)
  if (abs(diff) < 4 || abs(diff) < 2 * se)
    return(sprintf("%s and %s predict these data about equally well (%s; stacked %.1f)",
                   name1, name2, figures, stacked))
  better <- if (diff > 0) c(name1, name2) else c(name2, name1)
  sprintf(paste0("%s predicts these data better than %s (%s), but the two models mixed ",
                 "predict them better still (stacked elpd %.1f)"),
          better[1L], better[2L], figures, stacked)
}

# Stacking weights of two models from their pointwise PSIS-LOO elpds.
stacking_pair <- function(e1, e2) {
  w <- as.numeric(loo::stacking_weights(cbind(e1, e2)))
  w / sum(w)
}

# Said with the choice when PSIS-LOO is unreliable for either model (more
# than a tenth of the points with Pareto k above 0.7) and the two elpds are
# within 4 nats: the comparison is then uncertain.
uncertain_choice_note <- function(e_net, e_lin, n) {
  high <- max(e_net$k_high, e_lin$k_high)
  if (high <= 0.1 * n || abs(e_lin$elpd - e_net$elpd) > 4) return("")
  sprintf(paste0(" (an uncertain comparison: %d of %d training points have a Pareto k ",
                 "above 0.7 and the elpds differ by %.1f; kfold() of the two fits compares ",
                 "them exactly)"), high, n, abs(e_lin$elpd - e_net$elpd))
}

# One line for print(): what the check compared and chose.
format_model_choice <- function(mc) {
  if (is.null(mc) || !is.data.frame(mc) || nrow(mc) != 2L) return(NULL)
  ch <- mc$chosen
  # the stack's own elpd, which loo(fit) estimates (each model's is its own)
  stacked <- function(points = NULL) {
    es <- attr(mc, "elpd_stack")
    if (is.null(es)) return("")
    sprintf("; stacked %.1f%s, which is what loo(fit) estimates", es,
            if (!is.null(points)) sprintf(" over %d training points", points) else "")
  }
  if (identical(attr(mc, "check"), "likelihood")) {
    # the second model: the homoscedastic Gaussian network, or the Student-t
    # one (options(bnnmc.stack_second = "student"))
    t2nd <- identical(mc$model[2], "student")
    second <- if (t2nd) "Student-t" else "homoscedastic Gaussian"
    return(if (all(ch))
      sprintf(paste0("the %s network with a heteroscedastic and with a %s ",
                     "likelihood, stacked with weights %.2f and %.2f (PSIS-LOO elpd %.1f and ",
                     "%.1f each alone%s; the %s keeps at least %.2f)"),
              mc$network[2], second, mc$weight[1], mc$weight[2], mc$elpd_loo[1],
              mc$elpd_loo[2], stacked(mc$points[1]), if (t2nd) "Student-t" else "homoscedastic",
              .likelihood_guard) else
      if (isTRUE(attr(mc, "spread_flat")))
        sprintf(paste0("the %s network, by the default's check (its ",
                       "leave-one-out residuals keep one spread: smallest Holm-adjusted p %.2g; ",
                       "PSIS-LOO elpd %.1f, the heteroscedastic's %.1f not trusted)"),
                second, attr(mc, "spread_p"), mc$elpd_loo[2], mc$elpd_loo[1]) else
      sprintf(paste0("the %s network, by the default's check (PSIS-LOO elpd ",
                     "%.1f against %.1f for the heteroscedastic)"),
              second, mc$elpd_loo[2], mc$elpd_loo[1]))
  }
  if (all(ch))
    return(sprintf(paste0("the %s network and the linear model, stacked with weights %.2f ",
                          "and %.2f (PSIS-LOO elpd %.1f and %.1f each alone%s)"),
                   mc$network[1], mc$weight[1], mc$weight[2], mc$elpd_loo[1], mc$elpd_loo[2],
                   stacked()))
  sprintf("%s (PSIS-LOO elpd %.1f against %.1f for the %s)",
          if (ch[2]) "the linear model, by the default's check" else
            "the network, by the default's check",
          mc$elpd_loo[ch], mc$elpd_loo[!ch],
          if (ch[2]) sprintf("%s network", mc$network[1]) else "linear model")
}

# The default model's check on 201 to 2,000 rows of a continuous response:
# the heteroscedastic and the homoscedastic Gaussian network, stacked.
#
# With more than 500 training rows of a continuous response, the papers'
# heteroscedastic Gaussian network (the network outputs a mean and a log sd;
# Normal(0, 1) weights) predicted better than the homoscedastic default by
# 0.3 to 0.6 nats per test point on average over two splits each of energy,
# concrete, airfoil, protein and bikesharing (and the stack below did so on
# 218 to 462 rows too: .likelihood_check_min_rows), but its predictive sd is a
# network output, and on one energy split it put a 90% interval 0.4 wide 3
# units from a test point (log density -155 there).  So a default call on
# such data fits both, each with half the chains (the same cost as one
# model with all of them), and stacks them by their PSIS-LOO elpds, the
# homoscedastic model keeping at least .likelihood_guard of the weight: its
# predictive density caps the loss at a point the heteroscedastic model
# puts far in its tails (log(0.1) plus the homoscedastic model's own log
# density there), and costs at most log(1 / 0.9) = 0.105 nats at points
# where the heteroscedastic model alone would be right
# (inst/benchmarks/decisions/default_likelihood_stack.R).

# The least weight of the homoscedastic model in the stack (of the
# Student-t one in its place: stack_second()).
.likelihood_guard <- 0.10

# The stack's second model: "student" (the default), the Student-t network
# (family = student(): its scale and degrees of freedom sampled), or with
# options(bnnmc.stack_second = "gaussian") the homoscedastic Gaussian
# network of earlier versions, of the same size, chains and budget:
# stacked by the same rule, with the same guard weight, and kept alone by
# the spread gate (spread_is_flat()).  Over ten splits of the four UCI
# sets of decisions/uci_splits_vs_bart.R the Student-t network's stack was
# 0.036 nats per test point ahead on energy and within 0.005 on the others.
stack_second <- function() {
  v <- getOption("bnnmc.stack_second", "student")
  if (!is.character(v) || length(v) != 1L || is.na(v) || !v %in% c("gaussian", "student"))
    stop("option 'bnnmc.stack_second' must be \"gaussian\" or \"student\".", call. = FALSE)
  v
}

# The share of the default's tuning steps the homoscedastic model of the
# stack takes (its sampling steps are the default's): half, 10,000 steps.
# Where the heteroscedastic model predicts better (energy, concrete,
# airfoil), the homoscedastic one keeps the floor of the weight and only
# shapes the predictive's tails; where it carries weight (Boston, faithful,
# yacht) its simpler posterior settled in half the steps.  On those six
# sets and ChickWeight, three seeds each, half its tuning changed the
# stack's test log density by -0.07 to +0.03 per point (mean +0.003; the
# seeds of the full tuning differ by up to 0.07 on energy), and the stack's
# chains take a fifth fewer steps: the call took 0.82 of the time (median)
# (inst/benchmarks/decisions/stack_homo_guard.R).
.likelihood_homo_tune <- 0.5

# Training rows above which the stack is made (on fewer, the linear check
# above).  On the panel's continuous sets of 218 to 462 training rows
# (faithful, yacht, Boston, ChickWeight, three splits each) the stack
# predicted better than the network checked against a linear model on every
# split, by 0.02 (faithful) to 1.0 (yacht) nats per test point; on 151 and
# 167 rows (birthwt, cpus) the heteroscedastic model had no weight, and on
# fewer rows its PSIS-LOO is unreliable and it can collapse
# (inst/benchmarks/decisions/default_likelihood_small.R).
.likelihood_check_min_rows <- 200L

# Training rows above which the stack is not made: it was measured on 614 to
# 1,600 training rows, and on larger data each of its two fits would
# announce its cost and the large-data advice (R/run-cost.R) for half the
# chains only.
.likelihood_check_max_rows <- 2000L

# Is a numeric response continuous?  No value in 10% of the rows (at least
# 10 of them: R/model-defaults.R, many_ties()), and at least 100 distinct
# values or half as many as rows (a response of a few levels, such as a
# rating, keeps the homoscedastic model alone).
continuous_response <- function(y) {
  is.numeric(y) && !is.matrix(y) && !many_ties(y) &&
    length(unique(y)) >= min(100, 0.5 * length(y))
}

# Does this check apply?  To the default model (nothing of
# the model, sampler or starts given: `given`) of a continuous numeric
# response with the default Gaussian likelihood, no observation weights,
# more than .likelihood_check_min_rows rows (else the linear check runs) and
# at most .likelihood_check_max_rows, and at least two chains;
# options(bnnmc.likelihood_check = FALSE) switches it off.
likelihood_check_applies <- function(given, model, chains) {
  isTRUE(getOption("bnnmc.likelihood_check", TRUE)) && !any(given) &&
    identical(model$likelihood$family, "gaussian") && is.null(model$likelihood$sigma) &&
    is.null(model$weights) && chains >= 2L &&
    nrow(model$X) > .likelihood_check_min_rows && nrow(model$X) <= .likelihood_check_max_rows &&
    continuous_response(model$y)
}

# The two plans of a check fitted: `a` and `b` (new_bnn_plan()), their
# chains in one run when `together` (a parallel plan: one model's chains
# after the other's would leave workers idle), else one fit after the
# other.  Returns list(a, b, seconds): fit_plans()'s results (NULL for an
# optional plan that failed) and the time of each fit, or with `together`
# each one's chains' time summed over them and the time of the run
# ("models").
fit_plan_pair <- function(a, b, together) {
  now <- function() proc.time()[["elapsed"]]
  t0 <- now()
  if (together) {
    both <- fit_plans(list(a = a, b = b))
    secs <- function(f) if (is.null(f)) NA_real_ else chains_seconds(f$fit)
    return(list(a = both$a, b = both$b,
                seconds = c(a = secs(both$a), b = secs(both$b), models = now() - t0)))
  }
  fa <- fit_plans(list(a = a))$a
  t1 <- now()
  fb <- fit_plans(list(b = b))$b
  list(a = fa, b = fb, seconds = c(a = t1 - t0, b = now() - t1, models = now() - t0))
}

# Seconds of a fit's chains (warm-up and sampling), summed over them.
chains_seconds <- function(fit) sum(fit$timing$warmup, fit$timing$sampling, na.rm = TRUE)

# The likelihood check on the two finished fits (fit_plans()'s results):
# the heteroscedastic network's `het` (NULL when it failed) and the
# homoscedastic one's `gau`, stacked: the PSIS-LOO stacking weights
# (loo::stacking_weights()), with the homoscedastic model's raised to at
# least .likelihood_guard.  The fit returned is the one with the larger
# weight, with the other in $mixture (kind "likelihood": predictions pool
# the draws of both, each in proportion to its weight); the PSIS-LOO elpds
# are those of the training points the verdicts used (at most 500, evenly
# spaced: the verdicts' pointwise log-likelihood, no second pass over the
# draws).  When the heteroscedastic model has less than .stack_min_weight,
# or either fit or its PSIS-LOO fails, the other is returned alone.
# `$model_choice` records the comparison (attribute "check" =
# "likelihood", and "timing" from `seconds`, fit_plan_pair()'s, and
# `together`).  Returns list(fit, warnings) as choose_default_model().
choose_default_likelihood <- function(het, gau, seconds = c(a = NA_real_, b = NA_real_,
                                                            models = NA_real_),
                                      together = FALSE, psis_elpd = fit_psis_elpd) {
  t1 <- proc.time()[["elapsed"]]
  ok <- function(f) !is.null(f) && all(f$fit$chain_status == "ok")
  elpd <- function(f) if (ok(f)) tryCatch(psis_elpd(f$fit, f$loglik), error = function(e) NULL)
  e_het <- elpd(het)
  e_gau <- elpd(gau)
  # the second model: the homoscedastic Gaussian network, or the Student-t
  # one in its place (stack_second()); its name in the weights, the table
  # and the timing, and in the messages
  t2nd <- isTRUE(gau$fit$likelihood$family == "student")
  second <- if (t2nd) "student" else "homoscedastic"
  liks <- if (t2nd) "a heteroscedastic Gaussian and with a Student-t likelihood" else
    "a heteroscedastic and with a homoscedastic Gaussian likelihood"
  second_model <- if (t2nd) "the Student-t model" else "the homoscedastic model"
  second_network <- if (t2nd) "Student-t network" else "homoscedastic network"
  both <- !is.null(e_het) && !is.null(e_gau)
  w <- if (both) stacking_pair(e_het$pointwise, e_gau$pointwise)
  if (both) w <- c(min(w[1L], 1 - .likelihood_guard), max(w[2L], .likelihood_guard))
  # the homoscedastic network's residual spread does not vary with any
  # input or its fitted values: the heteroscedastic one has no variance to
  # model, and its PSIS-LOO, unreliable at many points, would overrate it
  flat <- both && spread_is_flat(gau$fit)
  if (flat) w <- c(0, 1)
  stack <- both && w[1L] >= .stack_min_weight
  t2 <- proc.time()[["elapsed"]]
  if (!stack) {
    # the homoscedastic fit alone (the heteroscedastic one failed, or has
    # (almost) no weight); with only the heteroscedastic fit usable, it
    het_alone <- !ok(gau) && ok(het)
    out <- if (het_alone) het else gau
    out <- list(fit = out$fit, warnings = out$warnings,
                elpd = returned_fit_elpd(out$fit, if (het_alone) e_het else e_gau))
  } else {
    het_first <- w[1L] >= w[2L]
    out <- if (het_first) het else gau
    other <- if (het_first) gau else het
    wts <- stats::setNames(c(w[1L], w[2L]), c("heteroscedastic", second))
    if (!het_first) wts <- rev(wts)
    out <- restate_remedy(list(
      fit = bnnfit_with(out$fit, mixture = list(fit = other$fit, weights = wts,
                                                kind = "likelihood")),
      warnings = out$warnings))
    out$elpd <- returned_fit_elpd(out$fit, if (het_first) e_het else e_gau,
                                  if (het_first) e_gau else e_het, wts)
  }
  if (both) {
    out$fit <- bnnfit_with(out$fit, model_choice = structure(
      choice_table(c("heteroscedastic", second), list(het$fit, gau$fit),
                   list(e_het, e_gau), w, c(stack, TRUE), points = TRUE),
      check = "likelihood", seconds = seconds[["models"]] + (t2 - t1),
      elpd_stack = if (stack) stack_elpd(e_het$pointwise, e_gau$pointwise, w),
      spread_p = gau$fit$convergence$adequacy$spread$p_min, spread_flat = flat,
      # when their chains ran together, side by side, the two models share
      # one elapsed time ("models"); each one's is then the time of its
      # chains, summed over them ("together" = 1 says so)
      timing = stats::setNames(
        c(seconds[["models"]] + (t2 - t1), seconds[["a"]], seconds[["b"]],
          seconds[["models"]], t2 - t1, as.numeric(together)),
        c("total", "heteroscedastic", second, "models", "check", "together"))))
    if (stack)
      message(sprintf(paste0(
        "bnn_fit(): with %d rows of a continuous response, the default fits the %s network ",
        "with %s (%d and %d ",
        "chains%s) and stacks them by their PSIS-LOO elpds (%.1f and %.1f%s): weights %.2f and ",
        "%.2f (%s keeps at least %.2f, so that no test point falls far ",
        "into the tails of both); give 'likelihood' or 'hidden' to fit one model with all ",
        "the chains (?bnn_default, \"The default model's check\")."),
        nrow(gau$fit$X), paste(gau$fit$hidden, collapse = "-"), liks, het$fit$chains,
        gau$fit$chains,
        if (!identical(het$fit$warmup, gau$fit$warmup))
          sprintf("; %s and %s tuning steps", format(het$fit$warmup, big.mark = ","),
                  format(gau$fit$warmup, big.mark = ",")) else "",
        e_het$elpd, e_gau$elpd, elpd_points_note(e_gau, nrow(gau$fit$X)),
        w[1L], w[2L], second_model, .likelihood_guard))
    if (flat)
      message(sprintf(paste0(
        "bnn_fit(): with %d rows of a continuous response, the default fits the %s network ",
        "with %s; the ",
        "%s's leave-one-out residuals keep one spread across the inputs ",
        "and the fitted values (smallest Holm-adjusted p %.2g), so the heteroscedastic ",
        "network has no varying noise to model and the fit returned is the %s",
        "'s (%d chains); give 'likelihood' or 'hidden' to fit one model with all the ",
        "chains (?bnn_default, \"The default model's check\")."),
        nrow(gau$fit$X), paste(gau$fit$hidden, collapse = "-"), liks, second_network,
        gau$fit$convergence$adequacy$spread$p_min, second_network, gau$fit$chains))
  }
  out
}

# Does a fit's residual spread stay the same across its inputs and fitted
# values (the verdict's model-fit part, residual_spread(),
# R/diag-adequacy.R)?  FALSE where it was not computed, or with
# options(bnnmc.stack_spread = FALSE), which keeps the stack of both
# likelihoods by their PSIS-LOO elpds alone.
spread_is_flat <- function(fit) {
  sp <- fit$convergence$adequacy$spread
  isTRUE(getOption("bnnmc.stack_spread", TRUE)) && !is.null(sp) && isFALSE(sp$varies)
}

# The default's prior scale, chosen by the data where the model does not fit.
#
# The default network's prior (weights Normal(0, 1/fan-in), biases
# Normal(0, 1)) is smooth: on small data with a sharp feature its posterior
# misses the feature in every chain (MASS::mcycle: test RMSE 45 where
# smooth.spline() has 20), and the verdict's model-fit part (R/diag-adequacy.R)
# sees it.  A prior three times wider follows such features: on the ten
# README splits of mcycle, with two fit seeds, it came within 9% of
# smooth.spline()'s test RMSE on every split, where the default was within
# 15% on 4 of 10; but in the default's place on every data set it lost on
# small near-linear sets and on yacht and energy
# (inst/benchmarks/decisions/prior_scale_panel.R).  So the default fits the
# wider prior only where the check fires, and keeps whichever of the two
# fits has the larger PSIS-LOO elpd on the training data (on trees, where a
# linear model misses the curvature and the check fires, the wider network
# predicts worse and the default's fit is kept).  Where the check is quiet
# (every adequate fit of the panel) the fit is the default's, draws and all.

# Does the step apply?  To the default model (nothing of the model, sampler
# or starts given: `given`) whose prior is the fan-in prior (a numeric
# response: Gaussian, count and Student-t likelihoods), on at most
# .likelihood_check_max_rows rows (where the prior decides; above, the
# verdict's advice stands), when the returned fit's model-fit check found
# structure left; options(bnnmc.prior_check = FALSE) switches it off.
wider_prior_applies <- function(given, model, fit) {
  isTRUE(getOption("bnnmc.prior_check", TRUE)) && !any(given) &&
    isTRUE(model$prior$fan_in) && max(model$prior$scale) < .wider_prior_factor &&
    is.null(model$weights) && nrow(model$X) <= .likelihood_check_max_rows &&
    isFALSE(fit$convergence$adequacy$adequate)
}

# The MCLMC tuning steps (stages 1 to 3) of the wider prior's fit when it
# starts from the default fit's chains (wider_prior_plan()): a fifth of the
# default's 20,000.  The chains start where the default's chains ended,
# with their step size and L, so the tuning only adapts them to the wider
# posterior.  On the ten README splits of mcycle the test RMSE stayed within
# 10% of smooth.spline()'s on every split and the test log density moved by
# -0.05 to +0.04 per point (mean +0.004) against the wider prior's fit from
# a deep ensemble with the full tuning, at 0.45 of its time
# (inst/benchmarks/decisions/wider_prior_warm.R).
.wider_prior_tune <- c(2000L, 1000L, 1000L)

# The plan of the wider prior's fit (`plan`, the default's run on the
# widened prior) started from the default's finished fit `fit`: each chain
# from the last draw of the same chain of `fit` (on the sampler's
# unconstrained scale), with the median of their tuned step sizes and L as
# the tuning's starting values, and .wider_prior_tune tuning steps; the
# sampling steps are the default's.  Only where `fit` is that network (the
# same parameters, all its chains finished) and both run MCLMC with MILE's
# tuning; otherwise `plan` unchanged (a deep ensemble and the full tuning).
wider_prior_plan <- function(plan, fit) {
  s <- plan$sampler
  same <- inherits(s, "bnn_mclmc") && identical(s$tuning, "mile") &&
    inherits(fit$sampler, "bnn_mclmc") && isTRUE(fit$chains == plan$chains) &&
    is.null(plan$chain_id) && is.null(plan$waves) && is.null(fit$mixture) &&
    isTRUE(dim(fit$draws)[3L] == spec_dim(plan$model$spec)) &&
    identical(fit$likelihood$family, plan$model$likelihood$family) &&
    isTRUE(all(fit$chain_status == "ok")) && all(is.finite(c(fit$stepsize, fit$L)))
  if (!same) return(plan)
  last <- fit$draws[dim(fit$draws)[1L], , , drop = FALSE]
  th <- bnn_unconstrain(fit, t(matrix(last, nrow = fit$chains)))
  if (!all(is.finite(th))) return(plan)
  s$n_tune <- .wider_prior_tune
  s$stepsize <- stats::median(fit$stepsize)
  s$L <- stats::median(fit$L)
  plan$sampler <- s
  plan$warmup <- sum(s$n_tune)
  plan$init <- lapply(seq_len(fit$chains), function(k) as.double(th[, k]))
  plan$given_init <- TRUE
  plan$ensemble <- NULL
  plan
}

# The prior of the step's second fit, and how a user writes it.
widened_prior <- function(prior) {
  bnn_prior(family = prior$family, scale = .wider_prior_factor * prior$scale,
            bias_scale = .wider_prior_factor * prior$bias_scale, fan_in = TRUE)
}
prior_call <- function(prior) {
  sprintf("bnn_prior(%sscale = %s%s, fan_in = %s)",
          if (identical(prior$family, "normal")) "" else sprintf("\"%s\", ", prior$family),
          format(prior$scale),
          if (isTRUE(all.equal(prior$bias_scale, prior$scale))) "" else
            sprintf(", bias_scale = %s", format(prior$bias_scale)),
          format(prior$fan_in))
}

# PSIS-LOO of a finished default fit on all its training rows: a stack
# (network and linear model, or the two likelihoods) as the mixture of its
# models' predictive densities with the stack's weights, as loo() of the
# stacked fit computes it.  list(pointwise, k_high: the points with Pareto k
# above 0.7 in any of its models).  `loglik`: the verdict's pointwise
# log-likelihood of a fit without a mixture, when it covers every row.
default_fit_elpd <- function(fit, loglik = NULL) {
  # the first model's own draws (fit_psis_elpd() of the stacked fit would
  # pool both models' draws, and the second would count twice)
  e <- fit_psis_elpd(network_only(fit), if (is.null(fit$mixture)) loglik)
  if (is.null(fit$mixture)) return(list(pointwise = e$pointwise, k_high = e$k_high))
  m <- fit_psis_elpd(fit$mixture$fit)
  list(pointwise = log_mix(cbind(e$pointwise, m$pointwise), fit$mixture$weights),
       k_high = max(e$k_high, m$k_high))
}

# Share of the training points above which a fit's PSIS-LOO is not trusted
# to choose between the two priors (Pareto k above 0.7).
.wider_prior_max_k_share <- 0.1

# The step on two finished fits: `def` (list(fit, warnings), the default's
# choice) and `wide` (fit_plans()'s result, NULL when its fit failed).  The choice: by the larger PSIS-LOO
# elpd where both fits' PSIS-LOO holds (at most .wider_prior_max_k_share of
# the points with Pareto k above 0.7); where it does not (the wider prior's
# fit is flexible, and on mcycle its PSIS-LOO had 6 to 16% of the points
# above 0.7 and was up to 23 nats below the default's while its test log
# density was above it), the wider prior's fit when its own model-fit check
# finds no structure left, else the default's.  The comparison is recorded
# in the returned fit's verdict ($convergence$adequacy$wider_prior: elpds,
# their difference's SE, points with high Pareto k, whether the wider
# prior's fit left structure, which was returned, seconds, and whether it
# started from the default's chains, `warm`) and said in a
# message when the wider prior's fit is returned.  Returns list(fit,
# warnings) of the fit returned (the other's warnings are dropped).  When the default's
# fit is kept, its advice no longer names the prior just tried.
choose_wider_prior <- function(def, wide, seconds, warm = FALSE) {
  # both on all the training rows (not the verdict's at most 500)
  elpd <- function(f, ll = NULL) tryCatch(default_fit_elpd(f, ll), error = function(e) NULL)
  # the default's as its check computed it (returned_fit_elpd())
  e_def <- def$elpd %||% elpd(def$fit)
  # the wider fit's verdict kept its pointwise log-likelihood: on at most
  # 500 rows, that of every training row (the same values)
  ll <- if (!is.null(wide) && length(wide$loglik$points) == NROW(wide$fit$X)) wide$loglik
  e_wide <- if (!is.null(wide) && all(wide$fit$chain_status == "ok")) elpd(wide$fit, ll)
  if (is.null(e_def) || is.null(e_wide)) return(def)
  d <- e_wide$pointwise - e_def$pointwise
  n <- length(d)
  loo_holds <- max(e_def$k_high, e_wide$k_high) <= .wider_prior_max_k_share * n
  wide_adequate <- isTRUE(wide$fit$convergence$adequacy$adequate)
  use_wide <- if (loo_holds) sum(d) > 0 else wide_adequate
  out <- if (use_wide) wide else def
  rec <- list(elpd = c(default = sum(e_def$pointwise), wider = sum(e_wide$pointwise)),
              se_diff = sqrt(n * stats::var(d)),
              k_high = c(default = e_def$k_high, wider = e_wide$k_high), loo_holds = loo_holds,
              wider_adequate = wide_adequate, chosen = if (use_wide) "wider" else "default",
              prior = wide$fit$prior, seconds = seconds, warm_start = warm)
  cv <- out$fit$convergence
  if (!is.null(cv$adequacy)) {
    cv$adequacy$wider_prior <- rec
    if (!use_wide && isFALSE(cv$adequacy$adequate))
      cv$adequacy$remedy <- sprintf(paste0(
        "a network with a prior %s times wider was fitted and %s; compare a wider network ",
        "(e.g. hidden = c(32, 32)) or a model with these inputs transformed, with kfold(), and ",
        "check the predictions on held-out data"), format(.wider_prior_factor),
        if (loo_holds) sprintf("predicted these data worse (PSIS-LOO elpd %.1f against %.1f)",
                               rec$elpd[["wider"]], rec$elpd[["default"]])
        else "left structure too")
    out$fit <- bnnfit_with(out$fit, convergence = cv)
  }
  if (use_wide)
    message(sprintf(paste0(
      "bnn_fit(): the default's fit leaves structure in these data (in %s); the network with a ",
      "prior %s times wider (prior = %s) %s, so it is the fit returned; give 'prior' to fit ",
      "one prior (?bnn_default, \"The default model's check\")."),
      adequacy_terms(def$fit$convergence$adequacy), format(.wider_prior_factor),
      prior_call(wide$fit$prior), wider_prior_words(rec)))
  list(fit = out$fit, warnings = out$warnings)
}

# Why the wider prior's fit was returned, in words.
wider_prior_words <- function(rec) {
  if (rec$loo_holds)
    return(sprintf(paste0("predicts them better (PSIS-LOO elpd %.1f against %.1f, a ",
                          "difference of %.1f with SE %.1f)"), rec$elpd[["wider"]],
                   rec$elpd[["default"]], rec$elpd[["wider"]] - rec$elpd[["default"]],
                   rec$se_diff))
  sprintf(paste0("leaves none (PSIS-LOO cannot compare the two: %d of the points have a ",
                 "Pareto k above 0.7)"), max(rec$k_high))
}

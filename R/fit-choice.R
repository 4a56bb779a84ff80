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
# not switched off by options(bnnmc.linear_check = FALSE).
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

# Runs the network's fit (`fit_net`, a function of no arguments) and the
# linear model's (`fit_lin`), and stacks them (Yao, Vehtari, Simpson and
# Gelman 2018): the weights of the two predictive distributions that
# maximise the PSIS-LOO log score of their mixture (loo::stacking_weights()).
# When one model has (almost) all the weight it is returned alone (nearly
# always the one with the larger elpd); otherwise the network's fit is
# returned with the linear model's as its $mixture (R/predict-mixture.R).
# `$model_choice` says what was compared.  psis_elpd: fit_psis_elpd() (a
# test gives its own).  The warnings of the
# fit not returned are dropped (a convergence warning of a network that is
# not returned is no concern of the user's); those of the fit returned are
# signalled again after the choice.  The time of the whole check (the
# network, the linear model, the PSIS-LOO comparison and the total) is the
# attribute "timing" of `$model_choice`, which print() shows.
choose_default_model <- function(fit_net, fit_lin, psis_elpd = fit_psis_elpd) {
  t_start <- proc.time()[["elapsed"]]
  catch <- function(f) {
    w <- list()
    fit <- withCallingHandlers(f(), warning = function(cnd) {
      w[[length(w) + 1L]] <<- cnd
      invokeRestart("muffleWarning")
    })
    list(fit = fit, warnings = w)
  }
  net <- catch(fit_net)
  t0 <- proc.time()[["elapsed"]]
  lin <- tryCatch(catch(function() suppressMessages(fit_lin())), error = function(e) NULL)
  t1 <- proc.time()[["elapsed"]]
  elpd <- function(f) if (is.null(f)) NULL else tryCatch(psis_elpd(f), error = function(e) NULL)
  e_net <- elpd(net$fit)
  e_lin <- if (!is.null(lin) && all(lin$fit$chain_status == "ok")) elpd(lin$fit)
  both <- !is.null(e_net) && !is.null(e_lin)
  w <- if (both) stacking_pair(e_net$pointwise, e_lin$pointwise)
  stack <- both && min(w) >= .stack_min_weight
  use_lin <- both && !stack && w[2L] > w[1L]
  # the network's pointwise log-likelihood kept by its verdict for the
  # PSIS-LOO above is not part of the fit
  net$fit <- drop_verdict_loglik(net$fit)
  # the linear model's verdict, made only when it is returned alone (the
  # verdict of a stack is the network's); its warnings are the fit's
  if (use_lin) {
    v <- catch(function() bnnfit_with(lin$fit, convergence = check_convergence(lin$fit)))
    lin <- list(fit = v$fit, warnings = c(lin$warnings, v$warnings))
  }
  t2 <- proc.time()[["elapsed"]]
  seconds <- t2 - t0
  out <- if (use_lin) lin else net
  if (stack)
    out$fit <- bnnfit_with(out$fit, mixture = list(fit = lin$fit,
                                                   weights = c(network = w[1L], linear = w[2L])))
  if (both) {
    out$fit <- bnnfit_with(out$fit, model_choice = structure(
      data.frame(model = c("network", "linear"),
                 network = c(paste(net$fit$spec$sizes, collapse = "-"),
                             paste(lin$fit$spec$sizes, collapse = "-")),
                 elpd_loo = c(e_net$elpd, e_lin$elpd), se = c(e_net$se, e_lin$se),
                 pareto_k_high = c(e_net$k_high, e_lin$k_high), weight = w,
                 chosen = c(!use_lin, use_lin | stack), stringsAsFactors = FALSE),
      seconds = seconds,
      timing = c(total = t2 - t_start, network = t0 - t_start, linear = t1 - t0,
                 check = t2 - t1)))
  }
  lin_name <- if (identical(lin$fit$likelihood$family, "bernoulli"))
    "linear model (logistic regression)" else "linear model"
  if (use_lin)
    message(sprintf(paste0(
      "bnn_fit(): a Bayesian %s predicts these data better than the %s network ",
      "(PSIS-LOO elpd %.1f against %.1f), so it is the model returned%s; give 'hidden' to ",
      "keep the network (?bnn_fit, \"The default model's check\")."),
      lin_name,
      paste(net$fit$hidden, collapse = "-"), e_lin$elpd, e_net$elpd,
      uncertain_choice_note(e_net, e_lin, nrow(net$fit$X))))
  if (stack)
    message(sprintf(paste0(
      "bnn_fit(): the %s network and a Bayesian %s predict these data about equally well ",
      "(PSIS-LOO elpd %.1f against %.1f), so the fit returned stacks them: its predictions use ",
      "the network's draws with weight %.2f and the linear model's with weight %.2f%s; give ",
      "'hidden' to keep the network alone (?bnn_fit, \"The default model's check\")."),
      paste(net$fit$hidden, collapse = "-"),
      lin_name,
      e_net$elpd, e_lin$elpd, w[1L], w[2L], uncertain_choice_note(e_net, e_lin, nrow(net$fit$X))))
  for (cnd in out$warnings) warning(cnd)
  out$fit
}

# A fit without the pointwise log-likelihood its verdict kept for the
# check (check_convergence(keep_loglik = TRUE)).
drop_verdict_loglik <- function(fit) {
  if (is.null(attr(fit$convergence, "pointwise_loglik"))) return(fit)
  cv <- fit$convergence
  attr(cv, "pointwise_loglik") <- NULL
  bnnfit_with(fit, convergence = cv)
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
  if (all(ch))
    return(sprintf(paste0("the %s network and the linear model, stacked with weights %.2f ",
                          "and %.2f (PSIS-LOO elpd %.1f and %.1f)"),
                   mc$network[1], mc$weight[1], mc$weight[2], mc$elpd_loo[1], mc$elpd_loo[2]))
  sprintf("%s (PSIS-LOO elpd %.1f against %.1f for the %s)",
          if (ch[2]) "the linear model, by the default's check" else
            "the network, by the default's check",
          mc$elpd_loo[ch], mc$elpd_loo[!ch],
          if (ch[2]) sprintf("%s network", mc$network[1]) else "linear model")
}

# ggplot2 warns once per session about deprecated arguments that bayesplot
# (ppc_intervals(), loo_intervals) and rstan (which shinystan loads) still
# pass.  Those warnings are other packages' to fix; they are raised here,
# once and muffled, so that they do not land in whichever test happens to
# call those packages first.  bnnmc's own plots are built after this and
# any deprecation of theirs still shows.
local({
  muffle <- function(expr) withCallingHandlers(expr, lifecycle_warning_deprecated =
                                                 function(w) invokeRestart("muffleWarning"))
  if (requireNamespace("bayesplot", quietly = TRUE))
    try(muffle(bayesplot::ppc_intervals(y = c(1, 2, 3), yrep = matrix(c(1, 2, 3, 2, 3, 4), 2))),
        silent = TRUE)
  if (nzchar(system.file(package = "shinystan")))
    try(muffle(loadNamespace("shinystan")), silent = TRUE)
})

# Registration of bnnmc's methods and engines in suggested packages
# (parsnip, shinystan, marginaleffects) when those packages are loaded.
#
# bnnmc imports none of them.  .onLoad() (R/zzz.R) registers at once for
# each package whose namespace is already loaded and sets a
# packageEvent(pkg, "onLoad") hook for the others, so e.g.
# `library(bnnmc); library(parsnip)` and `library(parsnip); library(bnnmc)`
# both give the "bnnmc" engine.  A registration that fails warns and leaves
# the other package working.  Hooks set by an earlier load of bnnmc (e.g.
# after unloading and loading it again) are replaced, not stacked.

# A clear error when a suggested package is needed and missing.
eco_need <- function(pkg, what) {
  if (!requireNamespace(pkg, quietly = TRUE))
    stop(sprintf("Package '%s' is needed for %s; install it with install.packages(\"%s\").",
                 pkg, what, pkg), call. = FALSE)
  invisible(TRUE)
}

eco_registrations <- function() {
  list(parsnip = register_parsnip_engine,
       shinystan = register_shinystan,
       marginaleffects = register_marginaleffects)
}

eco_try_register <- function(pkg, fun) {
  tryCatch(fun(), error = function(e)
    warning(sprintf("bnnmc could not register its %s integration: %s", pkg,
                    conditionMessage(e)), call. = FALSE))
  invisible(NULL)
}

eco_register_all <- function() {
  regs <- eco_registrations()
  for (pkg in names(regs)) {
    hook_name <- packageEvent(pkg, "onLoad")
    old <- getHook(hook_name)
    keep <- Filter(function(h) is.null(attr(h, "bnnmc_hook")), old)
    if (length(keep) != length(old)) setHook(hook_name, keep, "replace")
    hook <- local({
      p <- pkg
      f <- regs[[pkg]]
      function(...) eco_try_register(p, f)
    })
    attr(hook, "bnnmc_hook") <- TRUE
    setHook(hook_name, hook, "append")
    if (isNamespaceLoaded(pkg)) eco_try_register(pkg, regs[[pkg]])
  }
  invisible(NULL)
}

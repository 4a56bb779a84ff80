# A fit is built by its one constructor, new_bnnfit(), and copied with
# fields replaced by bnnfit_with() (R/utils-fit-object.R), which validate
# it: no other code writes a fit's fields.  A static check of the package's
# R sources (read from the source tree, or the sources R CMD check unpacked:
# an installed package has none).

# The writes to a fit's fields in the R code `exprs` (parsed expressions):
# one line per write, "<function>: <target>".  A variable holds a fit if it
# is named so (fit, object, sub, fit_*, *_fit), is the first argument of a
# bnnfit method, or is assigned one somewhere in the same top-level
# definition (a fit, an element of a list of fits, a fit made by the
# constructor or a copy of one, unclass() of a fit); `fits` is a list of
# them.  A write is a replacement (fit$x <- , fit[["x"]] <- ,
# fits[[i]]$x <- , attr(fit, "a") <- , class(fit) <- , ...) or a call of
# within(), modifyList() or a replacement function (`$<-`(fit, ...)) on it.
fit_field_writes <- function(exprs) {
  fit_calls <- c("network_only", "bnnfit_with", "new_bnnfit", "bnnfit_subset_chains",
                 "bnn_fit", "as_bnnfit")
  write_calls <- c("within", "modifyList", "$<-", "[[<-", "[<-", "attr<-", "class<-",
                   "attributes<-", "names<-", "oldClass<-")
  fun_name <- function(e) {
    f <- e[[1L]]
    if (is.call(f) && identical(f[[1L]], quote(`::`))) f <- f[[3L]]
    if (is.symbol(f)) as.character(f) else ""
  }
  # the variable a replacement's target belongs to: fit$a$b, fit[["a"]],
  # attr(fit, "x") -> fit; of a list of fits, an element's: fits[[i]]$a ->
  # fits, but not fits[[i]] or names(fits)
  root <- function(e) {
    path <- list()
    while (is.call(e) && length(e) > 1L) {
      path <- c(list(e), path)
      e <- e[[2L]]
    }
    if (!is.symbol(e)) return("")
    if (as.character(e) %in% lists && length(path) < 2L) return("")
    as.character(e)
  }
  is_assign <- function(e) is.call(e) && fun_name(e) %in% c("<-", "=", "<<-")
  walk <- function(e, f) {
    f(e)
    if (is.call(e) || is.expression(e) || is.pairlist(e))
      for (a in as.list(e)) if (!missing(a)) walk(a, f)
  }
  out <- character(0)
  for (top in as.list(exprs)) {
    name <- if (is_assign(top) && is.symbol(top[[2L]])) as.character(top[[2L]]) else "<top>"
    lists <- "fits"
    fits <- c("fit", "object", "sub", lists)
    named <- function(v) v %in% fits || grepl("^fit_|_fit$", v)
    if (grepl("\\.(bnnfit|bnn_approx)$", name) && is.call(top[[3L]]) &&
        fun_name(top[[3L]]) == "function" && length(top[[3L]][[2L]]))
      fits <- c(fits, names(top[[3L]][[2L]])[1L])
    fit_valued <- function(v) {
      if (is.symbol(v)) return(named(as.character(v)))
      is.call(v) && (fun_name(v) %in% fit_calls ||
                       (fun_name(v) == "unclass" && fit_valued(v[[2L]])) ||
                       (fun_name(v) %in% c("[[", "[") && is.symbol(v[[2L]]) &&
                          as.character(v[[2L]]) %in% lists))
    }
    # the variables assigned a fit, until no more are found
    repeat {
      n <- length(fits)
      walk(top, function(e) {
        if (is_assign(e) && is.symbol(e[[2L]]) && fit_valued(e[[3L]]))
          fits <<- union(fits, as.character(e[[2L]]))
      })
      if (length(fits) == n) break
    }
    walk(top, function(e) {
      if (!is.call(e)) return()
      if (is_assign(e) && is.call(e[[2L]]) && named(root(e[[2L]])))
        out <<- c(out, paste0(name, ": ", deparse1(e[[2L]])))
      if (fun_name(e) %in% write_calls && length(e) > 1L && named(root(e[[2L]])))
        out <<- c(out, paste0(name, ": ", deparse1(e)))
    })
  }
  out
}

test_that("the check finds every kind of write to a fit's fields", {
  code <- parse(text = c(
    "update.bnnfit <- function(object, ...) { fit <- eval(call); fit$call <- call; fit }",
    "g <- function(fits) { for (i in 1:2) fits[[i]]$chain_id <- i; f <- fits[[1]]",
    "  f[['seed']] <- 1; attr(f, 'x') <- 2 }",
    "h <- function(obj) { sub <- network_only(obj); sub$X <- 1; class(sub) <- 'a' }",
    "k <- function(x) { y <- bnnfit_with(x, call = NULL); y <- within(y, seed <- 1);",
    "  y <- utils::modifyList(y, list(seed = 2)) }",
    "print.bnnfit <- function(x, ...) x$chains <- 1",
    "n <- function(fit) { u <- unclass(fit); u$seed <- 1 }",
    # not writes to a fit: a copy of a field, a list holding a fit or of
    # fits, other objects
    "m <- function(fit, fits) { s <- fit$spec; s$X <- 1; out <- list(fit = fit); out$fit <- NULL",
    "  names(fits) <- 1:2; fits[[1]] <- fit; o <- unclass(s); o$X <- 2",
    "  res <- list(); res$draws <- 1; bnnfit_with(fit, seed = 2); fit$draws[, 1] }"),
    keep.source = FALSE)
  found <- fit_field_writes(code)
  expect_identical(found, c(
    "update.bnnfit: fit$call", "g: fits[[i]]$chain_id", "g: f[[\"seed\"]]",
    "g: attr(f, \"x\")", "h: sub$X", "h: class(sub)", "k: within(y, seed <- 1)",
    "k: utils::modifyList(y, list(seed = 2))", "print.bnnfit: x$chains", "n: u$seed"))
})

test_that("no code outside the fit object's file writes a fit's fields", {
  # the source tree's R/, or under R CMD check the sources it unpacked
  r_dir <- c(testthat::test_path("../../R"), testthat::test_path("../../00_pkg_src/bnnmc/R"))
  r_dir <- r_dir[dir.exists(r_dir)][1L]
  skip_if(is.na(r_dir), "the package's R sources are not here (an installed package)")
  files <- setdiff(list.files(r_dir, pattern = "\\.R$"), "utils-fit-object.R")
  expect_gt(length(files), 50L)
  found <- unlist(lapply(files, function(f) {
    w <- fit_field_writes(parse(file.path(r_dir, f), keep.source = FALSE))
    if (length(w)) paste0(f, ": ", w) else character(0)
  }))
  expect_identical(found, character(0))
})

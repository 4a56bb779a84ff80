#' Running chains in parallel and on clusters
#'
#' [bnn_fit()] runs its chains through the \pkg{future} framework whenever
#' the \pkg{future} and \pkg{future.apply} packages are installed, with
#' whatever plan the user has set ([future::plan()]); the default plan is
#' sequential, under which the chains run one after another in the R
#' session itself (no future is made for them).  The draws are the same
#' under every plan: each chain has its
#' own random number stream from `seed` and the chain index, in C, and no
#' chain uses R's random number generator.
#'
#' @section On one machine:
#' As with rstan, rstanarm and brms, `options(mc.cores = n)` runs the chains
#' of every fit on up to `n` cores (forked workers where the platform has
#' them, i.e. not on Windows nor in RStudio, background R sessions
#' otherwise), when no \pkg{future} plan is set:
#' ```
#' options(mc.cores = parallel::detectCores())
#' fit <- bnn_fit(y ~ ., data = d, chains = 4, seed = 1)
#' ```
#' A plan set with [future::plan()] takes precedence over `mc.cores`:
#' ```
#' future::plan(future::multisession, workers = 4)
#' fit <- bnn_fit(y ~ ., data = d, chains = 4, seed = 1)
#' future::plan(future::sequential)
#' ```
#' Each worker is a separate R process that loads bnnmc; `multisession`
#' gives workers the calling session's library paths ([.libPaths()]).  For
#' other plans on the same machine, e.g. a PSOCK cluster made with
#' [parallelly::makeClusterPSOCK()], pass `rscript_libs = .libPaths()` when
#' bnnmc is installed in a non-default library.  Each chain is its own
#' future: with fewer workers than chains, a worker starts the next chain as
#' soon as it is free.
#'
#' When the default call stacks two networks (on 201 to 2,000 rows of a
#' continuous response, see [bnn_fit()]), both are prepared first (their
#' deep ensembles and starts) and then all their chains go to the workers
#' together, so that `chains = 4` on four cores runs four chains at once,
#' not two and then two.  The draws are those of the two models fitted one
#' after the other, which is what one core does.
#'
#' @section On a cluster with a job scheduler:
#' With \pkg{future.batchtools} every chain becomes a job of the scheduler
#' (Slurm, SGE, Torque/PBS, LSF, ...), described by a batchtools template
#' file:
#' ```
#' library(future.batchtools)
#' future::plan(batchtools_slurm, template = "slurm.tmpl",
#'              resources = list(ncpus = 1, memory = 2000, walltime = 3600))
#' fit <- bnn_fit(y ~ ., data = d, chains = 12, seed = 1)
#' ```
#' The same version of bnnmc must be installed on the compute nodes, in a
#' library the jobs see (e.g. through `R_LIBS_USER` in the template).
#' The plan's `workers` argument limits how many chains are queued at once.
#' Nested plans such as `plan(list(tweak(batchtools_slurm, ...),
#' multisession))` are not needed: chains are the only level of parallelism.
#'
#' @section Interrupting a fit:
#' An interrupt (Ctrl-C), an error in a chain or a time limit ends
#' [bnn_fit()] at once, also under a parallel plan.  An interrupt first
#' keeps the chains that had finished and says so in one message
#' ("bnn_fit() interrupted: 2 of 4 chains had finished; bnn_interrupted()
#' returns a fit of those 2 chains."); [bnn_interrupted()] returns them as
#' a fit.  Run one after another, every finished chain is kept; under
#' `options(mc.cores)` or a parallel plan, those whose futures had returned
#' their value.  The default model's checks on up to 2,000 rows fit two
#' models and keep nothing, nor do fits in waves; the message says so.
#' The interrupt still goes on, so a script stops.  The chains still
#' running in the workers are stopped: with \pkg{future} 1.40 or later
#' through `future::cancel()`, which interrupts the workers of multisession,
#' cluster, callr and mirai plans; with older versions of \pkg{future} the
#' workers on this machine that still run a chain are ended and the plan is
#' set again (fresh workers for the next fit).  Jobs already submitted to a
#' scheduler (\pkg{future.batchtools}) are cancelled only where the backend
#' supports `future::cancel()`; otherwise they run to their end and their
#' results are discarded.
#'
#' @section Progress:
#' With `progress = TRUE` (the default in interactive sessions) progress is
#' reported through \pkg{progressr}, per chain and phase (warm-up,
#' sampling), with the time left, and the updates are relayed from the
#' workers as they arrive for plans that support it (multisession,
#' multicore, cluster).  In a session that is not interactive (Rscript, a
#' batch job) progress is one message line every 30 seconds
#' (`options(bnnmc.progress_interval = seconds)`) with the chains done, the
#' chain running and its phase, the time left and the time elapsed: with
#' `progress = TRUE`, and by default (`NULL`) for a fit whose cost
#' estimate is above a minute.  The bar follows
#' [progressr::handlers()], e.g. `progressr::handlers("cli")`; if progress
#' reporting is enabled globally (`progressr::handlers(global = TRUE)`),
#' bnnmc uses that.  Handlers chosen with [progressr::handlers()] (or
#' global reporting) are used instead of the lines too.  Without progressr
#' nothing is shown.
#'
#' @template reproducibility
#' @name bnnmc-parallel
#' @examplesIf requireNamespace("future", quietly = TRUE) && requireNamespace("future.apply", quietly = TRUE)
#' old <- future::plan(future::sequential)
#' a <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 2,
#'              warmup = 300, iter = 300, seed = 3, progress = FALSE, sampler = "nuts")
#' future::plan(old)
#' b <- bnn_fit(mpg ~ wt, data = mtcars, hidden = 2, chains = 2,
#'              warmup = 300, iter = 300, seed = 3, progress = FALSE, sampler = "nuts")
#' identical(a$draws, b$draws)
NULL

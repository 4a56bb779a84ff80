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
#' bnnmc is installed in a non-default library.  \pkg{future.mirai}'s
#' `future::plan(future.mirai::mirai_multisession, workers = 4)` works the
#' same way, with \pkg{mirai}'s background processes as workers.
#'
#' When the default call stacks two networks (on 201 to 2,000 rows of a
#' continuous response, see [bnn_fit()]), both are prepared first (their
#' deep ensembles and starts) and then all their chains go to the workers
#' together, so that `chains = 4` on four cores runs four chains at once,
#' not two and then two.  The draws are those of the two models fitted one
#' after the other, which is what one core does.
#'
#' @section How the chains and the data go to the workers:
#' Every worker receives the data the chains need (the design matrix and the
#' response) with the chains it runs.  With small data (up to 1 MB, about
#' 12,000 rows of 10 inputs) each chain is its own future (with more than 4
#' chains per worker, a few chains share one): a worker starts the next
#' chain as soon as it is free, which balances chains of unequal length.
#' With larger data the chains are split evenly into one batch per worker,
#' run one after another there, so that the data go to each worker once per
#' fit (per wave with `chains = bnn_waves()`) rather than once per chain (4
#' chains on 2 workers: twice, not 4 times).  Forked workers
#' (`options(mc.cores)` on Linux and macOS) share the session's memory and
#' receive no copy.
#' `options(bnnmc.chains_per_future = n)` sets the number of chains per
#' future instead.  The draws do not depend on how the chains are batched.
#'
#' @section On other machines:
#' \pkg{mirai} starts workers ("daemons") on other machines, which connect
#' back to this session, and \pkg{future.mirai}'s `mirai_cluster` plan runs
#' the chains on them.  Here over SSH (key-based authentication already in
#' place), one daemon on each machine listed (list a machine again to start
#' more daemons there), dialling back to this machine's address
#' (`mirai::host_url()`; its port must be open to them, or use
#' `url = mirai::local_url(tcp = TRUE)` with `ssh_config(..., tunnel = TRUE)`
#' to go through SSH tunnels instead):
#' ```
#' mirai::daemons(n = 2, url = mirai::host_url(),
#'                remote = mirai::ssh_config(c("ssh://node1", "ssh://node2")))
#' while (mirai::info()[["connections"]] < 2) Sys.sleep(1)
#' future::plan(future.mirai::mirai_cluster)
#' fit <- bnn_fit(y ~ ., data = d, chains = 4, seed = 1)
#' future::plan(future::sequential)
#' mirai::daemons(0)
#' ```
#' `mirai::cluster_config()` launches the daemons as jobs of a scheduler
#' (Slurm, SGE, LSF, Torque/PBS) in the same way.  The same version of
#' bnnmc must be installed on the remote machines, where their `Rscript`
#' finds it.  The data go to each daemon once per fit when they are large
#' (see above), and the draws are those of a sequential run.  A fit under a
#' plan with no daemon connected stops with an error instead of waiting.
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
#' The plan's `workers` argument limits how many chains are queued at once;
#' each job receives the data with its chains, so with large data a
#' `workers` value below the number of chains sends them fewer times.
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
#' A worker process that dies while it runs a chain (killed, or out of
#' memory) ends the fit with an error that names the chains lost with it,
#' under `options(mc.cores)`, multisession, PSOCK cluster and
#' \pkg{future.mirai} plans alike.
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

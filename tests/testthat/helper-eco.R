# The number of draws of a fit (all chains, all kept iterations).
ndraws_fit <- function(fit) dim(fit$draws)[1] * sum(fit$chain_status == "ok")

# Small fits shared by the ecosystem, parallel and plot tests, made once per
# test run (each takes well under a second).
eco_fits <- local({
  cache <- list()
  function(what = c("reg", "gauss", "bern", "cat")) {
    what <- match.arg(what)
    if (is.null(cache[[what]])) {
      cache[[what]] <<- suppressWarnings(switch(what,
        reg = bnn_fit(mpg ~ wt + hp, data = mtcars, hidden = 3, chains = 3,
                      warmup = 80, iter = 40, seed = 11, progress = FALSE, sampler = "nuts",
                      likelihood = "hetero_gaussian"),
        gauss = bnn_fit(mpg ~ wt + factor(am), data = mtcars, hidden = 3,
                        likelihood = "gaussian", chains = 2, warmup = 80, iter = 15,
                        thin = 2, seed = 12, progress = FALSE, sampler = "nuts"),
        bern = bnn_fit(am ~ wt + hp, data = transform(mtcars, am = am == 1), hidden = 3,
                       chains = 2, warmup = 80, iter = 40, seed = 13, progress = FALSE, sampler = "nuts"),
        cat = bnn_fit(Species ~ Sepal.Length + Petal.Length,
                      data = iris[c(1:12, 51:62, 101:112), ], hidden = 3, chains = 2,
                      warmup = 80, iter = 40, seed = 14, progress = FALSE, sampler = "nuts")))
    }
    cache[[what]]
  }
})

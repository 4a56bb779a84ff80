# The approximate baselines of Staber & Da Veiga as named methods of
# coverage studies (bnn_method(), bnn_coverage_study()).  In a file of
# their own because register_method() (methods-registry.R) must be defined
# before these calls run when the package is loaded.

register_method("laplace", function(formula, data, model, seed, s) {
  do.call(bnn_laplace, c(list(formula = formula, data = data, hessian = s$hessian,
                              prior_precision = s$prior_precision, optimizer = s$optimizer,
                              draws = s$draws, seed = seed), fit_args(model)))
}, function() list(hessian = "kfac", prior_precision = NULL, draws = 2000L,
        optimizer = bnn_optimizer(optimizer = "adam", lr = 1e-2, weight_decay = 0,
                                  epochs = 1000, batch_size = 32, loss = "posterior")),
"Laplace approximation at the MAP (bnn_laplace(); LA-KFAC by default)")

register_method("mc_dropout", function(formula, data, model, seed, s) {
  do.call(bnn_mc_dropout, c(list(formula = formula, data = data, dropout = s$dropout,
                                 input_dropout = s$input_dropout, optimizer = s$optimizer,
                                 draws = s$draws, seed = seed), fit_args(model)))
}, function() list(dropout = 0.1, input_dropout = 0, draws = 2000L,
        optimizer = bnn_optimizer(optimizer = "adam", lr = 1e-2, weight_decay = 0,
                                  epochs = 1000, batch_size = 32, loss = "posterior")),
"MC dropout (bnn_mc_dropout())")

register_method("swag", function(formula, data, model, seed, s) {
  do.call(bnn_swag, c(list(formula = formula, data = data, rank = s$rank, epochs = s$epochs,
                           collect_every = s$collect_every, lr = s$lr, momentum = s$momentum,
                           batch_size = s$batch_size, optimizer = s$optimizer,
                           draws = s$draws, keep_iterates = FALSE, seed = seed),
                      fit_args(model)))
}, function() list(rank = 20L, epochs = 200L, collect_every = 1L, lr = 1e-3, momentum = 0,
        batch_size = 32L, draws = 2000L,
        optimizer = bnn_optimizer(optimizer = "adam", lr = 1e-2, weight_decay = 0,
                                  epochs = 1000, batch_size = 32, loss = "posterior")),
"SWAG from an SGD trajectory started at the MAP (bnn_swag())")

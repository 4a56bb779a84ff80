# Quick start: a Bayesian neural network for the Boston housing data, fitted
# by MILE (a deep ensemble, then one microcanonical Langevin chain per
# member; bnn_fit()'s default sampler) on 70% of the rows, with 10% for the
# ensemble's early stopping, and evaluated on the held-out 20% (MILE's split
# protocol).  The network is a 16-16 ReLU one, with the package's default
# likelihood (Gaussian, one sigma); MILE's paper uses the heteroscedastic
# Gaussian (likelihood = "hetero_gaussian") and 12 chains.
library(bnnmc)
data("Boston", package = "MASS")
s <- bnn_split(Boston, "mile", seed = 1)
train <- s$train
valid <- s$valid
test <- s$test
fit <- bnn_fit(medv ~ ., data = train, hidden = c(16, 16), activation = "relu",
               sampler = "mile", chains = 4, valid_data = valid, seed = 1)
print(fit)
pred <- predict(fit, newdata = test, type = "interval", level = 0.9)
print(head(pred))
m <- bnn_metrics(fit, newdata = test)   # on the response's scale ($1000s)
cat(sprintf("test RMSE %.2f (in $1000s), test LPPD %.3f, empirical coverage of 90%% intervals %.2f\n",
            m$rmse, m$lppd, m$coverage_90))
ms <- bnn_metrics(fit, newdata = test, scale = "standardized")
cat(sprintf("test RMSE %.3f, test LPPD %.3f (standardized scale, as the papers report)\n",
            ms$rmse, ms$lppd))

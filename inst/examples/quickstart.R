# Quick start: a Bayesian neural network for the Boston housing data, fitted
# by MILE (a deep ensemble, then one microcanonical Langevin chain per
# member) on 80% of the rows and evaluated on the held-out 20%.
library(bnnmc)
data("Boston", package = "MASS")
set.seed(1)
test_rows <- sample(nrow(Boston), round(0.2 * nrow(Boston)))
train <- Boston[-test_rows, ]
test <- Boston[test_rows, ]
fit <- bnn_fit(medv ~ ., data = train, hidden = c(16, 16), activation = "relu",
               sampler = "mile", chains = 4, seed = 1)
print(fit)
pred <- predict(fit, newdata = test, type = "interval", level = 0.9)
print(head(pred))
m <- bnn_metrics(fit, newdata = test)
cat(sprintf("test RMSE %.3f, test LPPD %.3f (standardised scale, as the papers report)\n",
            m$rmse, m$lppd))
m0 <- bnn_metrics(fit, newdata = test, scale = "original")
cat(sprintf("test RMSE %.2f (in $1000s), empirical coverage of 90%% intervals %.2f\n",
            m0$rmse, m0$coverage_90))

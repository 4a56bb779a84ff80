# Quick start: a Bayesian neural network for the Boston housing data, fitted
# by NUTS on 80% of the rows and evaluated on the held-out 20%.
library(bnnmc)
data("Boston", package = "MASS")
set.seed(1)
test_rows <- sample(nrow(Boston), round(0.2 * nrow(Boston)))
train <- Boston[-test_rows, ]
test <- Boston[test_rows, ]
fit <- bnn_fit(medv ~ ., data = train, hidden = c(8, 8), activation = "tanh",
               chains = 2, warmup = 200, iter = 200, seed = 1)
print(fit)
pred <- predict(fit, newdata = test, type = "interval", level = 0.9)
print(head(pred))
m <- bnn_metrics(fit, newdata = test)
cat(sprintf("test RMSE %.3f, test LPPD %.3f (standardised scale), 90%% coverage %.2f\n",
            m$rmse, m$lppd, m$coverage_90))

library(testthat)
library(bnnmc)

test_check("bnnmc")

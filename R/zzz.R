# What bnnmc does when it is loaded: the kernels of options(bnnmc.kernels)
# or BNNMC_KERNELS (R/run-kernels.R), and the engines and methods for
# suggested packages (R/eco-register.R).
.onLoad <- function(libname, pkgname) {
  kernels_on_load()
  eco_register_all()
}

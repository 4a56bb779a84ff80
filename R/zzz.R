# What bnnmc does when it is loaded: the SIMD level of options(bnnmc.simd)
# or BNNMC_SIMD (R/run-simd.R), and the engines and methods for
# suggested packages (R/eco-register.R).
.onLoad <- function(libname, pkgname) {
  simd_on_load()
  eco_register_all()
}

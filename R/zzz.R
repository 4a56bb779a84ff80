.onLoad <- function(libname, pkgname) {
  # engines and methods for suggested packages (R/eco-register.R)
  eco_register_all()
}

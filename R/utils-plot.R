# Layout helpers of the base-graphics plots (methods-plot, symmetry-modes).

# Panels in a grid: one row for up to three, otherwise about square.
panel_grid <- function(n) {
  nc <- if (n <= 3L) n else ceiling(sqrt(n))
  c(ceiling(n / nc), nc)
}

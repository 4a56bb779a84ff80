# The panel of default_panel.R for the scripts that reuse it
# (default_likelihood_small.R, default_student.R, panel_stacking.R): its
# sets, splits and scoring, i.e. its assignments of functions and of
# `sets` and `uci_dir`, evaluated in a new environment without running the
# panel.  `dir` is the folder of default_panel.R; `file` another script of
# that folder whose functions are wanted the same way (prior_scale_panel.R
# takes adequacy_panel.R's references).
panel_definitions <- function(dir, file = "default_panel.R") {
  env <- new.env()
  for (e in parse(file.path(dir, file))) {
    if (is.call(e) && identical(e[[1]], as.name("<-")) &&
        (is.call(e[[3]]) && identical(e[[3]][[1]], as.name("function")) ||
         as.character(e[[2]]) %in% c("sets", "uci_dir")))
      eval(e, env)
  }
  env
}

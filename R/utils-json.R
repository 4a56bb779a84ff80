# JSON files: read with jsonlite when installed, else with the parser below.
.bnn_read_json <- function(file) {
  if (requireNamespace("jsonlite", quietly = TRUE)) {
    out <- tryCatch(jsonlite::fromJSON(file, simplifyVector = TRUE),
                    error = function(e) stop("cannot parse JSON file '", file, "': ",
                                             conditionMessage(e), call. = FALSE))
  } else {
    txt <- paste(readLines(file, warn = FALSE, encoding = "UTF-8"), collapse = "\n")
    out <- tryCatch(.bnn_json_parse(txt),
                    error = function(e) stop("cannot parse JSON file '", file, "': ",
                                             conditionMessage(e), call. = FALSE))
  }
  if (!is.list(out) || is.null(names(out)))
    stop("JSON file '", file, "' must hold an object with one entry per data set",
         call. = FALSE)
  out
}

# A small strict JSON parser (RFC 8259 grammar), used only when jsonlite is
# not installed.  Objects become named lists, arrays of scalars atomic
# vectors (numbers double, null NA), other arrays lists.
.bnn_json_parse <- function(txt) {
  pat <- paste0('"(?:[^"\\\\\\x00-\\x1f]|\\\\["\\\\/bfnrt]|\\\\u[0-9A-Fa-f]{4})*"',
                "|-?(?:0|[1-9][0-9]*)(?:\\.[0-9]+)?(?:[eE][+-]?[0-9]+)?",
                "|true|false|null|[][{}:,]|\\S")
  tok <- regmatches(txt, gregexpr(pat, txt, perl = TRUE))[[1L]]
  if (!length(tok)) stop("empty JSON text", call. = FALSE)
  nt <- length(tok)
  first <- substr(tok, 1L, 1L)
  is_str <- first == '"'
  is_num <- grepl("^-?[0-9]", tok)
  is_lit <- tok %in% c("true", "false", "null")
  is_scalar <- is_str | is_num | is_lit
  is_punct <- tok %in% c("[", "]", "{", "}", ":", ",")
  if (any(!is_scalar & !is_punct))
    stop("unexpected character '", tok[!is_scalar & !is_punct][1L], "'", call. = FALSE)
  unescape <- function(s) {
    s <- substr(s, 2L, nchar(s) - 1L)
    if (!grepl("\\", s, fixed = TRUE)) return(s)
    m <- gregexpr('\\\\(u[0-9A-Fa-f]{4}|["\\\\/bfnrt])', s, perl = TRUE)
    regmatches(s, m) <- list(vapply(regmatches(s, m)[[1L]], function(e) {
      c0 <- substr(e, 2L, 2L)
      switch(c0, u = intToUtf8(strtoi(substr(e, 3L, 6L), 16L)), b = "\b",
             f = "\f", n = "\n", r = "\r", t = "\t", c0)
    }, ""))
    s
  }
  scalar <- function(k) {
    t <- tok[k]
    if (is_num[k]) as.numeric(t)
    else if (is_str[k]) unescape(t)
    else if (t == "null") NA
    else t == "true"
  }
  pos <- 1L
  expect <- function(t) {
    if (pos > nt || tok[pos] != t)
      stop("expected '", t, "' at token ", pos,
           if (pos <= nt) paste0(" but found '", tok[pos], "'") else " (end of text)",
           call. = FALSE)
    pos <<- pos + 1L
  }
  value <- function() {
    if (pos > nt) stop("unexpected end of JSON text", call. = FALSE)
    t <- tok[pos]
    if (t == "{") {
      pos <<- pos + 1L
      out <- list()
      if (pos <= nt && tok[pos] == "}") { pos <<- pos + 1L; return(structure(list(), names = character())) }
      repeat {
        if (pos > nt || !is_str[pos]) stop("expected a string key at token ", pos, call. = FALSE)
        key <- unescape(tok[pos]); pos <<- pos + 1L
        expect(":")
        v <- value()
        out[key] <- list(v)
        if (pos <= nt && tok[pos] == ",") { pos <<- pos + 1L; next }
        expect("}")
        return(out)
      }
    }
    if (t == "[") {
      pos <<- pos + 1L
      if (pos <= nt && tok[pos] == "]") { pos <<- pos + 1L; return(list()) }
      # Fast path: a flat array of scalars "v , v , ... ]".
      close <- match("]", tok[pos:nt]) + pos - 1L
      if (!is.na(close) && (close - pos) %% 2L == 1L) {
        el <- seq.int(pos, close - 1L, by = 2L)
        sep <- el[-length(el)] + 1L
        if (all(is_scalar[el]) && all(tok[sep] == ",")) {
          pos <<- close + 1L
          if (all(is_num[el])) return(as.numeric(tok[el]))
          if (all(is_str[el])) return(vapply(tok[el], unescape, "", USE.NAMES = FALSE))
          vals <- lapply(el, scalar)
          if (all(is_lit[el])) return(unlist(vals))
          return(vals)
        }
      }
      out <- list()
      repeat {
        out[[length(out) + 1L]] <- value()
        if (pos <= nt && tok[pos] == ",") { pos <<- pos + 1L; next }
        expect("]")
        return(out)
      }
    }
    if (is_scalar[pos]) { pos <<- pos + 1L; return(scalar(pos - 1L)) }
    stop("unexpected '", t, "' at token ", pos, call. = FALSE)
  }
  out <- value()
  if (pos <= nt) stop("trailing text after the JSON value: '", tok[pos], "'", call. = FALSE)
  out
}

# kripp_irr.R runs R's irr::kripp.alpha for reliability_ref.py. The file
# named by the first argument has one data set per line:
#   name|u1r1,u1r2,...;u2r1,...        (units separated by ';', NA missing)
# and this script prints name|metric|alpha for the three metrics.
# Requires Debian's r-cran-irr.
suppressPackageStartupMessages(library(irr))
args <- commandArgs(trailingOnly = TRUE)
for (ln in readLines(args[1])) {
  parts <- strsplit(ln, "|", fixed = TRUE)[[1]]
  rows <- lapply(strsplit(parts[2], ";", fixed = TRUE)[[1]],
                 function(r) as.numeric(strsplit(r, ",", fixed = TRUE)[[1]]))
  width <- max(sapply(rows, length))
  m <- t(sapply(rows, function(r) c(r, rep(NA, width - length(r)))))
  for (method in c("nominal", "ordinal", "interval")) {
    a <- kripp.alpha(t(m), method = method)$value
    cat(sprintf("%s|%s|%.17g\n", parts[1], method, a))
  }
}

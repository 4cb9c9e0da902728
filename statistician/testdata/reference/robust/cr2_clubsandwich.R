# cr2_clubsandwich.R runs clubSandwich's CR2 test of a mean for
# robust_ref.py. The file named by the first argument has one data set
# per line, name|y1,y2,...|g1,g2,..., and this script prints
# name|se|df. Requires Debian's r-cran-clubsandwich.
suppressPackageStartupMessages(library(clubSandwich))
args <- commandArgs(trailingOnly = TRUE)
for (ln in readLines(args[1])) {
  parts <- strsplit(ln, "|", fixed = TRUE)[[1]]
  y <- as.numeric(strsplit(parts[2], ",", fixed = TRUE)[[1]])
  g <- strsplit(parts[3], ",", fixed = TRUE)[[1]]
  ct <- coef_test(lm(y ~ 1), vcov = "CR2", cluster = g, test = "Satterthwaite")
  cat(sprintf("%s|%.17g|%.17g\n", parts[1], ct$SE[1], ct$df_Satt[1]))
}

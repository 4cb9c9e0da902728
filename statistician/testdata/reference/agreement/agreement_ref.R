# agreement_ref.R computes the R reference values for the agreement half of
# evalcal's scoring core. It is run by agreement_ref.py, which writes the
# input data sets to the file named by the first argument, one per line:
#   name|x1,x2,...|y1,y2,...
# and reads this script's output, one value per line:
#   section|name|field|value|exact call
# Requires R >= 4.2 and epiR (Debian package r-cran-epir).
suppressPackageStartupMessages(library(epiR))
args <- commandArgs(trailingOnly = TRUE)
lines <- readLines(args[1])
out <- function(section, name, field, value, call) {
  cat(sprintf("%s|%s|%s|%.17g|%s\n", section, name, field, value, call))
}
for (ln in lines) {
  parts <- strsplit(ln, "|", fixed = TRUE)[[1]]
  name <- parts[1]
  x <- as.numeric(strsplit(parts[2], ",")[[1]])
  y <- as.numeric(strsplit(parts[3], ",")[[1]])
  n <- length(x)

  # Pearson: cor.test's Fisher-z interval and t-test p-value.
  ct <- cor.test(x, y, method = "pearson", conf.level = 0.95)
  call <- "cor.test(x, y, method = 'pearson', conf.level = 0.95)"
  out("pearson", name, "r", ct$estimate, call)
  out("pearson", name, "lower", ct$conf.int[1], call)
  out("pearson", name, "upper", ct$conf.int[2], call)
  out("pearson", name, "p", ct$p.value, call)

  # Spearman: R has no interval; the published formula (Fieller, Hartley
  # and Pearson 1957) is evaluated here on R's rho.
  rho <- cor(x, y, method = "spearman")
  half <- qnorm(0.975) * sqrt(1.06 / (n - 3))
  call <- "rho <- cor(x, y, method = 'spearman'); tanh(atanh(rho) +/- qnorm(0.975) * sqrt(1.06 / (n - 3)))"
  out("spearman_ci", name, "rho", rho, call)
  out("spearman_ci", name, "lower", tanh(atanh(rho) - half), call)
  out("spearman_ci", name, "upper", tanh(atanh(rho) + half), call)

  # Mean of paired differences d = y - x: t.test's interval.
  d <- y - x
  for (level in c(0.95, 0.90)) {
    tt <- t.test(d, conf.level = level)
    call <- sprintf("t.test(y - x, conf.level = %g)", level)
    nm <- sprintf("%s@%g", name, level)
    out("mean_difference", nm, "mean", tt$estimate, call)
    out("mean_difference", nm, "se", tt$stderr, call)
    out("mean_difference", nm, "lower", tt$conf.int[1], call)
    out("mean_difference", nm, "upper", tt$conf.int[2], call)
  }

  # Bland-Altman on d = y - x: no Debian package; Bland and Altman (1999)
  # section 3 formulas evaluated in base R.
  bias <- mean(d); s <- sd(d); tq <- qt(0.975, n - 1)
  se_bias <- s / sqrt(n); se_loa <- sqrt(3 * s^2 / n)
  lo <- bias - 1.96 * s; hi <- bias + 1.96 * s
  call <- "d <- y - x; bias <- mean(d); s <- sd(d); loa <- bias +/- 1.96*s; bias +/- qt(0.975, n-1)*s/sqrt(n); loa +/- qt(0.975, n-1)*sqrt(3*s^2/n)"
  out("bland_altman", name, "bias", bias, call)
  out("bland_altman", name, "sd", s, call)
  out("bland_altman", name, "lower_loa", lo, call)
  out("bland_altman", name, "upper_loa", hi, call)
  out("bland_altman", name, "bias_lower", bias - tq * se_bias, call)
  out("bland_altman", name, "bias_upper", bias + tq * se_bias, call)
  out("bland_altman", name, "lower_loa_lower", lo - tq * se_loa, call)
  out("bland_altman", name, "lower_loa_upper", lo + tq * se_loa, call)
  out("bland_altman", name, "upper_loa_lower", hi - tq * se_loa, call)
  out("bland_altman", name, "upper_loa_upper", hi + tq * se_loa, call)

  # Lin's CCC: epiR's z-transform interval.
  cc <- epi.ccc(x, y, ci = "z-transform", conf.level = 0.95)
  call <- sprintf("epiR::epi.ccc(x, y, ci = 'z-transform', conf.level = 0.95) [epiR %s]", packageVersion("epiR"))
  out("lin_ccc", name, "value", cc$rho.c$est, call)
  out("lin_ccc", name, "lower", cc$rho.c$lower, call)
  out("lin_ccc", name, "upper", cc$rho.c$upper, call)
}

# Clopper-Pearson: binom.test's exact interval.
for (case in list(c(18, 30), c(0, 10), c(10, 10), c(1, 20), c(7, 20), c(45, 50), c(3, 7), c(150, 200))) {
  for (level in c(0.95, 0.90)) {
    bt <- binom.test(case[1], case[2], conf.level = level)
    call <- sprintf("binom.test(%d, %d, conf.level = %g)$conf.int", case[1], case[2], level)
    nm <- sprintf("%d/%d@%g", case[1], case[2], level)
    out("clopper_pearson_r", nm, "lower", bt$conf.int[1], call)
    out("clopper_pearson_r", nm, "upper", bt$conf.int[2], call)
  }
}

package render

import (
	"math"
	"strconv"
	"strings"

	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/statistician"
)

// The Markdown and HTML documents write every figure by the display rule
// of report/precision.go (report.DisplayStat, ...), which the summary
// sentence follows too, so that a figure reads the same wherever it is
// shown; the YAML and JSON documents keep more digits (the precision
// rule) for the programs that compute on them:
//
//   - percentages and 0-100 scores, and differences of them in points:
//     2 decimals, both written ("71.43%", "-5.70"); a per-run score as the
//     inspector gave it, to at most 2 decimals ("80", "72.5");
//   - probabilities and every other statistic: 3 significant digits,
//     trailing zeros trimmed ("0.246", "0.5"), in e-notation below 1e-4
//     ("1.23e-05");
//   - p-values: 2 significant digits ("0.18", "0.0012", "3.7e-13");
//   - counts: integers;
//   - a figure that is not defined: "n/a" with the reason where there is
//     one, never 0.
//
// Rounding is half away from zero at the kept digit of the number's
// shortest decimal representation (the digits the unrounded YAML showed),
// not of its binary value: 0.24624999999999997 is 0.24625 and 2.675 is
// 2.68. A result of -0 is written as 0. NaN and ±Inf are written "n/a":
// no evalcal document holds them.

// displayRound rounds x half away from zero on its shortest decimal
// digits: to sig significant digits when sig > 0, else to decimals digits
// after the point (the encoder's roundDecimal: one implementation of the
// rule). -0 becomes 0; NaN and ±Inf are returned as they are.
func displayRound(x float64, sig, decimals int) float64 {
	return report.RoundDecimal(x, sig, decimals)
}

// notANumber is what a figure that is NaN or infinite shows.
const notANumber = report.NotANumber

// fmtScore, fmtPercent, fmtStat, fmtP and fmtUSD are the display rule of
// report/precision.go (report.DisplayScore, ...): one form per figure,
// whichever renderer or sentence shows it.
func fmtScore(x float64) string   { return report.DisplayScore(x) }
func fmtPercent(x float64) string { return report.DisplayPercent(x) }
func fmtStat(x float64) string    { return report.DisplayStat(x) }
func fmtP(x float64) string       { return report.DisplayP(x) }
func fmtUSD(x float64) string     { return report.DisplayUSD(x) }

// fmtRunScore writes a per-run score as the inspector gave it, to at most
// 2 decimals, trailing zeros trimmed: "80", "72.5".
func fmtRunScore(x float64) string {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return notANumber
	}
	return strconv.FormatFloat(displayRound(x, 0, 2), 'f', -1, 64)
}

// fmtCount writes a count.
func fmtCount(n int) string { return strconv.Itoa(n) }

// fmtCount64 writes a 64-bit count (tokens).
func fmtCount64(n int64) string { return strconv.FormatInt(n, 10) }

// fmtPercentCI, fmtScoreCI and fmtStatCI write a 95% interval as
// "[lower, upper]" in the class of the figure it belongs to.
func fmtPercentCI(iv statistician.Interval) string {
	return "[" + fmtPercent(iv.Lower) + ", " + fmtPercent(iv.Upper) + "]"
}

func fmtScoreCI(iv statistician.Interval) string {
	return "[" + fmtScore(iv.Lower) + ", " + fmtScore(iv.Upper) + "]"
}

func fmtStatCI(iv statistician.Interval) string {
	return "[" + fmtStat(iv.Lower) + ", " + fmtStat(iv.Upper) + "]"
}

// fmtNA is an undefined figure: "n/a", with the reason when there is one.
func fmtNA(reason string) string {
	if reason == "" {
		return "n/a"
	}
	return "n/a (" + reason + ")"
}

// optStat, optPercent and optScore write a nullable figure, or "n/a" with
// the reason it is null.
func optStat(x *float64, reason string) string {
	if x == nil {
		return fmtNA(reason)
	}
	return fmtStat(*x)
}

func optPercent(x *float64, reason string) string {
	if x == nil {
		return fmtNA(reason)
	}
	return fmtPercent(*x)
}

func optScore(x *float64, reason string) string {
	if x == nil {
		return fmtNA(reason)
	}
	return fmtScore(*x)
}

// fieldClass is the formatter of a figure named by its document path (a
// gate's field, e.g. "agreement_rate.wilson95.lower" or
// "groups[alice].calibration"): the precision rule's class of that path
// (PrecisionOf, list positions left out), so a gate's value reads as the
// same figure does in the YAML.
func fieldClass(path string) func(float64) string {
	keys := strings.Split(path, ".")
	for i, k := range keys {
		if j := strings.IndexByte(k, '['); j >= 0 {
			keys[i] = k[:j]
		}
	}
	switch report.PrecisionOf(strings.Join(keys, ".")) {
	case report.PValue:
		return fmtP
	case report.Percent:
		return fmtScore
	case report.Exact:
		return fmtRunScore
	}
	return fmtStat
}

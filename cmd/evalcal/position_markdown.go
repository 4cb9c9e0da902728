package main

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/evalcal/evalcal/pairwise"
	"github.com/evalcal/evalcal/report"
)

// positionMarkdown renders the position document as a Markdown page: one table a judge.
// Rates are percentages with 2 decimals and p-values 3 significant
// digits, as the report's precision rule writes them.
func positionMarkdown(d *pairwise.Document) []byte {
	var b bytes.Buffer
	b.WriteString("# Position bias\n\n")
	fmt.Fprintf(&b, "Judges: %s. Deep: %s.\n", strings.Join(d.Judges, ", "), noneIfEmpty(d.Deep))
	for _, p := range d.Positions {
		fmt.Fprintf(&b, "\n## %s\n\n**Trust: %s.** %s\n\n", noneIfEmpty(p.Judge), p.Trust, strings.Join(p.Why, "; ")+".")
		fmt.Fprintf(&b, "%d verdicts on %d pairs, %d judged in both orders", p.Verdicts, p.Pairs, p.BothOrders)
		if p.Duplicates > 0 || p.Conflicts > 0 {
			fmt.Fprintf(&b, " (%d duplicate and %d conflicting verdicts left out)", p.Duplicates, p.Conflicts)
		}
		b.WriteString(".\n\n| Measure | Count | Rate | 95% interval |\n|---|---|---|---|\n")
		positionRow(&b, "Consistency across the two orders", p.Consistency, "")
		positionRow(&b, "First slot wins (ties left out)", p.FirstSlot.Proportion, "exact binomial p = "+positionP(p.FirstSlot.P)+" against 50%")
		if a := p.Accuracy; a != nil {
			positionRow(&b, "Accuracy, order-consistent pairs only", a.ConsistentOnly, "")
			positionRow(&b, "Accuracy, an inconsistent pair abstained", a.Abstained, "")
		}
		if g := p.Agreement; g != nil {
			for _, k := range []struct {
				name string
				v    string
			}{{"linear", positionKappa(g.KappaLinear.Value, g.KappaLinear.CI95.Lower, g.KappaLinear.CI95.Upper, g.KappaLinear.Reason)},
				{"unweighted", positionKappa(g.KappaUnweighted.Value, g.KappaUnweighted.CI95.Lower, g.KappaUnweighted.CI95.Upper, g.KappaUnweighted.Reason)}} {
				fmt.Fprintf(&b, "| Kappa with deep (%s), consistent pairs | %d | %s |\n", k.name, g.Agreement.N, k.v)
			}
		}
	}
	if d.BadLines.Count > 0 {
		fmt.Fprintf(&b, "\n## Bad lines (%d)\n\n", d.BadLines.Count)
		for _, l := range d.BadLines.Lines {
			fmt.Fprintf(&b, "- %s:%d: %s: %s\n", l.File, l.Line, noneIfEmpty(l.Field), l.Error)
		}
	}
	return b.Bytes()
}

// positionRow writes one proportion row; note follows the interval.
func positionRow(b *bytes.Buffer, name string, p pairwise.Proportion, note string) {
	rate, iv := "n/a", "n/a"
	if p.Rate != nil {
		rate = positionPercent(*p.Rate)
		iv = "[" + positionPercent(p.CI95.Lower) + ", " + positionPercent(p.CI95.Upper) + "]"
	}
	if note != "" {
		iv += "; " + note
	}
	fmt.Fprintf(b, "| %s | %d/%d | %s | %s |\n", name, p.Count, p.N, rate, iv)
}

// positionKappa is "0.31158 | [0.25, 0.37]" (statistics, 6 significant
// digits) or "n/a | reason".
func positionKappa(v, lo, hi float64, reason string) string {
	if reason != "" {
		return "n/a | " + reason
	}
	return positionStat(v) + " | [" + positionStat(lo) + ", " + positionStat(hi) + "]"
}

// positionPercent writes a proportion as a percentage, 2 decimals (report.Percent).
func positionPercent(x float64) string {
	return report.FormatDecimals(100*x, 2) + "%"
}

// positionStat writes a statistic to 6 significant digits (report.Statistic).
func positionStat(x float64) string {
	r := report.RoundFloat(x, report.Statistic, 64)
	if a := math.Abs(r); a != 0 && a < 1e-4 {
		return strconv.FormatFloat(r, 'e', -1, 64)
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// positionP writes a p-value to 3 significant digits, d.dde±XX (report.PValue).
func positionP(x float64) string {
	return strconv.FormatFloat(report.RoundFloat(x, report.PValue, 64), 'e', 2, 64)
}

// noneIfEmpty is s, or "none" when s is empty.
func noneIfEmpty(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

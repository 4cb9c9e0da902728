package pairwise

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/evalcal/evalcal/report"
)

// SchemaVersion is the position document's schema version.
const SchemaVersion = 1

// Document is the position document evalcal position writes.
type Document struct {
	SchemaVersion int      `yaml:"schema_version" json:"schema_version"`
	GeneratedBy   string   `yaml:"generated_by" json:"generated_by"`
	Judges        []string `yaml:"judge_inputs" json:"judge_inputs"`
	Deep          string   `yaml:"deep_input" json:"deep_input"`
	CommandLine   []string `yaml:"command_line" json:"command_line"`
	// MinConsistencyLower is the consistency lower bound under which the
	// trust verdict is capped at monitor (a proportion).
	MinConsistencyLower float64    `yaml:"min_consistency_lower" json:"min_consistency_lower"`
	Positions           []Position `yaml:"judges" json:"judges"`
	BadLines            BadLines   `yaml:"bad_lines" json:"bad_lines"`
}

// BadLines are the input lines that could not be read.
type BadLines struct {
	Count int       `yaml:"count" json:"count"`
	Lines []BadLine `yaml:"lines" json:"lines"`
}

// Markdown renders the document as a Markdown page: one table a judge.
// Rates are percentages with 2 decimals and p-values 3 significant
// digits, as the report's precision rule writes them.
func (d *Document) Markdown() []byte {
	var b bytes.Buffer
	b.WriteString("# Position bias\n\n")
	fmt.Fprintf(&b, "Judges: %s. Deep: %s.\n", strings.Join(d.Judges, ", "), orNone(d.Deep))
	for _, p := range d.Positions {
		fmt.Fprintf(&b, "\n## %s\n\n**Trust: %s.** %s\n\n", orNone(p.Judge), p.Trust, strings.Join(p.Why, "; ")+".")
		fmt.Fprintf(&b, "%d verdicts on %d pairs, %d judged in both orders", p.Verdicts, p.Pairs, p.BothOrders)
		if p.Duplicates > 0 || p.Conflicts > 0 {
			fmt.Fprintf(&b, " (%d duplicate and %d conflicting verdicts left out)", p.Duplicates, p.Conflicts)
		}
		b.WriteString(".\n\n| Measure | Count | Rate | 95% interval |\n|---|---|---|---|\n")
		row(&b, "Consistency across the two orders", p.Consistency, "")
		row(&b, "First slot wins (ties left out)", p.FirstSlot.Proportion, "exact binomial p = "+pText(p.FirstSlot.P)+" against 50%")
		if a := p.Accuracy; a != nil {
			row(&b, "Accuracy, order-consistent pairs only", a.ConsistentOnly, "")
			row(&b, "Accuracy, an inconsistent pair abstained", a.Abstained, "")
		}
		if g := p.Agreement; g != nil {
			for _, k := range []struct {
				name string
				v    string
			}{{"linear", kappaText(g.KappaLinear.Value, g.KappaLinear.CI95.Lower, g.KappaLinear.CI95.Upper, g.KappaLinear.Reason)},
				{"unweighted", kappaText(g.KappaUnweighted.Value, g.KappaUnweighted.CI95.Lower, g.KappaUnweighted.CI95.Upper, g.KappaUnweighted.Reason)}} {
				fmt.Fprintf(&b, "| Kappa with deep (%s), consistent pairs | %d | %s |\n", k.name, g.Agreement.N, k.v)
			}
		}
	}
	if d.BadLines.Count > 0 {
		fmt.Fprintf(&b, "\n## Bad lines (%d)\n\n", d.BadLines.Count)
		for _, l := range d.BadLines.Lines {
			fmt.Fprintf(&b, "- %s:%d: %s: %s\n", l.File, l.Line, orNone(l.Field), l.Error)
		}
	}
	return b.Bytes()
}

// row writes one proportion row; note follows the interval.
func row(b *bytes.Buffer, name string, p Proportion, note string) {
	rate, iv := "n/a", "n/a"
	if p.Rate != nil {
		rate = percent(*p.Rate)
		iv = "[" + percent(p.CI95.Lower) + ", " + percent(p.CI95.Upper) + "]"
	}
	if note != "" {
		iv += "; " + note
	}
	fmt.Fprintf(b, "| %s | %d/%d | %s | %s |\n", name, p.Count, p.N, rate, iv)
}

// kappaText is "0.31158 | [0.25, 0.37]" (statistics, 6 significant
// digits) or "n/a | reason".
func kappaText(v, lo, hi float64, reason string) string {
	if reason != "" {
		return "n/a | " + reason
	}
	return stat(v) + " | [" + stat(lo) + ", " + stat(hi) + "]"
}

// percent writes a proportion as a percentage, 2 decimals (report.Percent).
func percent(x float64) string {
	return report.FormatDecimals(100*x, 2) + "%"
}

// stat writes a statistic to 6 significant digits (report.Statistic).
func stat(x float64) string {
	r := report.RoundFloat(x, report.Statistic, 64)
	if a := math.Abs(r); a != 0 && a < 1e-4 {
		return strconv.FormatFloat(r, 'e', -1, 64)
	}
	return strconv.FormatFloat(r, 'f', -1, 64)
}

// pText writes a p-value to 3 significant digits, d.dde±XX (report.PValue).
func pText(x float64) string {
	return strconv.FormatFloat(report.RoundFloat(x, report.PValue, 64), 'e', 2, 64)
}

// orNone is s, or "none" when s is empty.
func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

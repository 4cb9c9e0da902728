package render

import (
	"fmt"
	"strings"

	"github.com/evalcal/evalcal/internal/english"
	"github.com/evalcal/evalcal/segment"
	"github.com/evalcal/evalcal/statistician"
)

// slicesSection shows the runs sliced by each --by field: per slice the
// agreement with its intervals, kappa, leniency and both sides' pass
// rates, then the pairs of tested slices compared by deep and by light,
// and the pairs light misjudges (README "The report", slices).
func slicesSection(fields []segment.Field) section {
	s := section{ID: "slices", Heading: "Slices"}
	for _, f := range fields {
		s.Blocks = append(s.Blocks, block{Text: fmt.Sprintf("By %s: %s it, %d do not; %s with at least %d paired runs %s tested (simultaneous intervals over %s).",
			f.Field, plural(f.Runs, "run has", "runs have"), f.Missing, plural(f.Tested, "slice", "slices"), segment.MinRuns,
			english.Noun(f.Tested, "is", "are"), english.Noun(f.Tested, "that one", fmt.Sprintf("those %d", f.Tested)))})
		if len(f.Slices) > 0 {
			t := table{Header: []string{f.Field, "agreement", "runs", "95% interval", "simultaneous 95%", "linear kappa", "light passes, deep not / reverse (McNemar p)", "light pass rate", "deep pass rate"}}
			for _, sl := range f.Slices {
				t.Rows = append(t.Rows, sliceRow(sl))
			}
			s.Blocks = append(s.Blocks, block{Table: &t})
		}
		if len(f.Comparisons) > 0 {
			t := table{Header: []string{"A vs B", "deep: A - B (points)", "deep p (Holm)", "light: A - B (points)", "light p (Holm)", "light gets wrong"}}
			for _, c := range f.Comparisons {
				t.Rows = append(t.Rows, []string{c.A + " vs " + c.B, diffCell(c.Deep), holmCell(c.Deep), diffCell(c.Light), holmCell(c.Light), wrongCell(c)})
			}
			s.Blocks = append(s.Blocks, block{Table: &t})
		}
		if f.ComparisonsLeftOut != "" {
			s.Blocks = append(s.Blocks, block{Text: "Comparisons left out: " + f.ComparisonsLeftOut + "."})
		}
		if len(f.Misjudged) > 0 {
			s.Blocks = append(s.Blocks, block{Items: f.Misjudged})
		}
	}
	return s
}

// sliceRow is one slice's row; an untested slice shows its counts and why.
func sliceRow(sl segment.Slice) []string {
	agree := fmtNA("no paired run")
	if sl.Percent != nil {
		agree = fmtPercent(*sl.Percent)
	}
	row := []string{sl.Value, agree, fmt.Sprintf("%d/%d", sl.Matches, sl.N)}
	if !sl.Tested {
		return append(row, fmtNA(sl.Reason), "", "", "", "", "")
	}
	row = append(row, optCI(sl.Wilson95), optCI(sl.Simultaneous95))
	k := fmtNA("")
	if kl := sl.KappaLinear; kl != nil && kl.Reason == "" {
		k = fmtStat(kl.Value) + " " + fmtStatCI(kl.CI95)
	} else if kl != nil {
		k = fmtNA(kl.Reason)
	}
	lenient := ""
	if l := sl.Leniency; l != nil {
		lenient = fmt.Sprintf("%d / %d", l.LightPassDeepNot, l.DeepPassLightNot)
		if l.McNemarP != nil {
			lenient += " (p = " + fmtP(*l.McNemarP) + ")"
		}
	}
	return append(row, k, lenient, rateCell(sl.LightPassRate), rateCell(sl.DeepPassRate))
}

// optCI is a percent interval, n/a when absent.
func optCI(iv *statistician.Interval) string {
	if iv == nil {
		return fmtNA("")
	}
	return fmtPercentCI(*iv)
}

// rateCell is a pass rate with its interval and, for deep, the method.
func rateCell(r *segment.Rate) string {
	switch {
	case r == nil:
		return ""
	case r.Percent == nil:
		return fmtNA(r.Reason)
	}
	out := fmtPercent(*r.Percent)
	if r.CI95 != nil {
		out += " " + fmtPercentCI(*r.CI95)
	}
	if r.Method != segment.MethodLight {
		out += " (" + r.Method + ")"
	}
	return out
}

// diffCell is a difference in points with its interval.
func diffCell(d segment.Difference) string {
	if d.Points == nil {
		return fmtNA(d.Reason)
	}
	out := fmtScore(*d.Points)
	if d.CI95 != nil {
		out += " " + fmtScoreCI(*d.CI95)
	}
	return out
}

// holmCell is the Holm-adjusted p, marked when significant.
func holmCell(d segment.Difference) string {
	if d.PHolm == nil {
		return fmtNA(d.Reason)
	}
	if d.Significant {
		return fmtP(*d.PHolm) + " (significant)"
	}
	return fmtP(*d.PHolm)
}

func wrongCell(c segment.Comparison) string {
	var w []string
	if c.OrderWrong {
		w = append(w, "order")
	}
	if c.SignificanceWrong {
		w = append(w, "significance")
	}
	if len(w) == 0 {
		return "-"
	}
	return strings.Join(w, ", ")
}

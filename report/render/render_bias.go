package render

import (
	"fmt"
	"strings"

	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/statistician"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// clusterLabel names the clustered agreement row by its field (system in
// reports that do not record one).
func clusterLabel(c report.ClusteredRate) string {
	field := c.Field
	if field == "" {
		field = aggregate.ClusterSystem
	}
	return "agreement, clustered by " + field
}

// clusteredNote is the clustered agreement row's note: runs and clusters,
// the design effect and the method.
func clusteredNote(c report.ClusteredRate) string {
	note := fmt.Sprintf("%s in %s", plural(c.N, "run", "runs"), plural(c.Clusters, "cluster", "clusters"))
	if c.DesignEffect != nil {
		note += "; design effect " + fmtStat(*c.DesignEffect)
	}
	if c.Note != "" {
		note += "; " + c.Note
	}
	return note
}

// clusteredEstimateRows are the clustered classical and PPI++ rows of one
// target, when the estimate section has them.
func clusteredEstimateRows(target string, set report.EstimateSet, pass bool, field string) [][]string {
	c := set.Clustered
	if c == nil {
		return nil
	}
	suffix := " (clustered by " + field
	if c.DF != nil {
		suffix += ", t on " + fmtStat(*c.DF) + " df"
	}
	suffix += ")"
	return [][]string{
		estimateRow(target, "classical"+suffix, c.Classical, pass),
		estimateRow(target, "ppi"+suffix, c.PPI, pass),
	}
}

// biasSection is the bias section: what the regressions regress on,
// their coefficients with HC3 intervals and p-values, the same-family
// verdict and the columns left out.
func biasSection(b report.Bias) section {
	s := section{ID: "bias", Heading: "Where light errs (bias attribution)"}
	judge := "not known"
	if b.JudgeFamily != "" {
		judge = b.JudgeFamily + " (" + b.JudgeFamilySource + ")"
	}
	s.Blocks = append(s.Blocks, block{Text: fmt.Sprintf(
		"Light's errors against deep on %d runs, regressed (OLS, HC3 standard errors) on the log length of the judged output, "+
			"whether the run is of the light judge's model family (%s; %d runs) and the %s, against %s:",
		b.Runs, judge, b.SameFamilyRuns, b.Slice, orNone(b.ReferenceSlice))}, block{Items: []string{
		"score_gap is light's score minus deep's, in points; the score is " + b.Score,
		"leniency is light passing a run deep does not pass, in percentage points (a linear probability model)",
		"the length is " + b.Length,
	}})
	t := table{Header: []string{"regression", "coefficient", "estimate", "95% interval", "p"}}
	add := func(name string, r report.Regression, scale float64) {
		if r.Reason != "" {
			t.Rows = append(t.Rows, []string{name, "", fmtNA(r.Reason), "", ""})
			return
		}
		for _, c := range r.Coefficients {
			t.Rows = append(t.Rows, []string{name, c.Name, fmtScore(scale * c.Estimate),
				fmtScoreCI(statistician.Interval{Lower: scale * c.CI.Lower, Upper: scale * c.CI.Upper}), fmtP(c.P)})
		}
	}
	add("score_gap (points)", b.ScoreGap, 1)
	add("leniency (percentage points)", b.Leniency, 100)
	s.Blocks = append(s.Blocks, block{Table: &t}, block{Text: capitalise(b.SameFamily.Words) + "."})
	if len(b.Omitted) > 0 || b.NoLength > 0 {
		items := append([]string(nil), b.Omitted...)
		if b.NoLength > 0 {
			items = append(items, fmt.Sprintf("%d runs have no positive length and were left out", b.NoLength))
		}
		s.Blocks = append(s.Blocks, block{Text: "Left out:"}, block{Items: items})
	}
	var fams []string
	for _, f := range b.Families {
		if f.Family != "" {
			fams = append(fams, fmt.Sprintf("%s: %s (%s)", f.System, f.Family, f.Source))
		}
	}
	if len(fams) > 0 {
		s.Blocks = append(s.Blocks, block{Text: "Model families: " + strings.Join(fams, "; ") + "."})
	}
	return s
}

func orNone(s string) string {
	if s == "" {
		return "no reference slice"
	}
	return "the reference slice " + s
}

func capitalise(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

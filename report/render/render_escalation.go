package render

import (
	"fmt"
	"strconv"

	"github.com/evalcal/evalcal/report"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// escalationPageSection is the trust-or-escalate section of the Markdown
// and HTML reports: the guarantee, the threshold and what it covers and
// saves, the coverage-risk curve as a table (and a chart in HTML), and in
// a cascade each run's route (capped in Markdown).
func escalationPageSection(e report.Escalation, plots bool) section {
	s := section{ID: "escalation", Heading: "Trust or escalate"}
	lead := "Calibration: the lowest threshold on light's confidence at which light may decide a run alone, with agreement with deep guaranteed among those runs."
	if e.Mode == report.EscalationCascade {
		lead = "Cascade: light inspected every run; deep inspected only the runs whose light confidence was under the saved threshold, and gives their final verdict."
	}
	s.Blocks = append(s.Blocks, block{Text: lead + " Guarantee: " + e.Guarantee.Statement + "."})
	thr := "none: every run goes to deep"
	if e.Threshold != nil {
		thr = strconv.FormatFloat(*e.Threshold, 'g', -1, 64) + " " + e.Unit
	}
	items := []string{
		fmt.Sprintf("confidence: %s (%s), in %s", e.Source, e.SourceChosen, e.Unit),
		"threshold: " + thr,
		fmt.Sprintf("target: agreement >= %s with probability >= %s (risk %s), %d calibration runs; at least %d covered runs are needed to show it at all",
			fmtPercent(e.Guarantee.TargetAgreementPercent), fmtStat(1-e.Guarantee.Risk), fmtStat(e.Guarantee.Risk), e.Guarantee.CalibrationN, e.Guarantee.MinCovered),
		"light decides alone (coverage): " + rateText(e.Coverage),
		"escalated to deep: " + rateText(e.Escalated),
	}
	if e.Mode == report.EscalationCascade {
		items[2] = fmt.Sprintf("target carried: agreement >= %s with probability >= %s, from %d calibration runs",
			fmtPercent(e.Guarantee.TargetAgreementPercent), fmtStat(1-e.Guarantee.Risk), e.Guarantee.CalibrationN)
	}
	if a := e.Agreement; a != nil {
		items = append(items, "agreement with deep among the covered runs: "+rateText(*a)+", guaranteed lower bound "+optPercent(a.GuaranteedLowerPercent, ""))
	}
	if e.Reason != "" {
		items = append(items, "no threshold: "+e.Reason)
	}
	if n := e.Needed; n != nil {
		if n.Runs > 0 {
			at := ""
			if n.AtThreshold != nil {
				at = " (at threshold " + strconv.FormatFloat(*n.AtThreshold, 'g', -1, 64) + ", if runs keep the coverage and agreement seen there)"
			}
			items = append(items, fmt.Sprintf("runs with both depths needed: about %d%s", n.Runs, at))
		} else {
			items = append(items, "more runs: "+n.Reason)
		}
	}
	items = append(items, "deep cost saved: "+savingText(e.DeepCostSaved))
	items = append(items, "method: "+e.Method)
	s.Blocks = append(s.Blocks, block{Items: items})
	if len(e.Curve) > 0 {
		t := table{Header: []string{"threshold", "covered runs", "coverage", "agreement", "lower bound (tested)"}}
		for _, p := range e.Curve {
			t.Rows = append(t.Rows, []string{strconv.FormatFloat(p.Threshold, 'g', -1, 64), fmtCount(p.Covered),
				fmtPercent(p.CoveragePercent), fmtPercent(p.AgreementPercent), optPercent(p.LowerPercent, "not tested")})
		}
		s.Blocks = append(s.Blocks, block{Text: "Coverage-risk curve: agreement with deep among the runs at or above each threshold, against their share, most confident first."}, block{Table: &t})
		if plots {
			s.Blocks = append(s.Blocks, block{Figure: drawFigure("coverage-risk curve: agreement among the runs light would decide against their share, with the target as a dashed line",
				func() ([]byte, error) { return coverageRiskSVG(e) })})
		}
	}
	if len(e.Runs) > 0 {
		t := table{Header: []string{"run", "confidence", "decided by", "light", "deep", "final"}}
		for i, r := range e.Runs {
			if !plots && i == MarkdownDisagreementRows {
				break
			}
			conf := "n/a"
			if r.Confidence != nil {
				conf = strconv.FormatFloat(*r.Confidence, 'g', -1, 64)
			}
			t.Rows = append(t.Rows, []string{r.RunID, conf, r.DecidedBy, r.LightVerdict, firstNonEmpty(r.DeepVerdict, "-"), firstNonEmpty(r.FinalVerdict, "n/a (deep failed)")})
		}
		s.Blocks = append(s.Blocks, block{Table: &t})
		if !plots && len(e.Runs) > MarkdownDisagreementRows {
			s.Blocks = append(s.Blocks, cappedNote(len(e.Runs)-MarkdownDisagreementRows, "runs"))
		}
	}
	return s
}

func rateText(r report.EscalationRate) string {
	if r.Percent == nil {
		return fmtNA(r.Reason)
	}
	out := fmt.Sprintf("%s (%d of %d)", fmtPercent(*r.Percent), r.Runs, r.N)
	if r.CI95 != nil {
		out += " " + fmtPercentCI(*r.CI95)
	}
	return out
}

func savingText(s report.EscalationSaving) string {
	out := optPercent(s.Percent, "no runs") + " of deep's spend"
	if s.USDPerRun != nil {
		out += ", " + fmtUSD(*s.USDPerRun) + " per run"
	}
	if s.USD != nil {
		out += ", " + fmtUSD(*s.USD) + " on these runs"
	}
	if s.Reason != "" {
		out += " (" + s.Reason + ")"
	}
	return out
}

// coverageRiskSVG draws the coverage-risk curve: agreement among the
// covered runs (percent) against coverage (percent), with the target.
func coverageRiskSVG(e report.Escalation) ([]byte, error) {
	p := newPlot()
	p.Title.Text = "coverage-risk curve (" + e.Source + ")"
	p.X.Label.Text = "coverage: runs light decides (%)"
	p.Y.Label.Text = "agreement with deep among them (%)"
	p.X.Min, p.X.Max, p.Y.Max = 0, 100, 100
	xys := make(plotter.XYs, len(e.Curve))
	for i, pt := range e.Curve {
		xys[i].X, xys[i].Y = pt.CoveragePercent, pt.AgreementPercent
	}
	line, points, err := plotter.NewLinePoints(xys)
	if err != nil {
		return nil, fmt.Errorf("report: coverage-risk curve: %w", err)
	}
	line.Color, points.Color = pointColor, pointColor
	target, err := plotter.NewLine(plotter.XYs{{X: 0, Y: e.Guarantee.TargetAgreementPercent}, {X: 100, Y: e.Guarantee.TargetAgreementPercent}})
	if err != nil {
		return nil, fmt.Errorf("report: coverage-risk curve: %w", err)
	}
	target.Color = biasColor
	target.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	p.Add(line, points, target)
	return svgOf(p, chartWidth, chartHeight)
}

package render

import (
	"strings"
	"testing"

	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/reportio"
	"github.com/evalcal/evalcal/statistician"
)

// A report with an escalation section shows it in Markdown (the curve as a
// table, figures by the precision rule) and in HTML (with the chart).
func TestEscalationSectionRenders(t *testing.T) {
	r, err := reportio.ReadReport("../../testdata/run/twelve.golden")
	if err != nil {
		t.Fatal(err)
	}
	r.Escalation = &report.Escalation{Mode: report.EscalationCalibrate, Source: "score-distance", SourceChosen: "--confidence", Unit: "points",
		Method: "fixed-sequence", Met: true, Threshold: f64(12.5),
		Guarantee: report.EscalationGuarantee{TargetAgreementPercent: 90, Risk: 0.1, CalibrationN: 40, MinCovered: 22, Statement: "agreement >= 90%"},
		Coverage:  report.EscalationRate{Percent: f64(62.5), Runs: 25, N: 40, CI95: &statistician.Interval{Lower: 45.80, Upper: 77.27}},
		Escalated: report.EscalationRate{Percent: f64(37.5), Runs: 15, N: 40},
		Agreement: &report.EscalationRate{Percent: f64(100), Runs: 25, N: 25, GuaranteedLowerPercent: f64(91.2444)},
		Curve: []report.EscalationPoint{{Threshold: 30, Covered: 10, CoveragePercent: 25, AgreementPercent: 100},
			{Threshold: 12.5, Covered: 25, CoveragePercent: 62.5, AgreementPercent: 100, LowerPercent: f64(91.2444)}},
	}
	md, err := Markdown(r)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Trust or escalate", "threshold: 12.5 points", "62.50% (25 of 40) [45.80%, 77.27%]",
		"guaranteed lower bound 91.24%", "| 12.5 | 25 | 62.50% | 100.00% | 91.24% |", "| 30 | 10 | 25.00% | 100.00% | n/a (not tested) |"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	html, err := HTML(r)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(html), "coverage-risk curve (score-distance)")
	if i < 0 || !strings.Contains(string(html), `id="escalation"`) {
		t.Fatal("html lacks the escalation section or its chart")
	}
}
func f64(x float64) *float64 { return &x }

package report_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/calibrate"
	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/report"
)

func TestTrendAndGateSectionsShowEveryFigure(t *testing.T) {
	tr := calibrate.CompareReports(report.FixtureReport(8), report.FixtureReport(0))
	gs, err := gates.Parse([]string{"agreement.lower >= 80", "confidence >= low"})
	if err != nil {
		t.Fatal(err)
	}
	md := report.TrendAndGatesMarkdown(tr, gates.Check(gs, report.FixtureReport(0)))
	for _, want := range []string{
		// Percentage points to 2 decimals, kappa to 6 significant digits.
		"| agreement (percent, points) | 62.50 | 71.43 | 8.93 | [-26.39, 45.03] | no |",
		"| kappa linear | 0.285714 | 0.511628 | 0.225914 | [-0.543305, 0.995132] | no |",
		"| calibration (light as forecast, 0-100) | 0.00 | 19.41 | 19.41 | n/a (calibration is clamped at 0",
		"runs only now: 20250101-100000-bbb005, 20250101-100000-ccc001",
		"runs only before: none",
		"| agreement.lower &gt;= 80 | agreement_rate.wilson95.lower | 45.35 | FAIL |",
		"| confidence &gt;= low | confidence | low | pass |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in\n%s", want, md)
		}
	}
}

func TestReportWithTrendAndGatesMatchesSchema(t *testing.T) {
	r := report.FixtureReport(0)
	b, err := r.JSON()
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	tr := calibrate.CompareReports(report.FixtureReport(8), r)
	gs, _ := gates.Parse([]string{"agreement.lower >= 80"})
	for k, v := range map[string]any{"trend": tr, "gates": gates.Check(gs, r)} {
		vb, _ := json.Marshal(v)
		var vv any
		_ = json.Unmarshal(vb, &vv)
		m[k] = vv
	}
	b, _ = json.Marshal(m)
	if err := report.ValidateAgainstSchema(t, b); err != nil {
		t.Error(err)
	}
}

package render

import (
	"strings"
	"testing"

	"github.com/evalcal/evalcal/calibrate"
	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/report/reporttest"
)

// TestTrendAndGateSectionsShowEveryFigure renders a page of the trend and
// gates sections alone.
func TestTrendAndGateSectionsShowEveryFigure(t *testing.T) {
	tr := calibrate.CompareReports(reporttest.Fixture(8), reporttest.Fixture(0))
	gs, err := gates.Parse([]string{"agreement.lower >= 80", "confidence >= low"})
	if err != nil {
		t.Fatal(err)
	}
	p := page{Title: "t", Banner: banner{Lead: "v"}, Sections: []section{trendSection(tr), gatesSection(gates.Check(gs, reporttest.Fixture(0)))}}
	md := string(writeMarkdown(p))
	for _, want := range []string{
		// Percentage points to 2 decimals, kappa to 3 significant digits.
		"| agreement (percent, points) | 62.50 | 71.43 | 8.93 | [-26.39, 45.03] | no |",
		"| [kappa](#glossary) linear | 0.286 | 0.512 | 0.226 | [-0.543, 0.995] | no |",
		"| calibration (light as forecast, 0-100) | 0.00 | 19.41 | 19.41 | n/a (calibration is clamped at 0",
		"runs only now: 20250101-100000-bbb005, 20250101-100000-ccc001",
		"runs only before: none",
		"| agreement.lower >= 80 | agreement_rate.wilson95.lower | 45.35 | FAIL |",
		"| confidence >= low | confidence | low | pass |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q in\n%s", want, md)
		}
	}
}

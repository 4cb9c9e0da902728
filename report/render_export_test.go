package report

import (
	"testing"

	"github.com/evalcal/evalcal/gates"
)

// Exported for the external tests of the renderers (package report_test),
// which build reports with calibrate.Fill: calibrate imports report, so
// only an external test package can use it.
var (
	CheckGolden    = checkGolden
	ShellQuote     = shellQuote
	CommandLineFor = commandLine
)

// FixtureRun is a fixtureRun an external test can write: both inspections
// in brief.
type FixtureRun struct {
	ID, System         string
	LV, DV             string
	LRF, LTE, DRF, DTE float64
}

// FixtureReport is buildReport of the first n fixtureRuns (all when n <=
// 0 or n is larger).
func FixtureReport(n int) *Report {
	if n <= 0 || n > len(fixtureRuns) {
		n = len(fixtureRuns)
	}
	return buildReport(fixtureRuns[:n])
}

// GeneratedReport is buildReport of generatedRuns(n, agree, gap, prefix).
func GeneratedReport(n, agree int, gap float64, prefix string) *Report {
	return buildReport(generatedRuns(n, agree, gap, prefix))
}

// ReportOfRuns is buildReport of runs.
func ReportOfRuns(runs []FixtureRun) *Report {
	frs := make([]fixtureRun, len(runs))
	for i, r := range runs {
		frs[i] = fixtureRun{id: r.ID, system: r.System, lv: r.LV, dv: r.DV, lrf: r.LRF, lte: r.LTE, drf: r.DRF, dte: r.DTE}
	}
	return buildReport(frs)
}

// TrendAndGatesMarkdown is a page of the trend and gates sections alone.
func TrendAndGatesMarkdown(tr Trend, rs []gates.Result) string {
	return string(writeMarkdown(page{Title: "t", Banner: banner{Lead: "v"}, Sections: []section{trendSection(tr), gatesSection(rs)}}))
}

// ValidateAgainstSchema validates a JSON document against the committed
// report schema.
func ValidateAgainstSchema(t *testing.T, b []byte) error {
	t.Helper()
	return compileSchema(t).Validate(instance(t, b))
}

// FixtureRunsFrom is buildReport of fixtureRuns[from:].
func FixtureRunsFrom(from int) *Report { return buildReport(fixtureRuns[from:]) }

package calibrate

import (
	"fmt"
	"strings"

	"github.com/evalcal/evalcal/gates"
	"github.com/evalcal/evalcal/report"
)

// Finish is what completes a report once its statistics are computed: the
// trend against a baseline and the CI gates. Run and Merge apply it last,
// so that a program embedding calibrate gets the report the CLI writes.
type Finish struct {
	// Baseline, when not nil, is the report this one is compared with
	// (typically last night's); the comparison is Report.Trend.
	Baseline *report.Report
	// Gates are checked on the finished report and recorded in
	// Report.Gates.
	Gates []gates.Gate
}

// apply adds the trend against f.Baseline, checks and records the gates,
// and writes the summary, whose sentence states the gates' outcome.
// A gate may name a summary field (summary.trust == gate): it reads the
// summary as it stands before the gates, which is why the summary is
// written first as well when there are gates.
func (f Finish) apply(rep *report.Report) {
	if f.Baseline != nil {
		t := CompareReports(f.Baseline, rep)
		rep.Trend = &t
		if len(t.Judges) > 0 {
			rep.Warnings = append(rep.Warnings, "the judge changed since the baseline, so the trend compares two judges: "+strings.Join(t.Judges, "; "))
		}
		if w := baselineRunsWarning(t, len(rep.Comparisons)); w != "" {
			rep.Warnings = append(rep.Warnings, w)
		}
	}
	if len(f.Gates) > 0 {
		report.Summarize(rep)
		rep.Gates = gates.Check(f.Gates, rep)
	}
	report.Summarize(rep)
}

// baselineRunsWarning warns when the baseline compared other runs than
// this report: its differences then mix the runs' change with light's, and
// one marked distinguishable may say only that the corpora differ (issue
// 28). n is the number of runs this report compared.
func baselineRunsWarning(t report.Trend, n int) string {
	now, before := len(t.RunsOnlyNow), len(t.RunsOnlyBefore)
	if now == 0 && before == 0 {
		return ""
	}
	if now == n {
		return fmt.Sprintf("the baseline has no run in common with this report (%d runs now, %d before): the trend compares two corpora, and a difference marked distinguishable may come from the runs, not from light", n, t.Baseline.SampleSize)
	}
	return fmt.Sprintf("the baseline compared other runs (%d only in this report, %d only in the baseline): part of each difference may come from the runs, not from light", now, before)
}

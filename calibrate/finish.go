package calibrate

import (
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
	}
	if len(f.Gates) > 0 {
		report.Summarize(rep)
		rep.Gates = gates.Check(f.Gates, rep)
	}
	report.Summarize(rep)
}

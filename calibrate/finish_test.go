package calibrate

import (
	"strings"
	"testing"

	"github.com/evalcal/evalcal/report"
)

// A baseline over other runs is named in the report's warnings: its
// differences may come from the runs, however distinguishable (issue 28).
func TestBaselineOverOtherRunsIsWarned(t *testing.T) {
	same := report.Trend{}
	if w := baselineRunsWarning(same, 10); w != "" {
		t.Errorf("same runs: %q", w)
	}
	disjoint := report.Trend{RunsOnlyNow: []string{"a", "b"}, RunsOnlyBefore: []string{"c"}, Baseline: report.TrendSource{SampleSize: 1}}
	if w := baselineRunsWarning(disjoint, 2); !strings.Contains(w, "no run in common") || !strings.Contains(w, "two corpora") {
		t.Errorf("disjoint runs: %q", w)
	}
	partial := report.Trend{RunsOnlyNow: []string{"a"}}
	if w := baselineRunsWarning(partial, 5); !strings.Contains(w, "1 only in this report, 0 only in the baseline") {
		t.Errorf("partly other runs: %q", w)
	}
}

package report_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/evalcal/evalcal/calibrate"
	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/report/reporttest"
	"github.com/evalcal/evalcal/statistician"
)

// The trend (calibrate.CompareReports) of reports built from the
// package's fixtures.

func TestTrendOfNoiseIsNotDistinguishable(t *testing.T) {
	prev := reporttest.Generated(40, 32, 25, "run")
	// The same runs tonight with one more disagreement: noise.
	cur := reporttest.Generated(40, 31, 25, "run")
	tr := calibrate.CompareReports(prev, cur)
	if len(tr.Distinguishable) != 0 {
		t.Errorf("noise called distinguishable: %v\n%+v", tr.Distinguishable, tr)
	}
	if math.Abs(*tr.Agreement.Difference+2.5) > 1e-9 || tr.Agreement.CI95.Lower >= 0 || tr.Agreement.CI95.Upper <= 0 {
		t.Errorf("agreement change %+v %+v", tr.Agreement, tr.Agreement.CI95)
	}
	if len(tr.RunsOnlyNow) != 0 || len(tr.RunsOnlyBefore) != 0 {
		t.Errorf("runs only now %v, before %v", tr.RunsOnlyNow, tr.RunsOnlyBefore)
	}
}

func TestTrendOfARealChangeIsDistinguishable(t *testing.T) {
	prev := reporttest.Generated(40, 26, 30, "old")
	cur := reporttest.Generated(40, 39, 30, "new")
	tr := calibrate.CompareReports(prev, cur)
	for _, name := range []string{"agreement", "kappa_linear", "mean_delta.runtime_fidelity", "mean_delta.task_effectiveness", "brier"} {
		if !contains(tr.Distinguishable, name) {
			t.Errorf("%s not distinguishable: %v", name, tr.Distinguishable)
		}
	}
	if !tr.Agreement.Distinguishable || tr.Agreement.CI95.Lower <= 0 {
		t.Errorf("agreement %+v", tr.Agreement)
	}
	if len(tr.RunsOnlyNow) != 40 || len(tr.RunsOnlyBefore) != 40 || tr.RunsOnlyNow[0] != "new-000" {
		t.Errorf("runs only now %d, before %d", len(tr.RunsOnlyNow), len(tr.RunsOnlyBefore))
	}
}

// Light forecasts 0.825 on every run (85/80). Before, 30 of 40 runs pass
// deep: BS = (30·0.175² + 10·0.825²)/40 = 0.193125, calibration 22.75.
// Now 39 of 40: BS = (39·0.030625 + 0.680625)/40 = 0.046875, calibration
// 81.25. Difference 58.5 points, -400 times the Brier difference.
func TestCalibrationChangeIsMinus400TimesBrierChange(t *testing.T) {
	runs := func(pass int, prefix string) []reporttest.Run {
		var out []reporttest.Run
		for i := 0; i < 40; i++ {
			fr := reporttest.Run{ID: fmt.Sprintf("%s-%02d", prefix, i), System: []string{"a", "b"}[i%2], LV: "pass", DV: "pass", LRF: 85, LTE: 80, DRF: 84 - float64(i%5), DTE: 79 - float64(i%3)}
			if i >= pass {
				fr.DV, fr.DRF, fr.DTE = "fail", 30, 20
			}
			out = append(out, fr)
		}
		return out
	}
	tr := calibrate.CompareReports(reporttest.OfRuns(runs(30, "old")), reporttest.OfRuns(runs(39, "new")))
	c := tr.Calibration
	if c.Difference == nil || math.Abs(*c.Difference-58.5) > 1e-9 || math.Abs(*tr.Brier.Difference+0.14625) > 1e-12 {
		t.Fatalf("calibration %+v brier %+v", c, tr.Brier)
	}
	if d := cmp.Diff(statistician.Interval{Lower: -400 * tr.Brier.CI95.Upper, Upper: -400 * tr.Brier.CI95.Lower}, *c.CI95, cmpopts.EquateApprox(0, 1e-9)); d != "" {
		t.Errorf("calibration interval (-want +got):\n%s", d)
	}
	if !c.Distinguishable || !contains(tr.Distinguishable, "calibration") {
		t.Errorf("calibration change not distinguishable: %+v %+v", c, c.CI95)
	}
}

func TestTrendListsRunsPresentOnlyOnOneSide(t *testing.T) {
	prev := reporttest.Fixture(10)
	cur := reporttest.FixtureFrom(3)
	tr := calibrate.CompareReports(prev, cur)
	want := report.Trend{RunsOnlyNow: []string{"20250101-100000-ccc002", "20250101-100000-ccc003", "20250101-100000-ccc004", "20250101-100000-ccc005"},
		RunsOnlyBefore: []string{"20250101-100000-aaa001", "20250101-100000-aaa002", "20250101-100000-aaa003"}}
	if d := cmp.Diff(want, tr, cmpopts.IgnoreFields(report.Trend{}, "Baseline", "Agreement", "KappaLinear", "MeanDelta", "Correlation", "Brier", "Calibration", "Distinguishable")); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestTrendWithNilReportSaysWhy(t *testing.T) {
	tr := calibrate.CompareReports(nil, reporttest.Fixture(0))
	if tr.Agreement.Reason == "" || tr.Calibration.Reason == "" || len(tr.Distinguishable) != 0 {
		t.Errorf("%+v", tr)
	}
}

func contains(xs []string, x string) bool {
	for _, v := range xs {
		if v == x {
			return true
		}
	}
	return false
}

func ptr(x float64) *float64 { return &x }

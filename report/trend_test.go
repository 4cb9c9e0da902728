package report

import (
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/evalcal/evalcal/statistician"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// R 4.2.2: x <- c(2.1,3.4,1.9,5.6,4.4); y <- c(1.0,0.5,2.2,1.8,0.9,1.4,2.5);
// t.test(x, y)$conf.int = [0.107372124394087, 3.909770732748771], df 5.260335.

// Zou (2007) eq. 15, hand-worked in Python (numpy): r 0.6 (n 50) now,
// 0.3 (n 60) before; Fisher-z intervals [0.38614, 0.75265] and
// [0.04987, 0.51472]; difference 0.3 with [-0.0030481, 0.5930262]: not
// distinguishable although the point estimates differ by 0.3.
func TestCorrelationChangeMatchesZouInterval(t *testing.T) {
	r1, r2 := 0.6, 0.3
	cur := aggregate.Correlation{R: &r1, N: 50, CI95: &statistician.Interval{Lower: 0.386141193639051, Upper: 0.7526488623205274}}
	prev := aggregate.Correlation{R: &r2, N: 60, CI95: &statistician.Interval{Lower: 0.04987461675846436, Upper: 0.5147150431593649}}
	got := correlationChange(prev, cur)
	want := Change{Before: f64(0.3), Now: f64(0.6), Difference: f64(0.3),
		CI95:   &statistician.Interval{Lower: -0.0030480800418604126, Upper: 0.5930262488404007},
		Method: got.Method}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// Newcombe (1998) worked example: 56/70 - 48/80 = 0.2 with [0.0524,
// 0.3339]; in percentage points, distinguishable.
func TestAgreementChangeIsNewcombeInPoints(t *testing.T) {
	got := agreementChange(aggregate.AgreementRate{Matches: 48, N: 80, Percent: ptr(60)}, aggregate.AgreementRate{Matches: 56, N: 70, Percent: ptr(80)})
	if !got.Distinguishable || math.Abs(*got.Difference-20) > 1e-9 ||
		cmp.Diff(statistician.Interval{Lower: 5.24, Upper: 33.39}, *got.CI95, cmpopts.EquateApprox(0, 0.006)) != "" {
		t.Errorf("%+v ci %+v", got, got.CI95)
	}
}

// Hand-worked: 0.6 (SE 0.1) now, 0.3 (SE 0.1) before: 0.3 ± 1.96·0.141421.
func TestKappaChangeIsWald(t *testing.T) {
	got := kappaChange(statistician.Kappa{Value: 0.3, SE: 0.1, N: 40}, statistician.Kappa{Value: 0.6, SE: 0.1, N: 40})
	want := statistician.Interval{Lower: 0.3 - 1.959963984540054*0.1414213562373095, Upper: 0.3 + 1.959963984540054*0.1414213562373095}
	if d := cmp.Diff(want, *got.CI95, cmpopts.EquateApprox(0, 1e-12)); d != "" || !got.Distinguishable {
		t.Errorf("%+v (-want +got):\n%s", got, d)
	}
	undef := kappaChange(statistician.Kappa{Reason: "no runs"}, statistician.Kappa{Value: 0.6, SE: 0.1, N: 40})
	if undef.Distinguishable || undef.Difference != nil || undef.Reason == "" {
		t.Errorf("undefined kappa: %+v", undef)
	}
}

// generatedRuns makes n runs of which the first `agree` have matching
// verdicts; light overstates scores by `gap` points on disagreeing runs.
func generatedRuns(n, agree int, gap float64, prefix string) []fixtureRun {
	var out []fixtureRun
	for i := 0; i < n; i++ {
		base := 30 + float64((i*37)%60)
		fr := fixtureRun{id: fmt.Sprintf("%s-%03d", prefix, i), system: []string{"alpha", "beta", "gamma"}[i%3],
			lrf: base, lte: base - 5, drf: base - 1 + float64(i%3), dte: base - 6 + float64(i%2)}
		fr.lv = verdictFor(fr.lrf, fr.lte)
		fr.dv = verdictFor(fr.drf, fr.dte)
		if i >= agree {
			fr.lrf, fr.lte = min(85, fr.lrf+gap), min(80, fr.lte+gap)
			fr.lv = "pass"
			fr.dv = "fail"
			fr.drf, fr.dte = 20, 15
		}
		out = append(out, fr)
	}
	return out
}

func verdictFor(rf, te float64) string {
	switch {
	case rf < 40 || te < 40:
		return "fail"
	case rf >= 70 && te >= 70:
		return "pass"
	}
	return "partial"
}

func TestTrendOfNoiseIsNotDistinguishable(t *testing.T) {
	prev := buildReport(generatedRuns(40, 32, 25, "run"))
	// The same runs tonight with one more disagreement: noise.
	cur := buildReport(generatedRuns(40, 31, 25, "run"))
	tr := CompareReports(prev, cur)
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
	prev := buildReport(generatedRuns(40, 26, 30, "old"))
	cur := buildReport(generatedRuns(40, 39, 30, "new"))
	tr := CompareReports(prev, cur)
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
	runs := func(pass int, prefix string) []fixtureRun {
		var out []fixtureRun
		for i := 0; i < 40; i++ {
			fr := fixtureRun{id: fmt.Sprintf("%s-%02d", prefix, i), system: []string{"a", "b"}[i%2], lv: "pass", dv: "pass", lrf: 85, lte: 80, drf: 84 - float64(i%5), dte: 79 - float64(i%3)}
			if i >= pass {
				fr.dv, fr.drf, fr.dte = "fail", 30, 20
			}
			out = append(out, fr)
		}
		return out
	}
	tr := CompareReports(buildReport(runs(30, "old")), buildReport(runs(39, "new")))
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
	prev := buildReport(fixtureRuns[:10])
	cur := buildReport(fixtureRuns[3:])
	tr := CompareReports(prev, cur)
	want := Trend{RunsOnlyNow: []string{"20250101-100000-ccc002", "20250101-100000-ccc003", "20250101-100000-ccc004", "20250101-100000-ccc005"},
		RunsOnlyBefore: []string{"20250101-100000-aaa001", "20250101-100000-aaa002", "20250101-100000-aaa003"}}
	if d := cmp.Diff(want, tr, cmpopts.IgnoreFields(Trend{}, "Baseline", "Agreement", "KappaLinear", "MeanDelta", "Correlation", "Brier", "Calibration", "Distinguishable")); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

func TestTrendWithNilReportSaysWhy(t *testing.T) {
	tr := CompareReports(nil, buildReport(fixtureRuns))
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

package calibrate

import (
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/statistician"
)

// R 4.2.2: x <- c(2.1,3.4,1.9,5.6,4.4); y <- c(1.0,0.5,2.2,1.8,0.9,1.4,2.5);
// t.test(x, y)$conf.int = [0.107372124394087, 3.909770732748771], df 5.260335.

// Zou (2007) eq. 15, hand-worked in Python (numpy): r 0.6 (n 50) now,
// 0.3 (n 60) before; Fisher-z intervals [0.38614, 0.75265] and
// [0.04987, 0.51472]; difference 0.3 with [-0.0030481, 0.5930262]: not
// distinguishable although the point estimates differ by 0.3.
func TestCorrelationChangeMatchesZouInterval(t *testing.T) {
	r1, r2 := 0.6, 0.3
	cur := report.Correlation{R: &r1, N: 50, CI95: &statistician.Interval{Lower: 0.386141193639051, Upper: 0.7526488623205274}}
	prev := report.Correlation{R: &r2, N: 60, CI95: &statistician.Interval{Lower: 0.04987461675846436, Upper: 0.5147150431593649}}
	got := correlationChange(prev, cur)
	want := report.Change{Before: f64(0.3), Now: f64(0.6), Difference: f64(0.3),
		CI95:   &statistician.Interval{Lower: -0.0030480800418604126, Upper: 0.5930262488404007},
		Method: got.Method}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-12)); d != "" {
		t.Errorf("(-want +got):\n%s", d)
	}
}

// Newcombe (1998) worked example: 56/70 - 48/80 = 0.2 with [0.0524,
// 0.3339]; in percentage points, distinguishable.
func TestAgreementChangeIsNewcombeInPoints(t *testing.T) {
	got := agreementChange(report.AgreementRate{Matches: 48, N: 80, Percent: ptr(60)}, report.AgreementRate{Matches: 56, N: 70, Percent: ptr(80)})
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

func ptr(x float64) *float64 { return &x }

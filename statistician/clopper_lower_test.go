package statistician

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// clopperRefs is testdata/reference/clopper/clopper_values.json, written
// by clopper_ref.py with scipy.
type clopperRefs struct {
	Lower []struct {
		X, N        int
		Risk, Lower float64
		Tool, Call  string
	} `json:"lower"`
	Trials []struct {
		Target, Risk float64
		N            int
		Tool, Call   string
	} `json:"trials"`
	Plan []struct {
		Rate, Target, Risk, Achieved float64
		N                            int
		Tool, Call                   string
	} `json:"plan"`
}

func readClopperRefs(t *testing.T) clopperRefs {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "reference", "clopper", "clopper_values.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r clopperRefs
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Lower) == 0 || len(r.Trials) == 0 || len(r.Plan) == 0 {
		t.Fatal("clopper_values.json has an empty table")
	}
	return r
}

func TestClopperPearsonLowerMatchesScipy(t *testing.T) {
	// The gonum Beta quantile is iterative: 1e-9 absolute, as for the
	// two-sided interval.
	for _, c := range readClopperRefs(t).Lower {
		got, err := ClopperPearsonLower(c.X, c.N, c.Risk)
		if err != nil {
			t.Fatalf("ClopperPearsonLower(%d, %d, %g): %v", c.X, c.N, c.Risk, err)
		}
		if math.Abs(got-c.Lower) > 1e-9 {
			t.Errorf("ClopperPearsonLower(%d, %d, %g) = %.12g, want %.12g (%s: %s)", c.X, c.N, c.Risk, got, c.Lower, c.Tool, c.Call)
		}
	}
}

func TestClopperPearsonLowerNMatchesScipy(t *testing.T) {
	for _, c := range readClopperRefs(t).Trials {
		got, err := ClopperPearsonLowerN(c.Target, c.Risk, MaxClopperPearsonN)
		if err != nil || got != c.N {
			t.Errorf("ClopperPearsonLowerN(%g, %g) = %d, %v; want %d (%s: %s)", c.Target, c.Risk, got, err, c.N, c.Tool, c.Call)
		}
	}
}

func TestPlanClopperPearsonLowerMatchesBruteForce(t *testing.T) {
	for _, c := range readClopperRefs(t).Plan {
		p := PlanClopperPearsonLower(c.Rate, c.Target, c.Risk, 10_000_000)
		if p.N != c.N || math.Abs(p.Achieved-c.Achieved) > 1e-9 {
			t.Errorf("PlanClopperPearsonLower(%g, %g, %g) = %+v, want n %d achieving %.10g (%s: %s)", c.Rate, c.Target, c.Risk, p, c.N, c.Achieved, c.Tool, c.Call)
		}
	}
}

// The one-sided bound at risk is the lower end of the two-sided interval
// at level 1 - 2 risk (Clopper-Pearson puts alpha/2 in each tail).
func TestClopperPearsonLowerIsTheTwoSidedLowerEnd(t *testing.T) {
	for n := 1; n <= 80; n++ {
		for x := 0; x <= n; x++ {
			for _, risk := range []float64{0.025, 0.1, 0.3} {
				lo, err := ClopperPearsonLower(x, n, risk)
				if err != nil {
					t.Fatal(err)
				}
				iv, err := ClopperPearson(x, n, 1-2*risk)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(lo-iv.Lower) > 1e-12 || lo > float64(x)/float64(n) {
					t.Fatalf("ClopperPearsonLower(%d, %d, %g) = %v; two-sided lower end %v", x, n, risk, lo, iv.Lower)
				}
			}
		}
	}
}

// A perfect record of n has bound risk^(1/n) exactly: 0.1^(1/22) =
// 0.90063, 0.1^(1/21) = 0.89615, so 22 runs are the fewest to show 0.9.
func TestClopperPearsonLowerPerfectRecordWorkedByHand(t *testing.T) {
	for _, c := range []struct {
		n    int
		want float64
	}{{22, 0.900628}, {21, 0.896151}, {11, 0.811131}} {
		got, err := ClopperPearsonLower(c.n, c.n, 0.1)
		if err != nil || math.Abs(got-c.want) > 1e-6 {
			t.Errorf("ClopperPearsonLower(%d, %d, 0.1) = %v, %v; want %v", c.n, c.n, got, err, c.want)
		}
	}
	if n, err := ClopperPearsonLowerN(0.9, 0.1, 1000); err != nil || n != 22 {
		t.Errorf("ClopperPearsonLowerN(0.9, 0.1) = %d, %v; want 22", n, err)
	}
	if _, err := ClopperPearsonLowerN(0.999999, 0.01, 1000); err == nil {
		t.Error("ClopperPearsonLowerN went past its limit without an error")
	}
}

func TestClopperPearsonLowerRejectsBadInput(t *testing.T) {
	for _, c := range []struct {
		x, n int
		risk float64
	}{{1, 0, 0.1}, {-1, 5, 0.1}, {6, 5, 0.1}, {1, 5, 0}, {1, 5, 1}, {1, 5, math.NaN()}, {1, MaxClopperPearsonN + 1, 0.1}} {
		if _, err := ClopperPearsonLower(c.x, c.n, c.risk); err == nil {
			t.Errorf("ClopperPearsonLower(%d, %d, %v) returned no error", c.x, c.n, c.risk)
		}
	}
}

// The plan's answer is the start of the run of clearing m: every m from
// it on clears (checked to 3 times the answer), the one before does not.
func TestPlanClopperPearsonLowerIsTheStartOfTheClearingRun(t *testing.T) {
	for _, c := range []struct{ rate, target, risk float64 }{
		{1, 0.8, 0.1}, {0.95, 0.9, 0.05}, {0.9, 0.85, 0.1}, {0.75, 0.7, 0.2},
	} {
		p := PlanClopperPearsonLower(c.rate, c.target, c.risk, 1_000_000)
		if p.N == 0 {
			t.Fatalf("%+v: %s", c, p.Reason)
		}
		clears := func(m int) bool {
			x := int(math.Floor(c.rate*float64(m) + 1e-9))
			lo, err := ClopperPearsonLower(x, m, c.risk)
			return err == nil && lo >= c.target
		}
		if p.N > 1 && clears(p.N-1) {
			t.Errorf("%+v: n = %d but %d clears too", c, p.N, p.N-1)
		}
		for m := p.N; m <= 3*p.N; m++ {
			if !clears(m) {
				t.Fatalf("%+v: n = %d but %d does not clear", c, p.N, m)
			}
		}
	}
	for _, c := range []struct{ rate, target, risk float64 }{{0.9, 0.9, 0.1}, {0.8, 0.9, 0.1}, {1.2, 0.9, 0.1}, {0.95, 0.9, 0}} {
		if p := PlanClopperPearsonLower(c.rate, c.target, c.risk, 1000); p.N != 0 || p.Reason == "" {
			t.Errorf("PlanClopperPearsonLower(%+v) = %+v; want a reason", c, p)
		}
	}
	if p := PlanClopperPearsonLower(0.9001, 0.9, 0.1, 1000); p.N != 0 || p.Reason == "" {
		t.Errorf("a plan past its limit = %+v; want a reason", p)
	}
}

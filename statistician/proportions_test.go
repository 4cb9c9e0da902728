package statistician

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// refValue is one reference value with its provenance, as written by
// testdata/reference/agreement/agreement_ref.py.
type refValue struct {
	Value float64 `json:"value"`
	Tool  string  `json:"tool"`
	Call  string  `json:"call"`
}

// String names the value's provenance for failure messages.
func (v refValue) String() string { return fmt.Sprintf("%.12g from %s: %s", v.Value, v.Tool, v.Call) }

type refProportion struct {
	X     int      `json:"x"`
	N     int      `json:"n"`
	Level float64  `json:"level"`
	Lower refValue `json:"lower"`
	Upper refValue `json:"upper"`
}

type refDataset struct {
	X []float64 `json:"x"`
	Y []float64 `json:"y"`
}

// agreementRefs is testdata/reference/agreement/agreement_values.json.
type agreementRefs struct {
	Datasets       map[string]refDataset `json:"datasets"`
	Wilson         []refProportion       `json:"wilson"`
	ClopperPearson []refProportion       `json:"clopper_pearson"`
	Newcombe       []struct {
		X1, N1, X2, N2 int
		Lower, Upper   refValue
	} `json:"newcombe"`
	PearsonScipy []struct {
		Name               string
		R, P, Lower, Upper refValue
	} `json:"pearson_scipy"`
	SpearmanScipy []struct {
		Name   string
		Rho, P refValue
	} `json:"spearman_scipy"`
	CohenKappa []struct {
		Name      string
		Table     [][]float64
		Weighting string
		Kappa, SE refValue
	} `json:"cohen_kappa"`
	QuantileType7 struct {
		Sample    []float64
		Quantiles []struct {
			P float64
			Q refValue
		}
	} `json:"quantile_type7"`
	// R maps section -> case name -> field -> value.
	R map[string]map[string]map[string]refValue `json:"r"`
}

var loadRefs = sync.OnceValues(func() (*agreementRefs, error) {
	path := filepath.Join("testdata", "reference", "agreement", "agreement_values.json")
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	var r agreementRefs
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("parse %s: %w", path, err)
	}
	return &r, nil
})

func refs(t *testing.T) *agreementRefs {
	t.Helper()
	r, err := loadRefs()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// rSection returns the R reference cases of one section, failing when it
// is missing.
func rSection(t *testing.T, section string) map[string]map[string]refValue {
	t.Helper()
	s := refs(t).R[section]
	if len(s) == 0 {
		t.Fatalf("no R reference values for section %q", section)
	}
	return s
}

// checkClose fails when got differs from want by more than tol (absolute).
func checkClose(t *testing.T, what string, got float64, want refValue, tol float64) {
	t.Helper()
	if math.IsNaN(got) || math.Abs(got-want.Value) > tol {
		t.Errorf("%s = %.12g, want %v (tolerance %g)", what, got, want, tol)
	}
}

func TestWilsonIntervalWorkedCase18Of30(t *testing.T) {
	// The spec's worked case: 18/30 at z = 1.96 is "about [0.423, 0.750]".
	// By hand: centre = (0.6 + 1.96^2/60)/(1 + 1.96^2/30) = 0.58865,
	// half = 1.96/(1.12805) sqrt(0.24/30 + 1.96^2/3600) = 0.16545, so
	// [0.4232, 0.7541]; the spec's 0.750 is rounded loosely, hence 5e-3.
	got, err := WilsonInterval(18, 30, 1.96)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(Interval{Lower: 0.4232, Upper: 0.7541}, got, cmpopts.EquateApprox(0, 1e-4)); d != "" {
		t.Errorf("WilsonInterval(18, 30, 1.96) mismatch with the hand-worked value (-want +got):\n%s", d)
	}
	want := Interval{Lower: 0.423, Upper: 0.750}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 5e-3)); d != "" {
		t.Errorf("WilsonInterval(18, 30, 1.96) mismatch (-want +got):\n%s", d)
	}
}

func TestWilsonIntervalMatchesStatsmodels(t *testing.T) {
	// Values from statsmodels proportion_confint(method='wilson'), see
	// agreement_values.json; tolerance 1e-12 absolute.
	for _, c := range refs(t).Wilson {
		z, err := ZForLevel(c.Level)
		if err != nil {
			t.Fatal(err)
		}
		got, err := WilsonInterval(c.X, c.N, z)
		if err != nil {
			t.Fatalf("WilsonInterval(%d, %d): %v", c.X, c.N, err)
		}
		name := fmt.Sprintf("Wilson(%d/%d @ %g)", c.X, c.N, c.Level)
		checkClose(t, name+".Lower", got.Lower, c.Lower, 1e-12)
		checkClose(t, name+".Upper", got.Upper, c.Upper, 1e-12)
	}
}

func TestWilsonIntervalBoundsInUnitIntervalAndContainEstimate(t *testing.T) {
	for _, z := range []float64{0.5, 1.645, Z95, 3.3} {
		for n := 1; n <= 200; n++ {
			for k := 0; k <= n; k++ {
				iv, err := WilsonInterval(k, n, z)
				if err != nil {
					t.Fatalf("WilsonInterval(%d, %d, %g): %v", k, n, z, err)
				}
				p := float64(k) / float64(n)
				if !(iv.Lower >= 0 && iv.Upper <= 1 && iv.Contains(p)) {
					t.Fatalf("WilsonInterval(%d, %d, %g) = %+v: not in [0,1] or misses %g", k, n, z, iv, p)
				}
			}
		}
	}
}

func TestWilsonIntervalRejectsBadInput(t *testing.T) {
	for _, c := range []struct {
		k, n int
		z    float64
	}{{0, 0, 1.96}, {-1, 5, 1.96}, {6, 5, 1.96}, {1, 5, 0}, {1, 5, math.NaN()}, {1, 5, math.Inf(1)}} {
		if _, err := WilsonInterval(c.k, c.n, c.z); err == nil {
			t.Errorf("WilsonInterval(%d, %d, %v) returned no error", c.k, c.n, c.z)
		}
	}
}

func TestBonferroniZMatchesSpecValues(t *testing.T) {
	// The spec's worked values from z = 1.96, to 1e-4.
	for _, c := range []struct {
		k    int
		want float64
	}{{0, 1.96}, {1, 1.96}, {2, 2.2414}, {5, 2.5758}, {10, 2.8070}, {20, 3.0233}} {
		if got := BonferroniZ(1.96, c.k); math.Abs(got-c.want) > 1e-4 {
			t.Errorf("BonferroniZ(1.96, %d) = %.5f, want %.4f", c.k, got, c.want)
		}
	}
}

func TestClopperPearsonMatchesStatsmodelsAndR(t *testing.T) {
	// statsmodels proportion_confint(method='beta') and R binom.test; the
	// gonum Beta quantile is iterative, so tolerance 1e-9 absolute.
	r := refs(t)
	rcases := rSection(t, "clopper_pearson_r")
	for _, c := range r.ClopperPearson {
		got, err := ClopperPearson(c.X, c.N, c.Level)
		if err != nil {
			t.Fatalf("ClopperPearson(%d, %d, %g): %v", c.X, c.N, c.Level, err)
		}
		name := fmt.Sprintf("ClopperPearson(%d/%d @ %g)", c.X, c.N, c.Level)
		checkClose(t, name+".Lower", got.Lower, c.Lower, 1e-9)
		checkClose(t, name+".Upper", got.Upper, c.Upper, 1e-9)
		rc, ok := rcases[fmt.Sprintf("%d/%d@%g", c.X, c.N, c.Level)]
		if !ok {
			t.Fatalf("no R value for %s", name)
		}
		checkClose(t, name+".Lower vs R", got.Lower, rc["lower"], 1e-9)
		checkClose(t, name+".Upper vs R", got.Upper, rc["upper"], 1e-9)
	}
}

func TestClopperPearsonContainsEstimateAndWidensWithLevel(t *testing.T) {
	for n := 1; n <= 60; n++ {
		for k := 0; k <= n; k++ {
			iv90, err := ClopperPearson(k, n, 0.90)
			if err != nil {
				t.Fatal(err)
			}
			iv99, err := ClopperPearson(k, n, 0.99)
			if err != nil {
				t.Fatal(err)
			}
			p := float64(k) / float64(n)
			if !iv90.Contains(p) || iv99.Lower > iv90.Lower+1e-12 || iv99.Upper < iv90.Upper-1e-12 {
				t.Fatalf("ClopperPearson(%d, %d): 90%% %+v, 99%% %+v: must contain %g and nest", k, n, iv90, iv99, p)
			}
		}
	}
}

func TestClopperPearsonRejectsBadLevel(t *testing.T) {
	for _, level := range []float64{0, 1, -0.5, math.NaN()} {
		if _, err := ClopperPearson(3, 10, level); err == nil {
			t.Errorf("ClopperPearson(3, 10, %v) returned no error", level)
		}
	}
}

func TestNewcombeDifferenceMatchesPublishedExample(t *testing.T) {
	// Newcombe (1998), Table II, example (a), method 10: 56/70 - 48/80
	// = 0.2 with 95% interval 0.0524 to 0.3339.
	got, err := NewcombeDifference(56, 70, 48, 80, 1.96)
	if err != nil {
		t.Fatal(err)
	}
	want := Difference{Estimate: 0.2, CI: Interval{Lower: 0.0524, Upper: 0.3339}}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 5e-5)); d != "" {
		t.Errorf("NewcombeDifference(56, 70, 48, 80) mismatch (-want +got):\n%s", d)
	}
}

func TestNewcombeDifferenceMatchesStatsmodels(t *testing.T) {
	// statsmodels confint_proportions_2indep(method='newcomb',
	// compare='diff'), which uses z = norm.ppf(0.975) = Z95; 1e-12.
	for _, c := range refs(t).Newcombe {
		got, err := NewcombeDifference(c.X1, c.N1, c.X2, c.N2, Z95)
		if err != nil {
			t.Fatal(err)
		}
		name := fmt.Sprintf("Newcombe(%d/%d - %d/%d)", c.X1, c.N1, c.X2, c.N2)
		checkClose(t, name+".Lower", got.CI.Lower, c.Lower, 1e-12)
		checkClose(t, name+".Upper", got.CI.Upper, c.Upper, 1e-12)
		if !got.CI.Contains(got.Estimate) {
			t.Errorf("%s = %+v: interval misses the estimate", name, got)
		}
	}
}

func TestNewcombeDifferenceRejectsInvalidProportion(t *testing.T) {
	if _, err := NewcombeDifference(3, 0, 1, 5, Z95); err == nil {
		t.Error("NewcombeDifference with n1 = 0 returned no error")
	}
	if _, err := NewcombeDifference(3, 5, 7, 5, Z95); err == nil {
		t.Error("NewcombeDifference with x2 > n2 returned no error")
	}
}

func TestWilsonIntervalAtHugeZIsUnitInterval(t *testing.T) {
	// z^2 overflows above 1.3e154; the limit of the interval is [0, 1].
	got, err := WilsonInterval(3, 10, 1e200)
	if err != nil || got != (Interval{Lower: 0, Upper: 1}) {
		t.Errorf("WilsonInterval(3, 10, 1e200) = %+v, %v; want [0, 1]", got, err)
	}
}

func TestClopperPearsonRejectsNAboveLimit(t *testing.T) {
	if _, err := ClopperPearson(1, MaxClopperPearsonN+1, 0.95); err == nil {
		t.Error("ClopperPearson above MaxClopperPearsonN returned no error")
	}
	// At the limit it still agrees with statsmodels
	// proportion_confint(5, 10**9, method='beta') =
	// (1.6234863920475392e-09, 1.1668332001417841e-08) to 1e-6 relative.
	got, err := ClopperPearson(5, MaxClopperPearsonN, 0.95)
	if err != nil {
		t.Fatal(err)
	}
	want := Interval{Lower: 1.6234863920475392e-09, Upper: 1.1668332001417841e-08}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(1e-6, 0)); d != "" {
		t.Errorf("ClopperPearson(5, 1e9) mismatch (-want +got):\n%s", d)
	}
}

func ExampleNewcombeDifference() {
	// Newcombe (1998), example (a): 56/70 versus 48/80.
	d, err := NewcombeDifference(56, 70, 48, 80, 1.96)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%.4f [%.4f, %.4f]\n", d.Estimate, d.CI.Lower, d.CI.Upper)
	// Output: 0.2000 [0.0524, 0.3339]
}

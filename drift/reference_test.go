package drift

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/evalcal/evalcal/statistician"
)

// refValue is one reference value with its provenance.
type refValue struct {
	Value float64 `json:"value"`
	Tool  string  `json:"tool"`
	Call  string  `json:"call"`
}

type refCase struct {
	Name            string    `json:"name"`
	Alpha           float64   `json:"alpha"`
	Then            []string  `json:"then"`
	Now             []string  `json:"now"`
	RFThen          []float64 `json:"rf_then"`
	TEThen          []float64 `json:"te_then"`
	RFNow           []float64 `json:"rf_now"`
	TENow           []float64 `json:"te_now"`
	Deep            []string  `json:"deep"`
	FlipLower       refValue  `json:"flip_lower"`
	FlipUpper       refValue  `json:"flip_upper"`
	McNemarP        refValue  `json:"mcnemar_p"`
	BinomtestP      *refValue `json:"binomtest_p"`
	Kappa           refValue  `json:"kappa"`
	KappaSE         refValue  `json:"kappa_se"`
	RFMean          refValue  `json:"rf_mean"`
	RFLower         refValue  `json:"rf_lower"`
	RFUpper         refValue  `json:"rf_upper"`
	TEMean          refValue  `json:"te_mean"`
	TELower         refValue  `json:"te_lower"`
	TEUpper         refValue  `json:"te_upper"`
	AgreementCells  []int     `json:"agreement_cells"`
	AgreementChange *refValue `json:"agreement_change"`
	AgreementLower  *refValue `json:"agreement_lower"`
	AgreementUpper  *refValue `json:"agreement_upper"`
}

type refPaired struct {
	Cells  []int    `json:"cells"`
	Level  float64  `json:"level"`
	Change refValue `json:"change"`
	Lower  refValue `json:"lower"`
	Upper  refValue `json:"upper"`
}

type refFile struct {
	Cases  []refCase   `json:"cases"`
	Paired []refPaired `json:"newcombe_paired"`
}

func readReference(t *testing.T) refFile {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "reference", "drift_values.json"))
	if err != nil {
		t.Fatal(err)
	}
	var f refFile
	if err := json.Unmarshal(data, &f); err != nil {
		t.Fatal(err)
	}
	if len(f.Cases) == 0 || len(f.Paired) == 0 {
		t.Fatal("drift_values.json holds no case")
	}
	return f
}

// near compares got with a reference value to tol (absolute), naming the
// reference's call.
func near(t *testing.T, what string, got float64, want refValue, tol float64) {
	t.Helper()
	if math.Abs(got-want.Value) > tol {
		t.Errorf("%s = %.12g, %s (%s) gives %.12g", what, got, want.Call, want.Tool, want.Value)
	}
}

// TestCompareSideMatchesScipyAndStatsmodels checks every paired figure of
// CompareSide on the script's anchor sets: the flip rate's Wilson interval
// and McNemar's exact p (statsmodels; scipy's binomtest), the linear kappa
// and its SE (statsmodels), the score shifts' paired t intervals (scipy's
// ttest_rel) and the agreement change's interval (Newcombe's method 10,
// written from the paper in numpy).
func TestCompareSideMatchesScipyAndStatsmodels(t *testing.T) {
	for _, c := range readReference(t).Cases {
		t.Run(c.Name, func(t *testing.T) {
			pairs := make([]Pair, len(c.Then))
			for i := range c.Then {
				pairs[i] = Pair{RunID: string(rune('a' + i%26)),
					Then: Observation{Verdict: c.Then[i], RuntimeFidelity: c.RFThen[i], TaskEffectiveness: c.TEThen[i]},
					Now:  Observation{Verdict: c.Now[i], RuntimeFidelity: c.RFNow[i], TaskEffectiveness: c.TENow[i]}}
				if c.Deep[i] != "" {
					pairs[i].Deep = &Observation{Verdict: c.Deep[i]}
				}
			}
			r, err := CompareSide(pairs, Options{Alpha: c.Alpha, MaxDrop: 0.05})
			if err != nil {
				t.Fatal(err)
			}
			near(t, "flip rate lower", r.Flips.CI.Lower, c.FlipLower, 1e-12)
			near(t, "flip rate upper", r.Flips.CI.Upper, c.FlipUpper, 1e-12)
			near(t, "McNemar p", r.Flips.McNemarP, c.McNemarP, 1e-12)
			if c.BinomtestP != nil {
				near(t, "McNemar p", r.Flips.McNemarP, *c.BinomtestP, 1e-12)
			}
			near(t, "kappa", r.Kappa.Value, c.Kappa, 1e-12)
			near(t, "kappa SE", r.Kappa.SE, c.KappaSE, 1e-12)
			// Scores are on 0..100: the means to 1e-9; the intervals to 1e-8,
			// since gonum's t quantile is iterative (relative error about
			// 4e-9 of a half-width near 1.3 points here).
			near(t, "runtime fidelity shift", r.ScoreShift.RuntimeFidelity.Mean, c.RFMean, 1e-9)
			near(t, "runtime fidelity shift lower", r.ScoreShift.RuntimeFidelity.CI.Lower, c.RFLower, 1e-8)
			near(t, "runtime fidelity shift upper", r.ScoreShift.RuntimeFidelity.CI.Upper, c.RFUpper, 1e-8)
			near(t, "task effectiveness shift", r.ScoreShift.TaskEffectiveness.Mean, c.TEMean, 1e-9)
			near(t, "task effectiveness shift lower", r.ScoreShift.TaskEffectiveness.CI.Lower, c.TELower, 1e-8)
			near(t, "task effectiveness shift upper", r.ScoreShift.TaskEffectiveness.CI.Upper, c.TEUpper, 1e-8)
			if c.AgreementChange == nil {
				if r.AgreementWithDeep != nil {
					t.Errorf("agreement with deep %+v, want none (no deep label)", r.AgreementWithDeep)
				}
				return
			}
			a := r.AgreementWithDeep
			if a == nil {
				t.Fatal("no agreement with deep, want one")
			}
			if got := []int{a.Table.Both, a.Table.FirstOnly, a.Table.SecondOnly, a.Table.Neither}; !slices.Equal(got, c.AgreementCells) {
				t.Errorf("agreement cells %v, want %v", got, c.AgreementCells)
			}
			near(t, "agreement change", a.Change.Estimate, *c.AgreementChange, 1e-12)
			near(t, "agreement change lower", a.Change.CI.Lower, *c.AgreementLower, 1e-12)
			near(t, "agreement change upper", a.Change.CI.Upper, *c.AgreementUpper, 1e-12)
		})
	}
}

// TestNewcombePairedDifferenceMatchesTheIndependentImplementation checks
// the statistician's paired interval against the script's numpy one on
// tables with empty cells and margins, at two levels.
func TestNewcombePairedDifferenceMatchesTheIndependentImplementation(t *testing.T) {
	for _, c := range readReference(t).Paired {
		tab := statistician.PairedTable{Both: c.Cells[0], FirstOnly: c.Cells[1], SecondOnly: c.Cells[2], Neither: c.Cells[3]}
		z, err := statistician.ZForLevel(c.Level)
		if err != nil {
			t.Fatal(err)
		}
		d, err := statistician.NewcombePairedDifference(tab, z)
		if err != nil {
			t.Fatalf("%v: %v", c.Cells, err)
		}
		near(t, "change", d.Estimate, c.Change, 1e-12)
		near(t, "lower", d.CI.Lower, c.Lower, 1e-12)
		near(t, "upper", d.CI.Upper, c.Upper, 1e-12)
	}
}

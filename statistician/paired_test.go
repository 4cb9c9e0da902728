package statistician

import (
	"fmt"
	"math"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// differences returns y - x of a reference data set.
func differences(ds refDataset) []float64 {
	d := make([]float64, len(ds.X))
	for i := range d {
		d[i] = ds.Y[i] - ds.X[i]
	}
	return d
}

func TestMeanDifferenceMatchesRTTest(t *testing.T) {
	// R t.test(y - x, conf.level = 0.95 and 0.90); tolerance 1e-9 (gonum's
	// t quantile is iterative).
	r := refs(t)
	rcases := rSection(t, "mean_difference")
	for name, ds := range r.Datasets {
		for _, level := range []float64{0.95, 0.90} {
			rc := rcases[fmt.Sprintf("%s@%g", name, level)]
			got := MeanDifference(differences(ds), level)
			if got.Reason != "" {
				t.Fatalf("MeanDifference(%s) reason %q", name, got.Reason)
			}
			what := fmt.Sprintf("MeanDifference(%s @ %g)", name, level)
			checkClose(t, what+".Mean", got.Mean, rc["mean"], 1e-12)
			checkClose(t, what+".SE", got.SE, rc["se"], 1e-12)
			checkClose(t, what+".CI.Lower", got.CI.Lower, rc["lower"], 1e-9)
			checkClose(t, what+".CI.Upper", got.CI.Upper, rc["upper"], 1e-9)
		}
	}
}

func TestMeanDifferenceHandWorkedPair(t *testing.T) {
	// d = 1, 3: mean 2, SD sqrt(2), SE 1, t(0.975; 1) = 12.7062047361747.
	got := MeanDifference([]float64{1, 3}, 0.95)
	want := MeanDiff{Mean: 2, SD: math.Sqrt2, SE: 1, CI: Interval{Lower: 2 - 12.7062047361747, Upper: 2 + 12.7062047361747}, N: 2}
	if d := cmp.Diff(want, got, cmpopts.EquateApprox(0, 1e-9)); d != "" {
		t.Errorf("MeanDifference([1 3]) mismatch (-want +got):\n%s", d)
	}
}

func TestMeanDifferenceReasons(t *testing.T) {
	for _, c := range []struct {
		name  string
		d     []float64
		level float64
		want  MeanDiff
	}{
		{"one value", []float64{4}, 0.95, MeanDiff{N: 1, Reason: "insufficient data: 1 differences, need at least 2"}},
		{"bad level", []float64{1, 2, 3}, 1, MeanDiff{N: 3, Reason: "invalid input: confidence level 1 must be in (0, 1)"}},
		{"NaN", []float64{1, math.NaN()}, 0.95, MeanDiff{N: 2, Reason: "invalid input: d[1] is NaN"}},
		{"constant", []float64{0.3, 0.3, 0.3}, 0.95, MeanDiff{Mean: 0.3, CI: Interval{Lower: 0.3, Upper: 0.3}, N: 3}},
	} {
		if d := cmp.Diff(c.want, MeanDifference(c.d, c.level)); d != "" {
			t.Errorf("MeanDifference(%s) mismatch (-want +got):\n%s", c.name, d)
		}
	}
}

func TestBlandAltmanMatchesPublishedFormulasInR(t *testing.T) {
	// Bland and Altman (1999) section 3 formulas evaluated in R (no Debian
	// package implements them); 1e-12, intervals 1e-9 (t quantile).
	r := refs(t)
	rcases := rSection(t, "bland_altman")
	for name, ds := range r.Datasets {
		rc := rcases[name]
		got := BlandAltman(ds.X, ds.Y)
		if got.Reason != "" {
			t.Fatalf("BlandAltman(%s) reason %q", name, got.Reason)
		}
		for _, f := range []struct {
			field string
			got   float64
			tol   float64
		}{
			{"bias", got.Bias, 1e-12}, {"sd", got.SD, 1e-12},
			{"lower_loa", got.Lower, 1e-12}, {"upper_loa", got.Upper, 1e-12},
			{"bias_lower", got.BiasCI.Lower, 1e-9}, {"bias_upper", got.BiasCI.Upper, 1e-9},
			{"lower_loa_lower", got.LowerCI.Lower, 1e-9}, {"lower_loa_upper", got.LowerCI.Upper, 1e-9},
			{"upper_loa_lower", got.UpperCI.Lower, 1e-9}, {"upper_loa_upper", got.UpperCI.Upper, 1e-9},
		} {
			checkClose(t, "BlandAltman("+name+")."+f.field, f.got, rc[f.field], f.tol)
		}
	}
}

func TestBlandAltmanRejectsUnequalLengths(t *testing.T) {
	got := BlandAltman([]float64{1, 2, 3}, []float64{1, 2})
	want := BlandAltmanResult{N: 3, Reason: "invalid input: x has 3 values and y has 2"}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("mismatch (-want +got):\n%s", d)
	}
}

func TestLinCCCMatchesEpiR(t *testing.T) {
	// R epiR::epi.ccc(x, y, ci = "z-transform"); 1e-12.
	r := refs(t)
	rcases := rSection(t, "lin_ccc")
	for name, ds := range r.Datasets {
		rc := rcases[name]
		got := LinCCC(ds.X, ds.Y)
		if got.Reason != "" {
			t.Fatalf("LinCCC(%s) reason %q", name, got.Reason)
		}
		checkClose(t, "LinCCC("+name+").Value", got.Value, rc["value"], 1e-12)
		checkClose(t, "LinCCC("+name+").CI95.Lower", got.CI95.Lower, rc["lower"], 1e-12)
		checkClose(t, "LinCCC("+name+").CI95.Upper", got.CI95.Upper, rc["upper"], 1e-12)
	}
}

func TestLinCCCHandWorkedShift(t *testing.T) {
	// a = 1..5, b = a + 1: s_a^2 = s_b^2 = s_ab = 2 (over n), shift 1, so
	// rho_c = 4/(2 + 2 + 1) = 0.8.
	got := LinCCC([]float64{1, 2, 3, 4, 5}, []float64{2, 3, 4, 5, 6})
	if got.Reason != "" || math.Abs(got.Value-0.8) > 1e-15 {
		t.Errorf("LinCCC(a, a+1) = %+v, want value 0.8", got)
	}
}

func TestLinCCCDegenerateCases(t *testing.T) {
	a := []float64{1, 2, 3, 4, 5}
	for _, c := range []struct {
		name string
		a, b []float64
		want CCC
	}{
		{"identical", a, a, CCC{Value: 1, CI95: Interval{Lower: 1, Upper: 1}, N: 5}},
		{"four pairs", a[:4], a[:4], CCC{N: 4, Reason: "insufficient data: 4 pairs, need at least 5"}},
		{"constant b", a, []float64{3, 3, 3, 3, 3}, CCC{N: 5, Reason: "undefined: b has zero variance"}},
		// Pearson r = 0 (b symmetric about a's mean): rho_c = 0, SE undefined.
		{"uncorrelated", a, []float64{1, 3, 5, 3, 1}, CCC{N: 5, Reason: "interval undefined: Pearson r is 0"}},
	} {
		if d := cmp.Diff(c.want, LinCCC(c.a, c.b)); d != "" {
			t.Errorf("LinCCC(%s) mismatch (-want +got):\n%s", c.name, d)
		}
	}
}

func TestLinCCCStaysInRangeAndBelowAbsPearson(t *testing.T) {
	next := lcgUniform(99)
	for trial := 0; trial < 500; trial++ {
		n := 5 + trial%30
		a, b := make([]float64, n), make([]float64, n)
		for i := range a {
			a[i] = next() * 100
			b[i] = a[i]*(next()*2-0.5) + next()*float64(trial%50)
		}
		c := LinCCC(a, b)
		p := Pearson(a, b)
		if c.Value < -1 || c.Value > 1 || math.Abs(c.Value) > math.Abs(p.R)+1e-12 {
			t.Fatalf("trial %d: CCC %+v out of [-1, 1] or above |r| = %g", trial, c, math.Abs(p.R))
		}
		if c.Reason == "" && !(c.CI95.Lower <= c.Value && c.Value <= c.CI95.Upper) {
			t.Fatalf("trial %d: CCC interval %+v misses the value", trial, c)
		}
	}
}

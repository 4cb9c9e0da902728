package statistician

import (
	"math"
	"sort"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestPearsonMatchesScipyAndR(t *testing.T) {
	// r and p from scipy.stats.pearsonr (1e-12; p 1e-10 relative to the
	// t distribution of gonum), interval from pearsonr().confidence_interval
	// and from R cor.test (1e-12).
	r := refs(t)
	rcases := rSection(t, "pearson")
	for _, c := range r.PearsonScipy {
		ds := r.Datasets[c.Name]
		got := Pearson(ds.X, ds.Y)
		if got.Reason != "" {
			t.Fatalf("Pearson(%s) reason %q", c.Name, got.Reason)
		}
		checkClose(t, "Pearson("+c.Name+").R", got.R, c.R, 1e-12)
		checkClose(t, "Pearson("+c.Name+").P", got.P, c.P, 1e-10)
		checkClose(t, "Pearson("+c.Name+").CI95.Lower", got.CI95.Lower, c.Lower, 1e-12)
		checkClose(t, "Pearson("+c.Name+").CI95.Upper", got.CI95.Upper, c.Upper, 1e-12)
		rc := rcases[c.Name]
		checkClose(t, "Pearson("+c.Name+").P vs R", got.P, rc["p"], 1e-10)
		checkClose(t, "Pearson("+c.Name+").CI95.Lower vs R", got.CI95.Lower, rc["lower"], 1e-12)
		checkClose(t, "Pearson("+c.Name+").CI95.Upper vs R", got.CI95.Upper, rc["upper"], 1e-12)
		if got.N != len(ds.X) {
			t.Errorf("Pearson(%s).N = %d, want %d", c.Name, got.N, len(ds.X))
		}
	}
}

func TestSpearmanMatchesScipyAndFiellerIntervalInR(t *testing.T) {
	// rho and p from scipy.stats.spearmanr (1e-12, p 1e-10); the interval
	// from the Fieller-Hartley-Pearson formula evaluated in R on R's
	// cor(method = "spearman") (1e-12).
	r := refs(t)
	rcases := rSection(t, "spearman_ci")
	for _, c := range r.SpearmanScipy {
		ds := r.Datasets[c.Name]
		got := Spearman(ds.X, ds.Y)
		if got.Reason != "" {
			t.Fatalf("Spearman(%s) reason %q", c.Name, got.Reason)
		}
		checkClose(t, "Spearman("+c.Name+").R", got.R, c.Rho, 1e-12)
		checkClose(t, "Spearman("+c.Name+").P", got.P, c.P, 1e-10)
		rc := rcases[c.Name]
		checkClose(t, "Spearman("+c.Name+").R vs R", got.R, rc["rho"], 1e-12)
		checkClose(t, "Spearman("+c.Name+").CI95.Lower", got.CI95.Lower, rc["lower"], 1e-12)
		checkClose(t, "Spearman("+c.Name+").CI95.Upper", got.CI95.Upper, rc["upper"], 1e-12)
	}
}

func TestPearsonHandWorkedFivePoints(t *testing.T) {
	// x = 1..5, y = 2,4,5,4,5: mx = 3, my = 4, Sxy = 6, Sxx = 10,
	// Syy = 6, so r = 6/sqrt(60) = 0.7745967; t = r sqrt(3/(1-r^2)) = 2.1213.
	got := Pearson([]float64{1, 2, 3, 4, 5}, []float64{2, 4, 5, 4, 5})
	wantR := 6 / math.Sqrt(60)
	if math.Abs(got.R-wantR) > 1e-15 {
		t.Errorf("R = %.17g, want %.17g", got.R, wantR)
	}
	half := Z95 / math.Sqrt(2)
	want := Interval{Lower: math.Tanh(math.Atanh(wantR) - half), Upper: math.Tanh(math.Atanh(wantR) + half)}
	if d := cmp.Diff(want, got.CI95, cmpopts.EquateApprox(0, 1e-14)); d != "" {
		t.Errorf("CI95 mismatch (-want +got):\n%s", d)
	}
}

func TestCorrelationReasonsInsteadOfNumbers(t *testing.T) {
	five := []float64{1, 2, 3, 4, 5}
	for _, c := range []struct {
		name   string
		x, y   []float64
		reason string
	}{
		{"four pairs", []float64{1, 2, 3, 4}, []float64{1, 3, 2, 4}, "insufficient data: 4 pairs, need at least 5"},
		{"no pairs", nil, nil, "insufficient data: 0 pairs, need at least 5"},
		{"constant x", []float64{2, 2, 2, 2, 2}, five, "undefined: x has zero variance"},
		{"constant y", five, []float64{7, 7, 7, 7, 7}, "undefined: y has zero variance"},
		{"unequal lengths", five, []float64{1, 2}, "invalid input: x has 5 values and y has 2"},
		{"NaN", []float64{1, 2, math.NaN(), 4, 5}, five, "invalid input: x[2] is NaN"},
		{"Inf", five, []float64{1, 2, 3, 4, math.Inf(-1)}, "invalid input: y[4] is -Inf"},
	} {
		for fname, f := range map[string]func(x, y []float64) Correlation{"Pearson": Pearson, "Spearman": Spearman} {
			got := f(c.x, c.y)
			want := Correlation{N: len(c.x), Reason: c.reason}
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("%s(%s) mismatch (-want +got):\n%s", fname, c.name, d)
			}
		}
	}
}

func TestPearsonPerfectLineHasZeroWidthIntervalAndZeroP(t *testing.T) {
	x := []float64{1, 2, 3, 4, 5, 6}
	y := []float64{-3, -5, -7, -9, -11, -13}
	got := Pearson(x, y)
	want := Correlation{R: -1, CI95: Interval{Lower: -1, Upper: -1}, P: 0, N: 6}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("Pearson of a perfect decreasing line mismatch (-want +got):\n%s", d)
	}
}

func TestAverageRanksGivesTiesTheirMeanRank(t *testing.T) {
	// R: rank(c(3, 1, 4, 1, 5, 9, 2, 6, 5)) = 4 1.5 5 1.5 6.5 9 3 8 6.5.
	got := AverageRanks([]float64{3, 1, 4, 1, 5, 9, 2, 6, 5})
	want := []float64{4, 1.5, 5, 1.5, 6.5, 9, 3, 8, 6.5}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("AverageRanks mismatch (-want +got):\n%s", d)
	}
}

func TestSpearmanIsInvariantUnderMonotoneTransforms(t *testing.T) {
	x := []float64{0.3, 1.2, 2.5, 0.7, 3.1, 2.2, 0.1}
	y := []float64{1, 4, 3, 2, 7, 5, 1}
	base := Spearman(x, y)
	ex := make([]float64, len(x))
	for i, v := range x {
		ex[i] = math.Exp(3 * v)
	}
	if d := cmp.Diff(base, Spearman(ex, y), cmpopts.EquateApprox(0, 1e-14)); d != "" {
		t.Errorf("Spearman changed under exp (-before +after):\n%s", d)
	}
}

func TestPearsonStaysInRangeOnRandomData(t *testing.T) {
	next := lcgUniform(12345)
	for trial := 0; trial < 500; trial++ {
		n := 5 + trial%40
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i] = next()*10 - 5
			y[i] = x[i]*float64(trial%7-3) + next()
		}
		for _, c := range []Correlation{Pearson(x, y), Spearman(x, y)} {
			if c.Reason != "" {
				continue
			}
			vals := []float64{c.R, c.P, c.CI95.Lower, c.CI95.Upper}
			if !sort.Float64sAreSorted([]float64{-1, c.CI95.Lower, c.R, c.CI95.Upper, 1}) || c.P < 0 || c.P > 1 {
				t.Fatalf("trial %d: out of range %+v", trial, c)
			}
			for _, v := range vals {
				if math.IsNaN(v) {
					t.Fatalf("trial %d: NaN in %+v", trial, c)
				}
			}
		}
	}
}

func TestCorrelationReasonNamesTheCount(t *testing.T) {
	got := Pearson([]float64{1, 2}, []float64{3, 4})
	if !strings.Contains(got.Reason, "2 pairs") {
		t.Errorf("reason %q does not name the pair count", got.Reason)
	}
}

package statistician

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"
)

// TestIsotonicMatchesSklearn compares FitIsotonic and At with
// scikit-learn's IsotonicRegression(out_of_bounds="clip") on the cases of
// testdata/reference/isotonic/isotonic_values.json (written by
// isotonic_ref.py there; tool, version and call in the file).
func TestIsotonicMatchesSklearn(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "reference", "isotonic", "isotonic_values.json"))
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []struct {
			Name                 string
			X, Y, Query, Predict []float64
			Tool, Call           string
		}
	}
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) < 5 {
		t.Fatalf("only %d cases", len(ref.Cases))
	}
	for _, c := range ref.Cases {
		m := FitIsotonic(c.X, c.Y)
		for i, q := range c.Query {
			if got := m.At(q); math.Abs(got-c.Predict[i]) > 1e-12 {
				t.Errorf("%s: At(%v) = %v, want %v from %s: %s", c.Name, q, got, c.Predict[i], c.Tool, c.Call)
			}
		}
	}
}

// Properties: the fitted map is non-decreasing and has the labels' mean
// (least squares under an order keeps the mean).
func TestIsotonicProperties(t *testing.T) {
	rng := rand.New(rand.NewPCG(8, 8))
	for trial := range 200 {
		n := 1 + rng.IntN(60)
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i] = float64(rng.IntN(20))
			y[i] = rng.NormFloat64() + 0.1*x[i]
		}
		m := FitIsotonic(x, y)
		var sumFit, sumY float64
		for i := range x {
			sumFit += m.At(x[i])
			sumY += y[i]
		}
		if math.Abs(sumFit-sumY) > 1e-9*float64(n) {
			t.Fatalf("trial %d: fitted sum %v, labels' %v", trial, sumFit, sumY)
		}
		for i := 1; i < len(m.Y); i++ {
			if m.Y[i] < m.Y[i-1]-1e-12 || m.X[i] <= m.X[i-1] {
				t.Fatalf("trial %d: not increasing: %+v", trial, m)
			}
		}
	}
	if _, _, ok := CrossFitIsotonic([]float64{1, 2, 3}, []float64{0, 1, 1}, nil); ok {
		t.Error("cross-fitting 3 labels")
	}
}

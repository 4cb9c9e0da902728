package segment

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/evalcal/evalcal/statistician"
)

// Hajek against numpy and statsmodels (WLS with HC1 covariance):
// testdata/reference/hajek_ref.py, its output committed as
// hajek_values.json.
func TestHajekMatchesStatsmodels(t *testing.T) {
	data, err := os.ReadFile("testdata/reference/hajek_values.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Datasets []struct {
			Name   string
			Y, Pi  []float64
			Mu, SE float64
		}
	}
	if err := json.Unmarshal(data, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Datasets) < 8 {
		t.Fatalf("%d reference datasets", len(ref.Datasets))
	}
	for _, d := range ref.Datasets {
		r := Hajek(d.Y, d.Pi)
		if r.Method != MethodHajek || r.Percent == nil || r.NLabelled != len(d.Y) || math.Abs(*r.Percent-100*d.Mu) > 1e-9 {
			t.Fatalf("%s: %+v, reference %v%%", d.Name, r, 100*d.Mu)
		}
		if d.SE == 0 {
			if r.SE != nil || r.CI95 != nil || r.Reason == "" {
				t.Errorf("%s: equal labels: %+v, want no SE, no interval and a reason", d.Name, r)
			}
			continue
		}
		if r.SE == nil || math.Abs(*r.SE-100*d.SE) > 1e-9 {
			t.Fatalf("%s: SE %v, reference %v", d.Name, r.SE, 100*d.SE)
		}
		lo, hi := max(0, d.Mu-statistician.Z95*d.SE), min(1, d.Mu+statistician.Z95*d.SE)
		if r.CI95 == nil || math.Abs(r.CI95.Lower-100*lo) > 1e-9 || math.Abs(r.CI95.Upper-100*hi) > 1e-9 {
			t.Errorf("%s: interval %v, reference [%v, %v]", d.Name, r.CI95, 100*lo, 100*hi)
		}
	}
}

// Hand-worked: y = (1, 0), pi = (0.5, 0.25): w = (2, 4), mu = 2/6 = 1/3;
// SE^2 = 2 (4 (2/3)^2 + 16 (1/3)^2) / 36 = 2 (16/9 + 16/9) / 36 = 16/81,
// SE = 4/9. Too few labels or a pi outside (0, 1] give a reason.
func TestHajekByHand(t *testing.T) {
	r := Hajek([]float64{1, 0}, []float64{0.5, 0.25})
	if math.Abs(*r.Percent-100.0/3) > 1e-12 || math.Abs(*r.SE-400.0/9) > 1e-12 {
		t.Errorf("Hajek = %v%% SE %v, want 33.33%% SE 44.44", *r.Percent, *r.SE)
	}
	for _, c := range []struct{ y, pi []float64 }{{[]float64{1}, []float64{0.5}}, {[]float64{1, 0}, []float64{0.5, 0}}, {[]float64{1, 0}, []float64{0.5, 1.5}}} {
		if r := Hajek(c.y, c.pi); r.Percent != nil || r.Reason == "" {
			t.Errorf("Hajek(%v, %v) = %+v, want a reason", c.y, c.pi, r)
		}
	}
}

// Coverage of the process pass rate by Hájek's 95% interval: runs pass
// with a probability that rises with their inclusion probability (so the
// unweighted mean of the labels is biased), 200 runs a slice, pi from
// 0.1 to 0.9; 2,000 simulations (fast: not skipped under -short),
// coverage within 93.5-96.5%. Ignoring the weights covers about 76%.
func TestHajekCoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(29, 2))
	const sims, n = 2000, 200
	// Each run: pi ~ U(0.1, 0.9), pass with probability 0.2 + 0.6 pi;
	// the process pass rate is E[0.2 + 0.6 pi] = 0.5.
	const truth = 50.0
	covered, naiveCovered := 0, 0
	for range sims {
		var y, pi []float64
		for range n {
			p := 0.1 + 0.8*rng.Float64()
			if rng.Float64() >= p {
				continue
			}
			v := 0.0
			if rng.Float64() < 0.2+0.6*p {
				v = 1
			}
			y, pi = append(y, v), append(pi, p)
		}
		r := Hajek(y, pi)
		if r.CI95 != nil && r.CI95.Lower <= truth && truth <= r.CI95.Upper {
			covered++
		}
		eq := make([]float64, len(y))
		for i := range eq {
			eq[i] = 0.5
		}
		if r := Hajek(y, eq); r.CI95 != nil && r.CI95.Lower <= truth && truth <= r.CI95.Upper {
			naiveCovered++
		}
	}
	cov, naive := float64(covered)/sims, float64(naiveCovered)/sims
	t.Logf("coverage %.4f; ignoring the weights %.4f", cov, naive)
	if cov < 0.935 || cov > 0.965 {
		t.Errorf("coverage %.4f, want 0.935-0.965", cov)
	}
}

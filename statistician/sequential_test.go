package statistician

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestSpendingWeightsSumToOne: gamma_k = 1/(k(k+1)) telescopes, so the
// first K weights sum to 1 - 1/(K+1).
func TestSpendingWeightsSumToOne(t *testing.T) {
	sum := 0.0
	for k := 1; k <= 10000; k++ {
		sum += SpendingWeight(k)
		if k == 1 || k == 30 || k == 10000 {
			if want := 1 - 1/float64(k+1); math.Abs(sum-want) > 1e-12 {
				t.Errorf("sum of %d weights %v, want %v", k, sum, want)
			}
		}
	}
	if SpendingWeight(0) != 0 || SpendingWeight(-3) != 0 {
		t.Error("weight of a look before the first is not 0")
	}
}

// TestSpentBonferroniHandWorked: thresholds 0.025, 0.05/6, 0.05/12; p =
// 0.03 does not cross at look 1, 0.008 crosses at look 2.
func TestSpentBonferroniHandWorked(t *testing.T) {
	r, err := SpentBonferroni([]float64{0.03, 0.008, 0.001}, 0.05)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Rejected || r.FirstCrossed != 2 || r.Looks[0].Crossed || !r.Looks[1].Crossed || !r.Looks[2].Crossed {
		t.Errorf("result %+v", r)
	}
	for _, bad := range [][]float64{{-0.1}, {1.5}, {math.NaN()}} {
		if _, err := SpentBonferroni(bad, 0.05); err == nil {
			t.Errorf("p-values %v accepted", bad)
		}
	}
	if _, err := SpentBonferroni([]float64{0.5}, 0); err == nil {
		t.Error("alpha 0 accepted")
	}
}

// TestSpentBonferroniKeepsAlphaUnderDependence: p-values that are the
// same uniform on every look (the most dependent case) and independent
// uniforms (the least): over 365 looks the share of series with any
// rejection stays at most alpha, within simulation error.
func TestSpentBonferroniKeepsAlphaUnderDependence(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("simulation: skipped under -short and the race detector")
	}
	const series, looks, alpha = 20000, 365, 0.05
	rng := rand.New(rand.NewPCG(5, 6))
	ps := make([]float64, looks)
	for _, dependent := range []bool{true, false} {
		rejected := 0
		for range series {
			u := rng.Float64()
			for k := range ps {
				if !dependent {
					u = rng.Float64()
				}
				ps[k] = u
			}
			r, err := SpentBonferroni(ps, alpha)
			if err != nil {
				t.Fatal(err)
			}
			if r.Rejected {
				rejected++
			}
		}
		// 3 binomial SDs above alpha.
		limit := alpha + 3*math.Sqrt(alpha*(1-alpha)/series)
		if share := float64(rejected) / series; share > limit {
			t.Errorf("dependent %v: share rejected %v, want <= %v", dependent, share, limit)
		}
	}
}

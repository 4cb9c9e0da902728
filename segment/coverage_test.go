package segment

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// simulateTwoSlices draws two slices of n runs each from processes whose
// deep pass rates are pA and pB, light's forecast informative (mean 0.35
// on a deep non-pass, 0.65 on a pass, sd 0.2) and lenient on B (shifted
// by 0.1), and deep on each run with probability share (a uniform
// subset; 1 labels every run).
func simulateTwoSlices(rng *rand.Rand, n int, pA, pB, share float64) []Run {
	runs := make([]Run, 0, 2*n)
	for i := range 2 * n {
		sys, p, shift := "A", pA, 0.0
		if i >= n {
			sys, p, shift = "B", pB, 0.1
		}
		pass := rng.Float64() < p
		f := 0.35 + shift + rng.NormFloat64()*0.2
		deep := "fail"
		if pass {
			f += 0.3
			deep = "pass"
		}
		f = math.Max(0, math.Min(1, f))
		light := "fail"
		if f >= 0.55 {
			light = "pass"
		}
		if rng.Float64() >= share {
			deep = ""
		}
		runs = append(runs, Run{ID: fmt.Sprintf("%s%04d", sys, i), System: sys, LightVerdict: light, DeepVerdict: deep, Forecast: f})
	}
	return runs
}

// The interval of deep's difference between two slices covers the
// processes' true difference about 95% of the time, with deep on every
// run (classical rates) and on a 40% subset (PPI++), 2,000 simulations
// each; the same data's light-only difference, biased by light's
// leniency on B, does not.
func TestDeepDifferenceCoversTheTrueDifference(t *testing.T) {
	if testing.Short() {
		t.Skip("simulation")
	}
	const sims = 2000
	for _, c := range []struct {
		name          string
		pA, pB, share float64
	}{{"classical, equal rates", 0.7, 0.7, 1}, {"classical, 15 points apart", 0.7, 0.55, 1},
		{"ppi++ 40%, equal rates", 0.7, 0.7, 0.4}, {"ppi++ 40%, 15 points apart", 0.7, 0.55, 0.4}} {
		rng := rand.New(rand.NewPCG(29, uint64(c.share*100+c.pB*1000)))
		truth := 100 * (c.pA - c.pB)
		deepIn, lightIn := 0, 0
		for range sims {
			f := Compute(simulateTwoSlices(rng, 150, c.pA, c.pB, c.share), []string{"system"})[0]
			cmp := f.Comparisons[0]
			if iv := cmp.Deep.CI95; iv != nil && iv.Lower <= truth && truth <= iv.Upper {
				deepIn++
			}
			if iv := cmp.Light.CI95; iv != nil && iv.Lower <= truth && truth <= iv.Upper {
				lightIn++
			}
		}
		cov, lcov := float64(deepIn)/sims, float64(lightIn)/sims
		t.Logf("%s: deep covers %.1f%%, light alone %.1f%%", c.name, 100*cov, 100*lcov)
		if cov < 0.935 || cov > 0.965 {
			t.Errorf("%s: deep's difference interval covers %.1f%%, want 93.5-96.5%%", c.name, 100*cov)
		}
		if lcov > 0.8 {
			t.Errorf("%s: light's interval covers %.1f%%: the planted leniency should show", c.name, 100*lcov)
		}
	}
}

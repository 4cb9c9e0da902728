package statistician

import (
	"math/rand/v2"
	"testing"
)

// Fleiss' kappa's interval (Gwet's variance) covers the population kappa
// of K = 3 repeated verdicts on 60 runs: each repeat returns the run's
// latent verdict (fail 20%, partial 30%, pass 50%) with probability a,
// else a uniformly random one. The population kappa comes from 400,000
// runs.
func TestFleissKappaCoverage(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("coverage simulation")
	}
	for _, a := range []float64{0.6, 0.85} {
		rng := rand.New(rand.NewPCG(5, uint64(100*a)))
		draw := func(n int) [][]int {
			out := make([][]int, n)
			for i := range out {
				latent := 2
				switch c := rng.IntN(10); {
				case c < 2:
					latent = 0
				case c < 5:
					latent = 1
				}
				row := make([]int, 3)
				for range 3 {
					if rng.Float64() < a {
						row[latent]++
					} else {
						row[rng.IntN(3)]++
					}
				}
				out[i] = row
			}
			return out
		}
		truth := FleissKappa(draw(400_000), 0.95).Value
		const datasets = 2000
		covered := 0
		for range datasets {
			if FleissKappa(draw(60), 0.95).CI.Contains(truth) {
				covered++
			}
		}
		c := float64(covered) / datasets
		t.Logf("repeat agreement %v (kappa %.3f): interval covers %.1f%%", a, truth, 100*c)
		if c < 0.935 || c > 0.965 {
			t.Errorf("repeat agreement %v: Fleiss interval covers %.1f%%, want 93.5-96.5%%", a, 100*c)
		}
	}
}

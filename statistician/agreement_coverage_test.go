package statistician

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Runs of one system share its agreement rate. With system rates spread
// (SD 0.1 around 0.8) the binomial (Wilson) interval of the pooled
// agreement treats the runs as independent and covers the population rate
// about 75% of the time; the cluster-robust interval must come close to
// 95%. CR1 with t(G-1) is known to run slightly below nominal with few
// clusters (Cameron and Miller 2015, section VI), so the bound is 92%.
func TestClusterRobustProportionCoverage(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("coverage simulation")
	}
	const datasets = 2000
	for _, g := range []int{4, 8, 20} {
		rng := rand.New(rand.NewPCG(uint64(g), 11))
		covered, wilsonCovered := 0, 0
		var m []bool
		var names []string
		for range datasets {
			m, names = m[:0], names[:0]
			for s := range g {
				p := math.Max(0.01, math.Min(0.99, 0.8+0.1*rng.NormFloat64()))
				for range 10 + rng.IntN(40) {
					m = append(m, rng.Float64() < p)
					names = append(names, fmt.Sprint("system-", s))
				}
			}
			if ClusterRobustProportion(m, names, 0.95).CI.Contains(0.8) {
				covered++
			}
			hits := 0
			for _, x := range m {
				if x {
					hits++
				}
			}
			if w, _ := WilsonInterval(hits, len(m), Z95); w.Contains(0.8) {
				wilsonCovered++
			}
		}
		c, w := float64(covered)/datasets, float64(wilsonCovered)/datasets
		t.Logf("%d systems: cluster-robust covers %.1f%%, Wilson %.1f%%", g, 100*c, 100*w)
		if c < 0.92 || c > 0.965 {
			t.Errorf("%d systems: cluster-robust interval covers %.1f%%, want 92-96.5%%", g, 100*c)
		}
	}
}

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

package calibrate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/report"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/evalcal/evalcal/statistician"
)

// clusteredRuns is g systems of 3 to 17 runs each (uneven).
func clusteredRuns(g int) []inspection.Run {
	var runs []inspection.Run
	for c := range g {
		for i := range 3 + (c*7)%15 {
			runs = append(runs, inspection.Run{ID: fmt.Sprintf("s%02d-r%02d", c, i), System: fmt.Sprintf("s%02d", c)})
		}
	}
	return runs
}

// TestClusterPolicyLabelsWholeClusters: --deep-policy cluster puts every
// run of a chosen cluster in the deep subset and none of the others,
// round(G F) of the G clusters, pi = k/G for every run; the choice
// depends on the seed, not on the runs' order.
func TestClusterPolicyLabelsWholeClusters(t *testing.T) {
	runs := clusteredRuns(20)
	chosen := map[uint64]string{}
	for seed := range uint64(5) {
		d := Subset{Fraction: 0.3, Policy: PolicyCluster, Seed: seed}.design(runs, nil)
		if d.policy != PolicyCluster || d.clusters != 20 || d.chosenClusters != 6 {
			t.Fatalf("seed %d: policy %s, %d of %d clusters; want cluster, 6 of 20", seed, d.policy, d.chosenClusters, d.clusters)
		}
		in := map[string]int{}
		size := map[string]int{}
		for _, r := range runs {
			size[r.System]++
			if d.deepRuns[r.ID] {
				in[r.System]++
			}
			if d.pi[r.ID] != 6.0/20 {
				t.Fatalf("seed %d: run %s has pi %v, want 0.3", seed, r.ID, d.pi[r.ID])
			}
		}
		key := ""
		for c, n := range in {
			if n != size[c] {
				t.Fatalf("seed %d: cluster %s has %d of its %d runs labelled", seed, c, n, size[c])
			}
		}
		for c := range 20 {
			if in[fmt.Sprintf("s%02d", c)] > 0 {
				key += fmt.Sprintf("%02d ", c)
			}
		}
		if len(in) != 6 || float64(len(d.deepRuns)) != d.target {
			t.Fatalf("seed %d: %d clusters labelled, %d runs, target %v", seed, len(in), len(d.deepRuns), d.target)
		}
		chosen[seed] = key
		// The runs in reverse order draw the same clusters.
		rev := make([]inspection.Run, len(runs))
		for i, r := range runs {
			rev[len(runs)-1-i] = r
		}
		d2 := Subset{Fraction: 0.3, Policy: PolicyCluster, Seed: seed}.design(rev, nil)
		if len(d2.deepRuns) != len(d.deepRuns) {
			t.Fatalf("seed %d: the runs' order changed the subset", seed)
		}
		for id := range d.deepRuns {
			if !d2.deepRuns[id] {
				t.Fatalf("seed %d: the runs' order changed the subset", seed)
			}
		}
	}
	distinct := map[string]bool{}
	for _, k := range chosen {
		distinct[k] = true
	}
	if len(distinct) < 4 {
		t.Errorf("5 seeds chose only %d distinct sets of clusters: %v", len(distinct), chosen)
	}
}

// TestClusterPolicyEstimateCoverage simulates --deep-policy cluster: G
// clusters of 10 to 30 runs, a cluster-level deep pass rate drawn from a
// Beta with mean 0.5 and intra-cluster correlation 0.3, light's forecast
// a noisy reading of the run's deep outcome; half the clusters labelled
// whole by the policy's draw. The 95% intervals of the clustered
// classical and PPI++ pass-rate estimates the estimate section reports
// (statistician.ClusterClassicalMean on the labelled runs,
// statistician.ClusterPPIMean on all) should cover the process mean 0.5
// in 93.5-96.5% of 2,000 data sets at G = 60 (30 labelled clusters); the
// item-level PPI++ interval (as if the labelled runs were a simple random
// sample) is logged for comparison. Skipped under -short.
func TestClusterPolicyEstimateCoverage(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("simulation: 2,000 datasets, about 30 s on 2 cores, minutes under the race detector")
	}
	const sims, g, mu, icc = 2000, 60, 0.5, 0.3
	// Beta(a, b) with mean mu and ICC 1/(a+b+1).
	ab := 1/icc - 1
	a, b := mu*ab, (1-mu)*ab
	cover := map[string]int{}
	for sim := range sims {
		rng := rand.New(rand.NewPCG(uint64(sim), 2029))
		var runs []inspection.Run
		var y, f []float64
		var cl []string
		for c := range g {
			rate := betaDraw(rng, a, b)
			for i := range 10 + rng.IntN(21) {
				runs = append(runs, inspection.Run{ID: fmt.Sprintf("c%02d-%02d", c, i), System: fmt.Sprintf("c%02d", c)})
				v := 0.0
				if rng.Float64() < rate {
					v = 1
				}
				y, f = append(y, v), append(f, math.Max(0, math.Min(1, 0.3+0.4*v+0.15*rng.NormFloat64())))
				cl = append(cl, runs[len(runs)-1].System)
			}
		}
		d := Subset{Fraction: 0.5, Policy: PolicyCluster, Seed: uint64(sim)}.design(runs, nil)
		labelled := make([]bool, len(runs))
		var yl, fl, fu []float64
		var cll []string
		for i, r := range runs {
			labelled[i] = d.deepRuns[r.ID]
			if labelled[i] {
				yl, fl, cll = append(yl, y[i]), append(fl, f[i]), append(cll, cl[i])
			} else {
				fu = append(fu, f[i])
			}
		}
		for name, e := range map[string]statistician.Estimate{
			"clustered classical": statistician.ClusterClassicalMean(yl, cll, 0.95).ClampTo(0, 1),
			"clustered ppi":       statistician.ClusterPPIMean(f, y, labelled, cl, 0.95).ClampTo(0, 1),
			"item-level ppi":      statistician.PPIMean(yl, fl, fu, 0.95),
		} {
			if e.Reason != "" {
				t.Fatalf("sim %d: %s: %s", sim, name, e.Reason)
			}
			if e.CI.Lower <= mu && mu <= e.CI.Upper {
				cover[name]++
			}
		}
	}
	for name, c := range cover {
		t.Logf("%s covers %.1f%%", name, 100*float64(c)/sims)
	}
	for _, name := range []string{"clustered classical", "clustered ppi"} {
		if p := float64(cover[name]) / sims; p < 0.935 || p > 0.965 {
			t.Errorf("%s covers %.1f%%, want 93.5-96.5%%", name, 100*p)
		}
	}
}

// betaDraw is a Beta(a, b) draw from two gamma draws (Marsaglia and Tsang
// 2000 for shape >= 1, boosted by U^(1/shape) below 1).
func betaDraw(rng *rand.Rand, a, b float64) float64 {
	x, y := gammaDraw(rng, a), gammaDraw(rng, b)
	return x / (x + y)
}

func gammaDraw(rng *rand.Rand, k float64) float64 {
	if k < 1 {
		return gammaDraw(rng, k+1) * math.Pow(rng.Float64(), 1/k)
	}
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		z := rng.NormFloat64()
		v := 1 + c*z
		if v <= 0 {
			continue
		}
		v = v * v * v
		if u := rng.Float64(); math.Log(u) < 0.5*z*z+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}

// TestClusteredShardsMergeToTheUnshardedReport: with --cluster task
// (a metadata field), --deep-policy cluster and a judge family, three
// shards merge to the report of one unsharded run: the clusters of
// light-only runs travel with their metadata, and every shard draws the
// same clusters.
func TestClusteredShardsMergeToTheUnshardedReport(t *testing.T) {
	edit := func(c *Config) {
		c.Cluster, c.JudgeFamily, c.Families = "task", "openai", map[string]string{"grok-2": "openai"}
		c.Subset = Subset{Fraction: 0.5, Policy: PolicyCluster, Seed: 1}
	}
	whole := clusterBiasRun(t, edit)
	var shards []*report.Report
	var names []string
	for i := 1; i <= 3; i++ {
		shards = append(shards, clusterBiasRun(t, func(c *Config) { edit(c); c.ShardIndex, c.ShardCount = i, 3 }))
		names = append(names, fmt.Sprintf("s%d.yaml", i))
	}
	merged, err := Merge(shards, names, Finish{})
	if err != nil {
		t.Fatal(err)
	}
	if whole.Estimate == nil || whole.Estimate.Cluster == nil || whole.Bias == nil {
		t.Fatalf("the unsharded report lacks the clustered estimates or the bias section")
	}
	if d := cmp.Diff(whole, merged, ignoreVolatile, cmpopts.EquateEmpty()); d != "" {
		t.Errorf("merged differs from the unsharded report (-whole +merged):\n%s", d)
	}
}

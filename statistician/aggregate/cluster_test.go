package aggregate

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
)

// clusteredComparisons is n runs in g systems (uneven: run i is in
// system i*i mod g) and, by the map, in tasks; agreement is more likely
// in some systems than others.
func clusteredComparisons(seed uint64, n, g, tasks int) ([]comparator.Comparison, map[string]string) {
	rng := rand.New(rand.NewPCG(seed, 29))
	rate := make([]float64, g)
	for i := range rate {
		rate[i] = 0.5 + 0.45*rng.Float64()
	}
	var cs []comparator.Comparison
	task := map[string]string{}
	for i := range n {
		id := fmt.Sprintf("run-%03d", i)
		s := (i * i) % g
		m := rng.Float64() < rate[s]
		lv, dv := inspection.VerdictPass, inspection.VerdictPass
		if !m {
			dv = inspection.VerdictFail
		}
		cs = append(cs, comparator.Comparison{RunID: id, System: fmt.Sprintf("sys-%d", s), LightVerdict: lv, DeepVerdict: dv, VerdictMatch: m})
		task[id] = fmt.Sprintf("task-%d", i%tasks)
	}
	return cs, task
}

// TestTwoClustersGiveNoClusteredInterval is issue 29's AlpacaEval case:
// two systems (system = model) gave a "cluster-robust" interval narrower
// than Wilson's, with no warning. Now there is none, and a reason.
func TestTwoClustersGiveNoClusteredInterval(t *testing.T) {
	cs, _ := clusteredComparisons(1, 400, 2, 10)
	c := clusteredAgreement(Input{Comparisons: cs})
	if c.CI95 != nil || c.DesignEffect != nil || c.Method != "" {
		t.Fatalf("2 clusters gave an interval: %+v", c)
	}
	if c.Clusters != 2 || c.Percent == nil || !strings.Contains(c.Reason, "2 clusters, need at least 5") || c.Field != ClusterSystem {
		t.Errorf("clustered %+v: want the percent, 2 clusters by system and a reason", c)
	}
}

// TestClusteredAgreementNeverNarrowerThanWilson: on 200 data sets with
// 5 to 40 clusters the clustered interval contains Wilson's (its
// effective size is at most N and its t quantile at least z).
func TestClusteredAgreementNeverNarrowerThanWilson(t *testing.T) {
	for seed := range uint64(200) {
		g := 5 + int(seed%36)
		cs, _ := clusteredComparisons(seed, 60+int(seed), g, 7)
		c := clusteredAgreement(Input{Comparisons: cs})
		w := agreement(countMatches(cs), len(cs))
		if c.CI95 == nil {
			// Every cluster agreeing equally is possible but has a reason.
			if c.Reason == "" {
				t.Fatalf("seed %d: no interval and no reason: %+v", seed, c)
			}
			continue
		}
		if c.CI95.Lower > w.Wilson95.Lower+1e-9 || c.CI95.Upper < w.Wilson95.Upper-1e-9 {
			t.Fatalf("seed %d (%d clusters): clustered %v narrower than Wilson %v", seed, c.Clusters, *c.CI95, *w.Wilson95)
		}
		small := strings.Contains(c.Note, "small-sample")
		if small != (c.Clusters < SmallClusters) || c.Method == "" || c.DF == nil {
			t.Fatalf("seed %d: %d clusters, note %q, method %q", seed, c.Clusters, c.Note, c.Method)
		}
	}
}

// TestClusteredAgreementUsesTheNamedField: with a cluster field the
// clusters are the map's values, not the systems.
func TestClusteredAgreementUsesTheNamedField(t *testing.T) {
	cs, task := clusteredComparisons(3, 120, 3, 12) // i*i mod 3 puts the runs in 2 systems
	c := clusteredAgreement(Input{Comparisons: cs, ClusterField: "task", Clusters: task})
	if c.Field != "task" || c.Clusters != 12 || c.CI95 == nil {
		t.Fatalf("clustered by task: %+v, want 12 clusters and an interval", c)
	}
	bySystem := clusteredAgreement(Input{Comparisons: cs})
	if bySystem.Clusters != 2 || bySystem.CI95 != nil {
		t.Fatalf("clustered by system: %+v, want 2 clusters and no interval", bySystem)
	}
}

func countMatches(cs []comparator.Comparison) int {
	n := 0
	for _, c := range cs {
		if c.VerdictMatch {
			n++
		}
	}
	return n
}

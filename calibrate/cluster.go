package calibrate

import (
	"fmt"
	"math"
	"sort"

	"github.com/evalcal/evalcal/report"
	"github.com/evalcal/evalcal/sampler"
	"github.com/evalcal/evalcal/statistician"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// PolicyCluster labels whole clusters: a seeded simple random sample of
// the clusters (by the --cluster field, system by default) is inspected
// deep, every run of a chosen cluster and none of the others.
const PolicyCluster = "cluster"

// ClusterFields are the fields a run can be clustered by before run
// metadata: its system.
var ClusterFields = []string{aggregate.ClusterSystem}

// checkClusterField says why field cannot cluster runs, or nil.
func checkClusterField(field string) error {
	for _, f := range ClusterFields {
		if field == f {
			return nil
		}
	}
	return fmt.Errorf("calibrate: cannot cluster by %q: the fields are %v", field, ClusterFields)
}

// clusterOfRun is run r's cluster under field ("" is system).
func clusterOfRun(field string, r sampler.Run) string {
	return r.System
}

// clusterOfSample is the cluster of a sampled run of the report.
func clusterOfSample(field string, r report.SampleRun) string {
	return r.System
}

// clusterMap maps each sampled run of rep to its cluster under the
// inputs' cluster field; nil when no field was named (the system, which
// aggregate reads from the comparisons).
func clusterMap(rep *report.Report) map[string]string {
	field := rep.Inputs.Cluster
	if field == "" || field == aggregate.ClusterSystem {
		return nil
	}
	out := make(map[string]string, len(rep.Sample.Runs))
	for _, r := range rep.Sample.Runs {
		out[r.ID] = clusterOfSample(field, r)
	}
	return out
}

// selectClusters draws the cluster policy's subset: with G clusters among
// the N sampled runs and a target of n deep inspections, the
// k = round(G n/N) clusters (at least 1) with the smallest
// draw(seed, "cluster\x00" + name) are inspected deep, so every run has
// inclusion probability k/G and the subset is the same in every shard.
// The expected size recorded is the number of runs in the chosen
// clusters.
func (d *design) selectClusters(runs []sampler.Run) {
	field := d.subset.Cluster
	members := map[string][]string{}
	for _, r := range runs {
		c := clusterOfRun(field, r)
		members[c] = append(members[c], r.ID)
	}
	names := make([]string, 0, len(members))
	for c := range members {
		names = append(names, c)
	}
	seed := d.subset.Seed
	sort.Slice(names, func(i, j int) bool {
		ui, uj := draw(seed, "cluster\x00"+names[i]), draw(seed, "cluster\x00"+names[j])
		if ui != uj {
			return ui < uj
		}
		return names[i] < names[j]
	})
	g := len(names)
	k := int(math.Round(float64(g) * d.target / float64(len(runs))))
	k = max(1, min(k, g))
	d.deepRuns = map[string]bool{}
	labelled := 0
	for i, c := range names {
		for _, id := range members[c] {
			d.pi[id] = float64(k) / float64(g)
			if i < k {
				d.deepRuns[id] = true
				labelled++
			}
		}
	}
	d.policy, d.target, d.clusters, d.chosenClusters = PolicyCluster, float64(labelled), g, k
}

// clusterHowChosen says how the cluster policy drew the subset.
func (d *design) clusterHowChosen() string {
	field := d.subset.Cluster
	if field == "" {
		field = aggregate.ClusterSystem
	}
	s := fmt.Sprintf("a seeded simple random sample of %d of the %d clusters by %s, every run of a chosen cluster inspected deep (pi = %d/%d)",
		d.chosenClusters, d.clusters, field, d.chosenClusters, d.clusters)
	if d.chosenClusters < statistician.MinClusters {
		s += fmt.Sprintf("; fewer than %d labelled clusters give no clustered interval: ask for a larger --deep-fraction", statistician.MinClusters)
	}
	return s
}

package calibrate

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/statistician"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// PolicyCluster labels whole clusters: a seeded simple random sample of
// the clusters (by the --cluster field, system by default) is inspected
// deep, every run of a chosen cluster and none of the others.
const PolicyCluster = "cluster"

// checkClusterField says why field cannot name a cluster, or nil: it is
// "" (none named), system or a metadata field name (README.md, "Input
// formats") without surrounding space.
func checkClusterField(field string) error {
	if strings.TrimSpace(field) != field {
		return fmt.Errorf("calibrate: cluster field %q: need system or a metadata field name", field)
	}
	return nil
}

// noCluster starts the cluster name of a run without the cluster field:
// it is a cluster of its own, named so that no field value can equal it.
const noCluster = "\x00run "

// clusterName is the cluster of run id of system sys with metadata md
// under field (system when ""): the field's value, or a cluster of its own
// when the run has no such field.
func clusterName(field, id, sys string, md inspection.Metadata) string {
	if field == "" {
		field = inspection.SystemField
	}
	if v, ok := inspection.Field(sys, md, field); ok {
		return v
	}
	return noCluster + id
}

// clusterMap maps each run of data (paired and light only) to its
// cluster under the inputs' cluster field; nil when no field other than
// system was named (aggregate then clusters by the comparisons' system).
// missing counts the runs without the field, each a cluster of its own.
func clusterMap(field string, data Data) (clusters map[string]string, missing int) {
	if field == "" || field == inspection.SystemField {
		return nil, 0
	}
	clusters = make(map[string]string, len(data.Comparisons)+len(data.LightOnly))
	add := func(id, sys string, md inspection.Metadata) {
		c := clusterName(field, id, sys, md)
		if strings.HasPrefix(c, noCluster) {
			missing++
		}
		clusters[id] = c
	}
	for _, c := range data.Comparisons {
		add(c.RunID, c.System, c.Metadata)
	}
	for _, l := range data.LightOnly {
		add(l.RunID, l.System, l.Metadata)
	}
	return clusters, missing
}

// selectClusters draws the cluster policy's subset: with G clusters among
// the N sampled runs and a target of n deep inspections, the
// k = round(G n/N) clusters (at least 1) with the smallest
// draw(seed, "cluster\x00" + name) are inspected deep, so every run has
// inclusion probability k/G and the subset is the same in every shard.
// The expected size recorded is the number of runs in the chosen
// clusters.
func (d *design) selectClusters(runs []inspection.Run) {
	field := d.subset.Cluster
	members := map[string][]string{}
	for _, r := range runs {
		c := clusterName(field, r.ID, r.System, r.Metadata)
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

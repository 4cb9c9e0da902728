package advisor

import "fmt"

// clusterRule: a flag that deep finds and light misses in at least
// ClusterMin runs is a clustered failure mode, the priority target: add a
// light check for it, phrased for light's kind of inspector.
var clusterRule = Rule{Name: "cluster", Rank: RankCluster, Fire: func(f *Facts) []Recommendation {
	var out []Recommendation
	for _, flag := range sortedKeys(f.DeepOnly) {
		runs := f.DeepOnly[flag]
		if len(runs) < ClusterMin {
			continue
		}
		out = append(out, Recommendation{
			Rule:           "cluster",
			Target:         "light check for " + flag,
			Rationale:      fmt.Sprintf("deep raised %q on %d runs where light did not (%s): disagreements cluster around this failure mode, the priority improvement target", flag, len(runs), list(runs)),
			ProposedChange: f.Light.catchFlag(flag),
			Addresses:      runs,
		})
	}
	return out
}}

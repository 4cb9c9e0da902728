package advisor

import (
	"fmt"

	"github.com/evalcal/evalcal/statistician/aggregate"
)

// optimisticRule: light scores higher than deep (aggregate.Optimistic):
// add the structural checks that catch what deep finds, naming the
// deep-only flags that recur.
var optimisticRule = Rule{Name: "optimistic", Rank: RankBias, Fire: func(f *Facts) []Recommendation {
	st := f.Stats
	if st.BiasDirection != aggregate.Optimistic {
		return nil
	}
	var recurring, runs []string
	for _, flag := range sortedKeys(f.DeepOnly) {
		if len(f.DeepOnly[flag]) >= ClusterMin {
			recurring = append(recurring, flag)
		}
		runs = append(runs, f.DeepOnly[flag]...)
	}
	what := "the issues deep finds"
	if len(recurring) > 0 {
		what = "the deep-only flags " + list(recurring)
	}
	return []Recommendation{{
		Rule:   "optimistic",
		Target: "light structural checks",
		Rationale: fmt.Sprintf("light is optimistic: deep scores are lower by %.1f (runtime fidelity) and %.1f (task effectiveness) points on average",
			-st.MeanScoreDelta.RuntimeFidelity.Mean, -st.MeanScoreDelta.TaskEffectiveness.Mean),
		ProposedChange: "add structural checks to the light eval that catch " + what + ", and lower light's score caps where those checks fail" + scaleOffset(f.Comparisons),
		Addresses:      dedupe(runs),
	}}
}}

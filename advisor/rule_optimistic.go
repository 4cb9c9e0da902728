package advisor

import "github.com/evalcal/evalcal/statistician/aggregate"

// optimisticRule: light scores higher than deep (aggregate.Optimistic).
// Where light's verdicts err the same way or neither way, make light
// catch what deep finds, naming the deep-only flags that recur, and
// address the runs with deep-only flags (without flags: the runs light
// rates above deep). Where its verdicts are strict (Direction.Conflict),
// the gap is one of scale (scaleRecommendation).
var optimisticRule = Rule{Name: "optimistic", Rank: RankBias, Fire: func(f *Facts) []Recommendation {
	st := f.Stats
	if st.BiasDirection != aggregate.Optimistic {
		return nil
	}
	if f.Direction.Conflict() {
		return []Recommendation{scaleRecommendation("optimistic", f)}
	}
	var recurring, runs []string
	for _, flag := range sortedKeys(f.DeepOnly) {
		if len(f.DeepOnly[flag]) >= ClusterMin {
			recurring = append(recurring, flag)
		}
		runs = append(runs, f.DeepOnly[flag]...)
	}
	if len(f.DeepOnly) == 0 {
		runs = f.Above
	}
	what := "the issues deep finds"
	if len(recurring) > 0 {
		what = "the deep-only flags " + list(recurring)
	}
	target := "what light catches"
	if f.Light.src == SourceBuiltin {
		target = "light structural checks"
	}
	return []Recommendation{{
		Rule:           "optimistic",
		Target:         target,
		Rationale:      f.Direction.ScoreWords(st.MeanScoreDelta.RuntimeFidelity.Mean, st.MeanScoreDelta.TaskEffectiveness.Mean),
		ProposedChange: f.Light.stricter(what) + scaleOffset(f.Direction),
		Addresses:      dedupe(runs),
	}}
}}

package advisor

import (
	"fmt"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// pessimisticRule: light scores lower than deep (aggregate.Pessimistic):
// relax the criteria behind light's false positives, naming the
// light-only flags.
var pessimisticRule = Rule{Name: "pessimistic", Rank: RankBias, Fire: func(f *Facts) []Recommendation {
	st := f.Stats
	if st.BiasDirection != aggregate.Pessimistic {
		return nil
	}
	var runs []string
	for _, flag := range sortedKeys(f.LightOnly) {
		runs = append(runs, f.LightOnly[flag]...)
	}
	crit := "the criteria behind its false positives"
	if len(f.LightOnly) > 0 {
		crit = "the criteria behind the light-only flags " + list(sortedKeys(f.LightOnly))
	}
	return []Recommendation{{
		Rule:   "pessimistic",
		Target: "light criteria that trigger false positives",
		Rationale: fmt.Sprintf("light is pessimistic: deep scores are higher by %.1f (runtime fidelity) and %.1f (task effectiveness) points on average",
			st.MeanScoreDelta.RuntimeFidelity.Mean, st.MeanScoreDelta.TaskEffectiveness.Mean),
		ProposedChange: "relax " + crit + " (a light-only flag may be caution, not error: check each against deep's evidence first)" + scaleOffset(f.Comparisons),
		Addresses:      dedupe(runs),
	}}
}}

// scaleOffset says how much of the bias is a constant offset: the mean
// deep-minus-light delta (over both scores) on the runs whose verdicts
// agree. A light eval whose scores are capped (the builtin caps light at
// 85/80) shows such an offset on clean runs; it is a scale difference,
// not a criterion to change. Empty when the offset is within the bias
// threshold.
func scaleOffset(cs []comparator.Comparison) string {
	n, sum := 0, 0.0
	for _, c := range cs {
		if c.VerdictMatch {
			n++
			sum += (c.RuntimeFidelityDelta + c.TaskEffectivenessDelta) / 2
		}
	}
	if n == 0 {
		return ""
	}
	m := sum / float64(n)
	if m > -aggregate.BiasThreshold && m < aggregate.BiasThreshold {
		return ""
	}
	return fmt.Sprintf("; note that on the %d runs whose verdicts agree deep still differs by %+.1f points on average: that part is a scale offset (such as a cap on light's scores), so rescale light's scores or gate on verdicts rather than raw scores", n, m)
}

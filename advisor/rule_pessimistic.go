package advisor

import (
	"fmt"

	"github.com/evalcal/evalcal/statistician/aggregate"
)

// pessimisticRule: light scores lower than deep (aggregate.Pessimistic).
// Where light's verdicts err the same way or neither way, relax the
// criteria behind the light-only flags and address the runs they were
// raised on (without flags: the runs light rates below deep). Where its
// verdicts are lenient (Direction.Conflict), the gap is one of scale
// (scaleRecommendation): relaxing criteria would make light more lenient
// still.
var pessimisticRule = Rule{Name: "pessimistic", Rank: RankBias, Fire: func(f *Facts) []Recommendation {
	st := f.Stats
	if st.BiasDirection != aggregate.Pessimistic {
		return nil
	}
	if f.Direction.Conflict() {
		return []Recommendation{scaleRecommendation("pessimistic", f)}
	}
	var runs []string
	for _, flag := range sortedKeys(f.LightOnly) {
		runs = append(runs, f.LightOnly[flag]...)
	}
	target := "light's scoring criteria"
	change := f.Light.looser("the criteria that make light score runs lower than deep does") + " (check each against deep's evidence first)"
	if len(f.LightOnly) > 0 {
		target = "light criteria behind light-only flags"
		change = f.Light.looser("the criteria behind the light-only flags "+list(sortedKeys(f.LightOnly))) + " (a light-only flag may be caution, not error: check each against deep's evidence first)"
	} else {
		runs = f.Below
	}
	return []Recommendation{{
		Rule:           "pessimistic",
		Target:         target,
		Rationale:      f.Direction.ScoreWords(st.MeanScoreDelta.RuntimeFidelity.Mean, st.MeanScoreDelta.TaskEffectiveness.Mean),
		ProposedChange: change + scaleOffset(f.Direction),
		Addresses:      dedupe(runs),
	}}
}}

// scaleRecommendation is the bias rule's advice when light's scores and
// its verdicts err different ways (Direction.Conflict): it says why
// (Direction.Why) and proposes a change of scale, not of criteria, which
// changes no verdict (BasisScale).
func scaleRecommendation(rule string, f *Facts) Recommendation {
	st, d := f.Stats, f.Direction
	l := st.Leniency
	change := "compare verdicts rather than raw scores"
	if d.hasOffset() {
		change = fmt.Sprintf("rescale light's scores (deep differs by %+.2f points on the runs whose verdicts agree) or compare verdicts rather than raw scores", d.Offset)
	}
	return Recommendation{
		Rule:   rule,
		Target: "light's score scale",
		Rationale: fmt.Sprintf("%s, yet %s (it passes %d runs deep does not, and deep passes %d light does not): %s",
			d.ScoreWords(st.MeanScoreDelta.RuntimeFidelity.Mean, st.MeanScoreDelta.TaskEffectiveness.Mean), d.VerdictWords(),
			l.LightPassDeepNot, l.DeepPassLightNot, d.Why()),
		ProposedChange: change + "; do not change light's criteria for the score gap, which runs against its verdict errors",
		ExpectedImpact: f.unchanged(BasisScale),
	}
}

// scaleOffset says how much of the bias is a constant offset: the mean
// deep-minus-light delta (over both scores) on the runs whose verdicts
// agree. A light eval whose scores are capped (the builtin caps light at
// 85/80) shows such an offset on clean runs; it is a scale difference,
// not a criterion to change. Empty when the offset is within the bias
// threshold.
func scaleOffset(d Direction) string {
	if !d.hasOffset() {
		return ""
	}
	return fmt.Sprintf("; note that on the %d runs whose verdicts agree deep still differs by %+.1f points on average: that part is a scale offset (such as a cap on light's scores), so rescale light's scores or gate on verdicts rather than raw scores", d.OffsetRuns, d.Offset)
}

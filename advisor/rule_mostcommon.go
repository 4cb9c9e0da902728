package advisor

import (
	"fmt"

	"github.com/evalcal/evalcal/comparator"
)

// mostCommonTypeRule: with agreement under LowAgreement, the most common
// disagreement type (ties broken by the fixed order comparator.Types)
// comes first.
var mostCommonTypeRule = Rule{Name: "most-common-type", Rank: RankMostCommon, Fire: func(f *Facts) []Recommendation {
	if !f.Low {
		return nil
	}
	var best comparator.DisagreementType
	for _, t := range comparator.Types {
		if len(f.TypeRuns[t]) > len(f.TypeRuns[best]) {
			best = t
		}
	}
	if best == "" {
		return nil
	}
	return []Recommendation{typeRecommendation(best, f)}
}}

func typeRecommendation(t comparator.DisagreementType, f *Facts) Recommendation {
	runs := f.TypeRuns[t]
	r := Recommendation{
		Rule:      "most-common-type",
		Rationale: fmt.Sprintf("agreement is low; %s is the most common disagreement (%d of %d runs: %s)", t, len(runs), f.N, list(runs)),
		Addresses: runs,
	}
	switch t {
	case comparator.VerdictSplit:
		r.Target = "light verdict thresholds"
		r.ProposedChange = "light and deep reach different verdicts: " + f.Light.reviewSplits()
	case comparator.FalseNegative:
		r.Target = "light coverage"
		r.ProposedChange = "light misses what deep finds: " + f.Light.stricter("the flags "+list(sortedKeys(f.DeepOnly)))
	case comparator.SeverityMismatch:
		r.Target = "light flag severities"
		r.ProposedChange = "align light's severity criteria with deep's"
	case comparator.FalsePositive:
		r.Target = "light criteria that trigger false positives"
		r.ProposedChange = "light raises flags deep does not: " + f.Light.looser("the criteria behind the flags "+list(sortedKeys(f.LightOnly))) + ", or drop them"
	}
	return r
}

package advisor

import "fmt"

// allAgreeRule: every run agrees: add adversarial and edge-case runs.
var allAgreeRule = Rule{Name: "all-agree", Rank: RankAllAgree, Fire: func(f *Facts) []Recommendation {
	if f.N == 0 || len(f.Disagreeing) > 0 {
		return nil
	}
	return []Recommendation{{
		Rule:           "all-agree",
		Target:         "calibration sample",
		Rationale:      fmt.Sprintf("light and deep agree on all %d runs: the sample may be too easy to tell them apart", f.N),
		ProposedChange: f.Light.harderRuns(),
		ExpectedImpact: f.unchanged(BasisSample),
	}}
}}

package advisor

import "fmt"

// preliminaryRule: 5 runs or fewer (aggregate's Preliminary): collect
// more before acting.
var preliminaryRule = Rule{Name: "preliminary", Rank: RankPreliminary, Fire: func(f *Facts) []Recommendation {
	if !f.Stats.Preliminary {
		return nil
	}
	return []Recommendation{{
		Rule:           "preliminary",
		Target:         "calibration sample",
		Rationale:      fmt.Sprintf("only %d runs: results are preliminary", f.N),
		ProposedChange: "calibrate on at least 10 runs (20 for high confidence) from several systems before gating on the light eval",
		ExpectedImpact: f.unchanged(BasisSample),
	}}
}}

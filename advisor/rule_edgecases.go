package advisor

import "fmt"

// edgeCasesRule: with agreement over HighAgreement and no tested rule
// fired, keep the light criteria and pin the remaining disagreements as
// regression runs. "Keep the light criteria" is not said beside a tested
// finding that they should change.
var edgeCasesRule = Rule{Name: "edge-cases", Rank: RankEdgeCases, Fire: func(f *Facts) []Recommendation {
	if f.N == 0 || f.Agree <= HighAgreement || len(f.Disagreeing) == 0 || f.FiredTested() {
		return nil
	}
	return []Recommendation{{
		Rule:           "edge-cases",
		Target:         "light eval reliability",
		Rationale:      fmt.Sprintf("agreement is high (%.2f%%); the remaining disagreements are edge cases (%s)", f.Agree, list(f.Disagreeing)),
		ProposedChange: "keep the light criteria as they are; add these runs to a regression set so light keeps agreeing with deep on them",
		Addresses:      append([]string(nil), f.Disagreeing...),
	}}
}}

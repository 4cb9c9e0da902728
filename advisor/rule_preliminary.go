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
		ExpectedImpact: sampleImpact(f),
	}}
}}

// sampleImpact is the impact of a change to the calibration sample: no
// verdict changes (BasisSample).
func sampleImpact(f *Facts) Impact {
	im := Impact{N: f.N, Basis: BasisSample}
	if f.N > 0 {
		im.CurrentPercent = 100 * float64(f.Matches) / float64(f.N)
		im.AgreementPercent = im.CurrentPercent
	}
	return im
}

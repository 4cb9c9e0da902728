package advisor

// Rank orders the recommendations: a lower rank comes first (among those
// of one impact class, see before); within a rank the larger expected
// gain (Impact.GainPoints), then the target, so the same comparisons give
// the same list. This is the one place the order is decided; each rule
// names its rank in the table (rules.go).
type Rank int

const (
	// RankTested: a finding that passed a significance test, with an
	// impact measured on held-out runs or counts (rules threshold,
	// leniency, weak-system), outranks every rule that fires on counts
	// with an upper-bound impact.
	RankTested Rank = iota
	// RankMostCommon: with agreement under LowAgreement, the most common
	// disagreement type (most-common-type).
	RankMostCommon
	// RankCluster: a failure mode deep finds and light misses on
	// ClusterMin runs or more (cluster).
	RankCluster
	// RankBias: light's scores differ from deep's on average (optimistic,
	// pessimistic).
	RankBias
	// RankSeverity: both depths raise a flag at other severities
	// (severity).
	RankSeverity
	// RankEdgeCases: agreement over HighAgreement, untested: keep light
	// and pin the rest as regression runs (edge-cases).
	RankEdgeCases
	// RankAllAgree: every run agrees: harder runs are needed (all-agree).
	RankAllAgree
	// RankPreliminary: too few runs to act on (preliminary).
	RankPreliminary
)

// before orders two recommendations: first those that change verdicts
// (a positive expected gain), then those about the calibration sample
// (BasisSample), then the changes that resolve no verdict disagreement,
// so a rule whose expected impact is zero never ranks first; within each,
// by rank, then the larger gain, then the target.
func before(ra Rank, a Recommendation, rb Rank, b Recommendation) bool {
	if ca, cb := impactClass(a), impactClass(b); ca != cb {
		return ca < cb
	}
	if ra != rb {
		return ra < rb
	}
	if a.ExpectedImpact.GainPoints != b.ExpectedImpact.GainPoints {
		return a.ExpectedImpact.GainPoints > b.ExpectedImpact.GainPoints
	}
	return a.Target < b.Target
}

func impactClass(r Recommendation) int {
	switch {
	case r.ExpectedImpact.GainPoints > 0:
		return 0
	case r.ExpectedImpact.Basis == BasisSample:
		return 1
	}
	return 2
}

package advisor

// Rank orders the recommendations: a lower rank comes first; within a
// rank the larger expected gain (Impact.GainPoints), then the target, so
// the same comparisons give the same list. This is the one place the
// order is decided; each rule names its rank in the table (rules.go).
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

package advisor

// rules is every advisor rule, in the order they fire. Order matters only
// where a rule reads what fired before it (Facts.Fired, FiredTested): the
// tested rules come first. The output order is the rank's (rank.go).
// Adding a rule is a file with its Fire function and a line here.
var rules = []Rule{
	thresholdRule,
	leniencyRule,
	weakSystemRule,
	mostCommonTypeRule,
	clusterRule,
	optimisticRule,
	pessimisticRule,
	severityRule,
	edgeCasesRule,
	allAgreeRule,
	preliminaryRule,
}

// Rules returns the advisor's rules in the order they fire.
func Rules() []Rule { return append([]Rule(nil), rules...) }

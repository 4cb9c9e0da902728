package advisor

import (
	"fmt"

	"github.com/evalcal/evalcal/comparator"
)

// severityRule: align the severity of flags both depths raise.
var severityRule = Rule{Name: "severity", Rank: RankSeverity, Fire: func(f *Facts) []Recommendation {
	runs := f.TypeRuns[comparator.SeverityMismatch]
	if len(runs) == 0 {
		return nil
	}
	return []Recommendation{{
		Rule:           "severity",
		Target:         "light flag severities",
		Rationale:      fmt.Sprintf("%d runs raise the same flag at another severity at light than at deep (%s)", len(runs), list(runs)),
		ProposedChange: "align light's severity criteria with deep's for these flags, so a critical finding at deep is critical at light",
		Addresses:      runs,
	}}
}}

package report

import (
	"fmt"

	"github.com/evalcal/evalcal/advisor"
	"github.com/evalcal/evalcal/pairwise"
)

// positionCap caps the trust verdict at monitor (README.md, "Pairwise
// judges on run" and "Perturbation tests") when the light judge's verdict
// depends on what should not matter: the position section's consistency
// across the two orders has its Wilson lower bound under
// pairwise.MinConsistencyLower (80%), or a perturbation's excess flip
// rate is significant (its bootstrap interval above 0). Each reason is
// added to why, whatever the level; the cap only lowers gate.
func positionCap(r *Report, trust string, why []string) (string, []string) {
	var reasons []string
	if p := r.Position; p != nil {
		c := p.Judge.Consistency
		if c.CI95 != nil && c.CI95.Lower < pairwise.MinConsistencyLower {
			reasons = append(reasons, fmt.Sprintf("the pairwise judge names the same winner in both orders on %d of %d pairs, lower bound %s, under %s: its verdict depends on the order the runs are shown in",
				c.Count, c.N, percent(100*c.CI95.Lower), percent(100*pairwise.MinConsistencyLower)))
		}
	}
	for _, pt := range r.Perturbations {
		if res := pt.Result; res != nil && res.Significant {
			reasons = append(reasons, fmt.Sprintf("under the %s perturbation light's verdict flips on %s of %d runs against %s across repeats: excess %s [%s, %s], above 0",
				pt.Kind, percent(100*res.FlipRate), res.N, percent(100*res.NoiseRate), percent(100*res.Excess), percent(100*res.CI.Lower), percent(100*res.CI.Upper)))
		}
	}
	if len(reasons) == 0 {
		return trust, why
	}
	why = append(why, reasons...)
	if trust == advisor.TrustGate {
		trust = advisor.TrustMonitor
		why = append(why, "capped at monitor: light's verdict moves with what should not matter")
	}
	return trust, why
}

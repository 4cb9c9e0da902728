package advisor

import (
	"fmt"

	"github.com/evalcal/evalcal/comparator"
	"github.com/evalcal/evalcal/inspection"
	"github.com/evalcal/evalcal/statistician/aggregate"
)

// leniencyRule: a one-sided split at the pass line by exact McNemar
// (leniencyFinding), with the imbalance resolved as its impact
// (lenImbalance). Beside a threshold recommendation it says why; the cuts
// are the fix.
var leniencyRule = Rule{Name: "leniency", Rank: RankTested, Fire: func(f *Facts) []Recommendation {
	r, ok := leniencyFinding(f.Comparisons, f.Stats.Leniency, f.Light)
	if !ok {
		return nil
	}
	if f.Fired("threshold") {
		r.ProposedChange += " (the threshold recommendation gives the cuts on light's score that do it)"
	}
	if !lenImbalance(&r, f.Stats.Leniency, f.N, f.Matches) {
		return nil
	}
	return []Recommendation{r}
}}

// leniencyFinding fires when the verdict-level split at the pass line is
// one-sided beyond chance: McNemar's exact test (aggregate.Leniency) at
// Alpha. It says which way, by how many runs, by how many points light
// misstates the pass rate, and, from the disagreeing runs' summaries,
// which words the stricter side's summaries use and the other's do not
// (DistinctiveTerms): the criteria the lenient side lacks. Its impact is
// the imbalance resolved: the agreement if light erred as often one way as
// the other (BasisImbalance).
func leniencyFinding(cs []comparator.Comparison, l aggregate.Leniency, light side) (Recommendation, bool) {
	// The rule's own level, not aggregate's Significant (which has its
	// own): it fires where it says it does.
	if l.McNemarP == nil || *l.McNemarP >= Alpha || l.LightPassRate == nil || l.DeepPassRate == nil {
		return Recommendation{}, false
	}
	lenient := l.Direction == aggregate.Lenient
	var runs, own, other []string
	for _, c := range cs {
		lp, dp := c.LightVerdict == inspection.VerdictPass, c.DeepVerdict == inspection.VerdictPass
		if lenient && lp && !dp || !lenient && dp && !lp {
			runs = append(runs, c.RunID)
			// The stricter side's summary says why the run does not pass.
			if lenient {
				own, other = append(own, c.DeepSummary), append(other, c.LightSummary)
			} else {
				own, other = append(own, c.LightSummary), append(other, c.DeepSummary)
			}
		}
	}
	gap := *l.LightPassRate - *l.DeepPassRate
	p := *l.McNemarP
	r := Recommendation{
		Rule: "leniency",
		Test: &Test{
			Name:   "exact McNemar (two-sided binomial on the runs light and deep split at the pass line)",
			Detail: fmt.Sprintf("%d runs light passes and deep does not, %d deep passes and light does not", l.LightPassDeepNot, l.DeepPassLightNot),
			P:      &p, Alpha: Alpha,
		},
		Addresses: runs,
	}
	terms := DistinctiveTerms(own, other)
	if lenient {
		r.Target = "light's pass bar (too lenient)"
		r.Rationale = fmt.Sprintf("light passes %d runs deep does not pass and misses %d deep passes (exact McNemar p = %.2g): light overstates the pass rate by %.2f points (%.2f%% against deep's %.2f%%)",
			l.LightPassDeepNot, l.DeepPassLightNot, p, gap, *l.LightPassRate, *l.DeepPassRate)
		r.ProposedChange = light.passBar(true)
		if len(terms) > 0 {
			r.ProposedChange += "; on these runs deep's summaries name what light's do not: " + termList(terms, len(runs), "light's")
		}
	} else {
		r.Target = "light's pass bar (too strict)"
		r.Rationale = fmt.Sprintf("light fails or marks partial %d runs deep passes and passes %d deep does not (exact McNemar p = %.2g): light understates the pass rate by %.2f points (%.2f%% against deep's %.2f%%)",
			l.DeepPassLightNot, l.LightPassDeepNot, p, -gap, *l.LightPassRate, *l.DeepPassRate)
		r.ProposedChange = light.passBar(false)
		if len(terms) > 0 {
			r.ProposedChange += "; on these runs light's summaries name what deep's do not: " + termList(terms, len(runs), "deep's")
		}
	}
	return r, true
}

// lenImbalance sets a leniency recommendation's impact: the agreement if
// light erred as often one way as the other at the pass line, so the
// one-sided excess |b - c| of split runs agreed (BasisImbalance). It
// reports false when there is no excess.
func lenImbalance(r *Recommendation, l aggregate.Leniency, n, matches int) bool {
	excess := l.LightPassDeepNot - l.DeepPassLightNot
	if excess < 0 {
		excess = -excess
	}
	if excess == 0 || n == 0 {
		return false
	}
	r.ExpectedImpact = Impact{
		CurrentPercent:   100 * float64(matches) / float64(n),
		AgreementPercent: 100 * float64(matches+excess) / float64(n),
		VerdictsResolved: excess,
		N:                n,
		Basis:            BasisImbalance,
	}
	r.ExpectedImpact.GainPoints = r.ExpectedImpact.AgreementPercent - r.ExpectedImpact.CurrentPercent
	return true
}
